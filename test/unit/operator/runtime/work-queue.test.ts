// The operator's work queue: deduplication, one worker per key at a time, delayed adds, per-key backoff.
import { describe, expect, it } from 'vitest';
import { WorkQueue } from '../../../../operator/runtime/work-queue.js';

describe('the work queue', () => {
  it('queues a key once however often it is added', async () => {
    const q = new WorkQueue();
    q.add('ns/a');
    q.add('ns/a');
    q.add('ns/b');
    expect(q.depth).toBe(2);
    expect(await q.get()).toBe('ns/a');
    expect(await q.get()).toBe('ns/b');
    expect(q.depth).toBe(0);
  });

  it('never hands a key to two workers at once: an add while it is processed queues it after done', async () => {
    const q = new WorkQueue();
    q.add('ns/a');
    const key = await q.get();
    q.add('ns/a');
    expect(q.depth).toBe(0);
    let second: string | undefined;
    void q.get().then((k) => (second = k));
    await new Promise((r) => setTimeout(r, 10));
    expect(second).toBeUndefined();
    q.done(key!);
    await new Promise((r) => setTimeout(r, 0));
    expect(second).toBe('ns/a');
  });

  it('adds a key after a delay, keeping the earliest of several', async () => {
    const q = new WorkQueue();
    q.addAfter('ns/a', 200);
    q.addAfter('ns/a', 30);
    q.addAfter('ns/a', 500);
    const started = Date.now();
    expect(await q.get()).toBe('ns/a');
    expect(Date.now() - started).toBeLessThan(150);
    expect(Date.now() - started).toBeGreaterThanOrEqual(25);
  });

  it('backs off exponentially per key up to the cap, and starts afresh after forget', () => {
    const q = new WorkQueue({ baseDelayMs: 100, maxDelayMs: 1000 });
    expect([1, 2, 3, 4, 5, 6].map(() => q.addRateLimited('ns/a'))).toEqual([100, 200, 400, 800, 1000, 1000]);
    expect(q.addRateLimited('ns/b')).toBe(100);
    q.forget('ns/a');
    expect(q.addRateLimited('ns/a')).toBe(100);
    q.shutdown();
  });

  it('wakes waiting workers with undefined on shutdown and accepts no more keys', async () => {
    const q = new WorkQueue();
    const waiting = q.get();
    q.shutdown();
    expect(await waiting).toBeUndefined();
    q.add('ns/a');
    expect(await q.get()).toBeUndefined();
  });
});
