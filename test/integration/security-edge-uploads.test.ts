// Large bodies against the security review (N8): the gate's verdict comes before a large-body slot is taken, slots
// are per tenant, and an upload slower than the minimum rate is cut.
import { request, type ClientRequest } from 'node:http';
import { describe, expect } from 'vitest';
import { vaultTest, buildProfile, type TestVault } from '../fixtures/vault.js';
import { roleWith } from '../fixtures/roles.js';

const it = vaultTest({
  env: {
    STRONGROOM_BODY_LIMIT: '64kb',
    STRONGROOM_LARGE_BODIES: '1',
    STRONGROOM_LARGE_BODIES_TOTAL: '4',
    STRONGROOM_UPLOAD_MIN_RATE: '32kb',
    STRONGROOM_UPLOAD_RATE_WINDOW_SECONDS: '1',
  },
});

interface Upload {
  /** The answer, as soon as it comes (the body may not have been sent whole). */
  answer: Promise<{ status: number; body: any; headers: Record<string, unknown> }>;
  /** Stops sending and drops the connection. */
  stop(): void;
}

/** A FileCreate declaring `size` bytes, of which `chunk` bytes are written every `everyMs` (never, for 0). */
function upload(vault: TestVault, token: string, size: number, chunk: number, everyMs: number): Upload {
  let req: ClientRequest;
  let timer: NodeJS.Timeout | undefined;
  let sent = 0;
  const answer = new Promise<{ status: number; body: any; headers: Record<string, unknown> }>((resolve, reject) => {
    req = request(
      new URL('/v2/FileCreate', vault.url),
      { method: 'POST', headers: { 'content-type': 'application/json', 'content-length': String(size), 'x-bunker-token': token } },
      (res) => {
        const parts: Buffer[] = [];
        res.on('data', (d: Buffer) => parts.push(d));
        res.on('end', () => {
          clearInterval(timer);
          const text = Buffer.concat(parts).toString('utf8');
          resolve({ status: res.statusCode ?? 0, body: text ? JSON.parse(text) : {}, headers: res.headers });
        });
      },
    );
    req.on('error', (err) => (sent > 0 ? undefined : reject(err)));
  });
  const write = () => {
    const n = Math.min(chunk, size - sent);
    if (n <= 0) return;
    sent += n;
    req.write(Buffer.alloc(n, 0x20));
  };
  write();
  if (everyMs > 0) timer = setInterval(write, everyMs);
  return {
    answer,
    stop() {
      clearInterval(timer);
      req.destroy();
    },
  };
}

/** A tenant with its admin token and a person in it. */
async function tenantWithPerson(vault: TestVault) {
  const name = `up${Math.random().toString(36).slice(2, 8)}`;
  const admin = (await vault.call('TenantCreate', { tenantname: name, tenantorg: name })).body.xtoken as string;
  const person = await vault.call('UserCreate', { profile: buildProfile() }, { 'x-bunker-token': admin });
  expect(person.status).toBe(200);
  return { admin, token: person.body.token as string };
}

/** A FileCreate body larger than the default limit, so it needs a large-body slot. */
const bigFile = (token: string) => ({ mode: 'token', identity: token, filename: 'a.bin', filedata: Buffer.alloc(96 * 1024, 7).toString('base64') });

describe('N8: large bodies', () => {
  it('does not let two slow uploads of tenant A stop tenant B uploading', async ({ vault }) => {
    const [a, b] = [await tenantWithPerson(vault), await tenantWithPerson(vault)];
    // Well above the minimum rate: these hold their slots as long as they keep sending.
    const first = upload(vault, a.admin, 8 * 1024 * 1024, 16 * 1024, 100);
    await new Promise((r) => setTimeout(r, 300));
    const second = upload(vault, a.admin, 8 * 1024 * 1024, 16 * 1024, 100);
    try {
      const busy = await second.answer;
      expect(busy.status).toBe(503);
      expect(busy.body).toEqual({ status: 'error', message: 'The vault is busy: try again shortly' });
      const other = await vault.call('FileCreate', bigFile(b.token), { 'x-bunker-token': b.admin });
      expect(other.status, JSON.stringify(other.body)).toBe(200);
    } finally {
      first.stop();
      second.stop();
    }
  });

  it('cuts an upload that sends slower than the minimum rate, and frees its slot', async ({ vault }) => {
    const a = await tenantWithPerson(vault);
    const stalled = upload(vault, a.admin, 4 * 1024 * 1024, 1024, 0);
    const cut = await Promise.race([stalled.answer, new Promise<never>((_, reject) => setTimeout(() => reject(new Error('not cut within 8 s')), 8000))]);
    stalled.stop();
    expect(cut.status).toBe(408);
    expect(cut.body).toEqual({ status: 'error', message: 'The request body is arriving too slowly' });
    expect(cut.headers.connection).toBe('close');
    const next = await vault.call('FileCreate', bigFile(a.token), { 'x-bunker-token': a.admin });
    expect(next.status, JSON.stringify(next.body)).toBe(200);
  });

  it('refuses a caller the gate refuses before its body is read, so it holds no slot', async ({ vault }) => {
    const reader = await roleWith(vault, { Effect: 'Allow', Action: 'UserGet' });
    const user = await vault.call('UserCreate', { profile: buildProfile() });
    const refused = upload(vault, reader['x-bunker-token']!, 8 * 1024 * 1024, 16 * 1024, 100);
    try {
      await new Promise((r) => setTimeout(r, 300));
      // The main tenant's one slot is free for root while the refused caller is still sending.
      const root = await vault.call('FileCreate', bigFile(user.body.token));
      expect(root.status, JSON.stringify(root.body)).toBe(200);
      const answer = await refused.answer;
      expect(answer.status).toBe(403);
      expect(answer.headers.connection).toBe('close');
    } finally {
      refused.stop();
    }
  });
});
