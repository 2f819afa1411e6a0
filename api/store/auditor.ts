// The auditor's reads of a trail (`npm run audit:verify`): plain statements on a connection of the command's own,
// in one read-only snapshot, with the store's column list. No key and no api are involved.
import { GLOBAL_SCHEMA, tenantSchema } from './schemas.js';
import { AUDIT_EVENT_COLUMNS } from './audit.js';

/** One statement on the auditor's connection: its rows. */
export type Query = (sql: string, params: unknown[]) => Promise<Record<string, unknown>[]>;

/** The tenant's id, from an id or a name; null when there is none. */
export async function tenantIdOf(query: Query, tenant: string): Promise<number | null> {
  const rows = /^\d+$/.test(tenant)
    ? await query(`select id from "${GLOBAL_SCHEMA}".tenants where id = $1`, [Number(tenant)])
    : await query(`select id from "${GLOBAL_SCHEMA}".tenants where name = $1`, [tenant.toLowerCase()]);
  return rows[0] ? Number(rows[0].id) : null;
}

/** The trail's head as stored: its sequence number, link and digest (none for an empty trail). */
export async function storedHead(query: Query, tenantId: number): Promise<Record<string, unknown> | undefined> {
  const [head] = await query(`select seq, hash, digest from "${tenantSchema(tenantId)}".audit_head where id = 1`, []);
  return head;
}

/** Up to `limit` events after `seq`, in order. */
export function eventsAfter(query: Query, tenantId: number, seq: number, limit: number): Promise<Record<string, unknown>[]> {
  return query(`select ${AUDIT_EVENT_COLUMNS} from "${tenantSchema(tenantId)}".audit_events where seq > $1 order by seq limit $2`, [seq, limit]);
}
