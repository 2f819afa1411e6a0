// Which operations may be the console's housekeeping: checked over the whole registry against the rule written out
// here independently, and against the reads that must never be (they reach people or values).
import { describe, expect, it } from 'vitest';
import { operations } from '../../../../api/ops/index.js';
import { mayBeHousekeeping } from '../../../../api/ops/housekeeping.js';

describe('mayBeHousekeeping', () => {
  it('allows only reads that carry no personal data, judge nobody and read no profile', () => {
    for (const op of operations) {
      const plainRead = op.transaction === 'read' && op.kinds.length === 0 && !op.judges && !op.readsProfile;
      expect(mayBeHousekeeping(op), op.name).toBe(plainRead && (op.housekeeping === true || op.access === 'mainTenant'));
      // A declaration on an operation that cannot be housekeeping is a mistake, not a permission.
      if (op.housekeeping) expect(plainRead, `${op.name} declares housekeeping`).toBe(true);
    }
  });

  it('never allows a read of people, values or the trail, nor any write', () => {
    const never = ['UserGet', 'BulkListAllUsers', 'BulkListTokens', 'TokenGet', 'XTokenListForUser', 'AuditListUserEvents', 'BulkListAllAuditEvents', 'AuditGetEvent', 'SystemGetUserProfiles', 'GroupGet', 'UserCreate', 'TenantCreate', 'RoleCreate', 'AuditVerify'];
    for (const name of never) expect(mayBeHousekeeping(operations.find((o) => o.name === name)!), name).toBe(false);
    for (const name of ['TenantListTenants', 'PolicyListAllPolicies', 'RoleGet', 'LegalBasisListAgreements', 'GroupListAllGroups', 'SystemGetSystemStats']) {
      expect(mayBeHousekeeping(operations.find((o) => o.name === name)!), name).toBe(true);
    }
  });
});
