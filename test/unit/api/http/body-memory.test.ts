// The body budget against an independent model: any sequence of reservations (callers in tenants, sizes up to a
// share) and releases keeps the bytes held within the budget, a caller within its share and a tenant within its,
// refuses only what one of those bounds refuses, and never refuses a caller within its share for the use of one
// other caller.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Context } from 'koa';
import { BodyMemory, bodyBytes } from '../../../../api/http/body-memory.js';
import { loadConfig } from '../../../../api/config.js';
import { MAX_QUEUED_DETAILS } from '../../../../api/store/audit.js';

interface Held {
  caller: string;
  tenant: string;
  bytes: number;
  release: () => void;
}

const sum = (held: Held[], keep: (h: Held) => boolean) => held.filter(keep).reduce((n, h) => n + h.bytes, 0);

describe('BodyMemory', () => {
  it('holds within the budget and the shares, and refuses only past one of them', () => {
    const step = fc.oneof(
      fc.record({ caller: fc.nat(4), tenant: fc.nat(2), part: fc.double({ min: 0, max: 1, noNaN: true }) }),
      fc.record({ release: fc.nat(40) }),
    );
    fc.assert(
      fc.property(fc.integer({ min: 16, max: 4096 }), fc.array(step, { maxLength: 60 }), (budget, steps) => {
        const memory = new BodyMemory(budget);
        const share = Math.floor(budget / 4);
        const tenantShare = Math.floor(budget / 2);
        const held: Held[] = [];
        for (const s of steps) {
          if ('release' in s) {
            if (!held.length) continue;
            const [h] = held.splice(s.release % held.length, 1);
            h!.release();
            h!.release();
            continue;
          }
          // Each caller belongs to one tenant.
          const caller = `c${s.caller}`;
          const tenant = `t${s.caller % 2 === 0 ? s.tenant : 9}`;
          const bytes = Math.floor(s.part * share);
          const mine = sum(held, (h) => h.caller === caller);
          const theirs = sum(held, (h) => h.tenant === tenant);
          const total = sum(held, () => true);
          const fits = total + bytes <= budget && (mine === 0 || mine + bytes <= share) && (theirs === 0 || theirs + bytes <= tenantShare);
          const others = new Set(held.filter((h) => h.caller !== caller).map((h) => h.caller));
          const release = memory.tryReserve({ caller, tenant }, bytes);
          expect(release !== null).toBe(fits);
          // One other caller's use never refuses a caller within its share.
          if (others.size <= 1 && mine + bytes <= share) expect(release).not.toBeNull();
          if (release) held.push({ caller, tenant, bytes, release });
          expect(memory.held).toBe(sum(held, () => true));
          expect(memory.held).toBeLessThanOrEqual(budget);
        }
      }),
    );
  });

  it('lets a caller holding nothing take one body larger than its share, within the budget', () => {
    const memory = new BodyMemory(1000);
    const big = memory.tryReserve({ caller: 'a', tenant: 't' }, 600);
    expect(big).not.toBeNull();
    expect(memory.tryReserve({ caller: 'a', tenant: 't' }, 1)).toBeNull();
    expect(memory.tryReserve({ caller: 'b', tenant: 'u' }, 250)).not.toBeNull();
    expect(memory.tryReserve({ caller: 'c', tenant: 'v' }, 200)).toBeNull();
    big!();
    expect(memory.held).toBe(250);
  });
});

// What a request reserves, against its headers: the declared length of a body sent as is, the caller's limit for a
// chunked or compressed one (its size is not known before it is read), nothing for no body or one refused unread.
describe('bodyBytes', () => {
  const request = (headers: Record<string, string>) => ({ get: (name: string) => headers[name] ?? '' }) as unknown as Context;

  it('reserves the declared length, else the limit, else nothing', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 1 << 24 }),
        fc.option(fc.nat(1 << 25), { nil: undefined }),
        fc.boolean(),
        fc.constantFrom('', 'identity', 'gzip', 'br', 'deflate'),
        (limit, declared, chunked, encoding) => {
          const headers: Record<string, string> = {};
          if (declared !== undefined) headers['content-length'] = String(declared);
          if (chunked) headers['transfer-encoding'] = 'chunked';
          if (encoding) headers['content-encoding'] = encoding;
          const plain = encoding === '' || encoding === 'identity';
          const expected =
            declared === undefined ? (chunked ? limit : 0) : declared > limit ? 0 : plain ? declared : limit;
          expect(bodyBytes(request(headers), limit)).toBe(expected);
        },
      ),
    );
  });
});

describe('STRONGROOM_BODY_MEMORY', () => {
  it('defaults to 96 MB, and is refused, naming it, below the largest body a call may send', () => {
    expect(loadConfig({}).limits.bodyMemory).toBe(96 * 1024 * 1024);
    expect(() => loadConfig({ STRONGROOM_BODY_MEMORY: '16mb' })).toThrow(/STRONGROOM_BODY_MEMORY: at least the largest body/);
    expect(loadConfig({ STRONGROOM_BODY_MEMORY: '16mb', STRONGROOM_FILE_MAX_BYTES: '4mb' }).limits.bodyMemory).toBe(16 * 1024 * 1024);
  });
});

describe('STRONGROOM_BODY_LIMIT', () => {
  it('is at most 64mb: a profile twice over must stay below what a queued event may hold (MAX_QUEUED_DETAILS)', () => {
    const limit = (v: string) => loadConfig({ STRONGROOM_BODY_LIMIT: v, STRONGROOM_BODY_MEMORY: '256mb' }).bodyLimit;
    expect(limit('64mb')).toBe(64 * 1024 * 1024);
    expect(() => limit('65mb')).toThrow(/STRONGROOM_BODY_LIMIT: at most 64mb/);
    expect(2 * 64 * 1024 * 1024 + 1024 * 1024).toBeLessThan(MAX_QUEUED_DETAILS);
  });
});
