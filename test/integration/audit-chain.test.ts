// The keyed audit chain against tampering: editing, deleting, inserting, re-hashing a range and moving the head are
// each found by AuditVerify (which has the key, through the tokenizer) and, where a signed checkpoint lies past
// them, by the auditor's command (which has only the database, the checkpoints and the public key). On PostgreSQL
// the tenant's own database role cannot even try: UPDATE, DELETE, INSERT and TRUNCATE are refused.
import { createHash, createHmac, randomBytes, randomUUID } from 'node:crypto';
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import { describe, expect, vi } from 'vitest';
import { vaultTest, buildProfile, type TestVault } from '../fixtures/vault.js';
import { usingPostgres } from '../fixtures/database.js';

import { canonical } from '../../api/vault/audit/trail.js';
import { auditDigest, auditDigestFirstForm, checkpointKey, checkpointSigned, parseCheckpoint } from '../../proto/audit-checkpoint.js';
import { readCheckpoints, verifyTrail, type Query } from '../../api/audit-verify.js';
import { TokenizerRejectedError } from '../../api/tokenizer-client.js';
import { verifyProof, type AuditProof } from '../../api/vault/audit/proof.js';
import { readForSinks } from '../../api/vault/audit/export.js';
import { checkpointRecord, eventRecord, type ExportRecord } from '../../api/vault/audit/siem/record.js';
import { verifyCopy } from '../../api/vault/audit/copy-verification.js';

const checkpointDir = mkdtempSync(join(tmpdir(), 'sr-checkpoints-'));
const it = vaultTest({
  env: {
    STRONGROOM_AUDIT_CHECKPOINT_DIR: checkpointDir,
    STRONGROOM_AUDIT_CHECKPOINT_SECONDS: '0',
    STRONGROOM_AUDIT_CHECKPOINT_EVENTS: '0',
    STRONGROOM_AUDIT_VERIFY_SECONDS: '0',
  },
});

// A second vault, checkpointing by count (a directory of its own: its tenant ids start over).
const countedDir = mkdtempSync(join(tmpdir(), 'sr-checkpoints-'));
const counted = vaultTest({
  env: { STRONGROOM_AUDIT_CHECKPOINT_DIR: countedDir, STRONGROOM_AUDIT_CHECKPOINT_SECONDS: '0', STRONGROOM_AUDIT_CHECKPOINT_EVENTS: '5', STRONGROOM_AUDIT_VERIFY_SECONDS: '0' },
});

interface Trail {
  id: number;
  name: string;
  admin: Record<string, string>;
  /** The sequence number of the checkpoint signed after the first events. */
  checkpoint: number;
}

const sql = (vault: TestVault, text: string, params: unknown[] = []) => vault.api.services.db.global().sql.query(text, params);

/** A tenant with `before` events, a signed checkpoint of its head, then `after` more events. */
async function trail(vault: TestVault, before = 12, after = 3): Promise<Trail> {
  const name = `audit${randomUUID().slice(0, 8)}`;
  const created = await vault.call('TenantCreate', { tenantname: name, tenantorg: 'Audit' });
  expect(created.status).toBe(200);
  const admin = { 'x-bunker-token': created.body.xtoken as string };
  const events = async (n: number) => {
    for (let i = 0; i < n; i++) {
      const res = i % 2 === 0 ? await vault.call('UserCreate', { profile: buildProfile() }, admin) : await vault.call('UserGet', { mode: 'login', identity: 'nobody' }, admin);
      expect([200, 404]).toContain(res.status);
    }
  };
  await events(before);
  const line = await vault.api.services.auditCheckpoints.checkpoint(created.body.tenantid);
  await events(after);
  return { id: created.body.tenantid, name, admin, checkpoint: line!.seq };
}

async function verify(vault: TestVault, t: Trail) {
  const res = await vault.call('AuditVerify', {}, t.admin);
  expect(res.status).toBe(200);
  return res.body;
}

/**
 * The same check without the call: with events stored past the head, AuditVerify's own event cannot be appended
 * (its sequence number is taken), and a call whose event cannot be written fails.
 */
function verifyHere(vault: TestVault, t: Trail) {
  return vault.api.services.auditVerifier.verify(t.id);
}

/** The auditor's check, in-process, with the database, the checkpoint directory and the public key only. */
async function audit(vault: TestVault, t: Trail) {
  const q: Query = (text, params) => sql(vault, text, params);
  const pem = (await vault.call('SystemGetKeyringStatus')).body.auditpublickey as string;
  return verifyTrail(q, t.id, readCheckpoints(checkpointDir), pem);
}

const events = (t: Trail) => `tenant_${t.id}.audit_events`;
const head = (t: Trail) => `tenant_${t.id}.audit_head`;

/** Re-links events from `from` on with `mac` (and their digests, honestly recomputed), and moves the head there. */
async function relink(vault: TestVault, t: Trail, from: number, mac: (prev: Buffer, seq: Buffer, text: string) => Buffer) {
  const rows = await vault.api.services.db.stores(t.id).audit.after(0, 10_000);
  let link: Buffer = Buffer.alloc(0);
  let digest: Buffer = Buffer.alloc(0);
  for (const r of rows) {
    const text = canonical(r);
    digest = auditDigest(digest, r.seq, text);
    if (r.seq >= from) {
      const seq = Buffer.alloc(8);
      seq.writeBigInt64BE(BigInt(r.seq));
      link = mac(link, seq, text);
      await sql(vault, `update ${events(t)} set hash = $1, digest = $2 where seq = $3`, [link, digest, r.seq]);
    } else {
      link = r.hash;
    }
  }
  await sql(vault, `update ${head(t)} set hash = $1, digest = $2`, [link, digest]);
}

/** Recomputes every stored digest from the stored events (what anyone who writes the database can do). */
async function redigest(vault: TestVault, t: Trail) {
  const rows = await vault.api.services.db.stores(t.id).audit.after(0, 10_000);
  let digest: Buffer = Buffer.alloc(0);
  for (const r of rows) {
    digest = auditDigest(digest, r.seq, canonical(r));
    await sql(vault, `update ${events(t)} set digest = $1 where seq = $2`, [digest, r.seq]);
  }
  await sql(vault, `update ${head(t)} set digest = $1`, [digest]);
}

describe('the keyed audit chain', () => {
  it('verifies a trail chained in the first form (before leaves), and proves only the events after it', async ({ vault }) => {
    const name = `first${randomUUID().slice(0, 8)}`;
    const created = await vault.call('TenantCreate', { tenantname: name, tenantorg: 'Audit' });
    const t: Trail = { id: created.body.tenantid, name, admin: { 'x-bunker-token': created.body.xtoken as string }, checkpoint: 0 };
    const person = await vault.call('UserCreate', { profile: buildProfile() }, t.admin);
    const ref = { mode: 'token', identity: person.body.token as string };
    for (let i = 0; i < 3; i++) await vault.call('UserGet', ref, t.admin);
    // As a release before leaves chained them: every digest so far in the first form.
    const old = await vault.api.services.db.stores(t.id).audit.after(0, 10_000);
    let digest: Buffer = Buffer.alloc(0);
    for (const r of old) {
      digest = auditDigestFirstForm(digest, r.seq, canonical(r));
      await sql(vault, `update ${events(t)} set digest = $1 where seq = $2`, [digest, r.seq]);
    }
    await sql(vault, `update ${head(t)} set digest = $1`, [digest]);
    const upTo = old.at(-1)!.seq;
    // This release chains on from there in the leaf form, and signs it.
    for (let i = 0; i < 3; i++) await vault.call('UserGet', ref, t.admin);
    const line = (await vault.api.services.auditCheckpoints.checkpoint(t.id))!;
    expect(line.seq).toBeGreaterThan(upTo + 2);
    expect(await verify(vault, t)).toMatchObject({ result: 'intact' });
    expect(await audit(vault, t)).toMatchObject({ result: 'intact', provenUpTo: line.seq });
    // The proof covers the events after the first form; those before are named.
    const answer = (await vault.call('AuditProveEvents', { ...ref, after: 0 }, t.admin)).body;
    const proven = (answer.proof as AuditProof).segments.flatMap((s) => s.events.map((e) => e.seq));
    const unproven = answer.unproven as { seq: number; why: string }[];
    expect(unproven.length).toBeGreaterThanOrEqual(4);
    expect(unproven.every((u) => u.seq <= upTo && u.why === 'chained before proofs')).toBe(true);
    expect(proven.length).toBeGreaterThanOrEqual(3);
    expect(proven.every((seq) => seq > upTo && seq <= line.seq)).toBe(true);
    const pem = (await vault.call('SystemGetKeyringStatus')).body.auditpublickey as string;
    expect(await verifyProof(answer.proof, pem)).toMatchObject({ result: 'intact', proven: proven.length });
    // The audit sinks send the first form's events with their sealed bytes, the others with their hash alone, and
    // the copy verifies, complete, up to the checkpoint.
    const rows = await readForSinks(vault.api.services.db.stores(t.id).audit, 0);
    expect(rows.filter((r) => r.withDetails).map((r) => r.seq)).toEqual(old.map((r) => r.seq));
    const records: ExportRecord[] = rows.map((r) => eventRecord(t.id, r, { detailsDigest: r.detailsDigest, withDetails: r.withDetails }));
    expect(records.filter((r) => r.kind === 'event' && r.seq > upTo && r.details !== undefined)).toEqual([]);
    records.splice(line.seq, 0, checkpointRecord(line));
    const [copy] = await verifyCopy(records, pem, { complete: true });
    expect(copy).toMatchObject({ result: 'intact', provenUpTo: line.seq, proven: line.seq, unproven: rows.length - line.seq });
  });

  it('verifies intact, for the tenant\'s admin and the root through X-Bunker-Tenant, and for the auditor', async ({ vault }) => {
    const t = await trail(vault);
    const mine = await verify(vault, t);
    expect(mine).toMatchObject({ status: 'ok', result: 'intact', checked: { from: 1 } });
    expect(mine.broken).toBeUndefined();
    const byRoot = await vault.call('AuditVerify', {}, { 'x-bunker-tenant': t.name });
    // One event more: the first AuditVerify's own.
    expect(byRoot.body).toMatchObject({ result: 'intact', checked: { from: 1, to: mine.checked.to + 1 } });
    // Another tenant's admin may not ask.
    const other = await vault.call('TenantCreate', { tenantname: `other${randomUUID().slice(0, 8)}`, tenantorg: 'Other' });
    expect((await vault.call('AuditVerify', {}, { 'x-bunker-token': other.body.xtoken, 'x-bunker-tenant': t.name })).status).toBe(403);
    const report = await audit(vault, t);
    expect(report).toMatchObject({ result: 'intact', provenUpTo: t.checkpoint, checkpoints: { badSignature: 0 } });
    expect(report.events).toBe(mine.checked.to + 2);
    const metrics = await (await fetch(`${vault.url}/metrics`)).text();
    expect(metrics).toContain(`strongroom_audit_verified_sequence{tenant="${t.id}"} ${mine.checked.to + 1}`);
    expect(metrics).toMatch(new RegExp(`strongroom_audit_last_verification_timestamp_seconds\\{tenant="${t.id}"\\} \\d+`));
  });

  it('writes each checkpoint signed, to its file, with the public key SystemGetKeyringStatus publishes', async ({ vault }) => {
    const t = await trail(vault, 4, 0);
    const lines = readFileSync(join(checkpointDir, `tenant-${t.id}.jsonl`), 'utf8').trim().split('\n').map(parseCheckpoint);
    expect(lines).toHaveLength(1);
    const pem = (await vault.call('SystemGetKeyringStatus')).body.auditpublickey as string;
    expect(checkpointSigned(checkpointKey(pem), lines[0]!)).toBe(true);
    expect(lines[0]).toMatchObject({ tenant: t.id, seq: t.checkpoint });
    // The tokenizer publishes the same key in its log at start.
    const started = vault.tokenizerOutput().split('\n').map((l) => { try { return JSON.parse(l) as { auditPublicKey?: string }; } catch { return {}; } });
    expect(started.some((l) => l.auditPublicKey === pem)).toBe(true);
    // An unchanged head is not signed again.
    expect(await vault.api.services.auditCheckpoints.checkpoint(t.id)).toBeNull();
  });

  it('refuses to checkpoint a head whose link the tokenizer did not make', async ({ vault }) => {
    const t = await trail(vault, 3, 1);
    await sql(vault, `update ${head(t)} set hash = $1`, [randomBytes(32)]);
    await expect(vault.api.services.auditCheckpoints.checkpoint(t.id)).rejects.toBeInstanceOf(TokenizerRejectedError);
  });

  it('finds an edited event', async ({ vault }) => {
    const t = await trail(vault);
    await sql(vault, `update ${events(t)} set msg = 'nothing to see' where seq = 3`);
    expect((await verify(vault, t)).broken).toEqual({ seq: 3, why: 'link' });
    expect((await audit(vault, t)).broken).toEqual({ seq: 3, why: 'link' });
    // With every public digest recomputed, only the keyed link and the signed checkpoint still tell.
    await redigest(vault, t);
    expect((await verify(vault, t)).broken).toEqual({ seq: 3, why: 'link' });
    expect((await audit(vault, t)).broken).toEqual({ seq: t.checkpoint, why: 'checkpoint mismatch' });
  });

  it('finds a deleted event', async ({ vault }) => {
    const t = await trail(vault);
    await sql(vault, `delete from ${events(t)} where seq = 4`);
    expect((await verify(vault, t)).broken).toEqual({ seq: 4, why: 'gap' });
    expect((await audit(vault, t)).broken).toEqual({ seq: 4, why: 'gap' });
  });

  it('finds an event inserted into the middle, the later ones renumbered', async ({ vault }) => {
    const t = await trail(vault);
    const [last] = await sql(vault, `select max(seq)::int as n from ${events(t)}`);
    for (let s = Number(last!.n); s >= 5; s--) await sql(vault, `update ${events(t)} set seq = seq + 1 where seq = $1`, [s]);
    await sql(vault, `insert into ${events(t)} (seq, uuid, "when", title, status, actor, hash, digest) select 5, $1, "when", 'UserGet', 'ok', actor, $2, $3 from ${events(t)} where seq = 4`, [
      randomUUID(),
      randomBytes(32),
      randomBytes(32),
    ]);
    await sql(vault, `update ${head(t)} set seq = seq + 1`);
    expect((await verify(vault, t)).broken).toEqual({ seq: 5, why: 'link' });
    await redigest(vault, t);
    expect((await audit(vault, t)).broken).toMatchObject({ why: 'checkpoint mismatch' });
  });

  it('finds an event added past the head', async ({ vault }) => {
    const t = await trail(vault);
    const [h] = await sql(vault, `select seq::int as n from ${head(t)}`);
    const next = Number(h!.n) + 1;
    await sql(vault, `insert into ${events(t)} (seq, uuid, "when", title, status, actor, hash, digest) values ($1, $2, 0, 'UserGet', 'ok', 'root:x', $3, $4)`, [next, randomUUID(), randomBytes(32), randomBytes(32)]);
    expect((await verifyHere(vault, t)).broken).toEqual({ seq: next, why: 'link' });
    // Answered with its verdict, never a 500 (M7).
    expect((await vault.call('AuditVerify', {}, t.admin)).body).toMatchObject({ result: 'broken', broken: { seq: next, why: 'link' } });
    expect((await audit(vault, t)).broken).toMatchObject({ why: 'link' });
  });

  it('finds a range re-hashed with plain sha256, or with another key', async ({ vault }) => {
    for (const mac of [
      (prev: Buffer, seq: Buffer, text: string) => createHash('sha256').update(prev).update(seq).update(text).digest(),
      (prev: Buffer, seq: Buffer, text: string, key = randomBytes(32)) => createHmac('sha256', key).update(prev).update(seq).update(text).digest(),
    ]) {
      const t = await trail(vault);
      await sql(vault, `update ${events(t)} set title = 'Forged' where seq = 6`);
      await relink(vault, t, 6, mac);
      expect((await verify(vault, t)).broken).toEqual({ seq: 6, why: 'link' });
      expect((await audit(vault, t)).broken).toEqual({ seq: t.checkpoint, why: 'checkpoint mismatch' });
    }
  });

  it('finds a head moved back, with or without the events past it', async ({ vault }) => {
    const t = await trail(vault);
    const move = async (to: number) => {
      const [e] = await sql(vault, `select hash, digest from ${events(t)} where seq = $1`, [to]);
      await sql(vault, `update ${head(t)} set seq = $1, hash = $2, digest = $3`, [to, e!.hash, e!.digest]);
    };
    await move(t.checkpoint + 1);
    expect((await verifyHere(vault, t)).broken).toEqual({ seq: t.checkpoint + 2, why: 'link' });
    expect((await audit(vault, t)).broken).toMatchObject({ why: 'link' });
    // The tail deleted too: a consistent but shorter trail, which only the signed checkpoint contradicts.
    await move(t.checkpoint - 2);
    await sql(vault, `delete from ${events(t)} where seq > $1`, [t.checkpoint - 2]);
    expect((await verifyHere(vault, t)).broken).toEqual({ seq: t.checkpoint - 1, why: 'checkpoint mismatch' });
    expect((await audit(vault, t)).broken).toEqual({ seq: t.checkpoint - 1, why: 'checkpoint mismatch' });
  });

  it('finds a head moved forward over events that are not there', async ({ vault }) => {
    const t = await trail(vault);
    await sql(vault, `update ${head(t)} set seq = seq + 2`);
    const verdict = await verify(vault, t);
    expect(verdict.broken).toMatchObject({ why: 'gap' });
    expect((await audit(vault, t)).broken).toMatchObject({ why: 'gap' });
  });

  it.skipIf(!usingPostgres())('lets the tenant\'s database role only queue, and the vault\'s user append through audit_append (PostgreSQL only: the embedded database has no tenant roles)', async ({ vault }) => {
    const t = await trail(vault, 2, 0);
    const role = vault.api.services.db.roleOf!(t.id);
    const client = new pg.Client({ connectionString: vault.api.services.config.databaseUrl });
    await client.connect();
    try {
      await client.query('begin');
      await client.query(`set local role "${role}"`);
      expect((await client.query(`select count(*)::int as n from ${events(t)}`)).rows[0].n).toBeGreaterThan(0);
      for (const statement of [
        `update ${events(t)} set msg = 'x' where seq = 1`,
        `delete from ${events(t)} where seq = 1`,
        `insert into ${events(t)} (seq, uuid, "when", title, status, actor, hash) values (999, gen_random_uuid(), 0, 't', 'ok', 'a', '\\x00')`,
        `truncate ${events(t)}`,
        `update ${head(t)} set seq = 0`,
        `delete from ${head(t)}`,
        `select * from tenant_${t.id}.audit_head for update`,
        // The queue of writes' events: a write only adds to it, never choosing a row's place (its id), and only
        // audit_append takes from it.
        `insert into tenant_${t.id}.audit_queue (id, uuid, "when", title, status, actor) values (1, gen_random_uuid(), 0, 't', 'ok', 'a')`,
        // The outbox of privacy events: a write only adds to it, never marking an event as fanned out (delivered to
        // no one) nor changing or removing one.
        `insert into tenant_${t.id}.privacy_events (uuid, type, "time", data, fanned) values (gen_random_uuid(), 'person.erased', 0, '{}', true)`,
        `update tenant_${t.id}.privacy_events set fanned = true`,
        `delete from tenant_${t.id}.privacy_events`,
        `update tenant_${t.id}.audit_queue set msg = 'x'`,
        `delete from tenant_${t.id}.audit_queue`,
        `truncate tenant_${t.id}.audit_queue`,
        // How far the trail is checkpointed paces the checkpoints: the tenant may not hold them back.
        `update tenant_${t.id}.audit_checkpointed set seq = 1000000`,
      ]) {
        await client.query('savepoint s');
        await expect(client.query(statement), statement).rejects.toThrow(/permission denied/);
        await client.query('rollback to savepoint s');
      }
      // The head's lock and the append are the chainer's alone (as the vault's own user): not the tenant's (H1, M5).
      for (const statement of [`select seq, hash from tenant_${t.id}.audit_lock_head()`, `select tenant_${t.id}.audit_append(1, '\\x', '\\x', array[]::uuid[], array[]::bigint[],
        array[]::text[], array[]::text[], array[]::text[], array[]::text[], array[]::uuid[], array[]::text[], array[]::text[], array[]::bytea[], array[]::bytea[], array[]::bytea[])`]) {
        await client.query('savepoint s');
        await expect(client.query(statement), statement).rejects.toThrow(/permission denied/);
        await client.query('rollback to savepoint s');
      }
      // Its way in is audit_enqueue; the vault's user appends, and audit_append refuses a batch not chained from the head.
      const queuedUuid = randomUUID();
      await client.query(`select tenant_${t.id}.audit_enqueue(array[$1::uuid], array[0::bigint], array['t'], array['ok'], array[null::text],
        array['a'], array[null::uuid], array[null::text], array[null::text], array[null::bytea], array[$2::bytea])`, [queuedUuid, randomBytes(32)]);
      await client.query('reset role');
      await client.query('savepoint s');
      await expect(
        client.query(`select tenant_${t.id}.audit_append(1, '\\x', '\\x', array[gen_random_uuid()], array[0::bigint], array['t'], array['ok'], array[null::text],
          array['a'], array[null::uuid], array[null::text], array[null::text], array[null::bytea], array['\\x00'::bytea], array['\\x00'::bytea])`),
      ).rejects.toThrow(/not where the batch was chained from/);
      await client.query('rollback to savepoint s');
      // An event queued through audit_enqueue is chained once: a second batch naming it is refused. Named by its
      // uuid alone: its data moves from the queue.
      const append = (first: number, prev: Buffer, prevDigest: Buffer, uuid: string) =>
        client.query(`select tenant_${t.id}.audit_append($1, $2, $3, array[]::uuid[], array[]::bigint[], array[]::text[], array[]::text[], array[]::text[],
          array[]::text[], array[]::uuid[], array[]::text[], array[]::text[], array[]::bytea[], array['\\x01'::bytea], array['\\x01'::bytea], array[$4::uuid])`,
          [first, prev, prevDigest, uuid]);
      const [h] = (await client.query(`select seq, hash, digest from tenant_${t.id}.audit_lock_head()`)).rows;
      await append(Number(h.seq) + 1, h.hash, h.digest, queuedUuid);
      await client.query('savepoint s');
      await expect(append(Number(h.seq) + 2, Buffer.from([1]), Buffer.from([1]), queuedUuid)).rejects.toThrow(/chained already/);
      await client.query('rollback to savepoint s');
      await client.query('rollback');
    } finally {
      await client.end();
    }
    // Writes as the tenant role still queue, and the chainer appends.
    expect((await vault.call('UserCreate', { profile: buildProfile() }, t.admin)).status).toBe(200);
    expect((await verify(vault, t)).result).toBe('intact');
  });

  it.skipIf(!usingPostgres())('runs as a command: exit 0 when intact, 1 with the first broken event (PostgreSQL only: the embedded database belongs to one process)', async ({ vault }) => {
    const t = await trail(vault, 6, 0);
    const keyFile = join(checkpointDir, '..', `audit-${t.id}.pub`);
    writeFileSync(keyFile, (await vault.call('SystemGetKeyringStatus')).body.auditpublickey as string);
    const run = (args: string[]) =>
      promisify(execFile)(process.execPath, ['--import', 'tsx', 'api/audit-verify.ts', ...args]).then(
        (r) => ({ code: 0, out: r.stdout }),
        (e: { code: number; stdout: string }) => ({ code: e.code, out: e.stdout }),
      );
    const args = ['--database-url', vault.api.services.config.databaseUrl!, '--tenant', t.name, '--checkpoints', checkpointDir, '--public-key', keyFile];
    const intact = await run(args);
    expect(intact.code).toBe(0);
    expect(JSON.parse(intact.out)).toMatchObject({ tenant: t.id, result: 'intact', provenUpTo: t.checkpoint });
    await sql(vault, `delete from ${events(t)} where seq = 2`);
    const broken = await run(args);
    expect(broken.code).toBe(1);
    expect(JSON.parse(broken.out).broken).toEqual({ seq: 2, why: 'gap' });
  });
});

describe('the audit schedules', () => {
  counted('signs a checkpoint once a tenant has had STRONGROOM_AUDIT_CHECKPOINT_EVENTS events', async ({ vault }) => {
    const created = await vault.call('TenantCreate', { tenantname: `count${randomUUID().slice(0, 8)}`, tenantorg: 'Count' });
    const admin = { 'x-bunker-token': created.body.xtoken as string };
    // Whatever making the tenant wrote in its trail counts too.
    const { seq } = await vault.api.services.db.stores(created.body.tenantid).audit.head();
    for (let i = seq; i < 4; i++) await vault.call('UserGet', { mode: 'login', identity: 'nobody' }, admin);
    const file = join(countedDir, `tenant-${created.body.tenantid}.jsonl`);
    const lines = () => { try { return readFileSync(file, 'utf8').trim().split('\n').map(parseCheckpoint); } catch { return []; } };
    expect(lines()).toHaveLength(0);
    await vault.call('UserGet', { mode: 'login', identity: 'nobody' }, admin);
    await vi.waitFor(() => expect(lines()).toHaveLength(1), { timeout: 15_000 });
    expect(lines()[0]!.seq).toBeGreaterThanOrEqual(5);
  });

  counted('verifies every tenant on one replica at a time', async ({ vault }) => {
    const verdicts = await vault.api.services.auditVerifier.verifyAll();
    expect([...verdicts!.values()].every((v) => v.result === 'intact')).toBe(true);
    expect(verdicts!.has(1)).toBe(true);
    if (!usingPostgres()) return;
    // Another replica holding the lock: this one skips the pass.
    const other = new pg.Client({ connectionString: vault.api.services.config.databaseUrl });
    await other.connect();
    try {
      await other.query(`select pg_advisory_lock(hashtext('strongroom:audit-verify'))`);
      expect(await vault.api.services.auditVerifier.verifyAll()).toBeUndefined();
    } finally {
      await other.end();
    }
    expect(await vault.api.services.auditVerifier.verifyAll()).toBeInstanceOf(Map);
  });
});
