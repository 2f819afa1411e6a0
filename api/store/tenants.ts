// SQL for the tenants table of the global schema.
import { randomBytes } from 'node:crypto';
import { GlobalTables } from './global-tables.js';

export const KEY_SALT_BYTES = 16;

export interface TenantRow {
  id: number;
  name: string;
  org: string;
  email: string | null;
  /** The owner mark (e.g. the operator's Tenant resource uid); null when nobody claimed the tenant. */
  managedby: string | null;
}

function toRow(r: Record<string, unknown>): TenantRow {
  return { id: Number(r.id), name: r.name as string, org: r.org as string, email: (r.email as string | null) ?? null, managedby: (r.managedby as string | null) ?? null };
}

const COLUMNS = 'id, name, org, email, managedby';

export interface TenantChange {
  name?: string | undefined;
  org?: string | undefined;
  email?: string | undefined;
  managedby?: string | undefined;
}

/** A tenant's own key-encryption key as the api keeps it: the HSM object's label and the tenant key it wraps. */
export interface TenantKek {
  label: string;
  wrapped: Buffer;
  /** When it was revoked (seconds); null while in use. */
  revoked: number | null;
}

export class TenantStore extends GlobalTables {
  async byName(name: string): Promise<TenantRow | null> {
    const [r] = await this.sql(`select ${COLUMNS} from ${this.g}.tenants where name = $1`, [name]);
    return r ? toRow(r) : null;
  }

  async byId(id: number): Promise<TenantRow | null> {
    const [r] = await this.sql(`select ${COLUMNS} from ${this.g}.tenants where id = $1`, [id]);
    return r ? toRow(r) : null;
  }

  /** An id for a tenant about to be made: its schema and role come first, its row (what finds it) last. */
  async nextId(): Promise<number> {
    const [r] = await this.sql<{ id: string }>(`select nextval(pg_get_serial_sequence('${this.g}.tenants', 'id')) as id`);
    return Number(r!.id);
  }

  /** The row of a tenant whose id came from nextId; a taken name surfaces as the database's unique violation. */
  async insert(row: TenantRow, created: number): Promise<void> {
    await this.sql(`insert into ${this.g}.tenants (id, name, org, email, managedby, created, key_salt) values ($1, $2, $3, $4, $5, $6, $7)`, [
      row.id,
      row.name,
      row.org,
      row.email,
      row.managedby,
      created,
      randomBytes(KEY_SALT_BYTES),
    ]);
  }

  /** Sets the given fields; absent ones stay; `managedby: ''` removes the owner mark. */
  async update(id: number, set: TenantChange): Promise<void> {
    await this.sql(
      `update ${this.g}.tenants set name = coalesce($2, name), org = coalesce($3, org), email = coalesce($4, email),
         managedby = case when $5::text is null then managedby else nullif($5::text, '') end where id = $1`,
      [id, set.name ?? null, set.org ?? null, set.email ?? null, set.managedby ?? null],
    );
  }

  /** A page by id; with `managedby`, only the tenants carrying that owner mark. */
  async page(offset: number, limit: number, managedby?: string): Promise<{ total: number; rows: TenantRow[] }> {
    const where = `where $1::text is null or managedby = $1::text`;
    const mark = managedby ?? null;
    const [count] = await this.sql<{ n: number }>(`select count(*)::int as n from ${this.g}.tenants ${where}`, [mark]);
    const rows = await this.sql(`select ${COLUMNS} from ${this.g}.tenants ${where} order by id offset $2 limit $3`, [mark, offset, limit]);
    return { total: count?.n ?? 0, rows: rows.map(toRow) };
  }

  /** Every tenant's id and name, by id. */
  async all(): Promise<{ id: number; name: string }[]> {
    return (await this.sql(`select id, name from ${this.g}.tenants order by id`)).map((r) => ({ id: Number(r.id), name: r.name as string }));
  }

  /** The random salt the tenant's keys derive from: null for a tenant made before salts, undefined for none. */
  async keySalt(id: number): Promise<Buffer | null | undefined> {
    const [r] = await this.sql<{ key_salt: Buffer | null }>(`select key_salt from ${this.g}.tenants where id = $1`, [id]);
    return r ? r.key_salt : undefined;
  }

  /** Every tenant's key salt (null for tenants made before salts). */
  async keySalts(): Promise<Map<number, Buffer | null>> {
    const rows = await this.sql<{ id: number; key_salt: Buffer | null }>(`select id, key_salt from ${this.g}.tenants`);
    return new Map(rows.map((r) => [Number(r.id), r.key_salt]));
  }

  /** Every tenant's KEK, by tenant id (tenants without one are absent). */
  async keks(): Promise<Map<number, TenantKek>> {
    const rows = await this.sql<{ id: number; kek_label: string; kek_wrapped: Buffer; kek_revoked: string | null }>(
      `select id, kek_label, kek_wrapped, kek_revoked from ${this.g}.tenants where kek_label is not null`,
    );
    return new Map(rows.map((r) => [Number(r.id), { label: r.kek_label, wrapped: r.kek_wrapped, revoked: r.kek_revoked === null ? null : Number(r.kek_revoked) }]));
  }

  /** The tenant's KEK; null when it has none, undefined when there is no such tenant. */
  async kek(id: number): Promise<TenantKek | null | undefined> {
    const [r] = await this.sql<{ kek_label: string | null; kek_wrapped: Buffer | null; kek_revoked: string | null }>(
      `select kek_label, kek_wrapped, kek_revoked from ${this.g}.tenants where id = $1`,
      [id],
    );
    if (!r) return undefined;
    if (r.kek_label === null || r.kek_wrapped === null) return null;
    return { label: r.kek_label, wrapped: r.kek_wrapped, revoked: r.kek_revoked === null ? null : Number(r.kek_revoked) };
  }

  /** The tenant's KEK, its row locked until the transaction ends: KEK changes and revocations of a tenant take turns. */
  async lockKek(id: number): Promise<TenantKek | null | undefined> {
    const [r] = await this.sql<{ kek_label: string | null; kek_wrapped: Buffer | null; kek_revoked: string | null }>(
      `select kek_label, kek_wrapped, kek_revoked from ${this.g}.tenants where id = $1 for update`,
      [id],
    );
    if (!r) return undefined;
    if (r.kek_label === null || r.kek_wrapped === null) return null;
    return { label: r.kek_label, wrapped: r.kek_wrapped, revoked: r.kek_revoked === null ? null : Number(r.kek_revoked) };
  }

  /**
   * Sets the tenant's KEK (a new one, or a move to another object); a label another live tenant uses is a unique
   * violation. False when the tenant is gone or its KEK revoked: nothing was set.
   */
  async setKek(id: number, label: string, wrapped: Buffer): Promise<boolean> {
    const rows = await this.sql(`update ${this.g}.tenants set kek_label = $2, kek_wrapped = $3 where id = $1 and kek_revoked is null returning id`, [id, label, wrapped]);
    return rows.length > 0;
  }

  /** Records an object the tenant's key was wrapped by before a move: destroyed with the tenant's KEK, never kept. */
  async retireKek(id: number, label: string, wrapped: Buffer, now: number): Promise<void> {
    await this.sql(`insert into ${this.g}.tenant_kek_retired (tenant_id, label, wrapped, retired) values ($1, $2, $3, $4) on conflict do nothing`, [id, label, wrapped, now]);
  }

  /** The objects the tenant moved off that are not known to be destroyed yet. */
  async retiredKeks(id: number): Promise<{ label: string; wrapped: Buffer }[]> {
    const rows = await this.sql<{ label: string; wrapped: Buffer }>(`select label, wrapped from ${this.g}.tenant_kek_retired where tenant_id = $1 and destroyed is null order by retired`, [id]);
    return rows.map((r) => ({ label: r.label, wrapped: r.wrapped }));
  }

  /** Marks a retired object destroyed (or proven no longer the tenant's). */
  async retiredDestroyed(id: number, label: string, wrapped: Buffer, now: number): Promise<void> {
    await this.sql(`update ${this.g}.tenant_kek_retired set destroyed = $4 where tenant_id = $1 and label = $2 and wrapped = $3`, [id, label, wrapped, now]);
  }

  /** Marks the tenant's KEK revoked (the first time only); answers the time it was revoked. */
  async revokeKek(id: number, now: number): Promise<number> {
    const [r] = await this.sql<{ kek_revoked: string }>(
      `update ${this.g}.tenants set kek_revoked = coalesce(kek_revoked, $2) where id = $1 and kek_label is not null returning kek_revoked`,
      [id, now],
    );
    return Number(r?.kek_revoked ?? now);
  }

  /** Which of these tenant ids still exist. */
  async existing(ids: number[]): Promise<Set<number>> {
    return new Set((await this.sql<{ id: number }>(`select id from ${this.g}.tenants where id = any($1::int[])`, [ids])).map((r) => Number(r.id)));
  }
}
