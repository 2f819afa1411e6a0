// SQL for one tenant schema's sessions: sealed data keyed by a client-chosen uuid, optionally linked to a user.
import { TenantTables } from './tenant-tables.js';

export interface SessionRow {
  sessionuuid: string;
  user_token: string | null;
  data: Buffer;
  created: number;
  updated: number;
  finaltime: number | null;
  slidingtime: number | null;
  expires: number;
}

function sessionOf(r: Record<string, unknown>): SessionRow {
  const n = (v: unknown) => (v === null || v === undefined ? null : Number(v));
  return {
    sessionuuid: r.sessionuuid as string,
    user_token: (r.user_token as string | null) ?? null,
    data: r.data as Buffer,
    created: Number(r.created),
    updated: Number(r.updated),
    finaltime: n(r.finaltime),
    slidingtime: n(r.slidingtime),
    expires: Number(r.expires),
  };
}

export class SessionStore extends TenantTables {
  /** The live session; an expired one reads as absent whether or not the sweeper has removed it. */
  async get(uuid: string, now: number): Promise<SessionRow | null> {
    const [r] = await this.sql(`select * from ${this.t}.sessions where sessionuuid = $1 and expires > $2`, [uuid, now]);
    return r ? sessionOf(r) : null;
  }

  async ofUser(token: string, now: number): Promise<SessionRow[]> {
    return (await this.sql(`select * from ${this.t}.sessions where user_token = $1 and expires > $2 order by created, sessionuuid`, [token, now])).map(
      sessionOf,
    );
  }

  /** Creates or replaces the session (an expired one under the same uuid is replaced too). */
  async upsert(s: Omit<SessionRow, 'created' | 'updated'>, now: number): Promise<void> {
    await this.sql(`insert into ${this.t}.sessions (sessionuuid, user_token, data, created, updated, finaltime, slidingtime, expires)
       values ($1, $2, $3, $4, $4, $5, $6, $7)
       on conflict (sessionuuid) do update set user_token = excluded.user_token, data = excluded.data, updated = excluded.updated,
         finaltime = excluded.finaltime, slidingtime = excluded.slidingtime, expires = excluded.expires,
         created = case when ${this.t}.sessions.expires > $4 then ${this.t}.sessions.created else excluded.created end`,
      [s.sessionuuid, s.user_token, s.data, now, s.finaltime, s.slidingtime, s.expires],
    );
  }

  /** A sliding session lives on from its last use, never past its final time. */
  async touch(uuid: string, expires: number): Promise<void> {
    await this.sql(`update ${this.t}.sessions set expires = $2 where sessionuuid = $1 and expires < $2`, [uuid, expires]);
  }

  async remove(uuid: string, now: number): Promise<boolean> {
    return (await this.sql(`delete from ${this.t}.sessions where sessionuuid = $1 and expires > $2 returning 1`, [uuid, now])).length > 0;
  }

  async count(now: number): Promise<number> {
    const [r] = await this.sql<{ n: string }>(`select count(*) as n from ${this.t}.sessions where expires > $1`, [now]);
    return Number(r?.n ?? 0);
  }

  async sweep(now: number, batch: number): Promise<number> {
    const rows = await this.sql(`delete from ${this.t}.sessions where sessionuuid in (select sessionuuid from ${this.t}.sessions where expires <= $1 limit $2) returning 1`,
      [now, batch],
    );
    return rows.length;
  }
}
