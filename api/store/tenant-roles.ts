// A tenant's own database role: made with the tenant (rights on its own schema, the few global tables it reads,
// row-level policies on the shared ones, and the audit trail's grants) and dropped with it. Role names are
// cluster-wide; the Database chooses them (roleOf).
import { GLOBAL_SCHEMA, tenantSchema } from './schemas.js';
import type { Sql } from './sql.js';
import { auditGrants } from './audit.js';

/** The tenant's role `name`, created if needed, with its rights; run as the vault's own user. */
export async function grantTenantRole(sql: Sql, { tenantId, role: name }: { tenantId: number; role: string }): Promise<void> {
  const role = `"${name}"`;
  const schema = `"${tenantSchema(tenantId)}"`;
  await sql.query(`do $$ begin if not exists (select from pg_roles where rolname = '${name}') then create role ${role} nologin; end if; end $$`);
  await sql.query(`grant ${role} to current_user`);
  for (const statement of [
    `grant usage on schema ${schema} to ${role}`,
    `grant select, insert, update, delete on all tables in schema ${schema} to ${role}`,
    `grant usage, select on all sequences in schema ${schema} to ${role}`,
    ...auditGrants(schema, role),
    `grant usage on schema "${GLOBAL_SCHEMA}" to ${role}`,
    `grant select on "${GLOBAL_SCHEMA}".roles, "${GLOBAL_SCHEMA}".unlocks to ${role}`,
    // A person removed in a tenant's transaction takes their login xtokens along: the role may remove those of
    // its own tenant's people (row-level security, Global0005Credentials) and never sees a hash.
    `grant select (tenant_id, kind, user_token), delete on "${GLOBAL_SCHEMA}".credentials to ${role}`,
    `do $$ begin if not exists (select from pg_policies where schemaname = '${GLOBAL_SCHEMA}' and tablename = 'credentials'
       and policyname = '${name}') then create policy ${role} on "${GLOBAL_SCHEMA}".credentials to ${role}
       using (tenant_id = ${Number(tenantId)} and kind = 'login'); end if; end $$`,
    // Its shared records' entries in the global index from record uuid to tenant, and no other tenant's.
    `grant select, insert, delete on "${GLOBAL_SCHEMA}".shared_record_tenants to ${role}`,
    `do $$ begin if not exists (select from pg_policies where schemaname = '${GLOBAL_SCHEMA}' and tablename = 'shared_record_tenants'
       and policyname = '${name}') then create policy ${role} on "${GLOBAL_SCHEMA}".shared_record_tenants to ${role}
       using (tenant_id = ${Number(tenantId)}) with check (tenant_id = ${Number(tenantId)}); end if; end $$`,
  ]) {
    await sql.query(statement);
  }
}

/** The tenant's role and everything it owns, gone (the tenant's schema is dropped in the same transaction). */
export async function dropTenantRole(tx: Sql, name: string): Promise<void> {
  const role = `"${name}"`;
  await tx.query(`do $$ begin if exists (select from pg_roles where rolname = '${name}') then drop owned by ${role}; drop role ${role}; end if; end $$`);
}
