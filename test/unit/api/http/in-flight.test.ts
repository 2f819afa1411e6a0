// Requests in flight per client address, against a model: any interleaving of requests opening and being answered,
// from IPv4 addresses and from addresses in a few IPv6 /64s, is admitted exactly while the client (an IPv4
// address, or a whole /64) has fewer than the cap open; an answered request, refused or not, frees its place.
import fc from 'fast-check';
import type { Context } from 'koa';
import { describe, expect, it } from 'vitest';
import { inFlightPerAddress } from '../../../../api/http/in-flight.js';
import { UnavailableError } from '../../../../api/errors.js';

/** A client: its network (the model's key) and the address it writes this time. */
const client = fc.oneof(
  fc.nat(2).map((n) => ({ key: `v4:${n}`, address: `192.0.2.${n + 1}` })),
  fc.tuple(fc.nat(1), fc.nat(0xffff), fc.nat(0xffff)).map(([net, a, b]) => ({ key: `v6:${net}`, address: `2001:db8:0:${net + 1}:${a.toString(16)}::${b.toString(16)}` })),
);

describe('inFlightPerAddress', () => {
  it('admits a request exactly while its client has fewer than the cap open', async () => {
    const step = fc.oneof(fc.record({ open: client }), fc.record({ answer: fc.nat(30) }));
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 1, max: 4 }), fc.array(step, { maxLength: 50 }), async (cap, steps) => {
        const middleware = inFlightPerAddress(cap);
        const open: { key: string; answer: () => void; done: Promise<void> }[] = [];
        for (const s of steps) {
          if ('answer' in s) {
            if (!open.length) continue;
            const [o] = open.splice(s.answer % open.length, 1);
            o!.answer();
            await o!.done;
            continue;
          }
          const mine = open.filter((o) => o.key === s.open.key).length;
          const ctx = { ip: s.open.address, set: () => {} } as unknown as Context;
          let answer = () => {};
          const handled = new Promise<void>((resolve) => (answer = resolve));
          let entered = false;
          const done = middleware(ctx, async () => {
            entered = true;
            await handled;
          });
          if (mine < cap) {
            await Promise.resolve();
            expect(entered).toBe(true);
            open.push({ key: s.open.key, answer, done });
          } else {
            await expect(done).rejects.toThrow(UnavailableError);
            expect(entered).toBe(false);
          }
        }
        for (const o of open) o.answer();
        await Promise.all(open.map((o) => o.done));
      }),
    );
  });

  it('admits everything with no cap', async () => {
    const middleware = inFlightPerAddress(0);
    const waits = Array.from({ length: 100 }, () => middleware({ ip: '192.0.2.1' } as unknown as Context, () => new Promise<void>((r) => setTimeout(r, 1))));
    await expect(Promise.all(waits)).resolves.toBeDefined();
  });
});
