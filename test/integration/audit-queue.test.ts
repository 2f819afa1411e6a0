// Writes queue their events in their own transaction and a chainer links them in batches (Tenant0010AuditQueue):
// a write never holds the chain's head, yet is answered only once its event is linked, a rolled-back write leaves
// nothing queued, and events left queued by a process that stopped are chained by the sweeper's drain.
import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect } from 'vitest';
import { vaultTest, buildProfile, type TestVault } from '../fixtures/vault.js';

import { AuditTrail, type AuditDraft } from '../../api/vault/audit/trail.js';
import { SEALED } from '../../api/store/migrations/Tenant0013SealedStorage.js';

const it = vaultTest({ env: { STRONGROOM_AUDIT_CHECKPOINT_SECONDS: '0', STRONGROOM_AUDIT_CHECKPOINT_EVENTS: '0', STRONGROOM_AUDIT_VERIFY_SECONDS: '0', STRONGROOM_SWEEP_SECONDS: '0' } });

const sql = (vault: TestVault, text: string, params: unknown[] = []) => vault.api.services.db.global().sql.query(text, params);

async function tenant(vault: TestVault) {
  const created = await vault.call('TenantCreate', { tenantname: `queue${randomUUID().slice(0, 8)}`, tenantorg: 'Queue' });
  expect(created.status).toBe(200);
  return { id: created.body.tenantid as number, admin: { 'x-bunker-token': created.body.xtoken as string } };
}

const eventsOf = async (vault: TestVault, id: number, record: string) =>
  Number((await sql(vault, `select count(*)::int as n from tenant_${id}.audit_events where record = $1`, [record]))[0]!.n);
const count = async (vault: TestVault, id: number, table: 'audit_events' | 'audit_queue') =>
  Number((await sql(vault, `select count(*)::int as n from tenant_${id}.${table}`))[0]!.n);

async function intact(vault: TestVault, id: number) {
  const verdict = await vault.api.services.auditVerifier.verify(id);
  expect(verdict.result).toBe('intact');
  // Sequence numbers run 1..n with no gap and no duplicate.
  const [r] = await sql(vault, `select count(*)::int as n, count(distinct seq)::int as d, max(seq)::int as m from tenant_${id}.audit_events`);
  expect(r).toEqual({ n: r!.m, d: r!.m, m: r!.m });
}

describe('the queue of writes\' audit events', () => {
  it('answers each of many concurrent writes only once its event is in the chain', async ({ vault }) => {
    const t = await tenant(vault);
    const seen = await Promise.all(
      Array.from({ length: 40 }, async (_, i) => {
        const profile = buildProfile();
        const created = await vault.call('UserCreate', { profile }, t.admin);
        // Seen once on PGlite under CI's load: a 409 among 40 random profiles. The answer names the field.
        expect(created.status, `${JSON.stringify(created.body)} for ${JSON.stringify(profile)}`).toBe(200);
        const token = created.body.token as string;
        // Looked at the moment the answer arrives: the event is linked already, not merely queued.
        const linked = await eventsOf(vault, t.id, token);
        const updated = await vault.call('UserUpdate', { mode: 'token', identity: token, profile: { visits: i } }, t.admin);
        expect(updated.status).toBe(200);
        return [linked, await eventsOf(vault, t.id, token)];
      }),
    );
    for (const [afterCreate, afterUpdate] of seen) {
      expect(afterCreate).toBeGreaterThanOrEqual(1);
      expect(afterUpdate).toBeGreaterThanOrEqual(2);
    }
    expect(await count(vault, t.id, 'audit_queue')).toBe(0);
    await intact(vault, t.id);
  });

  it('leaves nothing queued by a write that rolls back, and records the failed call once', async ({ vault }) => {
    const t = await tenant(vault);
    const profile = buildProfile();
    expect((await vault.call('UserCreate', { profile }, t.admin)).status).toBe(200);
    const before = await count(vault, t.id, 'audit_events');
    const dup = await vault.call('UserCreate', { profile: { ...buildProfile(), email: profile.email } }, t.admin);
    expect(dup.status).toBe(409);
    expect(await count(vault, t.id, 'audit_queue')).toBe(0);
    expect(await count(vault, t.id, 'audit_events')).toBe(before + 1);
    await intact(vault, t.id);
  });

  it('chains, at the sweeper\'s drain, events a stopped process left in the queue', async ({ vault }) => {
    const t = await tenant(vault);
    // What a replica that died between a write's commit and its chaining leaves behind: committed, queued events
    // (with the MACs the tokenizer made as they were sealed), never handed to the chainer.
    const { db, audit } = vault.api.services;
    const orphan = (uuid: string): AuditDraft => ({
      uuid, when: Math.floor(Date.now() / 1000), title: 'UserUpdate', status: 'ok', msg: null, actor: 'root:x', record: null, mode: null, app: null, details: null,
    });
    const orphans = [randomUUID(), randomUUID()];
    await db.write(t.id, true, (tx) => audit.writeInTx(tx, orphans.map(orphan)));
    expect(await count(vault, t.id, 'audit_queue')).toBe(2);
    expect(await vault.api.services.audit.drainIfQueued(t.id)).toBe(2);
    await expect.poll(() => count(vault, t.id, 'audit_queue')).toBe(0);
    const chained = await sql(vault, `select uuid from tenant_${t.id}.audit_events where uuid = any($1::uuid[]) order by seq`, [orphans]);
    expect(chained.map((r) => r.uuid)).toEqual(orphans);
    await intact(vault, t.id);
    // Nothing left: the next look finds an empty queue.
    expect(await vault.api.services.audit.drainIfQueued(t.id)).toBe(0);
  });

  it('keeps one event per call, linked and in one unbroken chain, whatever mix of calls runs at once', async ({ vault }) => {
    const t = await tenant(vault);
    const tokens: string[] = [];
    for (let i = 0; i < 4; i++) tokens.push((await vault.call('UserCreate', { profile: buildProfile() }, t.admin)).body.token as string);
    const call = fc.oneof(
      fc.record({ op: fc.constant('UserCreate' as const) }),
      fc.record({ op: fc.constant('UserUpdate' as const), who: fc.nat(3), visits: fc.nat(1000) }),
      fc.record({ op: fc.constant('UserGet' as const), who: fc.nat(3) }),
      fc.record({ op: fc.constant('UserGet404' as const) }),
      fc.record({ op: fc.constant('UserUpdate404' as const) }),
    );
    await fc.assert(
      fc.asyncProperty(fc.array(call, { minLength: 1, maxLength: 24 }), async (calls) => {
        const before = await count(vault, t.id, 'audit_events');
        const answers = await Promise.all(
          calls.map((c) => {
            switch (c.op) {
              case 'UserCreate':
                return vault.call('UserCreate', { profile: buildProfile() }, t.admin);
              case 'UserUpdate':
                return vault.call('UserUpdate', { mode: 'token', identity: tokens[c.who], profile: { visits: c.visits } }, t.admin);
              case 'UserGet':
                return vault.call('UserGet', { mode: 'token', identity: tokens[c.who] }, t.admin);
              case 'UserGet404':
                return vault.call('UserGet', { mode: 'login', identity: `nobody-${randomUUID()}` }, t.admin);
              case 'UserUpdate404':
                return vault.call('UserUpdate', { mode: 'login', identity: `nobody-${randomUUID()}`, profile: { a: 1 } }, t.admin);
            }
          }),
        );
        for (const [i, a] of answers.entries()) expect(a.status, calls[i]!.op).toBe(calls[i]!.op.endsWith('404') ? 404 : 200);
        // Every answer left before its event was linked would show here as a count short of the calls made.
        expect(await count(vault, t.id, 'audit_events')).toBe(before + calls.length);
        expect(await count(vault, t.id, 'audit_queue')).toBe(0);
      }),
      { numRuns: 6 },
    );
    await intact(vault, t.id);
  });

  it('falls back to the head\'s lock when another chainer moved the head, and loses nothing', async ({ vault }) => {
    const t = await tenant(vault);
    const { db, tokenizer, log, keys, audit } = vault.api.services;
    // A second chainer on the same database, as another replica's: each one's remembered head goes stale in turn.
    const other = new AuditTrail(db, tokenizer, log, keys);
    const draft = (i: number): AuditDraft => ({
      uuid: randomUUID(), when: i, title: 'UserGet', status: 'ok', msg: null, actor: 'root:test', record: null, mode: null, app: null, details: { i },
    });
    const before = await count(vault, t.id, 'audit_events');
    for (let round = 0; round < 6; round++) {
      await Promise.all([
        ...Array.from({ length: 5 }, (_, i) => audit.record(t.id, draft(round * 10 + i))),
        ...Array.from({ length: 5 }, (_, i) => other.record(t.id, draft(round * 10 + 5 + i))),
      ]);
    }
    // And writes through the api in between, queued and chained by this replica while the other one appends.
    await Promise.all([
      ...Array.from({ length: 8 }, () => vault.call('UserCreate', { profile: buildProfile() }, t.admin)),
      ...Array.from({ length: 8 }, (_, i) => other.record(t.id, draft(100 + i))),
    ]);
    expect(await count(vault, t.id, 'audit_events')).toBe(before + 60 + 16);
    expect(await count(vault, t.id, 'audit_queue')).toBe(0);
    await intact(vault, t.id);
  });

  it('queues through a function whose plan is kept, and stores ciphertext out of line, uncompressed', async ({ vault }) => {
    const t = await tenant(vault);
    // PL/pgSQL keeps its statement's plan for the session; a SQL function is planned again on every call.
    const [fn] = await sql(vault, `select l.lanname from pg_proc p join pg_language l on l.oid = p.prolang where p.oid = 'tenant_${t.id}.audit_enqueue'::regproc`);
    expect(fn!.lanname).toBe('plpgsql');
    const storage = (await sql(vault, `select c.relname, a.attname, a.attstorage from pg_attribute a join pg_class c on c.oid = a.attrelid
      where c.relnamespace = 'tenant_${t.id}'::regnamespace and (c.relname, a.attname) in (${SEALED.map(([r, a]) => `('${r}', '${a}')`).join(', ')})`)) as { relname: string; attname: string; attstorage: string }[];
    expect(storage.map((r) => `${r.relname}.${r.attname}`).sort()).toEqual(SEALED.map(([r, a]) => `${r}.${a}`).sort());
    for (const r of storage) expect(r.attstorage, `${r.relname}.${r.attname}`).toBe('e');
    // What is written from now on: a profile and its update's event, both above the 2 KB at which values move out of
    // line, are stored without a compression attempt (a compressed value would name its method). The event names the
    // kept version and holds what changed: a change of the long field makes it that large.
    const created = await vault.call('UserCreate', { profile: { ...buildProfile(), notes: 'n'.repeat(4000) } }, t.admin);
    const token = created.body.token as string;
    expect((await vault.call('UserUpdate', { mode: 'token', identity: token, profile: { notes: 'm'.repeat(4000) } }, t.admin)).status).toBe(200);
    const [user] = await sql(vault, `select pg_column_compression(profile) as method, pg_column_size(profile) as size from tenant_${t.id}.users where token = $1`, [token]);
    const events = await sql(vault, `select pg_column_compression(details) as method, pg_column_size(details) as size from tenant_${t.id}.audit_events
      where record = $1 and title = 'UserUpdate'`, [token]);
    expect(user!.size).toBeGreaterThan(2048);
    expect(user!.method).toBeNull();
    expect(events).toHaveLength(1);
    expect(events[0]!.size).toBeGreaterThan(2048);
    expect(events[0]!.method).toBeNull();
  });
});
