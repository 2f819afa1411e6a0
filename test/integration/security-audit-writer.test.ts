// A database writer (superuser, or the tenant's own role through `set role`) against the audit trail:
// H1 an event appended with a made-up link, extended by the api and covered by the next checkpoint; H2 a linked row
// queued again, which blocked the chainer for good; M5 the head's lock held to stall the tenant's reads; M6 the
// verdict of a cut trail never answered; M7 events stored past the head answered with 500s.
import { randomBytes, randomUUID } from 'node:crypto';
import fc from 'fast-check';
import pg from 'pg';
import { describe, expect } from 'vitest';
import { vaultTest, buildProfile, type TestVault } from '../fixtures/vault.js';

import { canonical, type AuditDraft } from '../../api/vault/audit/trail.js';
import { auditDigest, type CheckpointLine } from '../../proto/audit-checkpoint.js';
import { verifyTrail, type Query } from '../../api/audit-verify.js';

const it = vaultTest({ env: { STRONGROOM_AUDIT_CHECKPOINT_SECONDS: '0', STRONGROOM_AUDIT_CHECKPOINT_EVENTS: '0', STRONGROOM_AUDIT_VERIFY_SECONDS: '0', STRONGROOM_SWEEP_SECONDS: '0' } });

const sql = (vault: TestVault, text: string, params: unknown[] = []) => vault.api.services.db.global().sql.query(text, params);
const now = () => Math.floor(Date.now() / 1000);
const url = (vault: TestVault) => (vault.api.services.db as unknown as { databaseUrl?: string }).databaseUrl;

async function tenant(vault: TestVault) {
  const created = await vault.call('TenantCreate', { tenantname: `writer${randomUUID().slice(0, 8)}`, tenantorg: 'Writer' });
  expect(created.status).toBe(200);
  const admin = { 'x-bunker-token': created.body.xtoken as string };
  const person = await vault.call('UserCreate', { profile: buildProfile() }, admin);
  expect(person.status).toBe(200);
  return { id: created.body.tenantid as number, admin, person: person.body.token as string };
}

/** A read of the tenant: its event is linked before the answer. */
const read = (vault: TestVault, t: { admin: Record<string, string>; person: string }) => vault.call('UserGet', { mode: 'token', identity: t.person }, t.admin);

const count = async (vault: TestVault, id: number, table: string, where = 'true', params: unknown[] = []) =>
  Number((await sql(vault, `select count(*)::int as n from tenant_${id}.${table} where ${where}`, params))[0]!.n);

const head = async (vault: TestVault, id: number) => Number((await sql(vault, `select seq from tenant_${id}.audit_head`))[0]!.seq);

async function drain(vault: TestVault, id: number): Promise<void> {
  await vault.api.services.audit.drainIfQueued(id);
  await expect.poll(() => count(vault, id, 'audit_queue'), { timeout: 10_000 }).toBe(0);
}

/** A connection as the tenant's own database role (PostgreSQL with per-tenant roles only). */
async function asTenantRole(vault: TestVault, id: number): Promise<pg.Client | undefined> {
  const role = vault.api.services.db.roleOf?.(id);
  if (!role || !url(vault)) return undefined;
  const client = new pg.Client({ connectionString: url(vault) });
  await client.connect();
  await client.query(`set role "${role}"`);
  return client;
}

/** The reviewer's forgery: an event at head + 1 with a made-up link and its public digest, through audit_append. */
async function appendForged(run: (text: string, params: unknown[]) => Promise<unknown>, vault: TestVault, id: number): Promise<number> {
  const [h] = await sql(vault, `select seq, hash, digest from tenant_${id}.audit_head`);
  const seq = Number(h!.seq) + 1;
  const e = { uuid: randomUUID(), when: now(), title: 'SystemDeleteUserProfiles', status: 'ok' as const, msg: null, actor: 'root:made-up', record: null, mode: null, app: null, details: null };
  const digest = auditDigest(h!.digest as Buffer, seq, canonical(e));
  await run(
    `select tenant_${id}.audit_append($1, $2, $3, array[$4]::uuid[], array[$5]::bigint[], array[$6], array['ok'], array[null]::text[], array[$7],
      array[null]::uuid[], array[null]::text[], array[null]::text[], array[null]::bytea[], array[$8]::bytea[], array[$9]::bytea[])`,
    [seq, h!.hash, h!.digest, e.uuid, e.when, e.title, e.actor, randomBytes(32), digest],
  );
  return seq;
}

/** The offline auditor's command over the checkpoints signed so far. */
async function offline(vault: TestVault, id: number, lines: CheckpointLine[]) {
  const q: Query = (text, params) => sql(vault, text, params);
  return verifyTrail(q, id, lines, await vault.api.services.auditCheckpoints.publicKey());
}

describe('the tenant\'s role and the audit trail (H1, H2, M5)', () => {
  it('may not append, lock the head, write the head, or read queued MACs', async ({ vault }) => {
    const t = await tenant(vault);
    expect((await vault.call('UserCreate', { profile: buildProfile() }, t.admin)).status).toBe(200);
    const client = await asTenantRole(vault, t.id);
    if (!client) return;
    try {
      await expect(appendForged((text, params) => client.query(text, params), vault, t.id)).rejects.toThrow(/permission denied/);
      await expect(client.query(`select * from tenant_${t.id}.audit_lock_head()`)).rejects.toThrow(/permission denied/);
      await expect(client.query(`update tenant_${t.id}.audit_head set seq = seq + 1`)).rejects.toThrow(/permission denied/);
      await expect(client.query(`select mac from tenant_${t.id}.audit_queue`)).rejects.toThrow(/permission denied/);
      await expect(client.query(`select * from tenant_${t.id}.audit_refused`)).rejects.toThrow(/permission denied/);
      // What a write of the tenant does still works: its reads of the queue's depth, and its writes.
      await client.query(`select count(*)::int, min("when") from tenant_${t.id}.audit_queue`);
    } finally {
      await client.end();
    }
    expect((await vault.call('UserCreate', { profile: buildProfile() }, t.admin)).status).toBe(200);
    expect((await vault.api.services.auditVerifier.verify(t.id)).result).toBe('intact');
  });

  it('cannot stall the tenant\'s reads by holding the head: they answer 503 in seconds, then go on', async ({ vault }) => {
    const t = await tenant(vault);
    if (!url(vault)) return;
    const holder = new pg.Client({ connectionString: url(vault) });
    await holder.connect();
    try {
      await holder.query(`begin; select * from tenant_${t.id}.audit_head for update`);
      const started = Date.now();
      const answer = await read(vault, t);
      expect(Date.now() - started).toBeLessThan(8_000);
      expect(answer.status).toBe(503);
      expect(answer.body.message).toMatch(/audit trail/);
    } finally {
      await holder.query('rollback');
      await holder.end();
    }
    expect((await read(vault, t)).status).toBe(200);
  }, 30_000);
});

describe('a database writer against the trail (H1, H2, M6, M7)', () => {
  it('never links onto a forged append, and no checkpoint covers it (H1)', async ({ vault }) => {
    const t = await tenant(vault);
    for (let i = 0; i < 2; i++) expect((await vault.call('UserCreate', { profile: buildProfile() }, t.admin)).status).toBe(200);
    const before = (await vault.api.services.auditCheckpoints.checkpoint(t.id))!;
    const forged = await appendForged((text, params) => sql(vault, text, params), vault, t.id);
    // A write still commits (its event stays queued); reads say the trail is broken; nothing is linked onto it.
    expect((await vault.call('UserCreate', { profile: buildProfile() }, t.admin)).status).toBe(200);
    const answer = await read(vault, t);
    expect(answer.status).toBe(503);
    expect(answer.body.message).toMatch(/audit trail of this tenant is broken/);
    expect(await head(vault, t.id)).toBe(forged);
    await expect(vault.api.services.auditCheckpoints.checkpoint(t.id)).rejects.toThrow();
    const report = await offline(vault, t.id, [before]);
    expect(report.provenUpTo).toBeLessThan(forged);
    const verdict = await vault.call('AuditVerify', {}, t.admin);
    expect(verdict.status).toBe(200);
    expect(verdict.body).toMatchObject({ result: 'broken', broken: { seq: forged, why: 'link' } });
  });

  it('moves a linked row queued again to audit_refused, and the trail goes on (H2)', async ({ vault }) => {
    const t = await tenant(vault);
    const { db, audit } = vault.api.services;
    const draft: AuditDraft = { uuid: randomUUID(), when: now(), title: 'UserUpdate', status: 'ok', msg: null, actor: 'root:test', record: null, mode: null, app: null, details: { n: 1 } };
    await db.write(t.id, true, (tx) => audit.writeInTx(tx, [draft]));
    const [row] = await sql(vault, `select * from tenant_${t.id}.audit_queue where uuid = $1`, [draft.uuid]);
    await drain(vault, t.id);
    await sql(vault, `insert into tenant_${t.id}.audit_queue (uuid, "when", title, status, msg, actor, record, mode, app, details, mac) values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)`, [
      row!.uuid, row!.when, row!.title, row!.status, row!.msg, row!.actor, row!.record, row!.mode, row!.app, row!.details, row!.mac,
    ]);
    const answer = await read(vault, t);
    await drain(vault, t.id);
    expect(answer.status).toBe(200);
    expect(await count(vault, t.id, 'audit_events', 'uuid = $1', [draft.uuid])).toBe(1);
    expect(await count(vault, t.id, 'audit_refused', 'uuid = $1', [draft.uuid])).toBe(1);
    expect((await vault.call('UserCreate', { profile: buildProfile() }, t.admin)).status).toBe(200);
    expect((await vault.call('AuditVerify', {}, t.admin)).body).toMatchObject({ result: 'intact' });
  });

  it('answers a cut trail\'s verdict, queues its event, and keeps writes and reads as the README says (M6)', async ({ vault }) => {
    const t = await tenant(vault);
    for (let i = 0; i < 2; i++) expect((await vault.call('UserCreate', { profile: buildProfile() }, t.admin)).status).toBe(200);
    const top = await head(vault, t.id);
    await expect.poll(async () => (await vault.api.services.tokenizer.auditHighWater(t.id)).seq, { timeout: 10_000 }).toBe(top);
    const to = top - 2;
    await sql(vault, `delete from tenant_${t.id}.audit_events where seq > $1`, [to]);
    await sql(vault, `update tenant_${t.id}.audit_head h set seq = e.seq, hash = e.hash, digest = e.digest from tenant_${t.id}.audit_events e where e.seq = $1 and h.id = 1`, [to]);
    const verdict = await vault.call('AuditVerify', {}, t.admin);
    expect(verdict.status).toBe(200);
    expect(verdict.body).toMatchObject({ result: 'broken', broken: { seq: to + 1, why: 'cut' } });
    expect(await count(vault, t.id, 'audit_queue', `title = 'AuditVerify'`)).toBe(1);
    expect((await vault.call('UserCreate', { profile: buildProfile() }, t.admin)).status).toBe(200);
    const answer = await read(vault, t);
    expect(answer.status).toBe(503);
    expect(answer.body.message).toMatch(/cut short/);
    // A failed call keeps its own answer, and its event is queued, not lost (the read refused above is one too).
    const failed = () => count(vault, t.id, 'audit_queue', `title = 'UserGet' and status = 'error'`);
    const before = await failed();
    expect((await vault.call('UserGet', { mode: 'token', identity: randomUUID() }, t.admin)).status).toBe(404);
    expect(await failed()).toBe(before + 1);
  });

  it('answers events stored past the head with a clear 503 and a broken verdict, never a 500 (M7)', async ({ vault }) => {
    const t = await tenant(vault);
    expect((await vault.call('UserCreate', { profile: buildProfile() }, t.admin)).status).toBe(200);
    await sql(vault, `insert into tenant_${t.id}.audit_events (seq, uuid, "when", title, status, actor, hash, digest)
      select h.seq + 1, gen_random_uuid(), 0, 'UserDelete', 'ok', 'root:x', h.hash, h.digest from tenant_${t.id}.audit_head h`);
    const answer = await read(vault, t);
    expect(answer.status).toBe(503);
    expect(answer.body.message).toMatch(/audit trail of this tenant is broken: events are stored past its head/);
    const verdict = await vault.call('AuditVerify', {}, t.admin);
    expect(verdict.status).toBe(200);
    expect(verdict.body).toMatchObject({ result: 'broken' });
  });

  it('says intact, online and offline, iff nobody tampered, and never answers 500 (generated)', async ({ vault }) => {
    const step = fc.constantFrom('write', 'read', 'replay', 'checkpoint', 'forge', 'past-head');
    await fc.assert(
      fc.asyncProperty(fc.array(step, { minLength: 1, maxLength: 8 }), async (steps) => {
        const t = await tenant(vault);
        const lines: CheckpointLine[] = [];
        const linked: Record<string, unknown>[] = [];
        let tampered = false;
        for (const s of steps) {
          if (s === 'write' || s === 'read') {
            const res = s === 'write' ? await vault.call('UserCreate', { profile: buildProfile() }, t.admin) : await read(vault, t);
            expect(res.status, JSON.stringify(steps)).toBe(tampered && s === 'read' ? 503 : 200);
            const [row] = await sql(vault, `select * from tenant_${t.id}.audit_events where title = 'UserCreate' order by seq desc limit 1`);
            if (row) linked.push(row);
          } else if (s === 'replay' && linked.length) {
            // A linked event queued again (its MAC copied from what the queue once held does not matter: it is refused).
            const r = linked[0]!;
            await sql(vault, `insert into tenant_${t.id}.audit_queue (uuid, "when", title, status, msg, actor, record, mode, app, details, mac)
              values ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11) on conflict do nothing`, [r.uuid, r.when, r.title, r.status, r.msg, r.actor, r.record, r.mode, r.app, r.details, randomBytes(32)]);
            await vault.api.services.audit.drainIfQueued(t.id);
          } else if (s === 'checkpoint') {
            const line = await vault.api.services.auditCheckpoints.checkpoint(t.id).catch(() => null);
            if (line) lines.push(line);
          } else if (s === 'forge') {
            // (Refused by the database itself when an event already sits past the head: tampered all the same.)
            await appendForged((text, params) => sql(vault, text, params), vault, t.id).catch(() => undefined);
            tampered = true;
          } else if (s === 'past-head') {
            await sql(vault, `insert into tenant_${t.id}.audit_events (seq, uuid, "when", title, status, actor, hash, digest)
              select h.seq + 1, gen_random_uuid(), 0, 'UserDelete', 'ok', 'root:x', h.hash, h.digest from tenant_${t.id}.audit_head h
              on conflict do nothing`);
            tampered = true;
          }
        }
        const verdict = await vault.call('AuditVerify', {}, t.admin);
        expect(verdict.status).toBe(200);
        const line = await vault.api.services.auditCheckpoints.checkpoint(t.id).catch(() => null);
        if (line) lines.push(line);
        const report = await offline(vault, t.id, lines);
        const provenWhole = report.result === 'intact' && report.provenUpTo === (await head(vault, t.id));
        // The oracle: intact (online) and proven whole (offline) if and only if nobody tampered with the trail.
        expect(verdict.body.result, JSON.stringify(steps)).toBe(tampered ? 'broken' : 'intact');
        expect(provenWhole, JSON.stringify({ steps, report })).toBe(!tampered);
      }),
      { numRuns: 8 },
    );
  }, 240_000);
});
