// A Role's policies in the vault: each spec policy is the vault policy "<roleName>.<name>", created or updated to
// match and linked to the role. One that left the spec is deleted (its links go with it).
import { isDeepStrictEqual } from 'node:util';
import type { ReconcileDeps } from '../deps.js';
import type { Role, RoleSpec, RoleStatus } from '../types/resources.js';

export const policyName = (roleName: string, name: string) => `${roleName}.${name}`;

/** Brings the spec's policies into the vault and links them; returns the role id and the linked policies. */
export async function syncPolicies(deps: ReconcileDeps, obj: Role, spec: RoleSpec, status: RoleStatus, roleId: number | undefined) {
  const linked = new Map((status.policies ?? []).map((p) => [p.name, p.policyId]));
  const policies: { name: string; policyId: number }[] = [];
  for (const p of spec.policies) {
    const policyname = policyName(spec.roleName, p.name);
    const existing = await deps.vault.policyGet(policyname);
    let policyId: number;
    if (!existing) {
      policyId = (await deps.vault.policyCreate({ policyname, policydesc: p.description, policy: p.document })).policyid;
      await deps.events.emit(obj, 'Normal', 'PolicyCreated', `created vault policy ${policyname}`);
    } else {
      policyId = existing.policyid;
      if (existing.policydesc !== p.description || !isDeepStrictEqual(existing.policy, p.document)) {
        await deps.vault.policyUpdate({ policyid: policyId, policydesc: p.description, policy: p.document });
        await deps.events.emit(obj, 'Normal', 'PolicyUpdated', `updated vault policy ${policyname}`);
      }
    }
    // Links cannot be read back from the vault: link when the policy is new to this role or the role is new.
    if (linked.get(p.name) !== policyId || roleId === undefined) {
      roleId = (await deps.vault.roleLinkPolicy({ rolename: spec.roleName, policyid: policyId })).roleid;
    }
    policies.push({ name: p.name, policyId });
  }
  await retire(deps, obj, spec);
  return { roleId: roleId!, policies };
}

/** Policies named after the role that the spec no longer has. */
async function retire(deps: ReconcileDeps, obj: Role, spec: RoleSpec): Promise<void> {
  const wanted = new Set(spec.policies.map((p) => policyName(spec.roleName, p.name)));
  for (const row of await policiesOf(deps, spec.roleName)) {
    if (wanted.has(row.policyname)) continue;
    if (await deps.vault.policyDelete(row.policyid)) {
      await deps.events.emit(obj, 'Normal', 'PolicyDeleted', `vault policy ${row.policyname} left the spec: deleted`);
    }
  }
}

/** The vault policies named after the role. */
async function policiesOf(deps: ReconcileDeps, roleName: string) {
  return (await deps.vault.policyList()).filter((row) => row.policyname.startsWith(`${roleName}.`));
}

/** Deletes the role's policies; returns how many went. */
export async function deletePolicies(deps: ReconcileDeps, roleName: string): Promise<number> {
  let deleted = 0;
  for (const row of await policiesOf(deps, roleName)) if (await deps.vault.policyDelete(row.policyid)) deleted++;
  return deleted;
}
