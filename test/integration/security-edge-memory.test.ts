// Bodies in memory against a second attack: a byte budget for the bodies read or held at once, with a share per
// credential and per tenant (one login xtoken's concurrent 1.9 MB bodies ran an api out of heap); large-body slots
// per credential, the tenant's last kept for its administrators (a role xtoken's two slow uploads held both); the
// minimum rate for every body, and a cap on requests in flight per client address (slow small bodies were held
// until the request timeout).
import { request, type ClientRequest } from 'node:http';
import fc from 'fast-check';
import { describe, expect } from 'vitest';
import { vaultTest, buildProfile, type TestVault } from '../fixtures/vault.js';
import { roleWith } from '../fixtures/roles.js';

const KB = 1024;
const it = vaultTest({
  env: {
    STRONGROOM_TRUST_PROXY: 'true',
    // Shares: a quarter (1 MB) per credential or address, a half (2 MB) per tenant.
    STRONGROOM_BODY_MEMORY: '4mb',
    STRONGROOM_BODY_LIMIT: '512kb',
    STRONGROOM_FILE_MAX_BYTES: '1mb',
    STRONGROOM_LARGE_BODIES: '2',
    STRONGROOM_LARGE_BODIES_TOTAL: '8',
    STRONGROOM_UPLOAD_MIN_RATE: '2kb',
    STRONGROOM_UPLOAD_RATE_WINDOW_SECONDS: '1',
    STRONGROOM_REQUESTS_PER_ADDRESS: '6',
  },
});

interface Held {
  /** The answer, as soon as it comes (the body may not have been sent whole). */
  answer: Promise<{ status: number; body: any; headers: Record<string, unknown> }>;
  /** Sends the rest of the body at once. */
  finish(): void;
  stop(): void;
}

let addresses = 0;
/** A client address no other test of this file uses. */
const fresh = () => `198.51.${100 + Math.floor(addresses / 250)}.${(addresses++ % 250) + 1}`;

/**
 * A call (`op`, or a path of its own) declaring a body of `size` bytes (`json`, led by spaces), whose spaces trickle at `chunk` bytes every
 * `everyMs` until finish(): held open, at a rate the vault accepts unless the chunk is small.
 */
function held(vault: TestVault, op: string, json: unknown, size: number, opts: { headers?: Record<string, string>; chunk?: number; everyMs?: number } = {}): Held {
  const text = JSON.stringify(json);
  const lead = size - Buffer.byteLength(text);
  let req: ClientRequest;
  let sent = 0;
  let timer: NodeJS.Timeout | undefined;
  const answer = new Promise<{ status: number; body: any; headers: Record<string, unknown> }>((resolve, reject) => {
    req = request(new URL(op.startsWith('/') ? op : `/v2/${op}`, vault.url), { method: 'POST', headers: { 'content-type': 'application/json', 'content-length': String(size), ...opts.headers } }, (res) => {
      const parts: Buffer[] = [];
      res.on('data', (d: Buffer) => parts.push(d));
      res.on('end', () => {
        clearInterval(timer);
        const body = Buffer.concat(parts).toString('utf8');
        resolve({ status: res.statusCode ?? 0, body: body ? JSON.parse(body) : {}, headers: res.headers });
      });
    });
    req.on('error', (err) => (sent > 0 ? undefined : reject(err)));
  });
  const write = (n: number) => {
    const k = Math.min(n, lead - sent);
    if (k <= 0) return;
    sent += k;
    req.write(' '.repeat(k));
  };
  write(opts.chunk ?? 8 * KB);
  timer = setInterval(() => write(opts.chunk ?? 8 * KB), opts.everyMs ?? 200);
  return {
    answer,
    finish() {
      clearInterval(timer);
      write(lead);
      req.end(text);
    },
    stop() {
      clearInterval(timer);
      req.destroy();
    },
  };
}

const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));
/** Whether the answer came within `ms`. */
const answeredWithin = (h: Held, ms: number) => Promise.race([h.answer.then(() => true), pause(ms).then(() => false)]);

describe('bodies in memory', () => {
  it('refuses one login xtoken past its share of body memory, 503 with Retry-After, while root is served', async ({ vault }) => {
    const user = await vault.call('UserCreate', { profile: buildProfile() });
    const ref = { mode: 'token', identity: user.body.token };
    const login = (await vault.call('XTokenCreateForUser', ref)).body.xtoken as string;
    const headers = { 'x-bunker-token': login, 'x-forwarded-for': fresh() };
    // 400 KB each: two fit the credential's 1 MB share, the one that comes third does not.
    const calls = [0, 1, 2].map(() => held(vault, 'UserGet', ref, 400 * KB, { headers }));
    await pause(1500);
    const answered = await Promise.all(calls.map((c) => answeredWithin(c, 10)));
    expect(answered.filter(Boolean)).toHaveLength(1);
    const refused = await calls[answered.indexOf(true)]!.answer;
    expect(refused.status).toBe(503);
    expect(refused.headers['retry-after']).toBeDefined();
    const admitted = calls.filter((_, i) => !answered[i]);
    // Its v1 bodies share the same budget.
    const v1 = held(vault, `/v1/consent/token/${user.body.token}/news`, { agreementmethod: 'web' }, 400 * KB, { headers });
    expect((await v1.answer).status).toBe(503);
    // Root, another credential, is served while the two are held.
    expect((await vault.call('UserGet', ref)).status).toBe(200);
    for (const c of admitted) c.finish();
    const done = await Promise.all(admitted.map((c) => c.answer));
    expect(done.map((d) => d.status)).toEqual([200, 200]);
    // The share is free again once those are answered.
    const again = held(vault, 'UserGet', ref, 400 * KB, { headers });
    again.finish();
    expect((await again.answer).status).toBe(200);
  });

  it('admits concurrent bodies of any sizes and callers exactly as the budget’s model says', async ({ vault }) => {
    const user = await vault.call('UserCreate', { profile: buildProfile() });
    const ref = { mode: 'token', identity: user.body.token };
    const logins = [(await vault.call('XTokenCreateForUser', ref)).body.xtoken as string, (await vault.call('XTokenCreateForUser', ref)).body.xtoken as string];
    const tokens = [vault.rootToken, ...logins];
    // The file's budget: 4 MB, a caller's share 1 MB, the (main) tenant's 2 MB; every caller here is the main tenant's.
    const [budget, share, tenantShare] = [4096 * KB, 1024 * KB, 2048 * KB];
    const call = fc.record({ caller: fc.nat(2), size: fc.integer({ min: 64, max: 500 }).map((k) => k * KB) });
    await fc.assert(
      fc.asyncProperty(fc.array(call, { minLength: 1, maxLength: 7 }), async (calls) => {
        const holding: { caller: number; size: number; h: Held }[] = [];
        try {
          for (const c of calls) {
            const mine = holding.filter((x) => x.caller === c.caller).reduce((n, x) => n + x.size, 0);
            const all = holding.reduce((n, x) => n + x.size, 0);
            const fits = all + c.size <= budget && (mine === 0 || mine + c.size <= share) && (all === 0 || all + c.size <= tenantShare);
            const h = held(vault, 'UserGet', ref, c.size, { headers: { 'x-bunker-token': tokens[c.caller]!, 'x-forwarded-for': fresh() } });
            const refused = await answeredWithin(h, 400);
            expect(refused, JSON.stringify({ c, mine, all })).toBe(!fits);
            if (refused) expect((await h.answer).status).toBe(503);
            else holding.push({ ...c, h });
          }
        } finally {
          for (const x of holding) x.h.finish();
          for (const x of holding) expect((await x.h.answer).status).toBe(200);
        }
      }),
      { numRuns: 6 },
    );
  });

  it('gives a role xtoken one large-body slot, and keeps the tenant’s last for root', async ({ vault }) => {
    const user = await vault.call('UserCreate', { profile: buildProfile() });
    const file = { mode: 'token', identity: user.body.token, filename: 'a.bin', filedata: Buffer.alloc(8, 1).toString('base64') };
    const policy = { Effect: 'Allow', Action: 'FileCreate' };
    const [a, b] = [await roleWith(vault, policy), await roleWith(vault, policy)];
    const uploads = [
      held(vault, 'FileCreate', file, 700 * KB, { headers: { ...a, 'x-forwarded-for': fresh() } }),
      held(vault, 'FileCreate', file, 700 * KB, { headers: { ...a, 'x-forwarded-for': fresh() } }),
    ];
    // Whichever comes second is refused; the other holds the credential's one slot.
    const second = await Promise.race(uploads.map((u, i) => u.answer.then((a) => ({ ...a, i }))));
    expect(second.status).toBe(503);
    const holding = uploads[1 - second.i]!;
    // Another role's upload would take the tenant's last slot: refused, kept for its administrators.
    const other = held(vault, 'FileCreate', file, 700 * KB, { headers: { ...b, 'x-forwarded-for': fresh() } });
    expect((await other.answer).status).toBe(503);
    const root = held(vault, 'FileCreate', file, 700 * KB, { headers: { 'x-bunker-token': vault.rootToken, 'x-forwarded-for': fresh() } });
    root.finish();
    expect((await root.answer).status).toBe(200);
    holding.finish();
    expect((await holding.answer).status).toBe(200);
  });
});

describe('slow bodies and requests in flight', () => {
  it('cuts a slow small body with 408 after the grace, authenticated or anonymous', async ({ vault }) => {
    const started = Date.now();
    const slow = held(vault, 'UserCreate', { profile: buildProfile() }, 100 * KB, { headers: { 'x-bunker-token': vault.rootToken, 'x-forwarded-for': fresh() }, chunk: 256, everyMs: 250 });
    const anonymous = held(vault, 'TenantGetUIConf', {}, 2 * KB, { headers: { 'x-forwarded-for': fresh() }, chunk: 3, everyMs: 300 });
    const [a, b] = await Promise.all([slow.answer, anonymous.answer]);
    expect([a.status, b.status]).toEqual([408, 408]);
    expect(Date.now() - started).toBeLessThan(8000);
  });

  it('answers 503 past the requests in flight of one client address, and serves another address', async ({ vault }) => {
    const address = fresh();
    const open = Array.from({ length: 6 }, () => held(vault, 'TenantGetUIConf', {}, 15 * KB, { headers: { 'x-forwarded-for': address }, chunk: 160, everyMs: 20 }));
    await pause(300);
    const past = held(vault, 'TenantGetUIConf', {}, 2 * KB, { headers: { 'x-forwarded-for': address } });
    expect((await past.answer).status).toBe(503);
    const elsewhere = held(vault, 'TenantGetUIConf', {}, 2 * KB, { headers: { 'x-forwarded-for': fresh() } });
    elsewhere.finish();
    expect((await elsewhere.answer).status).toBe(200);
    for (const o of open) o.finish();
    expect((await Promise.all(open.map((o) => o.answer))).map((o) => o.status)).toEqual(Array(6).fill(200));
  });
});
