// The HTTP edge, tried as an attacker would: bodies that are never read unless the caller may send them, a
// bounded number of large bodies in memory, and an address that guesses tokens throttled, its valid tokens not.
import { request } from 'node:http';
import { Readable } from 'node:stream';
import { describe, expect } from 'vitest';
import { vaultTest, buildProfile, type TestVault } from '../fixtures/vault.js';

const MIB = 1024 * 1024;
const it = vaultTest();

interface Sent {
  status: number;
  body: any;
  headers: Record<string, string | string[] | undefined>;
  /** Bytes of the body the client managed to write before the answer came. */
  written: number;
}

/**
 * POSTs a body of `size` bytes produced on demand (the client never holds it), declared by Content-Length unless
 * `chunked`. Resolves with the answer as soon as it comes, however much of the body was written.
 */
function post(vault: TestVault, path: string, size: number, headers: Record<string, string> = {}, chunked = false): Promise<Sent> {
  const url = new URL(path, vault.url);
  const chunk = Buffer.alloc(64 * 1024, 0x20);
  let written = 0;
  const body = new Readable({
    read() {
      if (written >= size) return void this.push(null);
      const n = Math.min(chunk.length, size - written);
      written += n;
      this.push(n === chunk.length ? chunk : chunk.subarray(0, n));
    },
  });
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      { method: 'POST', headers: { 'content-type': 'application/json', ...(chunked ? {} : { 'content-length': String(size) }), ...headers } },
      (res) => {
        const parts: Buffer[] = [];
        res.on('data', (d: Buffer) => parts.push(d));
        res.on('end', () => {
          req.destroy();
          body.destroy();
          const text = Buffer.concat(parts).toString('utf8');
          resolve({ status: res.statusCode ?? 0, body: text ? JSON.parse(text) : {}, headers: res.headers, written });
        });
      },
    );
    // The server closes the connection with its answer: writing what is left then fails, which is the point.
    req.on('error', (err) => (written > 0 ? undefined : reject(err)));
    body.pipe(req);
  });
}

/** The highest RSS seen while `work` runs, sampled every 5 ms. */
async function peakRss<T>(work: () => Promise<T>): Promise<{ peak: number; result: T }> {
  let peak = process.memoryUsage().rss;
  const timer = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 5);
  try {
    const result = await work();
    return { peak: Math.max(peak, process.memoryUsage().rss), result };
  } finally {
    clearInterval(timer);
  }
}

describe('bodies are read only for callers who may send them', () => {
  it('answers eight concurrent 43 MB bodies without a token with 403, unread, within a memory bound', async ({ vault }) => {
    await vault.call('SystemGetSystemStats');
    globalThis.gc?.();
    const before = process.memoryUsage().rss;
    const { peak, result } = await peakRss(() =>
      Promise.all([
        ...Array.from({ length: 4 }, () => post(vault, '/v2/FileCreate', 43 * MIB)),
        ...Array.from({ length: 4 }, () => post(vault, '/v2/UserCreate', 43 * MIB, { 'x-bunker-token': '00000000-0000-4000-8000-000000000000' })),
      ]),
    );
    for (const [i, r] of result.entries()) {
      expect(r.status).toBe(403);
      // The first four send no token at all, which the answer says; the others a token that does not work.
      expect(r.body).toEqual({ status: 'error', message: i < 4 ? 'missing X-Bunker-Token header' : 'Access denied' });
      expect(r.headers.connection).toBe('close');
      // Answered long before the body was sent: the server never waited for it.
      expect(r.written).toBeLessThan(43 * MIB);
    }
    // The api runs in this process: eight buffered bodies would add at least 344 MB.
    expect(peak - before).toBeLessThan(64 * MIB);
  });

  it('answers an unknown operation 404 and an oversized public body 413 without reading them', async ({ vault }) => {
    const unknown = await post(vault, '/v2/NoSuchOperation', 43 * MIB);
    expect(unknown.status).toBe(404);
    expect(unknown.written).toBeLessThan(43 * MIB);
    for (const op of ['UserPrelogin', 'UserLogin', 'SharedRecordGet', 'TenantGetUIConf', 'CaptchaCreate']) {
      const declared = await post(vault, `/v2/${op}`, 17 * 1024);
      expect(declared.status, op).toBe(413);
      expect(declared.body).toEqual({ status: 'error', message: 'The request body is too large' });
      // A chunked body is cut off as it passes the limit.
      const chunked = await post(vault, `/v2/${op}`, 8 * MIB, {}, true);
      expect(chunked.status, op).toBe(413);
      expect(chunked.written, op).toBeLessThan(8 * MIB);
    }
  });

  it('gives an authenticated call the default limit and only FileCreate and the bulk creations the file limit', async ({ vault }) => {
    const token = { 'x-bunker-token': vault.rootToken };
    const big = await post(vault, '/v2/UserCreate', 64 * MIB, token);
    expect(big.status).toBe(413);
    expect(big.written).toBeLessThan(64 * MIB);
    const chunked = await post(vault, '/v2/UserCreate', 8 * MIB, token, true);
    expect(chunked.status).toBe(413);
    // Within the default limit the body is read and judged on its content.
    const profile = buildProfile();
    const ok = await vault.call('UserCreate', { profile, padding: 'x'.repeat(MIB) });
    expect(ok.status).toBe(200);
    // FileCreate may carry a whole file (32 MB as base64 by default): the body is read, the file judged.
    const file = await post(vault, '/v2/FileCreate', 4 * MIB, token);
    expect(file.status).toBe(400);
    expect(file.written).toBe(4 * MIB);
  });

  it('keeps at most STRONGROOM_LARGE_BODIES large bodies in memory and asks the rest to come back', async ({ vault }) => {
    // Two slots by default: of six slow uploads at once, at least four are told to retry, unread.
    const token = { 'x-bunker-token': vault.rootToken };
    const slow = Array.from({ length: 6 }, () => post(vault, '/v2/FileCreate', 30 * MIB, token));
    const answers = await Promise.all(slow);
    const busy = answers.filter((a) => a.status === 503);
    expect(busy.length).toBeGreaterThanOrEqual(4);
    for (const b of busy) {
      expect(b.body).toEqual({ status: 'error', message: 'The vault is busy: try again shortly' });
      expect(b.headers['retry-after']).toBe('1');
    }
    for (const a of answers.filter((x) => x.status !== 503)) expect(a.status).toBe(400);
    // The slots are released: a small file goes through.
    const user = await vault.call('UserCreate', { profile: buildProfile() });
    const small = await vault.call('FileCreate', { mode: 'token', identity: user.body.token, filename: 'a.txt', filedata: Buffer.from('hello').toString('base64') });
    expect(small.status).toBe(200);
  });
});

const limited = vaultTest({ env: { STRONGROOM_AUTH_FAILURES_PER_ADDRESS: '5', STRONGROOM_AUTH_BLOCK_SECONDS: '2' } });

describe('failed authentication is limited per client address', () => {
  limited('throttles an address past its failures, and never refuses a right token from it', async ({ vault }) => {
    const wrong = { 'x-bunker-token': '00000000-0000-4000-8000-000000000000' };
    const statuses: number[] = [];
    for (let i = 0; i < 7; i++) statuses.push((await vault.call('UserGet', { mode: 'login', identity: 'x' }, wrong)).status);
    // Five failures are allowed; the sixth is over the limit, and it and what fails after it are answered 429.
    expect(statuses).toEqual([403, 403, 403, 403, 403, 429, 429]);
    const refused = await vault.call('UserGet', { mode: 'login', identity: 'x' }, wrong);
    expect(refused.body).toEqual({ status: 'error', message: 'Too many requests' });
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    // The token is looked at first: a valid credential sharing the address (NAT, an ingress) is served.
    expect((await vault.call('SystemGetSystemStats', {})).status).toBe(200);
  });
});
