// SQL for one tenant schema's shared records: which of a person's fields a partner may read, until when.
import { GlobalTables } from './global-tables.js';
import { TenantTables } from './tenant-tables.js';
import { GLOBAL_SCHEMA } from './schemas.js';
import { num, text, textOrNull, textsOrNull, type Raw } from './columns.js';

export interface SharedRow {
  recorduuid: string;
  user_token: string;
  fields: string[] | null;
  appname: string | null;
  partner: string | null;
  created: number;
  expires: number;
}

function sharedOf(r: Raw): SharedRow {
  return {
    recorduuid: text(r, 'recorduuid'),
    user_token: text(r, 'user_token'),
    fields: textsOrNull(r, 'fields'),
    appname: textOrNull(r, 'appname'),
    partner: textOrNull(r, 'partner'),
    created: num(r, 'created'),
    expires: num(r, 'expires'),
  };
}

export class SharedStore extends TenantTables {
  /** The record, and its entry in the global index from record uuid to tenant (on the same connection). */
  async insert(r: SharedRow): Promise<void> {
    await this.sql(`insert into "${GLOBAL_SCHEMA}".shared_record_tenants (recorduuid, tenant_id) values ($1, $2)`, [r.recorduuid, this.tenantId]);
    await this.sql(`insert into ${this.t}.shared_records (recorduuid, user_token, fields, appname, partner, created, expires) values ($1, $2, $3, $4, $5, $6, $7)`,
      [r.recorduuid, r.user_token, r.fields, r.appname, r.partner, r.created, r.expires],
    );
  }

  /** The live record; an expired one reads as absent whether or not the sweeper has removed it. */
  async get(uuid: string, now: number): Promise<SharedRow | null> {
    const [r] = await this.sql(`select * from ${this.t}.shared_records where recorduuid = $1 and expires > $2`, [uuid, now]);
    return r ? sharedOf(r) : null;
  }

  /** Removes one of the person's records (and its index entry); false when they have no such record. */
  async remove(uuid: string, token: string): Promise<boolean> {
    const rows = await this.sql(`delete from ${this.t}.shared_records where recorduuid = $1 and user_token = $2 returning 1`, [uuid, token]);
    if (!rows.length) return false;
    await this.sql(`delete from "${GLOBAL_SCHEMA}".shared_record_tenants where recorduuid = $1`, [uuid]);
    return true;
  }

  async ofUser(token: string, now: number): Promise<SharedRow[]> {
    const rows = await this.sql(`select * from ${this.t}.shared_records where user_token = $1 and expires > $2 order by created`, [token, now]);
    return rows.map(sharedOf);
  }

  async sweep(now: number, batch: number): Promise<number> {
    const rows = await this.sql<{ recorduuid: string }>(
      `delete from ${this.t}.shared_records where recorduuid in (select recorduuid from ${this.t}.shared_records where expires <= $1 limit $2) returning recorduuid`,
      [now, batch],
    );
    if (rows.length) await this.sql(`delete from "${GLOBAL_SCHEMA}".shared_record_tenants where recorduuid = any($1::uuid[])`, [rows.map((r) => r.recorduuid)]);
    return rows.length;
  }
}

/** The global index from a shared record's uuid to its tenant: a public link needs no tenant name. */
export class SharedIndexStore extends GlobalTables {
  async tenantOf(recorduuid: string): Promise<number | null> {
    const [r] = await this.sql(`select tenant_id from ${this.g}.shared_record_tenants where recorduuid = $1`, [recorduuid]);
    return r ? Number(r.tenant_id) : null;
  }
}
