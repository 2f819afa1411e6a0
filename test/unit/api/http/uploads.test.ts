// Large-body slots against an oracle: any sequence of takes and releases across tenants is granted exactly when
// the tenant is under its slots and the process under its total, and a release given twice frees one slot.
import fc from 'fast-check';
import type { Context } from 'koa';
import { describe, expect, it } from 'vitest';
import { LargeBodies } from '../../../../api/http/uploads.js';
import { UnavailableError } from '../../../../api/errors.js';

const ctx = () => ({ set: () => {} }) as unknown as Context;

describe('LargeBodies', () => {
  it('grants a slot exactly when the tenant and the process have one free', () => {
    const step = fc.oneof(fc.record({ take: fc.nat(3) }), fc.record({ release: fc.nat(20) }));
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 3 }), fc.integer({ min: 1, max: 6 }), fc.array(step, { maxLength: 40 }), (perTenant, total, steps) => {
        const slots = new LargeBodies({ largeBodies: perTenant, largeBodiesTotal: total, uploadMinRate: 0, uploadRateWindowSeconds: 1 });
        const held: { tenant: number; release: () => void }[] = [];
        for (const s of steps) {
          if ('take' in s) {
            const mine = held.filter((h) => h.tenant === s.take).length;
            const free = mine < perTenant && held.length < total;
            if (free) held.push({ tenant: s.take, release: slots.take(ctx(), s.take) });
            else expect(() => slots.take(ctx(), s.take)).toThrow(UnavailableError);
          } else if (held.length) {
            const [h] = held.splice(s.release % held.length, 1);
            h!.release();
            h!.release();
          }
        }
      }),
    );
  });
});
