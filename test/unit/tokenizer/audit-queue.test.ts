// Queued audit events' MACs: a MAC holds for exactly the event it was made for (any field changed, another tenant or
// another key: refused), and none is made for an event stamped beyond the skew from the clock.
import { randomBytes, randomUUID } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { macQueued, QUEUE_AHEAD_SECONDS, QUEUE_SKEW_SECONDS, QueueRefusedError, refusedQueued } from '../../../tokenizer/audit-queue.js';
import { canonicalText } from '../../../proto/audit-checkpoint.js';

const NOW = 1_800_000_000;
const key = randomBytes(32);
const event = fc.record({
  uuid: fc.uuid({ version: 4 }),
  when: fc.integer({ min: NOW - QUEUE_SKEW_SECONDS, max: NOW + QUEUE_AHEAD_SECONDS }),
  title: fc.string({ minLength: 1, maxLength: 20 }),
  status: fc.constantFrom('ok', 'error'),
  msg: fc.option(fc.string(), { nil: null }),
  actor: fc.string({ minLength: 1 }),
  record: fc.option(fc.uuid(), { nil: null }),
  details: fc.option(fc.uint8Array({ minLength: 1, maxLength: 64 }), { nil: null }),
});
type Event = typeof event extends fc.Arbitrary<infer T> ? T : never;
const head = (e: Event) => JSON.stringify([e.uuid, e.when, e.title, e.status, e.msg, e.actor, e.record, null, null]);
const text = (e: Event) => canonicalText(head(e), e.details ? Buffer.from(e.details) : null);
const mac = (e: Event, tenant = 7) => macQueued(key, tenant, [{ uuid: e.uuid, head: head(e), details: e.details ? Buffer.from(e.details) : Buffer.alloc(0) }], new Map(), NOW)[0]!;

describe('queued audit events\' MACs', () => {
  it('hold for the event they were made for, and for no change of it (generated)', () => {
    fc.assert(
      fc.property(event, fc.constantFrom('uuid', 'when', 'title', 'status', 'msg', 'actor', 'record', 'details'), (e, field) => {
        const m = mac(e);
        expect(refusedQueued(key, 7, [text(e)], [m], NOW).size).toBe(0);
        // Another tenant, another key: refused.
        expect(refusedQueued(key, 8, [text(e)], [m], NOW).size).toBe(1);
        expect(refusedQueued(randomBytes(32), 7, [text(e)], [m], NOW).size).toBe(1);
        const changed: Event = { ...e };
        if (field === 'uuid') changed.uuid = randomUUID();
        else if (field === 'when') changed.when = e.when - 1;
        else if (field === 'details') changed.details = e.details ? null : new Uint8Array([1]);
        else if (field === 'msg' || field === 'record') changed[field] = e[field] === null ? (field === 'record' ? randomUUID() : 'x') : null;
        else if (field === 'status') changed.status = e.status === 'ok' ? 'error' : 'ok';
        else changed[field] = `${e[field]}!`;
        expect(refusedQueued(key, 7, [text(changed)], [m], NOW)).toEqual(new Set([0]));
      }),
    );
  });

  it('are made over the details sealed in the same batch, found by uuid', () => {
    const e = { uuid: randomUUID(), when: NOW, title: 'UserUpdate', status: 'ok' as const, msg: null, actor: 'root:x', record: null, details: null };
    const sealed = randomBytes(40);
    const [m] = macQueued(key, 7, [{ uuid: e.uuid, head: head(e), details: Buffer.alloc(0) }], new Map([[e.uuid, sealed]]), NOW);
    expect(refusedQueued(key, 7, [canonicalText(head(e), sealed)], [m!], NOW).size).toBe(0);
    expect(refusedQueued(key, 7, [canonicalText(head(e), null)], [m!], NOW).size).toBe(1);
  });

  it('are refused for an event stamped beyond the skew, and checked only for the first texts', () => {
    for (const when of [NOW - QUEUE_SKEW_SECONDS - 1, NOW + QUEUE_AHEAD_SECONDS + 1]) {
      const e = { uuid: randomUUID(), when, title: 't', status: 'ok' as const, msg: null, actor: 'a', record: null, details: null };
      expect(() => macQueued(key, 7, [{ uuid: e.uuid, head: head(e), details: Buffer.alloc(0) }], new Map(), NOW)).toThrow(QueueRefusedError);
    }
    const e = { uuid: randomUUID(), when: NOW, title: 't', status: 'ok' as const, msg: null, actor: 'a', record: null, details: null };
    // A MAC for the first text; the second (a read's event, not queued) is not checked; a short MAC is refused.
    expect(refusedQueued(key, 7, [text(e), 'not checked'], [mac(e)], NOW).size).toBe(0);
    expect(refusedQueued(key, 7, [text(e)], [Buffer.alloc(5)], NOW)).toEqual(new Set([0]));
    expect(refusedQueued(key, 7, ['[not json'], [mac(e)], NOW)).toEqual(new Set([0]));
  });
});
