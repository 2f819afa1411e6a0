// N4: rows a database writer puts into audit_queue must never be linked into the trail. Every queued event carries
// the tokenizer's MAC (made as the api seals it, bound to uuid, time, tenant and content); the link call checks it,
// and a refused row leaves the queue for audit_refused, never for the chain. A back-dated event never gets a MAC.
import { randomBytes, randomUUID } from 'node:crypto';
import fc from 'fast-check';
import pg from 'pg';
import { describe, expect } from 'vitest';
import { vaultTest, buildProfile, type TestVault } from '../fixtures/vault.js';

import { canonicalHead, type AuditDraft } from '../../api/vault/audit/trail.js';
import { TokenizerRejectedError } from '../../api/tokenizer-client.js';
import { QUEUE_AHEAD_SECONDS, QUEUE_SKEW_SECONDS } from '../../tokenizer/audit-queue.js';

const it = vaultTest({ env: { STRONGROOM_AUDIT_CHECKPOINT_SECONDS: '0', STRONGROOM_AUDIT_CHECKPOINT_EVENTS: '0', STRONGROOM_AUDIT_VERIFY_SECONDS: '0', STRONGROOM_SWEEP_SECONDS: '0' } });

const sql = (vault: TestVault, text: string, params: unknown[] = []) => vault.api.services.db.global().sql.query(text, params);
const now = () => Math.floor(Date.now() / 1000);

async function tenant(vault: TestVault) {
  const created = await vault.call('TenantCreate', { tenantname: `forge${randomUUID().slice(0, 8)}`, tenantorg: 'Forge' });
  expect(created.status).toBe(200);
  return { id: created.body.tenantid as number, admin: { 'x-bunker-token': created.body.xtoken as string } };
}

const count = async (vault: TestVault, id: number, table: string, where = 'true', params: unknown[] = []) =>
  Number((await sql(vault, `select count(*)::int as n from tenant_${id}.${table} where ${where}`, params))[0]!.n);

/** What the reviewer forged: a back-dated mass deletion by a made-up actor, straight into the queue as postgres. */
async function forge(vault: TestVault, id: number, fields: { when?: number; mac?: Buffer | null; title?: string } = {}): Promise<string> {
  const uuid = randomUUID();
  // Without a MAC, the row names only the columns the queue always had (the reviewer's insert, as it ran on main).
  const withMac = fields.mac ? ', mac' : '';
  await sql(
    vault,
    `insert into tenant_${id}.audit_queue (uuid, "when", title, status, msg, actor, record, mode, app, details${withMac})
     values ($1, $2, $3, 'ok', null, 'root:made-up', null, null, null, null${fields.mac ? ', $4' : ''})`,
    [uuid, fields.when ?? now() - 86_400 * 30, fields.title ?? 'SystemDeleteUserProfiles', ...(fields.mac ? [fields.mac] : [])],
  );
  return uuid;
}

/** The sweeper's drain, until the queue is empty. */
async function drain(vault: TestVault, id: number): Promise<void> {
  await vault.api.services.audit.drainIfQueued(id);
  await expect.poll(() => count(vault, id, 'audit_queue'), { timeout: 10_000 }).toBe(0);
}

async function verdict(vault: TestVault, id: number) {
  return (await vault.api.services.auditVerifier.verify(id)).result;
}

/** A genuine write's event, queued with its MAC in a committed transaction and left there (as by a stopped replica). */
async function queuedGenuine(vault: TestVault, id: number): Promise<{ uuid: string; mac: Buffer }> {
  const { db, audit } = vault.api.services;
  const draft: AuditDraft = { uuid: randomUUID(), when: now(), title: 'UserUpdate', status: 'ok', msg: null, actor: 'root:test', record: null, mode: null, app: null, details: { n: 1 } };
  await db.write(id, true, (tx) => audit.writeInTx(tx, [draft]));
  const [row] = await sql(vault, `select mac from tenant_${id}.audit_queue where uuid = $1`, [draft.uuid]);
  return { uuid: draft.uuid, mac: row!.mac as Buffer };
}

describe('forged rows in the audit queue (N4)', () => {
  it('never links a row postgres wrote into the queue, and AuditVerify does not prove it', async ({ vault }) => {
    const t = await tenant(vault);
    expect((await vault.call('UserCreate', { profile: buildProfile() }, t.admin)).status).toBe(200);
    const forged = [await forge(vault, t.id), await forge(vault, t.id, { mac: randomBytes(32) })];
    await drain(vault, t.id);
    expect(await count(vault, t.id, 'audit_events', 'uuid = any($1::uuid[])', [forged])).toBe(0);
    expect(await count(vault, t.id, 'audit_refused', 'uuid = any($1::uuid[])', [forged])).toBe(2);
    expect(await verdict(vault, t.id)).toBe('intact');
    // The trail goes on: the next write is linked as ever.
    expect((await vault.call('UserCreate', { profile: buildProfile() }, t.admin)).status).toBe(200);
    expect(await verdict(vault, t.id)).toBe('intact');
  });

  it('chains a genuine queued event left behind, and refuses its MAC on another or an edited row', async ({ vault }) => {
    const t = await tenant(vault);
    const genuine = await queuedGenuine(vault, t.id);
    // The genuine MAC copied onto a forged row, and onto a back-dated one.
    const copied = await forge(vault, t.id, { mac: genuine.mac, when: now() });
    const backdated = await forge(vault, t.id, { mac: genuine.mac });
    await drain(vault, t.id);
    expect(await count(vault, t.id, 'audit_events', 'uuid = $1', [genuine.uuid])).toBe(1);
    expect(await count(vault, t.id, 'audit_refused', 'uuid = any($1::uuid[])', [[copied, backdated]])).toBe(2);
    // A genuine row edited in the queue (its time moved back a month) no longer holds.
    const edited = await queuedGenuine(vault, t.id);
    await sql(vault, `update tenant_${t.id}.audit_queue set "when" = "when" - 2592000 where uuid = $1`, [edited.uuid]);
    await drain(vault, t.id);
    expect(await count(vault, t.id, 'audit_events', 'uuid = $1', [edited.uuid])).toBe(0);
    expect(await count(vault, t.id, 'audit_refused', 'uuid = $1', [edited.uuid])).toBe(1);
    expect(await verdict(vault, t.id)).toBe('intact');
  });

  it('gives no MAC to an event stamped beyond the skew from the tokenizer\'s clock', async ({ vault }) => {
    const t = await tenant(vault);
    const draft = (when: number) => ({ uuid: randomUUID(), when, title: 'SystemDeleteUserProfiles', status: 'ok' as const, msg: null, actor: 'root:x', record: null, mode: null, app: null });
    const ask = (when: number) => {
      const d = draft(when);
      return vault.api.services.tokenizer.run(t.id, { queueMac: [{ uuid: d.uuid, head: canonicalHead(d), details: null }] });
    };
    expect((await ask(now())).queue_macs[0]).toHaveLength(32);
    for (const when of [now() - QUEUE_SKEW_SECONDS - 60, now() + QUEUE_AHEAD_SECONDS + 60, 0]) {
      const err = await ask(when).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(TokenizerRejectedError);
      expect((err as TokenizerRejectedError).kind).toBe('refused');
    }
  });

  it('refuses an enqueue without a MAC, whoever calls the function', async ({ vault }) => {
    const t = await tenant(vault);
    const role = vault.api.services.db.roleOf?.(t.id);
    const enqueue = `select tenant_${t.id}.audit_enqueue(array[$1]::uuid[], array[$2]::bigint[], array['UserDelete'], array['ok'], array[null]::text[],
      array['root:x'], array[null]::uuid[], array[null]::text[], array[null]::text[], array[null]::bytea[], $3::bytea[])`;
    await expect(sql(vault, enqueue, [randomUUID(), now(), [null]])).rejects.toThrow(/MAC/);
    await expect(sql(vault, enqueue, [randomUUID(), now(), [Buffer.alloc(5)]])).rejects.toThrow(/MAC/);
    const url = (vault.api.services.db as unknown as { databaseUrl?: string }).databaseUrl;
    if (!role || !url) return;
    // The tenant's role adds to the queue with plain INSERTs: one without a MAC, or with one not the tokenizer's, is
    // queued, then refused at the link and never chained. Its enqueue without a MAC is refused at once.
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      await client.query(`set role "${role}"`);
      const bare = randomUUID();
      await client.query(`insert into tenant_${t.id}.audit_queue (uuid, "when", title, status, actor) values ($1, $2, 'x', 'ok', 'x')`, [bare, now()]);
      await drain(vault, t.id);
      expect(await count(vault, t.id, 'audit_events', 'uuid = $1', [bare])).toBe(0);
      expect(await count(vault, t.id, 'audit_refused', 'uuid = $1', [bare])).toBe(1);
      await expect(client.query(enqueue, [randomUUID(), now(), [null]])).rejects.toThrow(/MAC/);
      // A MAC of the right shape but not the tokenizer's: queued, then refused at the link, never chained.
      const forged = randomUUID();
      await client.query(enqueue, [forged, now(), [randomBytes(32)]]);
      await drain(vault, t.id);
      expect(await count(vault, t.id, 'audit_events', 'uuid = $1', [forged])).toBe(0);
      expect(await count(vault, t.id, 'audit_refused', 'uuid = $1', [forged])).toBe(1);
    } finally {
      await client.end();
    }
  });

  it('links every genuine event and no forged one, whatever the interleaving (generated)', async ({ vault }) => {
    const t = await tenant(vault);
    const step = fc.oneof(
      fc.record({ kind: fc.constant('write' as const) }),
      fc.record({ kind: fc.constant('read' as const) }),
      fc.record({ kind: fc.constant('forge' as const), when: fc.integer({ min: -86_400 * 365, max: 60 }), mac: fc.constantFrom('none', 'random', 'copied') }),
      fc.record({ kind: fc.constant('orphan' as const) }),
    );
    await fc.assert(
      fc.asyncProperty(fc.array(step, { minLength: 1, maxLength: 10 }), async (steps) => {
        const forged: string[] = [];
        const genuine: string[] = [];
        let token: string | undefined;
        for (const s of steps) {
          if (s.kind === 'write') {
            const created = await vault.call('UserCreate', { profile: buildProfile() }, t.admin);
            expect(created.status).toBe(200);
            token = created.body.token as string;
          } else if (s.kind === 'read') {
            expect((await vault.call('UserGet', { mode: 'token', identity: token ?? randomUUID() }, t.admin)).status).toBe(token ? 200 : 404);
          } else if (s.kind === 'orphan') {
            genuine.push((await queuedGenuine(vault, t.id)).uuid);
          } else {
            const mac = s.mac === 'none' ? null : s.mac === 'random' ? randomBytes(32) : (await queuedGenuine(vault, t.id).then((g) => (genuine.push(g.uuid), g.mac)));
            forged.push(await forge(vault, t.id, { when: now() + s.when, mac }));
          }
        }
        await drain(vault, t.id);
        // The oracle: what the vault queued is in the chain, what someone else queued is not; the trail holds.
        expect(await count(vault, t.id, 'audit_events', 'uuid = any($1::uuid[])', [genuine])).toBe(genuine.length);
        expect(await count(vault, t.id, 'audit_events', 'uuid = any($1::uuid[])', [forged])).toBe(0);
        expect(await count(vault, t.id, 'audit_refused', 'uuid = any($1::uuid[])', [forged])).toBe(forged.length);
        expect(await verdict(vault, t.id)).toBe('intact');
      }),
      { numRuns: 8 },
    );
  });
});
