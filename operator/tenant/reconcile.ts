// Reconciles a Tenant: the vault tenant exists with the spec's organisation and email, and its admin token sits in
// the Secret the spec names. The vault shows an admin token only once (TenantCreate), so the operator keeps it from
// the moment it is made until it is in the Secret, and adopts an existing vault tenant only when its own Secret
// already holds a token that works for it.
import { claimVaultName, parseSpec, type ReconcileDeps } from '../deps.js';
import type { ReconcileOutcome, Reconciler } from '../runtime/controller.js';
import { ReconcileError } from '../runtime/reconcile-error.js';
import { TenantSpec, type Tenant, type TenantStatus } from '../types/resources.js';
import { VaultAnswerError, type TenantInfo } from '../vault-client.js';
import { finalizeTenant } from './finalize.js';

export function tenantReconciler(deps: ReconcileDeps): Reconciler<TenantStatus> {
  // Admin tokens made by TenantCreate that are not in their Secret yet, by resource uid.
  const unsaved = new Map<string, { tenantId: number; token: string }>();

  async function adopt(obj: Tenant, spec: TenantSpec): Promise<{ tenantId: number; token: string }> {
    const found = await deps.vault.tenantByName(spec.tenantName);
    if (!found) throw new ReconcileError('VaultError', `TenantCreate reported tenant ${spec.tenantName} as existing, but it is not listed`);
    const token = (await deps.secrets.read(obj, spec.adminTokenSecretName))?.token;
    if (!token || !(await deps.vault.isTenantAdminToken(found.tenantid, token))) {
      throw new ReconcileError(
        'TenantExists',
        `the vault already has a tenant named ${spec.tenantName} (id ${found.tenantid}) and Secret ${spec.adminTokenSecretName} does not hold its admin token, which the vault shows only once: choose another tenantName, or delete that tenant from the vault`,
        { retryAfterMs: 300_000 },
      );
    }
    await deps.events.emit(obj, 'Normal', 'TenantAdopted', `vault tenant ${spec.tenantName} (id ${found.tenantid}) is managed by this resource again`);
    return { tenantId: found.tenantid, token };
  }

  /**
   * The admin token from the Secret, or from the Secret the spec named before (it is moving). When both are gone
   * (deleted by hand, lost with a namespace restore), the tenant this resource manages gets a new admin token and
   * the lost one stops working.
   */
  async function storedToken(obj: Tenant, spec: TenantSpec, status: TenantStatus, tenantId: number): Promise<string> {
    const token = (await deps.secrets.read(obj, spec.adminTokenSecretName))?.token;
    if (token) return token;
    const previous = status.adminTokenSecretName;
    if (previous && previous !== spec.adminTokenSecretName) {
      const moving = (await deps.secrets.read(obj, previous))?.token;
      if (moving) return moving;
    }
    const rotated = await deps.vault.tenantRotateAdminToken(tenantId);
    await deps.events.emit(
      obj,
      'Warning',
      'AdminTokenRotated',
      `Secret ${spec.adminTokenSecretName} with the tenant admin token was gone: vault tenant ${spec.tenantName} has a new admin token, and the lost one no longer works`,
    );
    return rotated.xtoken;
  }

  return {
    kind: 'Tenant',
    resources: deps.tenants,
    finalize: (obj) => finalizeTenant(deps, obj),

    async reconcile(obj, status): Promise<ReconcileOutcome> {
      const spec = parseSpec(TenantSpec, obj.spec);
      claimVaultName(obj, deps.cachedTenants(), {
        name: spec.tenantName,
        nameOf: (o) => (o.spec as Partial<TenantSpec>).tenantName,
        managed: (o) => o.status?.tenantId !== undefined,
        reason: 'TenantNameTaken',
      });

      let tenantId = status.tenantId;
      let token: string | undefined;
      const held = unsaved.get(obj.metadata.uid);
      if (held) ({ tenantId, token } = held);

      let info: TenantInfo | undefined = tenantId !== undefined ? await deps.vault.tenantGet(tenantId) : undefined;
      if (tenantId !== undefined && !info) {
        await deps.events.emit(obj, 'Warning', 'TenantMissing', `vault tenant ${tenantId} is gone; creating tenant ${spec.tenantName} again`);
        tenantId = token = undefined;
        delete status.tenantId;
        unsaved.delete(obj.metadata.uid);
      }
      if (info && info.tenantname !== spec.tenantName) {
        throw new ReconcileError('InvalidSpec', `tenantName cannot change: this resource manages vault tenant ${info.tenantname}`, { permanent: true });
      }
      if (tenantId === undefined) {
        try {
          const made = await deps.vault.tenantCreate({ tenantname: spec.tenantName, tenantorg: spec.organisation, ...(spec.email ? { email: spec.email } : {}) });
          ({ tenantid: tenantId, xtoken: token } = made);
          unsaved.set(obj.metadata.uid, { tenantId, token });
          await deps.events.emit(obj, 'Normal', 'TenantCreated', `created vault tenant ${spec.tenantName} (id ${tenantId})`);
        } catch (err) {
          if (!(err instanceof VaultAnswerError && err.status === 409)) throw err;
          ({ tenantId, token } = await adopt(obj, spec));
        }
        info = { tenantid: tenantId, tenantname: spec.tenantName, tenantorg: spec.organisation, email: spec.email ?? null };
      }
      status.tenantId = tenantId;
      status.tenantName = spec.tenantName;

      if (info!.tenantorg !== spec.organisation || (info!.email ?? '') !== (spec.email ?? '')) {
        await deps.vault.tenantUpdate({ tenantid: tenantId, tenantorg: spec.organisation, email: spec.email ?? '' });
        await deps.events.emit(obj, 'Normal', 'TenantUpdated', `updated the organisation and email of vault tenant ${spec.tenantName}`);
      }

      token ??= await storedToken(obj, spec, status, tenantId);
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
    },
  };
}
