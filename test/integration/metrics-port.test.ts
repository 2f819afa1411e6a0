// /metrics names tenants in its labels: with STRONGROOM_METRICS_PORT it is served on that port alone, and the
// public API port answers 404 for it. (Without the setting, as in development, it stays on the public port:
// http-contract.test.ts.)
import { createServer } from 'node:net';
import { describe, expect } from 'vitest';
import { vaultTest } from '../fixtures/vault.js';

/** A port nothing listens on now (the kernel's choice, released at once). */
async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as { port: number };
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  return port;
}

const metricsPort = await freePort();
const it = vaultTest({ env: { STRONGROOM_METRICS_PORT: String(metricsPort), HOST: '127.0.0.1' } });

describe('metrics on a port of their own', () => {
  it('serves /metrics on the metrics port only, with the api’s series', async ({ vault }) => {
    expect((await vault.call('UserGet', { mode: 'login', identity: 'nobody-here' })).status).toBe(404);
    const onPublic = await fetch(`${vault.url}/metrics`);
    expect(onPublic.status).toBe(404);
    const own = await fetch(`http://127.0.0.1:${metricsPort}/metrics`);
    expect(own.status).toBe(200);
    expect(await own.text()).toMatch(/^strongroom_\w+/m);
    expect((await fetch(`http://127.0.0.1:${metricsPort}/v2/UserGet`, { method: 'POST' })).status).toBe(404);
  });
});
