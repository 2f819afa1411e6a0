// Shared records (CONTRACT §4.6): a uuid a partner can read without a token until it expires, showing only
// the chosen fields (dotted paths reach inside objects) of a person's profile or of one of their app records.
import { randomUUID } from 'node:crypto';
import type { Users } from './users.js';
import type { Scope } from './scope.js';
import type { Appdata } from './appdata.js';
import type { SharedRow } from '../store/shared.js';
import type { Database } from '../store/database.js';
import { badRequest, notFound, Messages } from '../errors.js';
import { valueAtPath } from './dotted-path.js';
import { capExpiry } from './durations.js';

export class SharedRecords {
  constructor(
    private readonly db: Database,
    private readonly users: Users,
    private readonly appdata: Appdata,
    /** The longest a shared record may live, and how long one without a final time lives. */
    private readonly maxSeconds: number,
  ) {}


  async create(scope: Scope, token: string, share: { fields: string[] | null; appname: string | null; partner: string | null; finaltime: number | null }) {
    // The app record must exist now (OSS); it is read again, as it then is, at every retrieval. Each field named
    // must be there now: a share of nothing is a mistake to say, not a link to hand out.
    if (share.appname !== null || share.fields !== null) {
      const source = await this.source(scope, token, share.appname);
      const missing = share.fields?.find((f) => f !== 'token' && valueAtPath(source, f) === undefined);
      if (missing !== undefined) throw badRequest(`Invalid API request parameter: fields: ${JSON.stringify(missing)} is not in the ${share.appname === null ? 'profile' : 'app record'}`);
    }
    // No final time: the longest allowed, as a default; a later one is cut to it, and the answer says so.
    const { expires, capped } = capExpiry(share.finaltime ?? scope.now + this.maxSeconds, scope.now, this.maxSeconds);
    const row: SharedRow = { recorduuid: randomUUID(), user_token: token, fields: share.fields, appname: share.appname, partner: share.partner, created: scope.now, expires };
    await scope.stores.shared.insert(row);
    return { row, capped };
  }

  /** The tenant a shared record belongs to (the global index), or null. */
  async tenantOf(uuid: string): Promise<number | null> {
    return this.db.global().sharedIndex.tenantOf(uuid);
  }

  /** The shared view, or 404 when the record, its person or its app record no longer exists. */
  async read(scope: Scope, uuid: string): Promise<{ row: SharedRow; data: Record<string, unknown> }> {
    const row = await scope.stores.shared.get(uuid, scope.now);
    if (!row) throw notFound(Messages.sharedRecordNotFound);
    return { row, data: project(await this.source(scope, row.user_token, row.appname), row.fields, row.user_token) };
  }

  /**
   * What a share shows fields of: the person's app record, or their profile. For a retrieval the record's own uuid
   * is the reader's right to it (SharedRecordGet is public): nobody else is judged; a creation has judged its
   * caller already (ops/subject.ts).
   */
  private async source(scope: Scope, token: string, appname: string | null): Promise<Record<string, unknown>> {
    if (appname !== null) return (await this.appdata.get(scope, token, appname)).data;
    return (await this.users.find(scope, 'token', token)).profile;
  }
}

/** Only the listed paths of `source`, in its own shape; `token` is the person's token; missing paths are left out. */
export function project(source: Record<string, unknown>, fields: string[] | null, token: string): Record<string, unknown> {
  if (!fields) return source;
  const out: Record<string, unknown> = {};
  for (const field of fields) {
    if (field === 'token') {
      out.token = token;
      continue;
    }
    const v = valueAtPath(source, field);
    if (v === undefined) continue;
    const path = field.split('.');
    let at = out;
    for (const key of path.slice(0, -1)) {
      const next = at[key];
      at = (at[key] = typeof next === 'object' && next !== null && !Array.isArray(next) ? next : {}) as Record<string, unknown>;
    }
    at[path[path.length - 1]!] = structuredClone(v);
  }
  return out;
}
