// A stranger's F1: the api tells the tokenizer a committed head after its last batch; an api killed (SIGKILL) before it
// did took the head with it, and a database writer could then cut that call's event unseen (AuditVerify said intact).
// The api now reports the head 20 ms after the last batch, on a message of its own: killed any later than that, the
// tokenizer (still running) knows the head, and the cut is reported; stopped (SIGTERM), it reports first. Real processes: the supervisor's api and
// tokenizer, on a PostgreSQL database the test cuts while they run.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import fc from 'fast-check';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSupervisor, supervisedChildren, type Supervised } from '../fixtures/processes.js';
import { createTestDatabase, usingPostgres, type TestDatabase } from '../fixtures/database.js';
import { buildProfile } from '../fixtures/vault.js';

const rootToken = randomUUID();
let dataDir: string;
let db: TestDatabase;
let running: Supervised | undefined;

async function call(op: string, body: unknown, token: string = rootToken) {
  const res = await fetch(`${running!.url}/v2/${op}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-bunker-token': token },
    body: JSON.stringify(body),
  });
  return { status: res.status, body: (await res.json()) as Record<string, any> };
}

async function sql(text: string, params: unknown[] = []): Promise<Record<string, any>[]> {
  const c = new pg.Client({ connectionString: db.url });
  await c.connect();
  try {
    return (await c.query(text, params)).rows;
  } finally {
    await c.end();
  }
}

/** What a database writer does: the last event deleted, the head moved back onto the one before. */
async function cutOne(id: number): Promise<number> {
  const to = Number((await sql(`select seq from tenant_${id}.audit_head`))[0]!.seq) - 1;
  await sql(`delete from tenant_${id}.audit_events where seq > $1`, [to]);
  await sql(
    `update tenant_${id}.audit_head h set seq = $1, hash = coalesce(e.hash, '\\x'), digest = coalesce(e.digest, '\\x')
     from (select 1 as one) o left join tenant_${id}.audit_events e on e.seq = $1 where h.id = 1`,
    [to],
  );
  return to;
}

/** A signal to one child (SIGKILL: as a node's OOM killer does); resolves once the supervisor's new one serves. */
async function signalChild(child: 'api' | 'tokenizer', signal: NodeJS.Signals): Promise<void> {
  const pid = supervisedChildren(running!.child.pid!)[child];
  expect(pid).toBeDefined();
  process.kill(pid!, signal);
  // Until it is another process: the old api may still answer /readyz for a moment.
  await expect.poll(() => supervisedChildren(running!.child.pid!)[child] ?? pid, { timeout: 60_000 }).not.toBe(pid);
  await running!.waitReady(60_000);
}
const signalApi = (signal: NodeJS.Signals) => signalChild('api', signal);

describe.skipIf(!usingPostgres())('an api killed after its last call (PostgreSQL only: the test cuts the trail while the vault runs, which the embedded database does not allow)', () => {
  beforeAll(async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'srk-'));
    db = await createTestDatabase();
    running = await startSupervisor({
      STRONGROOM_DATA_DIR: dataDir,
      DATABASE_URL: db.url,
      STRONGROOM_ROOT_TOKEN: rootToken,
      STRONGROOM_WRAPPING_KEY: undefined,
      STRONGROOM_AUDIT_VERIFY_SECONDS: '0',
      STRONGROOM_AUDIT_CHECKPOINT_SECONDS: '0',
      STRONGROOM_AUDIT_CHECKPOINT_EVENTS: '0',
    });
    await running.waitReady();
  });
  afterAll(async () => {
    await running?.stop();
    await db?.drop();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  /** A tenant with one person, then its `last` call; answers the tenant and its admin's token. */
  async function tenantAfter(last: string): Promise<{ id: number; admin: string }> {
    const created = await call('TenantCreate', { tenantname: `ak${randomUUID().slice(0, 8)}`, tenantorg: 'Kill' });
    expect(created.status, JSON.stringify(created.body)).toBe(200);
    const id = created.body.tenantid as number;
    const admin = created.body.xtoken as string;
    const profile = buildProfile();
    expect((await call('UserCreate', { profile }, admin)).status).toBe(200);
    if (last === 'write') expect((await call('UserUpdate', { mode: 'login', identity: profile.login, profile: { note: randomUUID() } }, admin)).status).toBe(200);
    else expect((await call('UserGet', { mode: 'login', identity: last === 'read' ? profile.login : 'nobody' }, admin)).status).toBe(last === 'read' ? 200 : 404);
    return { id, admin };
  }

  const lastCall = fc.constantFrom('write', 'read', 'failed read');

  /** Cuts the tenant's last event as a database writer would, and expects AuditVerify to report that very cut. */
  async function expectCutReported(id: number, admin: string, context: Record<string, unknown>): Promise<void> {
    const to = await cutOne(id);
    const verdict = await call('AuditVerify', {}, admin);
    expect(verdict.body, JSON.stringify(context)).toMatchObject({ status: 'ok', result: 'broken', broken: { seq: to + 1, why: 'cut' } });
  }

  it('stopped at once (SIGTERM) tells the tokenizer its head first: a cut of the last event is reported (generated)', async () => {
    await fc.assert(
      fc.asyncProperty(lastCall, fc.integer({ min: 0, max: 15 }), async (last, waitMs) => {
        const { id, admin } = await tenantAfter(last);
        await new Promise((r) => setTimeout(r, waitMs));
        await signalApi('SIGTERM');
        await expectCutReported(id, admin, { last, waitMs });
      }),
      { numRuns: 3 },
    );
  });

  it('stopped after its tokenizer restarted leaves the new tokenizer knowing its head: a cut is reported (generated)', async () => {
    // A stranger's finding: the tokenizer killed before its save (or stopped before the api's report came) restarted
    // knowing an older head, dropped the report it could not vouch for, and the api, stopped in order seconds later,
    // took the head with it: the cut went unseen. Reports now carry the head's proof, the api asks the tokenizer what
    // it kept and tells it again, and reports every committed head at its stop.
    const tokenizerStop = fc.oneof(
      fc.record({ signal: fc.constant<NodeJS.Signals>('SIGKILL'), waitMs: fc.integer({ min: 5, max: 50 }) }),
      fc.record({ signal: fc.constant<NodeJS.Signals>('SIGTERM'), waitMs: fc.integer({ min: 0, max: 10 }) }),
    );
    await fc.assert(
      fc.asyncProperty(lastCall, tokenizerStop, fc.boolean(), async (last, { signal, waitMs }, apiStops) => {
        const { id, admin } = await tenantAfter(last);
        await new Promise((r) => setTimeout(r, waitMs));
        await signalChild('tokenizer', signal);
        await new Promise((r) => setTimeout(r, 1000));
        if (apiStops) await signalApi('SIGTERM');
        await expectCutReported(id, admin, { last, signal, waitMs, apiStops });
      }),
      { numRuns: 4 },
    );
  });

  it('killed leaves the tokenizer knowing its head: a cut of the last event is reported (generated)', async () => {
    // 80 to 180 ms: each before the 200 ms the head used to wait for, each well after the 20 ms it waits now.
    await fc.assert(
      fc.asyncProperty(lastCall, fc.integer({ min: 80, max: 180 }), async (last, waitMs) => {
        const { id, admin } = await tenantAfter(last);
        await new Promise((r) => setTimeout(r, waitMs));
        await signalApi('SIGKILL');
        await expectCutReported(id, admin, { last, waitMs });
      }),
      { numRuns: 4 },
    );
  });
});
