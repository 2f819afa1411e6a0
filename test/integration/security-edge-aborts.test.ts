// Clients that give up: a connection closed at any moment of its call (before its body is read, while it is read,
// while the call runs) is never counted or logged as the vault's failure (a 500), and leaves the vault serving.
import { connect } from 'node:net';
import fc from 'fast-check';
import { expect } from 'vitest';
import { test } from '../fixtures/vault.js';

/** The 5xx answers the vault has counted so far, from its /metrics. */
async function serverErrors(url: string): Promise<number> {
  const text = await (await fetch(`${url}/metrics`)).text();
  return text
    .split('\n')
    .filter((l) => l.startsWith('http_requests_total{') && /status="5\d\d"/.test(l))
    .reduce((n, l) => n + Number(l.split(' ').at(-1)), 0);
}

/** Sends a whole call to `path` (or `sent` bytes of it) on a connection of its own and closes it after `closeAfterMs`. */
function abandon(url: string, path: string, token: string, body: string, sent: number, closeAfterMs: number): Promise<void> {
  const { hostname, port } = new URL(url);
  const bytes = Buffer.from(`POST ${path} HTTP/1.1\r\nhost: ${hostname}\r\ncontent-type: application/json\r\nx-bunker-token: ${token}\r\ncontent-length: ${Buffer.byteLength(body)}\r\n\r\n${body}`);
  return new Promise((resolve) => {
    const socket = connect(Number(port), hostname, () => {
      socket.write(bytes.subarray(0, Math.min(sent, bytes.length)));
      setTimeout(() => socket.destroy(), closeAfterMs);
    });
    socket.on('error', () => undefined);
    socket.on('close', () => resolve());
  });
}

test('answers no 500 to clients that close their connection at any moment of a call (generated)', async ({ vault }) => {
  const before = await serverErrors(vault.url);
  await fc.assert(
    fc.asyncProperty(
      fc.record({ path: fc.constantFrom('/v2/UserGet', '/v1/userapp/login/nobody/crm'), pad: fc.nat({ max: 20_000 }), cut: fc.double({ min: 0.5, max: 1, noNaN: true }), closeAfterMs: fc.nat({ max: 5 }), together: fc.integer({ min: 1, max: 16 }) }),
      async ({ path, pad, cut, closeAfterMs, together }) => {
        const body = JSON.stringify({ mode: 'login', identity: 'nobody', request_metadata: { pad: 'x'.repeat(pad) } });
        const whole = body.length + 200;
        await Promise.all(Array.from({ length: together }, () => abandon(vault.url, path, vault.rootToken, body, Math.ceil(whole * cut), closeAfterMs)));
      },
    ),
    { numRuns: 60 },
  );
  // Calls still running when their client left finish on their own: then nothing may have counted as a 500.
  await expect.poll(async () => (await vault.call('UserGet', { mode: 'login', identity: 'nobody' })).status).toBe(404);
  expect(await serverErrors(vault.url)).toBe(before);
});
