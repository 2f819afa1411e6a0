// A Role's policies in the vault: each spec policy is the vault policy "<roleName>.<name>", created (with this
// resource's owner mark) or updated to match and linked to the role. One that left the spec is deleted (its links go
// with it). A policy of that name without this resource's mark is never changed, linked or deleted.
import { isDeepStrictEqual } from 'node:util';
import type { ReconcileDeps } from '../deps.js';
import type { Role, RoleSpec } from '../types/resources.js';
import type { PolicyInfo, RoleInfo } from '../vault-client.js';
import { nameTaken, owns } from './ownership.js';

export const policyName = (roleName: string, name: string) => `${roleName}.${name}`;

/** Brings the spec's policies into the vault and links them to `role` (one of ours); returns the linked policies. */
export async function syncPolicies(deps: ReconcileDeps, obj: Role, spec: RoleSpec, role: RoleInfo) {
  // Read every name first: a taken one stops the pass before anything is written.
  const plan: { spec: RoleSpec['policies'][number]; policyname: string; existing: PolicyInfo | undefined }[] = [];
  for (const p of spec.policies) {
    const policyname = policyName(spec.roleName, p.name);
    const existing = await deps.vault.policyGet(policyname);
    if (existing && !owns(obj, existing)) throw nameTaken(obj, 'policy', policyname, existing);
    plan.push({ spec: p, policyname, existing });
  }
  const linked = new Set(role.policies.map((l) => l.policyid));
  const policies: { name: string; policyId: number }[] = [];
  for (const { spec: p, policyname, existing } of plan) {
    let policyId: number;
    if (!existing) {
      policyId = (await deps.vault.policyCreate({ policyname, policydesc: p.description, policy: p.document, managedby: obj.metadata.uid })).policyid;
      await deps.events.emit(obj, 'Normal', 'PolicyCreated', `created vault policy ${policyname}`);
    } else {
      policyId = existing.policyid;
      if (existing.policydesc !== p.description || !isDeepStrictEqual(existing.policy, p.document)) {
        await deps.vault.policyUpdate({ policyid: policyId, policydesc: p.description, policy: p.document });
        await deps.events.emit(obj, 'Normal', 'PolicyUpdated', `updated vault policy ${policyname}`);
      }
    }
    if (!linked.has(policyId)) await deps.vault.roleLinkPolicy({ roleid: role.roleid, policyid: policyId });
    policies.push({ name: p.name, policyId });
  }
  await retire(deps, obj, spec);
  return policies;
}

/** Policies of ours named after the role that the spec no longer has. */
async function retire(deps: ReconcileDeps, obj: Role, spec: RoleSpec): Promise<void> {
  const wanted = new Set(spec.policies.map((p) => policyName(spec.roleName, p.name)));
  for (const policy of await ownPolicies(deps, obj, spec.roleName, (name) => !wanted.has(name))) {
    if (await deps.vault.policyDelete(policy.policyid)) {
      await deps.events.emit(obj, 'Normal', 'PolicyDeleted', `vault policy ${policy.policyname} left the spec: deleted`);
    }
  }
}

/** The vault policies named after the role (and chosen by `which`) that carry this resource's owner mark. */
async function ownPolicies(deps: ReconcileDeps, obj: Role, roleName: string, which: (policyname: string) => boolean = () => true): Promise<PolicyInfo[]> {
  const named = (await deps.vault.policyList()).filter((row) => row.policyname.startsWith(`${roleName}.`) && which(row.policyname));
  const own: PolicyInfo[] = [];
  for (const row of named) {
    // The list carries no owner marks: each one is read (it may have gone in between).
    const policy = await deps.vault.policyGet(row.policyname);
    if (policy && owns(obj, policy)) own.push(policy);
  }
  return own;
}

/** Deletes this resource's policies; returns how many went. */
export async function deletePolicies(deps: ReconcileDeps, obj: Role, roleName: string): Promise<number> {
  let deleted = 0;
  for (const policy of await ownPolicies(deps, obj, roleName)) if (await deps.vault.policyDelete(policy.policyid)) deleted++;
  return deleted;
}
