// The rewrap's metrics follow its work: after a rotation the keys still to move are pending on /metrics (the metrics
// port) even when passes fail (the progress time then stands still and the failures count: what
// StrongroomRewrapStalled reads), and each batch moves the count, the counter and the progress time.
import { describe, expect, vi } from 'vitest';
import { buildProfile, vaultTest, type TestVault } from '../fixtures/vault.js';
import { freePort } from '../fixtures/processes.js';

const metricsPort = await freePort();
const it = vaultTest({
  env: { STRONGROOM_METRICS_PORT: String(metricsPort), STRONGROOM_REWRAP_SECONDS: '0', STRONGROOM_REWRAP_BATCH: '4', STRONGROOM_REWRAP_PAUSE_MS: '0' },
});

/** The rewrap's series as the metrics port serves them now. */
async function rewrapMetrics() {
  const text = await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text();
  const value = (series: string) => {
    const line = text.split('\n').find((l) => l.startsWith(`${series} `));
    return line === undefined ? undefined : Number(line.split(' ').at(-1));
  };
  return {
    pending: value('strongroom_rewrap_pending_keys{tenant="1"}'),
    progress: value('strongroom_rewrap_last_progress_timestamp_seconds'),
    keys: value('strongroom_rewrap_keys_total'),
    failures: value('strongroom_rewrap_failures_total'),
  };
}

/** Keys of every tenant not yet under the active version, by the keyring status's own count. */
async function leftToMove(vault: TestVault): Promise<number> {
  const { done, total } = await vault.api.services.rewrapper.progress();
  return total - done;
}

describe('the rewrap metrics', () => {
  it('count the keys still to move, the keys moved, the last progress and the failed passes', async ({ vault }) => {
    for (let i = 0; i < 9; i++) expect((await vault.call('UserCreate', { profile: buildProfile() })).status).toBe(200);
    // The pass at start found nothing to move, and said so.
    await expect.poll(async () => (await rewrapMetrics()).pending).toBe(0);
    const start = await rewrapMetrics();
    expect(start.progress).toBeGreaterThan(0);
    expect(start.progress! * 1000).toBeLessThanOrEqual(Date.now());

    // Rotated behind the job's back; the tokenizer fails two passes. The first finds the keys (the stall is measured
    // from then), the second leaves the progress time still; both count.
    await vault.api.services.tokenizer.rotate();
    const total = await leftToMove(vault);
    expect(total).toBe(10);
    const found = Date.now() / 1000;
    const run = vi.spyOn(vault.api.services.tokenizer, 'run').mockRejectedValue(new Error('tokenizer away'));
    vault.api.services.rewrapper.kick();
    await expect.poll(async () => (await rewrapMetrics()).failures).toBe(start.failures! + 1);
    const failed = await rewrapMetrics();
    expect(failed).toMatchObject({ pending: total, keys: start.keys });
    expect(failed.progress).toBeGreaterThanOrEqual(Math.floor(found));
    vault.api.services.rewrapper.kick();
    await expect.poll(async () => (await rewrapMetrics()).failures).toBe(start.failures! + 2);
    run.mockRestore();
    expect(await rewrapMetrics()).toMatchObject({ pending: total, keys: start.keys, progress: failed.progress });

    // One batch of four.
    const before = Date.now() / 1000;
    expect(await vault.api.services.rewrapper.runOnce(1)).toBe(4);
    const partway = await rewrapMetrics();
    expect(partway.pending).toBe(await leftToMove(vault));
    expect(partway.pending).toBe(total - 4);
    expect(partway.keys).toBe(start.keys! + 4);
    expect(partway.progress).toBeGreaterThanOrEqual(Math.floor(before));

    // The next pass moves the rest.
    vault.api.services.rewrapper.kick();
    await expect.poll(async () => (await rewrapMetrics()).pending).toBe(0);
    const done = await rewrapMetrics();
    expect(await leftToMove(vault)).toBe(0);
    expect(done.keys).toBe(start.keys! + total);
    expect(done.failures).toBe(start.failures! + 2);
    expect(done.progress).toBeGreaterThanOrEqual(partway.progress!);
  });
});
