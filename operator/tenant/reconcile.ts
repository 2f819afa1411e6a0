// Reconciles a Tenant: the vault tenant of the spec's name exists, carries this resource's owner mark, has the
// spec's organisation and email, and its admin token sits in the Secret the spec names. The vault shows an admin
// token only once (TenantCreate), so the operator keeps it from the moment it is made until it is in the Secret.
// Only a tenant carrying this resource's mark is ever updated, given a new admin token or deleted (ownership.ts);
// the status is output only.
import { claimVaultName, parseSpec, type ReconcileDeps } from '../deps.js';
import type { ReconcileOutcome, Reconciler } from '../runtime/controller.js';
import { TenantSpec, type Tenant, type TenantStatus } from '../types/resources.js';
import { VaultAnswerError, type TenantInfo } from '../vault-client.js';
import { finalizeTenant } from './finalize.js';
import { MAIN_TENANT, ownedTenant, refuseMain } from './ownership.js';

/** Admin tokens made by TenantCreate that are not in their Secret yet, by resource uid. */
type Unsaved = Map<string, { tenantId: number; token: string }>;

export function tenantReconciler(deps: ReconcileDeps): Reconciler<TenantStatus> {
  const unsaved: Unsaved = new Map();
  return {
    kind: 'Tenant',
    resources: deps.tenants,
    finalize: (obj) => finalizeTenant(deps, obj),
    reconcile: (obj, status) => reconcileTenant(deps, unsaved, obj, status),
  };
}

async function reconcileTenant(deps: ReconcileDeps, unsaved: Unsaved, obj: Tenant, status: TenantStatus): Promise<ReconcileOutcome> {
  // Output only: whatever the status says of a tenant (anyone who may patch it may write it) is dropped, and
  // written again only from what the vault proves below.
  delete status.tenantId;
  delete status.tenantName;
  const spec = parseSpec(TenantSpec, obj.spec);
  refuseMain(spec.tenantName);
  const { tenant, token: made } = await ensureTenant(deps, unsaved, obj, spec);
  const tenantId = tenant.tenantid;
  status.tenantId = tenantId;
  status.tenantName = spec.tenantName;

  if (tenant.tenantorg !== spec.organisation || (tenant.email ?? '') !== (spec.email ?? '')) {
    await deps.vault.tenantUpdate({ tenantid: tenantId, tenantorg: spec.organisation, email: spec.email ?? '', managedby: obj.metadata.uid });
    await deps.events.emit(obj, 'Normal', 'TenantUpdated', `updated the organisation and email of vault tenant ${spec.tenantName}`);
  }
  // A KEK named in the spec is passed on (the vault moves the tenant's keys under it); one removed from the spec is
  // left as it is: the vault offers no way back, and revoking one is a person's decision (TenantRevokeKek).
  if (spec.kek !== undefined && tenant.kek !== spec.kek) {
    await deps.vault.tenantUpdate({ tenantid: tenantId, kek: spec.kek, managedby: obj.metadata.uid });
    await deps.events.emit(obj, 'Normal', 'TenantKekSet', `vault tenant ${spec.tenantName} is under the key-encryption key ${spec.kek}`);
  }

  const token = made ?? (await storedToken(deps, obj, spec, status, tenantId));
  const data = { token, tenantName: spec.tenantName, tenantId: String(tenantId), url: deps.publicUrl };
  if (await deps.secrets.write(obj, spec.adminTokenSecretName, data)) {
    await deps.events.emit(obj, 'Normal', 'SecretWritten', `the tenant admin token is in Secret ${spec.adminTokenSecretName}`);
  }
  unsaved.delete(obj.metadata.uid);
  if (status.adminTokenSecretName && status.adminTokenSecretName !== spec.adminTokenSecretName) {
    await deps.secrets.remove(obj, status.adminTokenSecretName);
  }
  status.adminTokenSecretName = spec.adminTokenSecretName;
  return { message: `vault tenant ${spec.tenantName} (id ${tenantId}) is ready; its admin token is in Secret ${spec.adminTokenSecretName}` };
}

/** The tenant this resource manages, created with its owner mark when the vault has none of that name. */
async function ensureTenant(deps: ReconcileDeps, unsaved: Unsaved, obj: Tenant, spec: TenantSpec): Promise<{ tenant: TenantInfo; token?: string | undefined }> {
  const uid = obj.metadata.uid;
  const found = (await ownedTenant(deps, obj, spec.tenantName)) ?? (await renamedBack(deps, obj, spec));
  const held = unsaved.get(uid);
  if (found) return { tenant: found, token: held?.tenantId === found.tenantid ? held.token : undefined };
  unsaved.delete(uid);
  // No vault tenant of that name yet: of the resources naming it, the one created first makes it. Which one
  // manages a tenant is never taken from a status (anyone who may patch it may write it), only from the vault.
  claimVaultName(obj, deps.cachedTenants(), {
    name: spec.tenantName,
    nameOf: (o) => (o.spec as Partial<TenantSpec>).tenantName,
    managed: () => false,
    reason: 'TenantNameTaken',
  });
  try {
    const email = spec.email ? { email: spec.email } : {};
    const kek = spec.kek !== undefined ? { kek: spec.kek } : {};
    const made = await deps.vault.tenantCreate({ tenantname: spec.tenantName, tenantorg: spec.organisation, ...email, ...kek, managedby: uid });
    unsaved.set(uid, { tenantId: made.tenantid, token: made.xtoken });
    await deps.events.emit(obj, 'Normal', 'TenantCreated', `created vault tenant ${spec.tenantName} (id ${made.tenantid})`);
    const tenant = { tenantid: made.tenantid, tenantname: spec.tenantName, tenantorg: spec.organisation, email: spec.email ?? null, managedby: uid, ...kek };
    return { tenant, token: made.xtoken };
  } catch (err) {
    // Someone made a tenant of that name since we looked: judge it like any existing one.
    if (!(err instanceof VaultAnswerError && err.status === 409)) throw err;
    const again = await ownedTenant(deps, obj, spec.tenantName);
    if (!again) throw err;
    return { tenant: again };
  }
}

/**
 * A tenant carrying this resource's mark under another name (renamed by a main-tenant call naming the mark, or by
 * its own admin before the vault refused that) gets the spec's name back instead of a second tenant being made.
 */
async function renamedBack(deps: ReconcileDeps, obj: Tenant, spec: TenantSpec): Promise<TenantInfo | undefined> {
  const [mine] = (await deps.vault.tenantsMarked(obj.metadata.uid)).filter((t) => t.tenantid !== MAIN_TENANT.id);
  if (!mine) return undefined;
  await deps.vault.tenantUpdate({ tenantid: mine.tenantid, tenantname: spec.tenantName, managedby: obj.metadata.uid });
  await deps.events.emit(obj, 'Normal', 'TenantUpdated', `vault tenant ${mine.tenantname} (id ${mine.tenantid}) carries this Tenant's mark: renamed back to ${spec.tenantName}`);
  return ownedTenant(deps, obj, spec.tenantName);
}

/**
 * The admin token from the Secret, or from the Secret the spec named before (it is moving; either is read only when
 * this resource controls it). When both are gone (deleted by hand, lost with a namespace restore), the tenant,
 * proven to be this resource's, gets a new admin token (the vault checks the mark too) and the lost one stops working.
 */
async function storedToken(deps: ReconcileDeps, obj: Tenant, spec: TenantSpec, status: TenantStatus, tenantId: number): Promise<string> {
  const token = (await deps.secrets.read(obj, spec.adminTokenSecretName))?.token;
  if (token) return token;
  // The status is output only: a previous name that is not this resource's Secret is ignored, never a conflict.
  const previous = status.adminTokenSecretName;
  if (previous && previous !== spec.adminTokenSecretName) {
    const moving = (await deps.secrets.readIfOwned(obj, previous))?.token;
    if (moving) return moving;
  }
  const rotated = await deps.vault.tenantRotateAdminToken(tenantId, obj.metadata.uid);
  await deps.events.emit(
    obj,
    'Warning',
    'AdminTokenRotated',
    `Secret ${spec.adminTokenSecretName} with the tenant admin token was gone: vault tenant ${spec.tenantName} has a new admin token, and the lost one no longer works`,
  );
  return rotated.xtoken;
}
