// Large-body slots against an oracle: any sequence of takes and releases across tenants and credentials is granted
// exactly when the tenant is under its slots (its last kept for administrators), the credential holds none and the
// process is under its total, and a release given twice frees one slot.
import fc from 'fast-check';
import type { Context } from 'koa';
import { describe, expect, it } from 'vitest';
import { LargeBodies } from '../../../../api/http/uploads.js';
import { UnavailableError } from '../../../../api/errors.js';

const ctx = () => ({ set: () => {} }) as unknown as Context;

describe('LargeBodies', () => {
  it('grants a slot exactly when the tenant, the credential and the process have one free', () => {
    const step = fc.oneof(fc.record({ take: fc.nat(3), credential: fc.nat(4), admin: fc.boolean() }), fc.record({ release: fc.nat(20) }));
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 3 }), fc.integer({ min: 1, max: 6 }), fc.array(step, { maxLength: 40 }), (perTenant, total, steps) => {
        const slots = new LargeBodies({ largeBodies: perTenant, largeBodiesTotal: total, uploadMinRate: 0, uploadRateWindowSeconds: 1 });
        const held: { tenant: number; credential: string; release: () => void }[] = [];
        for (const s of steps) {
          if ('take' in s) {
            const holder = { tenantId: s.take, credential: `${s.take}:${s.credential}`, admin: s.admin };
            const mine = held.filter((h) => h.tenant === s.take).length;
            // The tenant's last slot (of two or more) is its administrators'; a credential holds one.
            const room = s.admin || perTenant === 1 ? perTenant : perTenant - 1;
            const free = mine < room && !held.some((h) => h.credential === holder.credential) && held.length < total;
            if (free) held.push({ tenant: s.take, credential: holder.credential, release: slots.take(ctx(), holder) });
            else expect(() => slots.take(ctx(), holder)).toThrow(UnavailableError);
          } else if (held.length) {
            const [h] = held.splice(s.release % held.length, 1);
            h!.release();
            h!.release();
          }
        }
      }),
    );
  });

  it('never lets one non-administrator credential stop an administrator of its tenant', () => {
    fc.assert(
      fc.property(fc.integer({ min: 2, max: 4 }), fc.nat(6), (perTenant, attempts) => {
        const slots = new LargeBodies({ largeBodies: perTenant, largeBodiesTotal: 64, uploadMinRate: 0, uploadRateWindowSeconds: 1 });
        for (let n = 0; n < attempts; n++) {
          try {
            slots.take(ctx(), { tenantId: 1, credential: 'role', admin: false });
          } catch {
            // refused past its slot
          }
        }
        expect(() => slots.take(ctx(), { tenantId: 1, credential: 'root', admin: true })).not.toThrow();
      }),
    );
  });
});
