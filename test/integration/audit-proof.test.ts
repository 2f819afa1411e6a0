// A person's audit proof (AuditProveEvents), asked for with their own login xtoken, checked offline with the checkpoint
// key's public half and a real RFC 3161 authority's certificate (openssl ts): it holds, covers every event of theirs
// that a checkpoint covers, shows nothing of anyone else's events but hashes, and fails once any part is altered.
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect } from 'vitest';
import { vaultTest, type TestVault } from '../fixtures/vault.js';
import { startTsa } from '../fixtures/tsa.js';
import { verifyProof, type AuditProof } from '../../api/vault/audit/proof.js';

const tsa = await startTsa();
const dir = mkdtempSync(join(tmpdir(), 'sr-proof-'));
const it = vaultTest({ env: { STRONGROOM_AUDIT_TSA_URL: tsa.url, STRONGROOM_AUDIT_CHECKPOINT_SECONDS: '1' } });

afterAll(async () => {
  await tsa.stop();
  rmSync(dir, { recursive: true, force: true });
});

const verifyCli = (file: string, pub: string, tsaCert: string) =>
  new Promise<{ code: number; out: string }>((resolve) => {
    const root = fileURLToPath(new URL('../..', import.meta.url));
    execFile(process.execPath, ['--import', 'tsx', join(root, 'api/audit-verify.ts'), '--proof', file, '--public-key', pub, '--tsa-cert', tsaCert], { cwd: root }, (err, stdout) =>
      resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, out: stdout }),
    );
  });

interface Person {
  token: string;
  login: Record<string, string>;
}

async function person(vault: TestVault, tag: string): Promise<Person> {
  const created = await vault.call('UserCreate', { profile: { email: `${tag}@example.com`, name: `Name ${tag}` } });
  expect(created.status).toBe(200);
  const token = created.body.token as string;
  const login = { 'x-bunker-token': (await vault.call('XTokenCreateForUser', { mode: 'token', identity: token })).body.xtoken as string };
  return { token, login };
}

/** The person's whole proof once a timestamped checkpoint covers every event of theirs. */
async function provenAll(vault: TestVault, p: Person): Promise<{ proof: AuditProof; events: number }> {
  let answer: Record<string, unknown> = {};
  await expect
    .poll(
      async () => {
        const res = await vault.call('AuditProveEvents', { mode: 'token', identity: p.token, limit: 100 }, p.login);
        expect(res.status, JSON.stringify(res.body)).toBe(200);
        answer = res.body;
        const segments = (answer.proof as AuditProof).segments;
        return (answer.unproven as unknown[]).length === 0 && segments.length > 0 && segments.every((s) => s.timestamp);
      },
      { timeout: 30_000, interval: 300 },
    )
    .toBe(true);
  const proof = answer.proof as AuditProof;
  return { proof, events: proof.segments.reduce((n, s) => n + s.events.length, 0) };
}

describe('AuditProveEvents', () => {
  it('proves a person’s events offline, shows nobody else’s, and fails on any alteration', async ({ vault }) => {
    const ada = await person(vault, 'ada-proof');
    const bob = await person(vault, 'bob-canary-7f3a');
    // Ada's events interleaved with Bob's, so her segments run across his.
    for (let i = 0; i < 4; i++) {
      await vault.call('UserGet', { mode: 'token', identity: ada.token });
      await vault.call('UserUpdate', { mode: 'token', identity: bob.token, profile: { name: `bob-secret-${i}` } });
      await vault.call('UserGet', { mode: 'token', identity: bob.token });
    }
    await vault.call('UserGet', { mode: 'token', identity: ada.token }, ada.login);
    const { proof, events } = await provenAll(vault, ada);
    const pub = await vault.api.services.auditCheckpoints.publicKey();

    // Every event the access log lists up to the proof's last checkpoint (the proof call itself comes after).
    const last = proof.segments.at(-1)!.checkpoint.seq;
    const log = await vault.call('AuditListUserEvents', { mode: 'token', identity: ada.token, limit: 100 });
    const listed = (log.body.rows as { when: number }[]).length;
    expect(events).toBeGreaterThanOrEqual(6);
    expect(events).toBeLessThanOrEqual(listed);
    expect(proof.segments.every((s) => s.events.every((e) => e.record === ada.token && e.seq <= last))).toBe(true);

    const report = await verifyProof(proof, pub, { tsaPem: tsa.caPem });
    expect(report).toMatchObject({ result: 'intact', tenant: 1, record: ada.token, proven: events, unproven: 0 });
    expect(report.checkpoints.timestamped).toBe(proof.segments.length);

    // Nothing of Bob's: not his token, his email or his profile, not even sealed (only leaves of his events); and of
    // Ada's own events' sealed details only their hash.
    const text = JSON.stringify(proof);
    for (const canary of [bob.token, 'bob-canary-7f3a', 'bob-secret-']) expect(text).not.toContain(canary);
    expect(proof.segments.flatMap((s) => s.events).every((e) => !('details' in e) && (e.detailsdigest === null || /^[0-9a-f]{64}$/.test(e.detailsdigest)))).toBe(true);
    expect(report.events.map((e) => e.seq)).toEqual(proof.segments.flatMap((s) => s.events.map((e) => e.seq)));

    // The command, on the saved answer.
    const file = join(dir, 'proof.json');
    const pubFile = join(dir, 'pub.pem');
    const tsaFile = join(dir, 'tsa.pem');
    writeFileSync(file, JSON.stringify({ status: 'ok', proof }));
    writeFileSync(pubFile, pub);
    writeFileSync(tsaFile, tsa.caPem);
    const cli = await verifyCli(file, pubFile, tsaFile);
    expect(cli.code, cli.out).toBe(0);
    expect(JSON.parse(cli.out)).toMatchObject({ result: 'intact', proven: events });

    // Altered: one event's title, its time, a leaf of someone else's event, the digest before, the checkpoint.
    const seg = proof.segments.at(-1)!;
    const alter = (change: (p: AuditProof) => void) => {
      const copy = structuredClone(proof);
      change(copy);
      return copy;
    };
    const cases: [string, AuditProof][] = [
      ['title', alter((p) => (p.segments.at(-1)!.events[0]!.title = 'TenantListTenants'))],
      ['when', alter((p) => (p.segments.at(-1)!.events[0]!.when += 1))],
      ['leaf', alter((p) => (p.segments.at(-1)!.leaves = flipByte(seg.leaves, 32 * (seg.checkpoint.seq - seg.first))))],
      // (Empty when the segment starts at the trail's first event: then any digest before it is a forgery.)
      ['previous', alter((p) => (p.segments.at(-1)!.previous = seg.previous ? seg.previous.replace(/^./, (c) => (c === '0' ? '1' : '0')) : '00'.repeat(32)))],
      ['checkpoint', alter((p) => (p.segments.at(-1)!.checkpoint.time += 1))],
      ['an event of Bob given as hers', alter((p) => (p.segments.at(-1)!.events[0]!.record = bob.token))],
    ];
    for (const [what, altered] of cases) {
      const r = await verifyProof(altered, pub, { tsaPem: tsa.caPem });
      expect(r.result, what).toBe('broken');
    }
    writeFileSync(file, JSON.stringify(cases[0]![1]));
    const bad = await verifyCli(file, pubFile, tsaFile);
    expect(bad.code).toBe(1);
    expect(JSON.parse(bad.out)).toMatchObject({ result: 'broken', broken: { seq: seg.events[0]!.seq } });

    // Under another authority's certificate, the timestamps do not hold.
    expect((await verifyProof(proof, pub, { tsaPem: tsa.otherCaPem })).result).toBe('broken');
  });

  it('is the person’s own or an admin’s: another person’s login is refused, and the page is bounded', async ({ vault }) => {
    const ada = await person(vault, 'ada-own');
    const eve = await person(vault, 'eve-own');
    const refused = await vault.call('AuditProveEvents', { mode: 'token', identity: ada.token }, eve.login);
    expect(refused.status).toBe(403);
    for (let i = 0; i < 5; i++) await vault.call('UserGet', { mode: 'token', identity: ada.token });
    // Pages of two, by `next`, cover her events once each and in order, as an admin asks.
    const seen: number[] = [];
    let after = 0;
    for (let n = 0; n < 10; n++) {
      const page = await vault.call('AuditProveEvents', { mode: 'token', identity: ada.token, after, limit: 2 });
      expect(page.status).toBe(200);
      const proof = page.body.proof as AuditProof;
      const seqs = [...proof.segments.flatMap((s) => s.events.map((e) => e.seq)), ...(page.body.unproven as { seq: number }[]).map((u) => u.seq)].sort((a, b) => a - b);
      expect(seqs.length).toBeLessThanOrEqual(2);
      seen.push(...seqs);
      if (page.body.next === null) break;
      after = page.body.next as number;
    }
    expect(seen).toEqual([...new Set(seen)].sort((a, b) => a - b));
    expect(seen.length).toBeGreaterThanOrEqual(6);
    // Its size is the person's events', whatever the events between them hold: Bob's large updates and Ada's own
    // large request metadata travel as hashes.
    const big = 'x'.repeat(300_000);
    for (let i = 0; i < 4; i++) {
      await vault.call('UserUpdate', { mode: 'token', identity: eve.token, profile: { note: `${big}${i}` } });
      await vault.call('UserGet', { mode: 'token', identity: ada.token, request_metadata: { note: big.slice(0, 60_000) } }, ada.login);
    }
    await expect
      .poll(async () => ((await vault.call('AuditProveEvents', { mode: 'token', identity: ada.token, limit: 100 }, ada.login)).body.unproven as unknown[]).length, { timeout: 30_000, interval: 300 })
      .toBe(0);
    const whole = await vault.call('AuditProveEvents', { mode: 'token', identity: ada.token, limit: 100 }, ada.login);
    expect(JSON.stringify(whole.body).length).toBeLessThan(64 * 1024);

    // request_metadata, kept in every call's event, is bounded: larger is refused, naming it.
    const heavy = await vault.call('UserGet', { mode: 'token', identity: ada.token, request_metadata: { note: big } }, ada.login);
    expect(heavy.status).toBe(400);
    expect(heavy.body.message).toMatch(/request_metadata: larger than 64 KiB/);

    // Bad input names its field: a negative, fractional or non-number `after`.
    // (null is absent, as for every field.)
    for (const after of [-1, 1.5, '12', [5], true]) {
      const bad = await vault.call('AuditProveEvents', { mode: 'token', identity: ada.token, after });
      expect(bad.status, JSON.stringify(after)).toBe(400);
      expect(bad.body.message).toMatch(/after/);
    }
  });
});

function flipByte(b64: string, at: number): string {
  const bytes = Buffer.from(b64, 'base64');
  bytes[at]! ^= 1;
  return bytes.toString('base64');
}
