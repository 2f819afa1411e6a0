// SQL for one tenant schema's user requests: changes a person asked for, waiting for an admin's decision.
import { TenantTables } from './tenant-tables.js';
import { bytesOrNull, num, text, textOrNull, type Raw } from './columns.js';

export interface RequestRow {
  requestuuid: string;
  user_token: string;
  requesttype: string;
  status: string;
  appname: string | null;
  brief: string | null;
  change: Buffer | null;
  fingerprint: string;
  reason: string | null;
  creationtime: number;
  updated: number;
}

function requestOf(r: Raw): RequestRow {
  return {
    requestuuid: text(r, 'requestuuid'),
    user_token: text(r, 'user_token'),
    requesttype: text(r, 'requesttype'),
    status: text(r, 'status'),
    appname: textOrNull(r, 'appname'),
    brief: textOrNull(r, 'brief'),
    change: bytesOrNull(r, 'change'),
    fingerprint: text(r, 'fingerprint'),
    reason: textOrNull(r, 'reason'),
    creationtime: num(r, 'creationtime'),
    updated: num(r, 'updated'),
  };
}

export class RequestStore extends TenantTables {
  /** Opens the request, unless an identical one is open: then that one's uuid (a race cannot make two). */
  async open(r: Omit<RequestRow, 'status' | 'reason' | 'updated'>): Promise<{ requestuuid: string; existed: boolean }> {
    const inserted = await this.sql<{ requestuuid: string }>(`insert into ${this.t}.user_requests (requestuuid, user_token, requesttype, status, appname, brief, change, fingerprint, creationtime, updated)
       values ($1, $2, $3, 'open', $4, $5, $6, $7, $8, $8)
       on conflict (user_token, fingerprint) where status = 'open' do nothing returning requestuuid`,
      [r.requestuuid, r.user_token, r.requesttype, r.appname, r.brief, r.change, r.fingerprint, r.creationtime],
    );
    if (inserted[0]) return { requestuuid: inserted[0].requestuuid, existed: false };
    const [existing] = await this.sql<{ requestuuid: string }>(`select requestuuid from ${this.t}.user_requests where user_token = $1 and fingerprint = $2 and status = 'open'`,
      [r.user_token, r.fingerprint],
    );
    return { requestuuid: existing!.requestuuid, existed: true };
  }

  /** The person's open request with this fingerprint, if there is one. */
  async openWith(token: string, fingerprint: string): Promise<string | null> {
    const [r] = await this.sql<{ requestuuid: string }>(`select requestuuid from ${this.t}.user_requests where user_token = $1 and fingerprint = $2 and status = 'open'`, [token, fingerprint]);
    return r?.requestuuid ?? null;
  }

  /** How many requests with a change the person has open. */
  async openCount(token: string): Promise<number> {
    const [r] = await this.sql<{ n: string }>(`select count(*) as n from ${this.t}.user_requests where user_token = $1 and status = 'open' and change is not null`, [token]);
    return Number(r?.n ?? 0);
  }

  async get(uuid: string, forUpdate = false): Promise<RequestRow | null> {
    const [r] = await this.sql(`select * from ${this.t}.user_requests where requestuuid = $1${forUpdate ? ' for update' : ''}`, [uuid]);
    return r ? requestOf(r) : null;
  }

  /** Closes a request; a canceled one loses its change (nothing was done with it, so nothing of it is kept). */
  async close(uuid: string, status: 'approved' | 'canceled', reason: string, now: number): Promise<void> {
    await this.sql(
      `update ${this.t}.user_requests set status = $2, reason = $3, updated = $4, change = case when $2 = 'canceled' then null else change end where requestuuid = $1`,
      [uuid, status, reason, now],
    );
  }

  async ofUser(token: string, offset: number, limit: number): Promise<{ total: number; rows: RequestRow[] }> {
    const rows = await this.sql(`select *, count(*) over () as total from ${this.t}.user_requests where user_token = $1 order by creationtime desc, requestuuid offset $2 limit $3`,
      [token, offset, limit],
    );
    return { total: rows.length ? Number(rows[0]!.total) : await this.countOf(token), rows: rows.map(requestOf) };
  }

  private async countOf(token: string): Promise<number> {
    const [r] = await this.sql<{ n: string }>(`select count(*) as n from ${this.t}.user_requests where user_token = $1`, [token]);
    return Number(r?.n ?? 0);
  }

  /** Every request in the tenant with the status (all of them for null), newest first. */
  async all(status: string | null, offset: number, limit: number): Promise<{ total: number; rows: RequestRow[] }> {
    const where = status === null ? '' : 'where status = $3';
    const params = status === null ? [offset, limit] : [offset, limit, status];
    const rows = await this.sql(`select * from ${this.t}.user_requests ${where} order by creationtime desc, requestuuid offset $1 limit $2`, params);
    const [count] = await this.sql<{ n: string }>(`select count(*) as n from ${this.t}.user_requests ${status === null ? '' : 'where status = $1'}`, status === null ? [] : [status]);
    return { total: Number(count?.n ?? 0), rows: rows.map(requestOf) };
  }
}
