// A Role's policies in the vault: each spec policy is the vault policy "<roleName>.<name>", created or updated to
// match and linked to the role. The vault has no way to unlink or delete a policy, so one that left the spec is
// retired (its document can no longer match any action), and deleting under deletionPolicy Delete revokes them all.
import type { ReconcileDeps } from '../deps.js';
import { sameJson } from '../runtime/custom-resources.js';
import type { Role, RoleSpec, RoleStatus } from '../types/resources.js';

/** A statement that matches no operation: the policy stays linked but grants and denies nothing. */
export const RETIRED = { Effect: 'Deny', Action: 'x-strongroom-retired' };
export const RETIRED_DESC = 'retired by the Strongroom operator: no longer in its Role';
/** Denies every operation: a Deny wins over every Allow, so the role's xtokens can do nothing. */
export const REVOKED = { Effect: 'Deny', Action: '*' };
export const REVOKED_DESC = 'revoked by the Strongroom operator: its Role was deleted under deletionPolicy Delete';

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
      if (existing.policydesc !== p.description || !sameJson(existing.policy, p.document)) {
        await deps.vault.policyUpdate({ policyid: policyId, policydesc: p.description, policy: p.document });
        await deps.events.emit(obj, 'Normal', 'PolicyUpdated', `updated vault policy ${policyname}`);
      }
    }
    // Links cannot be read back from the vault, but neither can they be undone: linking once is enough.
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
  const prefix = `${spec.roleName}.`;
  for (const row of await deps.vault.policyList()) {
    if (!row.policyname.startsWith(prefix) || wanted.has(row.policyname) || row.policydesc === RETIRED_DESC) continue;
    await deps.vault.policyUpdate({ policyid: row.policyid, policydesc: RETIRED_DESC, policy: RETIRED });
    await deps.events.emit(obj, 'Normal', 'PolicyRetired', `vault policy ${row.policyname} left the spec: it no longer grants or denies anything`);
  }
}

/** Every policy of the role denies everything. */
export async function revokeAll(deps: ReconcileDeps, roleName: string): Promise<number> {
  let revoked = 0;
  for (const row of await deps.vault.policyList()) {
    if (!row.policyname.startsWith(`${roleName}.`) || row.policydesc === REVOKED_DESC) continue;
    await deps.vault.policyUpdate({ policyid: row.policyid, policydesc: REVOKED_DESC, policy: REVOKED });
    revoked++;
  }
  return revoked;
}
