// Which calls may be the console's housekeeping: reads about the vault itself (its tenants, roles, policies, legal
// bases, counts), never about anyone in it. A call marked so (X-Strongroom-Purpose: housekeeping) is still audited,
// marked, and left out of BulkListAllAuditEvents unless asked for; its event's own note decides the rest: one that
// named a person (found or not) records the mark as refused (api/vault/audit/actor.ts, purposeOf).
import type { OpDefinition } from './define.js';

/**
 * A read that carries no kind of personal data, judges nobody and reads no profile, and is either declared
 * `housekeeping` or a main-tenant read (the vault's configuration: tenants, roles, policies).
 */
export function mayBeHousekeeping(op: Pick<OpDefinition, 'transaction' | 'kinds' | 'judges' | 'readsProfile' | 'housekeeping' | 'access'>): boolean {
  if (op.transaction !== 'read' || op.kinds.length > 0 || op.judges !== undefined || op.readsProfile) return false;
  return op.housekeeping === true || op.access === 'mainTenant';
}
