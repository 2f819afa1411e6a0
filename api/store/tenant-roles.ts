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
    // Functions are executable by PUBLIC unless revoked: the migrations revoke it, but a restore without ACLs
    // (`pg_restore --no-acl`) brings the default back. The vault's own user owns them and keeps its right.
    `revoke execute on all functions in schema ${schema} from public`,
    // Likewise a database's own rights are not in a dump: no temporary schema may shadow the audit functions'
    // search_path (Tenant0014AuditSearchPath). Only the database's owner may say so.
    `do $$ begin if pg_has_role(current_user, (select datdba from pg_database where datname = current_database()), 'usage') then
       execute format('revoke temporary on database %I from public', current_database()); end if; end $$`,
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

/**
 * The tenants whose schema exists but whose role is missing from the cluster (names from `roleOf`): a database
 * restored into an empty cluster, since roles are cluster objects that `pg_dump` leaves out. A new tenant, whose
 * schema is not made yet, is not one. The vault re-creates them (grantTenantRole).
 */
export async function missingTenantRoles(sql: Sql, tenantIds: number[], roleOf: (tenantId: number) => string): Promise<number[]> {
  const rows = await sql.query<{ id: number }>(
    `select t.id from unnest($1::int[], $2::text[], $3::text[]) as t(id, schema, role)
      where exists (select from pg_namespace where nspname = t.schema) and not exists (select from pg_roles where rolname = t.role)`,
    [tenantIds, tenantIds.map(tenantSchema), tenantIds.map(roleOf)],
  );
  return rows.map((r) => Number(r.id));
}

/**
 * What a vault whose database user may not create roles logs: why tenants are isolated by schema only, and the
 * statement that turns per-tenant roles on (run once by a superuser; they are made at the next start).
 */
export function noRolesAdvice(user: string): { msg: string; sql: string } {
  const sql = `ALTER ROLE "${user.replaceAll('"', '""')}" CREATEROLE;`;
  return {
    sql,
    msg: `the database user may not create roles: tenants are isolated by schema only, without per-tenant roles; to isolate them by role too (and re-create the roles a restored database misses), run as a superuser: ${sql} and restart`,
  };
}

/** The tenant's role and everything it owns, gone (the tenant's schema is dropped in the same transaction). */
export async function dropTenantRole(tx: Sql, name: string): Promise<void> {
  const role = `"${name}"`;
  await tx.query(`do $$ begin if exists (select from pg_roles where rolname = '${name}') then drop owned by ${role}; drop role ${role}; end if; end $$`);
}
