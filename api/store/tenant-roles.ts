// A tenant's own database role: made with the tenant (rights on its own schema, the few global tables it reads,
// row-level policies on the shared ones, and the audit trail's grants) and dropped with it. Role names are
// cluster-wide; the Database chooses them (roleOf).
import { GLOBAL_SCHEMA, tenantSchema } from './schemas.js';
import type { Sql } from './sql.js';

/** The tenant's role `name`, created if needed, with its rights; run as the vault's own user. */
export async function grantTenantRole(sql: Sql, { tenantId, role: name }: { tenantId: number; role: string }): Promise<void> {
  const role = `"${name}"`;
  const schema = `"${tenantSchema(tenantId)}"`;
  await sql.query(`do $$ begin if not exists (select from pg_roles where rolname = '${name}') then create role ${role} nologin; end if; end $$`);
  await sql.query(`grant ${role} to current_user`);
  const standing = `"${name}_calls"`;
  await sql.query(`do $$ begin if not exists (select from pg_roles where rolname = '${name}_calls') then create role ${standing} nologin; end if; end $$`);
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
    ...standingGrants(schema, standing),
    `grant ${standing} to ${role}`,
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

/** The tenant's role, its standing role and everything they own, gone (the tenant's schema is dropped in the same transaction). */
export async function dropTenantRole(tx: Sql, name: string): Promise<void> {
  for (const n of [name, `${name}_calls`]) {
    await tx.query(`do $$ begin if exists (select from pg_roles where rolname = '${n}') then drop owned by "${n}"; drop role "${n}"; end if; end $$`);
  }
}

/**
 * What the tenant's role may do with its audit trail (after its rights on every table of its schema): it queues
 * events (plain INSERTs of the columns a write fills, insertGrants) and reads the trail, nothing more. `schema` and
 * `role` are quoted identifiers.
 */
export function auditGrants(schema: string, role: string): string[] {
  return [
    // Only the functions a tenant's calls run (and 0.2.0's writes: audit_enqueue, events_publish). Appending to
    // the trail and locking its head are the chainer's, as the vault's own user: the tenant's role may do neither.
    `revoke execute on all functions in schema ${schema} from ${role}`,
    ...callGrants(schema, role),
    // The audit trail is append-only for the tenant: it only adds to the queue (insertGrants), and PostgreSQL refuses
    // it any UPDATE, DELETE or TRUNCATE of the events, the head or the queue.
    `revoke insert, update, delete, truncate on ${schema}.audit_events, ${schema}.audit_head, ${schema}.audit_queue, ${schema}.audit_refused from ${role}`,
    // Queued events' MACs are not the tenant's to read: a copied row replayed would be a genuine event twice.
    `revoke select on ${schema}.audit_queue, ${schema}.audit_refused from ${role}`,
    ...readGrants(schema, role),
    // How far the trail is checkpointed paces the signing of checkpoints: the tenant may not hold them back.
    `revoke insert, update, delete, truncate on ${schema}.audit_checkpointed from ${role}`,
    // Privacy events, like the audit events they ride with, are only added (insertGrants), never changed by the
    // tenant: a forged or withdrawn erasure notice would mislead every recipient.
    `revoke insert, update, delete, truncate on ${schema}.privacy_events from ${role}`,
    ...insertGrants(schema, role),
    // Checkpoints (and their timestamps) are the vault's to write: the tenant may not plant or change one.
    `revoke insert, update, delete, truncate on ${schema}.audit_checkpoints from ${role}`,
  ];
}

/** The functions a tenant's calls run: granted after a revoke of every function. */
function callGrants(schema: string, role: string): string[] {
  return [`grant execute on function ${schema}.audit_enqueue(uuid[], bigint[], text[], text[], text[], text[], uuid[], text[], text[], bytea[], bytea[]), ${schema}.file_trash_add(), ${schema}.events_publish(jsonb, bigint) to ${role}`];
}

/**
 * What a write adds, as plain INSERTs of the columns it fills (granted after a revoke of the whole table's): its
 * audit events to the queue, each with the tokenizer's MAC, and its privacy events to the outbox. Never the rows'
 * order (`id`) nor an event's fan-out (`fanned`), and never an UPDATE or DELETE of either. A queued row without a
 * genuine MAC is refused when the chainer links it (audit_refused), as one queued through audit_enqueue with a forged
 * one is; audit_enqueue and events_publish stay for the replicas of 0.2.0 that call them.
 */
function insertGrants(schema: string, role: string): string[] {
  return [
    `grant insert (uuid, "when", title, status, msg, actor, record, mode, app, details, mac) on ${schema}.audit_queue to ${role}`,
    `grant insert (uuid, type, "time", person, data) on ${schema}.privacy_events to ${role}`,
  ];
}

/** The queue's columns a tenant reads: granted after a revoke of the whole table's. */
function readGrants(schema: string, role: string): string[] {
  return [
    `grant select (id, uuid, "when", title, status, msg, actor, record, mode, app, details) on ${schema}.audit_queue to ${role}`,
    `grant select (uuid, "when", title, status, msg, actor, record, mode, app, details, refused_at) on ${schema}.audit_refused to ${role}`,
  ];
}

/**
 * The same rights, held by the tenant role's standing role (`<role>_calls`, of which the tenant role is a member):
 * only ever granted, never revoked. A replica that grants the tenant role's rights again revokes before it grants;
 * 0.1.0's did so in separate statements, and a call of another replica landing between the two failed with
 * `permission denied`. Through the standing role the rights never lapse, whoever grants them again, however.
 */
export function standingGrants(schema: string, standing: string): string[] {
  return [...callGrants(schema, standing), ...readGrants(schema, standing), ...insertGrants(schema, standing)];
}
