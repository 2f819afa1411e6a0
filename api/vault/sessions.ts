// Sessions: a client-chosen uuid holding sealed JSON, linked to the person it names, with sliding and final
// expiry capped by the configured maximum lifetime (CONTRACT §4.13).
import type { Sealer } from './sealed.js';
import type { Scope } from './scope.js';
import type { SessionRow } from '../store/sessions.js';
import { NotFoundError, notFound, Messages } from '../errors.js';

const SESSIONS_TABLE = 'sessions';
export type SessionData = Record<string, unknown>;

export class Sessions {
  constructor(
    private readonly sealer: Sealer,
    /** The longest a session may live, and how long one without times lives. */
    private readonly maxSeconds: number,
  ) {}


  async upsert(
    scope: Scope,
    uuid: string,
    userToken: string | null,
    data: SessionData,
    times: { finaltime: number | null; slidingtime: number | null },
  ): Promise<{ expires: number; capped: boolean }> {
    const cap = scope.now + this.maxSeconds;
    const finaltime = times.finaltime === null ? null : Math.min(times.finaltime, cap);
    const slidingtime = times.slidingtime === null ? null : Math.min(times.slidingtime, this.maxSeconds);
    const expires = Math.min(finaltime ?? cap, slidingtime === null ? cap : scope.now + slidingtime);
    // Asked for longer than the longest a session lives: served shorter, and the answer says so.
    const capped = (times.finaltime !== null && times.finaltime > cap) || (times.slidingtime !== null && times.slidingtime > this.maxSeconds);
    // A session naming a person is theirs: sealed under their key, it goes with them when they are erased.
    const sealed = userToken
      ? await this.sealer.sealFor(scope, userToken, { table: SESSIONS_TABLE, rowId: uuid }, data)
      : await this.sealer.seal(scope.tenantId, { table: SESSIONS_TABLE, rowId: uuid }, data, await this.sealer.keys.tenantKey(scope.tenantId));
    await scope.stores.sessions.upsert({ sessionuuid: uuid, user_token: userToken, data: sealed, finaltime, slidingtime, expires }, scope.now);
    return { expires, capped };
  }

  /** The live session, or 404; a read restarts a sliding session's window. */
  async get(scope: Scope, uuid: string): Promise<{ row: SessionRow; data: SessionData }> {
    const store = scope.stores.sessions;
    const row = await store.get(uuid, scope.now);
    if (!row) throw notFound(Messages.sessionNotFound);
    if (row.slidingtime !== null) {
      const next = Math.min(row.finaltime ?? Infinity, row.created + this.maxSeconds, scope.now + row.slidingtime);
      if (next > row.expires) await store.touch(uuid, next);
    }
    const data = row.user_token
      ? await this.sealer.openFor<SessionData>(scope, row.user_token, SESSIONS_TABLE, uuid, row.data).catch((err: unknown) => {
          // The person's key is gone (their row came back from a backup): the session is as gone as they are.
          if (err instanceof NotFoundError) throw notFound(Messages.sessionNotFound);
          throw err;
        })
      : await this.sealer.open<SessionData>(scope.tenantId, SESSIONS_TABLE, uuid, row.data, await this.sealer.keys.tenantKey(scope.tenantId));
    return { row, data };
  }

  async ofUser(scope: Scope, token: string): Promise<{ row: SessionRow; data: SessionData }[]> {
    const rows = await scope.stores.sessions.ofUser(token, scope.now);
    if (!rows.length) return [];
    const key = await this.sealer.keys.key(scope, token);
    const data = await this.sealer.openMany<SessionData>(scope.tenantId, SESSIONS_TABLE, rows.map((r) => ({ rowId: r.sessionuuid, blob: r.data })), key);
    return rows.map((row, i) => ({ row, data: data[i]! }));
  }
}

/** The index fields a session's data may name its person by, in the order they are tried. */
export const SESSION_LINK_FIELDS = ['token', 'login', 'email', 'phone', 'custom'] as const;
