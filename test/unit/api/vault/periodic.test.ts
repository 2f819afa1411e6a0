// A background pass on a schedule: never two at once, failures reported and retried, stop() waits for the pass.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { Periodic } from '../../../../api/vault/periodic.js';

afterEach(() => {
  vi.useRealTimers();
});

describe('Periodic', () => {
  it('runs one pass at a time, reports a failure, tries again, and waits for the pass under way on stop', async () => {
    vi.useFakeTimers();
    let release: () => void = () => {};
    let passes = 0;
    const failures: unknown[] = [];
    const p = new Periodic(1, async () => {
      passes++;
      if (passes === 1) throw new Error('first fails');
      await new Promise<void>((r) => (release = r));
    }, (err) => failures.push(err));
    p.start();
    p.start();
    await vi.advanceTimersByTimeAsync(1000);
    expect(passes).toBe(1);
    expect(failures).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(1000);
    expect(passes).toBe(2);
    // The second pass is still running: further ticks do not stack another.
    await vi.advanceTimersByTimeAsync(3000);
    expect(passes).toBe(2);
    let stopped = false;
    const stopping = p.stop().then(() => (stopped = true));
    await vi.advanceTimersByTimeAsync(0);
    expect(stopped).toBe(false);
    release();
    await stopping;
    expect(stopped).toBe(true);
    await vi.advanceTimersByTimeAsync(5000);
    expect(passes).toBe(2);
  });

  it('never starts with 0 seconds', async () => {
    vi.useFakeTimers();
    let passes = 0;
    const p = new Periodic(0, async () => void passes++, () => {});
    p.start();
    await vi.advanceTimersByTimeAsync(10_000);
    expect(passes).toBe(0);
    await p.stop();
  });
});
