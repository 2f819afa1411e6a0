// Which vault roles and policies a Role resource may touch: only those carrying its owner mark (`managedby`, the
// resource's uid), which it sets when it creates them. Roles and policies are global in the vault, so a name alone
// proves nothing: a role of that name may be another team's, or older than the marks (unmarked is never ours).
import { ReconcileError } from '../runtime/reconcile-error.js';
import type { Role } from '../types/resources.js';

/** How long a resource whose name is taken waits before looking again (its own changes wake it sooner). */
const TAKEN_RETRY_MS = 60_000;

export const owns = (obj: Role, found: { managedby?: string | undefined }): boolean => found.managedby === obj.metadata.uid;

/**
 * RoleNameTaken naming the Role whose uid the vault role's mark is (the vault says who manages it, never a status),
 * or undefined when no Role the operator sees carries that uid.
 */
export function managedByRival(others: readonly Role[], roleName: string, found: { managedby?: string | undefined }): ReconcileError | undefined {
  const rival = found.managedby === undefined ? undefined : others.find((o) => o.metadata.uid === found.managedby);
  if (!rival) return undefined;
  return new ReconcileError('RoleNameTaken', `Role ${rival.metadata.namespace}/${rival.metadata.name} already manages vault role ${roleName}`, { retryAfterMs: TAKEN_RETRY_MS });
}

/** RoleNameTaken or PolicyNameTaken: the vault has that name and it is not this resource's. */
export function nameTaken(obj: Role, kind: 'role' | 'policy', name: string, found: { managedby?: string | undefined }): ReconcileError {
  const reason = kind === 'role' ? 'RoleNameTaken' : 'PolicyNameTaken';
  const owner = found.managedby === undefined ? 'it carries no owner mark' : `its owner mark is ${found.managedby}`;
  return new ReconcileError(reason, `vault ${kind} ${name} already exists and is not managed by this Role (${owner}); it is left untouched`, { retryAfterMs: TAKEN_RETRY_MS });
}
