// N5: deleting a trail's last events and moving its head back leaves every remaining link intact; only a record of
// the longer trail outside the database can tell. The tokenizer keeps the newest committed head per tenant beside
// its keyring (across restarts), refuses to link from an older one, and AuditVerify reports a trail shorter than it.
import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it as plain, vi } from 'vitest';
import { vaultTest, apiTestEnv, buildProfile } from '../fixtures/vault.js';
import { spawnTokenizer, shortTempDir, type SpawnedTokenizer } from '../fixtures/tokenizer.js';
import { createTestDatabase } from '../fixtures/database.js';
import { startApi } from '../../api/compose.js';

const quiet = { STRONGROOM_AUDIT_CHECKPOINT_SECONDS: '0', STRONGROOM_AUDIT_CHECKPOINT_EVENTS: '0', STRONGROOM_AUDIT_VERIFY_SECONDS: '0', STRONGROOM_SWEEP_SECONDS: '0' };
const it = vaultTest({ env: quiet });

type Api = Awaited<ReturnType<typeof startApi>>;

const sql = (api: Api, text: string, params: unknown[] = []) => api.services.db.global().sql.query(text, params);

async function call(api: Api, rootToken: string, op: string, body: unknown, token = rootToken) {
  const res = await fetch(`http://127.0.0.1:${api.port}/v2/${op}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-bunker-token': token },
    body: JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as Record<string, any> };
}

async function headOf(api: Api, id: number): Promise<number> {
  return Number((await sql(api, `select seq from tenant_${id}.audit_head`))[0]!.seq);
}

/** Until the tokenizer has been told the committed head (a link call, or the report after the last batch). */
async function known(api: Api, id: number): Promise<void> {
  const head = await headOf(api, id);
  await expect.poll(async () => (await api.services.tokenizer.auditHighWater(id)).seq, { timeout: 10_000 }).toBe(head);
}

/** What a database writer does: the last `n` events deleted, the head moved back onto the event before them. */
async function cut(api: Api, id: number, n: number): Promise<number> {
  const head = await headOf(api, id);
  const to = head - n;
  await sql(api, `delete from tenant_${id}.audit_events where seq > $1`, [to]);
  await sql(
    api,
    `update tenant_${id}.audit_head h set seq = $1, hash = coalesce(e.hash, '\\x'), digest = coalesce(e.digest, '\\x')
     from (select 1 as one) o left join tenant_${id}.audit_events e on e.seq = $1 where h.id = 1`,
    [to],
  );
  return to;
}

describe('a trail cut short (N5)', () => {
  plain('is reported by AuditVerify after the api and the tokenizer restart', async () => {
    const dataDir = shortTempDir();
    const db = await createTestDatabase();
    const rootToken = randomUUID();
    let tokenizer: SpawnedTokenizer | undefined = await spawnTokenizer({ dataDir });
    const start = () => startApi(apiTestEnv({ dataDir, rootToken, socketPath: tokenizer!.socketPath, databaseUrl: db.url }, quiet));
    let api: Api | undefined = await start();
    try {
      const created = await call(api, rootToken, 'TenantCreate', { tenantname: `cut${randomUUID().slice(0, 8)}`, tenantorg: 'Cut' });
      const id = created.body.tenantid as number;
      const admin = created.body.xtoken as string;
      let token = '';
      for (let i = 0; i < 5; i++) {
        const user = await call(api, rootToken, 'UserCreate', { profile: buildProfile() }, admin);
        expect(user.status).toBe(200);
        token = user.body.token as string;
      }
      await known(api, id);
      expect((await api.services.auditVerifier.verify(id)).result).toBe('intact');
      await api.close();
      api = undefined;
      await tokenizer.stop();
      tokenizer = undefined;
      tokenizer = await spawnTokenizer({ dataDir });
      api = await start();
      // Cut before anything else touches the tenant (through the restarted api's own database handle, which the
      // embedded database needs): its three last events and its head, as a database writer would.
      const to = await cut(api, id, 3);
      const verdict = await api.services.auditVerifier.verify(id);
      expect(verdict).toMatchObject({ result: 'broken', broken: { seq: to + 1, why: 'cut' } });
      // And the chain does not go on over the cut: a read's event is refused, nothing is linked past it.
      const read = await call(api, rootToken, 'UserGet', { mode: 'token', identity: token }, admin);
      expect(read.status).toBe(503);
      expect(read.body.message).toMatch(/cut short/);
      expect(await headOf(api, id)).toBe(to);
    } finally {
      await api?.close();
      await tokenizer?.stop();
      await db.drop();
    }
  });

  plain('is reported by AuditVerify when the tokenizer was killed before it saved the committed head (generated)', async () => {
    // A stranger killed the tokenizer (SIGKILL) right after the last calls, before it was told or had saved their
    // head, then cut the trail: the restarted tokenizer knew an older head and AuditVerify said intact, while the api
    // (which remembers what it committed) refused the tenant's reads as cut short. Both must say cut.
    const dataDir = shortTempDir();
    const db = await createTestDatabase();
    const rootToken = randomUUID();
    let tokenizer: SpawnedTokenizer | undefined = await spawnTokenizer({ dataDir });
    const socketPath = tokenizer.socketPath;
    const api: Api = await startApi(apiTestEnv({ dataDir, rootToken, socketPath, databaseUrl: db.url }, quiet));
    try {
      await fc.assert(
        fc.asyncProperty(fc.integer({ min: 1, max: 4 }), fc.integer({ min: 0, max: 3 }), fc.integer({ min: 0, max: 250 }), async (writes, reads, waitMs) => {
          const created = await call(api, rootToken, 'TenantCreate', { tenantname: `kill${randomUUID().slice(0, 8)}`, tenantorg: 'Kill' });
          const id = created.body.tenantid as number;
          const admin = created.body.xtoken as string;
          let token = '';
          for (let i = 0; i < writes; i++) token = (await call(api, rootToken, 'UserCreate', { profile: buildProfile() }, admin)).body.token as string;
          for (let i = 0; i < reads; i++) expect((await call(api, rootToken, 'UserGet', { mode: 'token', identity: token }, admin)).status).toBe(200);
          await new Promise((r) => setTimeout(r, waitMs));
          await tokenizer!.stop('SIGKILL');
          tokenizer = await spawnTokenizer({ dataDir, socketPath });
          const to = await cut(api, id, 1);
          const verdict = await api.services.auditVerifier.verify(id);
          expect(verdict).toMatchObject({ result: 'broken', broken: { seq: to + 1, why: 'cut' } });
        }),
        { numRuns: 6 },
      );
    } finally {
      await api.close();
      await tokenizer?.stop();
      await db.drop();
    }
  });

  it('is told from an intact trail whatever the calls, forged rows, edits and cuts (generated)', async ({ vault }) => {
    const tamper = fc.oneof(fc.constant({ kind: 'cut' as const, n: 1 }), fc.record({ kind: fc.constant('cut' as const), n: fc.integer({ min: 1, max: 4 }) }), fc.constant({ kind: 'edit' as const }));
    const step = fc.oneof(
      { weight: 4, arbitrary: fc.constantFrom({ kind: 'write' as const }, { kind: 'read' as const }, { kind: 'forge' as const }) },
      { weight: 1, arbitrary: tamper },
    );
    await fc.assert(
      fc.asyncProperty(fc.array(step, { minLength: 1, maxLength: 8 }), async (steps) => {
        const { api } = vault;
        const created = await vault.call('TenantCreate', { tenantname: `gen${randomUUID().slice(0, 8)}`, tenantorg: 'Gen' });
        const id = created.body.tenantid as number;
        const admin = { 'x-bunker-token': created.body.xtoken as string };
        let tampered = false;
        for (const s of steps) {
          if (s.kind === 'write') await vault.call('UserCreate', { profile: buildProfile() }, admin);
          else if (s.kind === 'read') await vault.call('UserGet', { mode: 'token', identity: randomUUID() }, admin);
          else if (s.kind === 'forge') {
            await sql(api, `insert into tenant_${id}.audit_queue (uuid, "when", title, status, actor) values ($1, 0, 'SystemDeleteUserProfiles', 'ok', 'root:x')`, [randomUUID()]);
            await api.services.audit.drainIfQueued(id);
          } else {
            if (!tampered) await known(api, id);
            const head = await headOf(api, id);
            if (head === 0) continue;
            if (s.kind === 'cut') {
              if (head - s.n < 0) continue;
              await cut(api, id, s.n);
            } else {
              await sql(api, `update tenant_${id}.audit_events set actor = 'root:someone-else' where seq = $1`, [Math.max(1, head - 1)]);
            }
            tampered = true;
          }
        }
        const verdict = await api.services.auditVerifier.verify(id);
        // The oracle: intact if and only if nobody touched the chain (forged queue rows are refused, not tampering).
        expect(verdict.result, JSON.stringify(steps)).toBe(tampered ? 'broken' : 'intact');
      }),
      { numRuns: 10 },
    );
  });

  it('is reported when it is cut in the moment after an append, before the tokenizer was told (generated)', async ({ vault }) => {
    // The chainer tells the tokenizer its newest committed head with the next link call or 20 ms after the last
    // batch; AuditVerify has it told first, so the trail's newest events cut at once are not found intact.
    await fc.assert(
      fc.asyncProperty(fc.array(fc.constantFrom('write', 'read', 'failed read'), { minLength: 1, maxLength: 6 }), fc.integer({ min: 1, max: 3 }), async (calls, n) => {
        const { api } = vault;
        const created = await vault.call('TenantCreate', { tenantname: `now${randomUUID().slice(0, 8)}`, tenantorg: 'Now' });
        const id = created.body.tenantid as number;
        const admin = { 'x-bunker-token': created.body.xtoken as string };
        const profile = buildProfile();
        expect((await vault.call('UserCreate', { profile }, admin)).status).toBe(200);
        for (const c of calls) {
          if (c === 'write') await vault.call('UserUpdate', { mode: 'login', identity: profile.login, profile: { note: randomUUID() } }, admin);
          else await vault.call('UserGet', { mode: 'login', identity: c === 'read' ? profile.login : 'nobody' }, admin);
        }
        const to = await cut(api, id, Math.min(n, await headOf(api, id)));
        const verdict = await api.services.auditVerifier.verify(id);
        expect(verdict, JSON.stringify({ calls, n })).toMatchObject({ result: 'broken', broken: { seq: to + 1, why: 'cut' } });
      }),
      { numRuns: 8 },
    );
  });
});

describe('AuditVerify called while a run is under way', () => {
  it('is answered by a run that started after the call: a cut made meanwhile is reported', async ({ vault }) => {
    const { api } = vault;
    const created = await vault.call('TenantCreate', { tenantname: `ver${randomUUID().slice(0, 8)}`, tenantorg: 'Verify' });
    const id = created.body.tenantid as number;
    const admin = { 'x-bunker-token': created.body.xtoken as string };
    for (let i = 0; i < 3; i++) expect((await vault.call('UserCreate', { profile: buildProfile() }, admin)).status).toBe(200);
    await known(api, id);
    // The first run is held once it has read the head and the events (at its first link call) until the trail is
    // cut and the second call made: its own verdict is of the trail before the cut.
    const tokenizer = api.services.tokenizer;
    const chainAudit = tokenizer.chainAudit.bind(tokenizer);
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    const spy = vi.spyOn(tokenizer, 'chainAudit').mockImplementationOnce(async (...args: Parameters<typeof chainAudit>) => {
      await held;
      return chainAudit(...args);
    });
    try {
      const first = api.services.auditVerifier.verify(id);
      await vi.waitFor(() => expect(spy).toHaveBeenCalled());
      const to = await cut(api, id, 1);
      const second = api.services.auditVerifier.verify(id);
      release();
      expect(await first).toMatchObject({ result: 'intact' });
      expect(await second).toMatchObject({ result: 'broken', broken: { seq: to + 1, why: 'cut' } });
    } finally {
      vi.restoreAllMocks();
    }
  });
});

describe('a head forged, then put back (the database as it was)', () => {
  it('leaves the trail as it was: calls answered, their events chained once, intact (generated)', async ({ vault }) => {
    // While the forged head is there (a made-up row at the head; or the head's public digest edited, alone or with
    // its event's), reads are refused (broken) and writes' events wait queued; nothing is linked onto it. Once it is
    // put back, nothing of it may stay in the api's memory (it was never a committed head): every call works again.
    const forgery = fc.constantFrom('row' as const, 'digest' as const, 'digest and event' as const);
    const calls = fc.constantFrom('write', 'read');
    await fc.assert(
      fc.asyncProperty(forgery, fc.array(calls, { minLength: 1, maxLength: 4 }), fc.array(calls, { maxLength: 3 }), async (forged, before, during) => {
        const { api } = vault;
        const created = await vault.call('TenantCreate', { tenantname: `fr${randomUUID().slice(0, 8)}`, tenantorg: 'Forged' });
        expect(created.status, JSON.stringify(created.body)).toBe(200);
        const id = created.body.tenantid as number;
        const admin = { 'x-bunker-token': created.body.xtoken as string };
        const profile = buildProfile();
        const made = await vault.call('UserCreate', { profile }, admin);
        expect(made.status, JSON.stringify(made.body)).toBe(200);
        const step = (c: string) =>
          c === 'write' ? vault.call('UserUpdate', { mode: 'login', identity: profile.login, profile: { note: randomUUID() } }, admin) : vault.call('UserGet', { mode: 'login', identity: profile.login }, admin);
        const t = `tenant_${id}`;
        const count = async (table: string) => Number((await sql(api, `select count(*)::int as n from ${t}.${table}`))[0]!.n);
        const start = await count('audit_events');
        for (const c of before) expect((await step(c)).status).toBe(200);
        const [saved] = await sql(api, `select seq, hash, digest from ${t}.audit_head`);
        if (forged === 'row') {
          await sql(api, `insert into ${t}.audit_events select seq + 1, $1::uuid, "when", title, status, msg, actor, record, mode, app, details, sha256(hash), sha256(digest) from ${t}.audit_events where seq = $2`, [randomUUID(), saved!.seq]);
          await sql(api, `update ${t}.audit_head set seq = seq + 1, hash = sha256(hash), digest = sha256(digest)`);
        } else {
          await sql(api, `update ${t}.audit_head set digest = sha256(digest)`);
          if (forged === 'digest and event') await sql(api, `update ${t}.audit_events set digest = sha256(digest) where seq = $1`, [saved!.seq]);
        }
        for (const c of [...during, 'read']) expect((await step(c)).status, `${forged}: ${c}`).toBe(c === 'write' ? 200 : 503);
        // Put back exactly as it was.
        await sql(api, `delete from ${t}.audit_events where seq > $1`, [saved!.seq]);
        await sql(api, `update ${t}.audit_events set digest = $2 where seq = $1`, [saved!.seq, saved!.digest]);
        await sql(api, `update ${t}.audit_head set seq = $1, hash = $2, digest = $3`, [saved!.seq, saved!.hash, saved!.digest]);
        for (const c of ['read', 'write', 'read']) expect((await step(c)).status).toBe(200);
        await api.services.audit.drainIfQueued(id);
        await expect.poll(() => count('audit_queue'), { timeout: 10_000 }).toBe(0);
        // Each call's event once, a refused read's too (kept as a failed call's), and nothing of the forged row.
        const uuids = Number((await sql(api, `select count(distinct uuid)::int as n from ${t}.audit_events`))[0]!.n);
        expect(await count('audit_events')).toBe(start + before.length + during.length + 4);
        expect(uuids).toBe(await count('audit_events'));
        expect(await api.services.auditVerifier.verify(id)).toMatchObject({ result: 'intact' });
      }),
      { numRuns: 10 },
    );
  });
});
