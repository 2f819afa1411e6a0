// The audit trail streamed to a real rsyslog (RFC 5424 over TCP, octet-counted) and to an HTTP collector, its
// checkpoints stamped by a real RFC 3161 authority (openssl ts): the copies verify offline with the public key and the
// authority's certificate, an edited, dropped or moved line fails naming its sequence number, a filtered copy shows
// what it left out, and a sink that is down for a while never stops a request and catches up with no gap.
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import { execFile } from 'node:child_process';
import { mkdtempSync, writeFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect } from 'vitest';
import { vaultTest, type TestVault } from '../fixtures/vault.js';
import { startRsyslog, type Rsyslog } from '../fixtures/rsyslog.js';
import { startTsa } from '../fixtures/tsa.js';
import { readCopy, verifyCopy } from '../../api/vault/audit/copy-verification.js';
import { formatSyslog } from '../../api/vault/audit/siem/syslog.js';
import { toJson, type ExportRecord } from '../../api/vault/audit/siem/record.js';
import { digestOfLeaf, leafOfDigest } from '../../proto/audit-checkpoint.js';
import { canonicalHead } from '../../api/vault/audit/note.js';

/** An HTTP collector taking NDJSON batches: every line it was sent, in order. */
async function collector() {
  const lines: string[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      lines.push(...Buffer.concat(chunks).toString('utf8').split('\n').filter(Boolean));
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  return { lines, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/ingest`, close: () => new Promise<void>((done) => (server.closeAllConnections(), server.close(() => done()))) };
}

let syslog: Rsyslog = await startRsyslog();
const port = syslog.port;
const all = await collector();
const errors = await collector();
const tsa = await startTsa();
const dir = mkdtempSync(join(tmpdir(), 'sr-sinks-'));

const it = vaultTest({
  env: {
    STRONGROOM_AUDIT_SINKS: JSON.stringify([
      { name: 'soc', type: 'syslog', host: '127.0.0.1', port, format: 'json' },
      { name: 'lake', type: 'http', url: all.url, shape: 'lines', format: 'ocsf' },
      { name: 'errors', type: 'http', url: errors.url, shape: 'lines', format: 'json', filter: { outcomes: ['error'] } },
    ]),
    STRONGROOM_AUDIT_TSA_URL: tsa.url,
    STRONGROOM_AUDIT_CHECKPOINT_SECONDS: '1',
  },
});

afterAll(async () => {
  await syslog.stop();
  await all.close();
  await errors.close();
  await tsa.stop();
  rmSync(dir, { recursive: true, force: true });
});

/** The main tenant's head, and the records a copy holds of it. */
async function head(vault: TestVault): Promise<number> {
  return (await vault.api.services.db.stores(1).audit.head()).seq;
}

async function publicKey(vault: TestVault): Promise<string> {
  return vault.api.services.auditCheckpoints.publicKey();
}

/** Until the copy holds the head's event and a timestamped checkpoint. */
async function caughtUp(vault: TestVault, lines: () => Promise<string[]> | string[]): Promise<string[]> {
  const target = await head(vault);
  let got: string[] = [];
  await expect
    .poll(
      async () => {
        got = await lines();
        const records = readCopy(got.join('\n')).records.filter((r) => r.tenant === 1);
        const seqs = records.flatMap((r) => (r.kind === 'checkpoint' ? [] : [r.seq]));
        return Math.max(0, ...seqs) >= target && records.some((r) => r.kind === 'checkpoint' && r.timestamp);
      },
      { timeout: 30_000, interval: 200 },
    )
    .toBe(true);
  return got;
}

/**
 * The stranger's forgery: the JSON line at `at` (event `seq`) rewritten as a successful TenantListTenants with its digest
 * recomputed from the one before, and the line at `then` replaced by a skipped stand-in keeping its digest.
 */
function forge(lines: string[], at: number, then: number, seq: number): string[] {
  const records = readCopy(lines.join('\n')).records.filter((r) => r.tenant === 1 && r.kind !== 'checkpoint');
  const before = records.find((r) => r.kind !== 'checkpoint' && r.seq === seq - 1)!;
  const original = readCopy(lines[at]!).records[0]!;
  if (original.kind !== 'event' || before.kind === 'checkpoint') throw new Error('not an event line');
  const fake = { ...original, title: 'TenantListTenants', status: 'ok' as const, msg: null };
  fake.digest = digestOfLeaf(Buffer.from(before.digest, 'hex'), seq, leafOfDigest(canonicalHead(fake), fake.detailsdigest)).toString('hex');
  const next = readCopy(lines[then]!).records[0]!;
  if (next.kind !== 'event') throw new Error('not an event line');
  const stand: ExportRecord = { kind: 'skipped', tenant: 1, seq: next.seq, when: next.when, digest: next.digest };
  return lines.map((l, i) => (i === at ? toJson(fake) : i === then ? toJson(stand) : l));
}

const verifyCli = (file: string, pub: string, tsaCert: string) =>
  new Promise<{ code: number; out: string }>((resolve) => {
    const root = fileURLToPath(new URL('../..', import.meta.url));
    execFile(process.execPath, ['--import', 'tsx', join(root, 'api/audit-verify.ts'), '--from-file', file, '--public-key', pub, '--tsa-cert', tsaCert], { cwd: root }, (err, stdout) =>
      resolve({ code: err ? ((err as { code?: number }).code ?? 1) : 0, out: stdout }),
    );
  });

describe('audit sinks', () => {
  it('stream a copy that verifies offline, and fails on an edited, dropped or moved line naming its sequence', async ({ vault }) => {
    for (let i = 0; i < 5; i++) await vault.call('UserCreate', { profile: { email: `sink${i}@example.com` } });
    await vault.call('UserGet', { mode: 'email', identity: 'nobody@example.com' });
    const lines = await caughtUp(vault, () => syslog.lines());
    const pub = await publicKey(vault);
    const [report] = (await verifyCopy(readCopy(lines.join('\n')).records, pub, { tsaPem: tsa.caPem, complete: true })).filter((r) => r.tenant === 1);
    expect(report).toMatchObject({ result: 'intact', skipped: 0 });
    expect(report!.checkpoints.timestamped).toBeGreaterThan(0);
    expect(report!.provenUpTo).toBeGreaterThan(0);
    // The command, on the file rsyslog wrote.
    const files = { copy: join(dir, 'copy.log'), pub: join(dir, 'audit.pub'), ca: join(dir, 'tsa-ca.pem'), other: join(dir, 'other.pem') };
    writeFileSync(files.copy, lines.join('\n'));
    writeFileSync(files.pub, pub);
    writeFileSync(files.ca, tsa.caPem);
    writeFileSync(files.other, tsa.otherCaPem);
    const cli = await verifyCli(files.copy, files.pub, files.ca);
    expect(cli.code, cli.out).toBe(0);
    expect(cli.out).toContain('"result":"intact"');
    // The wrong authority's certificate: its first timestamped checkpoint fails.
    const wrong = await verifyCli(files.copy, files.pub, files.other);
    expect(wrong.code).toBe(1);
    expect(wrong.out).toMatch(/checkpoint timestamp does not hold/);

    const eventLines = lines.map((l, i) => ({ l, i, r: readCopy(l).records[0] })).filter((x) => x.r?.kind === 'event' && x.r.tenant === 1 && x.r.seq > 1);
    const victim = eventLines[1]!;
    const seq = victim.r!.kind === 'event' ? victim.r!.seq : 0;
    const judge = async (copy: string[]) => (await verifyCopy(readCopy(copy.join('\n')).records, pub)).find((r) => r.tenant === 1)!;
    const edited = lines.map((l, i) => (i === victim.i ? l.replace(/\\"title\\":\\"[A-Za-z]+\\"|"title":"[A-Za-z]+"/, (m) => m.replace(/[A-Za-z]+(\\?")$/, 'UserDelete$1')) : l));
    expect(edited).not.toEqual(lines);
    expect((await judge(edited)).broken).toMatchObject({ seq });
    expect((await judge(lines.filter((_, i) => i !== victim.i))).broken).toMatchObject({ seq });
    const moved = [...lines];
    [moved[victim.i], moved[victim.i + 1]] = [moved[victim.i + 1]!, moved[victim.i]!];
    const movedReport = await judge(moved);
    expect(movedReport.result).toBe('broken');
    expect([seq, seq + 1]).toContain(movedReport.broken!.seq);

    // As the stranger forged it: an event rewritten (its digest recomputed: it needs no key) and the next one turned
    // into a skipped stand-in keeping its digest. Consistent, but nothing before the stand-in is proven any more.
    const next = eventLines.find((x) => x.r!.kind === 'event' && x.r!.seq === seq + 1)!;
    const forged = forge(lines, victim.i, next.i, seq);
    const forgedReport = await judge(forged);
    expect(forgedReport.result).toBe('intact');
    expect(forgedReport.provenUpTo).toBeLessThan(seq);
    expect(forgedReport.unproven).toBeGreaterThan(0);
    expect((await verifyCopy(readCopy(forged.join('\n')).records, pub, { complete: true })).find((r) => r.tenant === 1)).toMatchObject({ result: 'broken', broken: { seq: seq + 1 } });
    // Timestamps stripped: with the authority's certificate, unstamped checkpoints prove nothing.
    const stripped = lines.map((l) => l.replace(/,\\?"timestamp\\?":\\?"[^"\\]*\\?"/, ''));
    expect((await verifyCopy(readCopy(stripped.join('\n')).records, pub, { tsaPem: tsa.caPem })).find((r) => r.tenant === 1)).toMatchObject({ result: 'intact', provenUpTo: 0 });
    // A line that claims to be ours but is not one faithfully is named.
    const junk = [...lines, '{"type":"strongroom.audit.event","v":1,"tenant":1,"seq":2,"title":"UserDelete","digest":"not-hex"}'];
    expect(readCopy(junk.join('\n')).malformed).toEqual([{ line: junk.length, why: 'not a well-formed audit record' }]);
    // However a line that a SIEM would show as ours is spelled, it is one exactly or it fails (the second stranger's).
    const spelled = [
      '{"class_uid":6.003e3,"activity_id":4,"time":1795803300000,"status_id":1,"api":{"operation":"UserDelete"},"metadata":{"product":{"name":"Strongroom"},"sequence":27}}',
      '{"type":"strongroom\\u002eaudit.event","v":"1","tenant":1,"seq":2,"title":"UserDelete"}',
    ];
    expect(readCopy([...lines, ...spelled].join('\n')).malformed.map((m) => m.why)).toEqual(['not a well-formed audit record', 'not a well-formed audit record']);
    // A whole RFC 5424 header is the vault's own but for the sender's names: a changed priority, time, MSGID or an
    // added structured data element fails.
    // (The line as a relay keeping the whole message, `%rawmsg%`, writes it.)
    const raw = formatSyslog(victim.r!, { hostname: 'vault-1', appName: 'strongroom', format: 'json' });
    expect(readCopy(lines.map((l, i) => (i === victim.i ? raw : l)).join('\n')).malformed).toEqual([]);
    const header = raw.slice(0, raw.indexOf('{'));
    const pri = /<(\d+)>/.exec(header)!;
    for (const forged of [
      header.replace(pri[0], `<${Number(pri[1]) === 110 ? 108 : 110}>`),
      header.replace(/>1 \S+ /, '>1 2019-01-01T00:00:00Z '),
      header.replace(' event [', ' checkpoint ['),
      header.replace('[strongroom@', '[meta approvedBy="dpo@example.com"][strongroom@'),
    ]) {
      const edited = lines.map((l, i) => (i === victim.i ? forged + raw.slice(header.length) : l));
      expect(readCopy(edited.join('\n')).malformed, forged).toEqual([{ line: victim.i + 1, why: 'a syslog header that disagrees with its record' }]);
    }
    // Elastic's @timestamp, when there, is the record's own time.
    const dated = lines.map((l, i) => (i === victim.i ? l.replace('{', '{"@timestamp":"2019-01-01T00:00:00.000Z",') : l));
    expect(readCopy(dated.join('\n')).malformed).toEqual([{ line: victim.i + 1, why: "fields that are not the record's own" }]);
    // A checkpoint signs its event's link: a link changed there breaks the copy.
    const copied = readCopy(lines.join('\n')).records;
    const signed = copied.find((r) => r.kind === 'checkpoint' && r.tenant === 1 && copied.some((e) => e.kind === 'event' && e.tenant === 1 && e.seq === r.line.seq)) as Extract<ExportRecord, { kind: 'checkpoint' }>;
    const relinked = copied.map((r) => (r.kind === 'event' && r.tenant === 1 && r.seq === signed.line.seq ? { ...r, link: 'ef'.repeat(32) } : r));
    expect((await verifyCopy(relinked, pub)).find((r) => r.tenant === 1)).toMatchObject({ result: 'broken', broken: { seq: signed.line.seq } });
    // A tenant no checkpoint proves (made up whole) fails the command, though consistent.
    const madeUp = (seq: number, digest: Buffer) => ({ kind: 'event' as const, tenant: 99, seq, uuid: `00000000-0000-4000-8000-00000000000${seq}`, when: 1, title: 'UserGet', status: 'ok' as const, msg: null, actor: 'root', record: null, mode: null, app: null, detailsdigest: null, link: 'ab'.repeat(32), digest: digest.toString('hex') });
    const e1 = madeUp(1, digestOfLeaf(Buffer.alloc(0), 1, leafOfDigest(canonicalHead(madeUp(1, Buffer.alloc(0))), null)));
    const file = join(dir, 'made-up.jsonl');
    writeFileSync(file, [...lines, toJson(e1)].join('\n'));
    const proofless = await verifyCli(file, files.pub, files.ca);
    expect(proofless.code).toBe(1);
    expect(proofless.out.split('\n').filter(Boolean).map((l) => JSON.parse(l)).find((r: { tenant: number }) => r.tenant === 99)).toMatchObject({ result: 'intact', proven: 0 });
  });

  it('refuse an OCSF line whose fields a SIEM shows were changed', async ({ vault }) => {
    const ocsf = await caughtUp(vault, () => all.lines);
    const i = ocsf.findIndex((l) => (JSON.parse(l) as { actor?: { user?: unknown } }).actor?.user !== undefined);
    const o = JSON.parse(ocsf[i]!) as { actor: { user: { uid: string } } };
    o.actor.user.uid = 'someone-else';
    const edited = [...ocsf];
    edited[i] = JSON.stringify(o);
    expect(readCopy(edited.join('\n')).malformed).toEqual([{ line: i + 1, why: 'OCSF fields that disagree with the record' }]);
  });

  it('send an OCSF copy that verifies too, and a filtered copy that shows what it left out', async ({ vault }) => {
    await vault.call('UserCreate', { profile: { email: 'ocsf@example.com' } });
    await vault.call('UserGet', { mode: 'email', identity: 'still-nobody@example.com' });
    const pub = await publicKey(vault);
    const ocsf = await caughtUp(vault, () => all.lines);
    expect(JSON.parse(ocsf[0]!)).toMatchObject({ class_uid: 6003 });
    expect((await verifyCopy(readCopy(ocsf.join('\n')).records, pub, { tsaPem: tsa.caPem })).find((r) => r.tenant === 1)).toMatchObject({ result: 'intact' });
    expect(readCopy(ocsf.join('\n')).malformed).toEqual([]);
    const filtered = await caughtUp(vault, () => errors.lines);
    const report = (await verifyCopy(readCopy(filtered.join('\n')).records, pub)).find((r) => r.tenant === 1)!;
    expect(report.result).toBe('intact');
    expect(report.skipped).toBeGreaterThan(0);
    expect(report.events).toBeGreaterThan(0);
    // Only failed calls' content: every full event in the filtered copy is an error.
    expect(readCopy(filtered.join('\n')).records.every((r) => r.kind !== 'event' || r.status === 'error')).toBe(true);
    // Its stand-ins carry their leaves: the chain is checked across them, so the filtered copy proves its events up to
    // its newest checkpoint as the whole copy does; but it is not complete.
    const records = readCopy(filtered.join('\n')).records;
    expect(records.filter((r) => r.kind === 'skipped').every((r) => r.kind === 'skipped' && r.leaf)).toBe(true);
    const newest = Math.max(...records.flatMap((r) => (r.kind === 'checkpoint' && r.tenant === 1 ? [r.line.seq] : [])));
    expect(report.provenUpTo).toBe(newest);
    expect((await verifyCopy(records, pub, { complete: true })).find((r) => r.tenant === 1)!.result).toBe('broken');
    // A stand-in's leaf that is not its event's breaks the copy; without leaves, a stand-in proves nothing before it.
    const stands = records.flatMap((r, i) => (r.kind === 'skipped' && r.tenant === 1 ? [i] : []));
    const lied = records.map((r, i) => (i === stands[0] ? { ...r, leaf: 'ab'.repeat(32) } : r));
    expect((await verifyCopy(lied, pub)).find((r) => r.tenant === 1)).toMatchObject({ result: 'broken', broken: { seq: (records[stands[0]!] as { seq: number }).seq } });
    const bare = records.map((r) => (r.kind === 'skipped' ? { kind: r.kind, tenant: r.tenant, seq: r.seq, when: r.when, digest: r.digest } : r));
    expect((await verifyCopy(bare, pub)).find((r) => r.tenant === 1)!.provenUpTo).toBeLessThan(newest);
  });

  it('keep serving while a sink is down for 30 s, then catch up from its cursor with no gap', async ({ vault }) => {
    const before = await syslog.lines();
    await syslog.stop();
    let failed = 0;
    let served = 0;
    const stopAt = Date.now() + 30_000;
    while (Date.now() < stopAt) {
      const r = await vault.call('UserCreate', { profile: { n: served } });
      if (r.status === 200) served++;
      else failed++;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(failed).toBe(0);
    expect(served).toBeGreaterThan(50);
    const lag = async () => {
      const text = await (await fetch(`${vault.url}/metrics`)).text();
      const line = text.split('\n').find((l) => l.startsWith('strongroom_audit_sink_lag_events{') && l.includes('sink="soc"') && l.includes('tenant="1"'));
      return Number(line?.split(' ').at(-1) ?? NaN);
    };
    expect(await lag()).toBeGreaterThan(0);
    syslog = await startRsyslog({ port });
    await expect.poll(lag, { timeout: 60_000, interval: 250 }).toBe(0);
    const after = await caughtUp(vault, () => syslog.lines());
    const copy = [...before, ...after];
    const [report] = (await verifyCopy(readCopy(copy.join('\n')).records, await publicKey(vault), { tsaPem: tsa.caPem, complete: true })).filter((r) => r.tenant === 1);
    expect(report).toMatchObject({ result: 'intact' });
    // A resend covers at most the batch whose acknowledgement was lost.
    expect(report!.duplicates).toBeLessThanOrEqual(500);
  }, 120_000);
});
