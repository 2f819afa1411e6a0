// Reconciles a Role: the vault role exists with the spec's description, its policies match the spec and are linked
// to it, and a live xtoken for the referenced Tenant sits in the spec's Secret, replaced before it expires.
import { claimVaultName, parseSpec, type ReconcileDeps } from '../deps.js';
import { findCondition } from '../runtime/conditions.js';
import type { ReconcileOutcome, Reconciler } from '../runtime/controller.js';
import { ReconcileError } from '../runtime/reconcile-error.js';
import { RoleSpec, type RoleStatus } from '../types/resources.js';
import { VaultAnswerError } from '../vault-client.js';
import { finalizeRole } from './finalize.js';
import { syncPolicies } from './policies.js';
import { ensureXToken, iso, untilRotation } from './xtoken.js';

/** How soon to look again at a Role whose Tenant is not ready (its changes also wake the Role). */
const TENANT_WAIT_MS = 30_000;

export function roleReconciler(deps: ReconcileDeps): Reconciler<RoleStatus> {
  return {
    kind: 'Role',
    resources: deps.roles,
    finalize: (obj) => finalizeRole(deps, obj),

    async reconcile(obj, status): Promise<ReconcileOutcome> {
      const spec = parseSpec(RoleSpec, obj.spec);
      claimVaultName(obj, deps.cachedRoles(), {
        name: spec.roleName,
        nameOf: (o) => (o.spec as Partial<RoleSpec>).roleName,
        managed: (o) => o.status?.roleId !== undefined,
        reason: 'RoleNameTaken',
      });
      const tenant = await deps.tenants.get(obj.metadata.namespace, spec.tenantRef.name);
      const ready = findCondition(tenant?.status?.conditions, 'Ready')?.status === 'True';
      const tenantId = tenant?.status?.tenantId;
      const tenantName = tenant?.status?.tenantName;
      if (!tenant || tenant.metadata.deletionTimestamp || !ready || tenantId === undefined || !tenantName) {
        throw new ReconcileError('TenantNotReady', `Tenant ${spec.tenantRef.name} ${tenant ? 'is not ready' : 'does not exist in this namespace'}`, { retryAfterMs: TENANT_WAIT_MS });
      }

      // The description cannot be read back from the vault: it is written when the spec changed or the role is new.
      let roleId = status.roleId;
      if (roleId === undefined || status.observedGeneration !== obj.metadata.generation) {
        try {
          roleId = (await deps.vault.roleCreate({ rolename: spec.roleName, roledesc: spec.description })).roleid;
          delete status.policies;
          await deps.events.emit(obj, 'Normal', 'RoleCreated', `created vault role ${spec.roleName} (id ${roleId})`);
        } catch (err) {
          if (!(err instanceof VaultAnswerError && err.status === 409)) throw err;
          await deps.vault.roleUpdate({ rolename: spec.roleName, roledesc: spec.description });
        }
      }
      const synced = await syncPolicies(deps, obj, spec, status, roleId);
      status.roleId = synced.roleId;
      status.policies = synced.policies;

      const xtoken = await ensureXToken(deps, obj, spec, { id: tenantId, name: tenantName }, status.xtoken?.secretName);
      status.tenantId = tenantId;
      status.xtoken = { secretName: spec.xtoken.secretName, expiresAt: iso(xtoken.expires), rotateAt: iso(Math.floor(xtoken.rotateAt)) };
      return {
        message: `vault role ${spec.roleName} (id ${synced.roleId}) has ${synced.policies.length} ${synced.policies.length === 1 ? 'policy' : 'policies'}; its xtoken for tenant ${tenantName} is in Secret ${spec.xtoken.secretName} until ${status.xtoken.expiresAt}`,
        requeueAfterMs: untilRotation(xtoken, deps.clock),
      };
    },
  };
}
