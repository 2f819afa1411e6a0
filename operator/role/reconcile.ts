// Reconciles a Role: the vault role exists with the spec's description, its policies match the spec and are linked
// to it, and a live xtoken for the referenced Tenant sits in the spec's Secret, replaced before it expires. Only a
// role and policies carrying this resource's owner mark are changed (see ownership.ts), and the xtoken is made only
// in a vault tenant that carries the referenced Tenant's owner mark: never from what a status says.
import { claimVaultName, parseSpec, type ReconcileDeps } from '../deps.js';
import { findCondition } from '../runtime/conditions.js';
import type { ReconcileOutcome, Reconciler } from '../runtime/controller.js';
import { ReconcileError } from '../runtime/reconcile-error.js';
import { ownsTenant } from '../tenant/ownership.js';
import { RoleSpec, TenantSpec, type Role, type RoleStatus } from '../types/resources.js';
import { VaultAnswerError, type RoleInfo } from '../vault-client.js';
import { finalizeRole } from './finalize.js';
import { managedByRival, nameTaken, owns } from './ownership.js';
import { syncPolicies } from './policies.js';
import { ensureXToken, iso, untilRotation, withdrawXToken, type ProvenTenant } from './xtoken.js';

/** How soon to look again at a Role whose Tenant is not ready (its changes also wake the Role). */
const TENANT_WAIT_MS = 30_000;

export function roleReconciler(deps: ReconcileDeps): Reconciler<RoleStatus> {
  return {
    kind: 'Role',
    resources: deps.roles,
    finalize: (obj) => finalizeRole(deps, obj),

    async reconcile(obj, status): Promise<ReconcileOutcome> {
      // Output only: what the status says of vault ids (anyone who may patch it may write it) is dropped, and
      // written again only from what the vault proves below.
      delete status.roleId;
      delete status.tenantId;
      delete status.policies;
      const spec = parseSpec(RoleSpec, obj.spec);
      const tenant = await managedTenant(deps, obj, spec);
      const { id: tenantId, name: tenantName } = tenant;

      const role = await ensureRole(deps, obj, spec);
      status.roleId = role.roleid;
      status.policies = await syncPolicies(deps, obj, spec, role);

      const xtoken = await ensureXToken(deps, obj, spec, tenant, status.xtoken?.secretName);
      status.tenantId = tenantId;
      status.xtoken = { secretName: spec.xtoken.secretName, expiresAt: iso(xtoken.expires), rotateAt: iso(Math.floor(xtoken.rotateAt)) };
      return {
        message: `vault role ${spec.roleName} (id ${role.roleid}) has ${status.policies.length} ${status.policies.length === 1 ? 'policy' : 'policies'}; its xtoken for tenant ${tenantName} is in Secret ${spec.xtoken.secretName} until ${status.xtoken.expiresAt}`,
        requeueAfterMs: untilRotation(xtoken, deps.clock),
      };
    },
  };
}

/**
 * The vault tenant the Role's Tenant resource manages: the one of its spec's name that carries its owner mark.
 * TenantNotReady while there is none (the Tenant's changes wake the Role), whatever the Tenant's status claims. Its
 * Ready condition only says when to go on (the tenant's keys are made after its row): it never names a tenant. When
 * the vault has no tenant of that name carrying the mark any more, the xtoken this Role made is withdrawn.
 */
async function managedTenant(deps: ReconcileDeps, obj: Role, spec: RoleSpec): Promise<ProvenTenant> {
  const ref = spec.tenantRef.name;
  const waiting = (why: string) => new ReconcileError('TenantNotReady', `Tenant ${ref} ${why}`, { retryAfterMs: TENANT_WAIT_MS });
  const lost = async (why: string) => {
    await withdrawXToken(deps, obj, spec, `Tenant ${ref} ${why}`);
    return waiting(why);
  };
  const tenant = await deps.tenants.get(obj.metadata.namespace, ref);
  if (!tenant) throw waiting('does not exist in this namespace');
  if (tenant.metadata.deletionTimestamp) throw waiting('is being deleted');
  const parsed = TenantSpec.safeParse(tenant.spec);
  if (!parsed.success) throw waiting('has an invalid spec');
  const found = await deps.vault.tenantByName(parsed.data.tenantName);
  if (!found) throw await lost(`has no vault tenant ${parsed.data.tenantName} yet`);
  if (!ownsTenant(tenant, found)) throw await lost(`does not manage vault tenant ${found.tenantname}: no xtoken is made for it`);
  if (findCondition(tenant.status?.conditions, 'Ready')?.status !== 'True') throw waiting('is not ready');
  return { id: found.tenantid, name: found.tenantname, managedby: tenant.metadata.uid };
}

/**
 * The vault role, read fresh every pass: created with this resource's owner mark when missing, its description
 * brought in line when it carries the mark, and RoleNameTaken (nothing written) when it does not.
 */
async function ensureRole(deps: ReconcileDeps, obj: Role, spec: RoleSpec): Promise<RoleInfo> {
  let role = await deps.vault.roleGet(spec.roleName);
  if (!role) {
    // No vault role of that name yet: of the Roles naming it, the one created first makes it. Which one manages a
    // vault role is never taken from a status (anyone who may patch it may write it), only from the vault's mark.
    claimVaultName(obj, deps.cachedRoles(), {
      name: spec.roleName,
      nameOf: (o) => (o.spec as Partial<RoleSpec>).roleName,
      managed: () => false,
      reason: 'RoleNameTaken',
    });
    try {
      const { roleid } = await deps.vault.roleCreate({ rolename: spec.roleName, roledesc: spec.description, managedby: obj.metadata.uid });
      await deps.events.emit(obj, 'Normal', 'RoleCreated', `created vault role ${spec.roleName} (id ${roleid})`);
      return { roleid, rolename: spec.roleName, roledesc: spec.description, managedby: obj.metadata.uid, policies: [] };
    } catch (err) {
      // Someone made a role of that name since we looked: judge it like any existing one.
      if (!(err instanceof VaultAnswerError && err.status === 409)) throw err;
      role = await deps.vault.roleGet(spec.roleName);
      if (!role) throw err;
    }
  }
  if (!owns(obj, role)) {
    throw managedByRival(deps.cachedRoles(), spec.roleName, role) ?? nameTaken(obj, 'role', spec.roleName, role);
  }
  if (role.roledesc !== spec.description) {
    await deps.vault.roleUpdate({ roleid: role.roleid, roledesc: spec.description });
    await deps.events.emit(obj, 'Normal', 'RoleUpdated', `updated the description of vault role ${spec.roleName}`);
  }
  return role;
}
