// The console's housekeeping list against the API's own rule (api/ops/housekeeping.ts): the console marks only
// operations the API accepts as housekeeping, and none that reads or judges a person.
import { describe, expect, it } from 'vitest';
import { HOUSEKEEPING } from '../../../web/src/api/housekeeping.js';
import { operations } from '../../../api/ops/index.js';
import { mayBeHousekeeping } from '../../../api/ops/housekeeping.js';

describe("the console's housekeeping operations", () => {
  const ops = new Map(Object.values(operations).map((op) => [op.name, op]));
  it('are all accepted by the API as housekeeping', () => {
    for (const name of HOUSEKEEPING) {
      const op = ops.get(name);
      expect(op, name).toBeDefined();
      expect(mayBeHousekeeping(op!), name).toBe(true);
      expect(op!.kinds, name).toEqual([]);
    }
  });
  it('never include a person read or PolicyExplain, which may name a person', () => {
    for (const name of ['UserGet', 'AuditListUserEvents', 'BulkListAllUsers', 'PolicyExplain', 'AuditGetEvent']) expect(HOUSEKEEPING.has(name as never), name).toBe(false);
  });
});
