// Leader election judged by the injected clock: a candidate takes a Lease whose holder stopped renewing only once
// the lease duration has passed on its own clock, and writes the Lease times that clock gives.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import * as k8s from '@kubernetes/client-node';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fromConfig, type Kube } from '../../operator/kube.js';
import type { Clock } from '../../operator/runtime/clock.js';
import { LeaderElector } from '../../operator/runtime/leader-election.js';
import { until } from './harness.js';
import { startKubeDouble, type KubeDouble } from './kube-double/index.js';

const NS = 'election';
let kube: KubeDouble;
let dir: string;
let client: Kube;

beforeAll(async () => {
  kube = await startKubeDouble({ users: new Map([['admin-token', { name: 'admin' }]]) });
  dir = mkdtempSync(join(tmpdir(), 'le-'));
  const config = new k8s.KubeConfig();
  config.loadFromFile(kube.writeKubeconfig(dir, { token: 'admin-token', namespace: NS }));
  client = fromConfig(config);
});
afterAll(async () => {
  await kube?.close();
  rmSync(dir, { recursive: true, force: true });
});

/** A clock that moves only when the test moves it. */
function manualClock(start: string): Clock & { advance(ms: number): void } {
  let t = Date.parse(start);
  return { now: () => t, advance: (ms) => (t += ms) };
}

describe('leader election', () => {
  it('takes a Lease its holder stopped renewing only after the lease duration on its own clock', async () => {
    // A holder that crashed: the Lease says it is held, and nobody renews it any more.
    await client.coordination.createNamespacedLease({
      namespace: NS,
      body: { metadata: { name: 'lock', namespace: NS }, spec: { holderIdentity: 'crashed', leaseDurationSeconds: 10, renewTime: new k8s.V1MicroTime(), leaseTransitions: 0 } },
    });
    const clock = manualClock('2030-01-01T00:00:00Z');
    let started = 0;
    const elector = new LeaderElector(
      client,
      { namespace: NS, name: 'lock', identity: 'standby', leaseDurationMs: 10_000, renewDeadlineMs: 5000, retryPeriodMs: 20 },
      { onStartedLeading: () => void started++, onStoppedLeading: () => undefined },
      pino({ level: 'silent' }),
      clock,
    );
    const reads = () => kube.requests.filter((r) => r.resource === 'leases' && r.verb === 'get').length;
    try {
      elector.run();
      // Many retries on real time, none on the clock: the Lease has not expired for this candidate.
      await until(() => reads() >= 5, 5000, 'five reads of the Lease');
      expect(elector.isLeader()).toBe(false);
      clock.advance(10_000);
      const before = reads();
      await until(() => reads() >= before + 3, 5000, 'three more reads of the Lease');
      expect(elector.isLeader()).toBe(false);
      expect(kube.get('leases', NS, 'lock')?.spec?.holderIdentity).toBe('crashed');

      clock.advance(1);
      await until(() => elector.isLeader(), 5000, 'the standby to lead');
      expect(started).toBe(1);
      expect(kube.get('leases', NS, 'lock')?.spec).toMatchObject({
        holderIdentity: 'standby',
        leaseTransitions: 1,
        acquireTime: '2030-01-01T00:00:10.001000Z',
        renewTime: '2030-01-01T00:00:10.001000Z',
      });
    } finally {
      await elector.stop();
    }
    expect(kube.get('leases', NS, 'lock')?.spec?.holderIdentity).toBe('');
  });
});
