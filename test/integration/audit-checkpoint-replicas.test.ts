// Two api processes on one PostgreSQL database, sharing one checkpoint directory: a tenant's head is signed by one
// of them at a time and once, whichever replicas see it move, on their timers and by event count; and the count is
// the database's (events through both replicas add up), not either process's. PostgreSQL only, like replicas.test.ts.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { usingPostgres } from '../fixtures/database.js';
import { startReplicas, type Replica, type ReplicaSet } from '../fixtures/replicas.js';
import { buildProfile } from '../fixtures/vault.js';
import { parseCheckpoint, type CheckpointLine } from '../../proto/audit-checkpoint.js';

/** Every checkpoint line a replica logged. */
const loggedBy = (r: Replica): CheckpointLine[] =>
  r.output().split('\n').filter((l) => l.includes('"msg":"audit checkpoint"')).map(parseCheckpoint).filter((c): c is CheckpointLine => c !== null);

const inDir = (dir: string, tenant: number): CheckpointLine[] => {
  try {
    return readFileSync(join(dir, `tenant-${tenant}.jsonl`), 'utf8').split('\n').map(parseCheckpoint).filter((c): c is CheckpointLine => c !== null);
  } catch {
    return [];
  }
};

/** The sequence numbers signed more than once. */
const repeated = (lines: CheckpointLine[]) => {
  const seen = new Map<number, number>();
  for (const c of lines) seen.set(c.seq, (seen.get(c.seq) ?? 0) + 1);
  return [...seen].filter(([, n]) => n > 1).map(([seq]) => seq);
};

async function tenantThrough(via: Replica) {
  const created = await via.call('TenantCreate', { tenantname: `rep${randomUUID().slice(0, 8)}`, tenantorg: 'Replicas' });
  expect(created.status, JSON.stringify(created.body)).toBe(200);
  return { id: created.body.tenantid as number, admin: { 'x-bunker-token': created.body.xtoken as string } };
}

const head = async (set: ReplicaSet, id: number) => Number((await set.sql(`select seq from tenant_${id}.audit_head`))[0]!.seq);
const mark = async (set: ReplicaSet, id: number) => Number((await set.sql(`select seq from tenant_${id}.audit_checkpointed`))[0]!.seq);

/** Two replicas on a fresh database sharing `dir`, with these checkpoint settings. */
function replicas(dir: string, seconds: number, events: number): { set: () => ReplicaSet } {
  let set: ReplicaSet | undefined;
  beforeAll(async () => {
    set = await startReplicas(2, {
      env: { STRONGROOM_AUDIT_CHECKPOINT_SECONDS: String(seconds), STRONGROOM_AUDIT_CHECKPOINT_EVENTS: String(events), STRONGROOM_AUDIT_CHECKPOINT_DIR: dir, STRONGROOM_AUDIT_VERIFY_SECONDS: '0' },
    });
  }, 180_000);
  afterAll(async () => {
    await set?.stop();
    rmSync(dir, { recursive: true, force: true });
  }, 60_000);
  return { set: () => set! };
}

/** `total` calls through both replicas, six at a time, alternating replicas, writes and reads (reads' events are batched). */
async function load(set: ReplicaSet, admin: Record<string, string>, total: number): Promise<void> {
  const [a, b] = set.replicas as [Replica, Replica];
  let next = 0;
  const worker = async () => {
    for (let i = next++; i < total; i = next++) {
      const via = i % 2 ? a : b;
      const res = i % 3 ? await via.call('UserCreate', { profile: buildProfile() }, admin) : await via.call('UserGet', { mode: 'login', identity: 'nobody' }, admin);
      expect([200, 404]).toContain(res.status);
    }
  };
  await Promise.all(Array.from({ length: 6 }, worker));
}

/** Checks that no head was signed twice, in the two logs together and in the shared directory, and returns them. */
function signedOnce(set: ReplicaSet, dir: string, tenant: number) {
  const logged = set.replicas.flatMap(loggedBy).filter((c) => c.tenant === tenant);
  const written = inDir(dir, tenant);
  expect(repeated(logged), 'sequence numbers signed twice in the logs').toEqual([]);
  expect(repeated(written), 'sequence numbers written twice to the directory').toEqual([]);
  expect(written.map((c) => c.seq).sort((x, y) => x - y)).toEqual(logged.map((c) => c.seq).sort((x, y) => x - y));
  return { logged, written };
}

describe.skipIf(!usingPostgres())('audit checkpoints of two replicas on one database, on their timers (PostgreSQL only: the embedded database belongs to one process)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'sr-rep-ckpt-'));
  const { set } = replicas(dir, 1, 0);

  it('sign each head once, in the log and in the directory, under load and while the head stays put', async () => {
    const t = await tenantThrough(set().replicas[0]!);
    await load(set(), t.admin, 240);
    // Both timers tick on the last head: it is checkpointed, by one of them, once.
    const last = await head(set(), t.id);
    await vi.waitFor(async () => expect(await mark(set(), t.id)).toBe(last), { timeout: 20_000, interval: 250 });
    // Not a guess at how long anything takes: three more ticks of each replica on an unchanged head, none of which
    // may sign it again (a pass that signs a second time is caught whenever it happens).
    await new Promise((r) => setTimeout(r, 3_000));
    const { logged, written } = signedOnce(set(), dir, t.id);
    // Load spans several ticks: more than one checkpoint, the last one at the last head.
    expect(logged.length).toBeGreaterThan(1);
    expect(Math.max(...written.map((c) => c.seq))).toBe(last);
    // The election is per tenant, not per process: both replicas signed some checkpoints of some tenant.
    expect(set().replicas.map((r) => loggedBy(r).length).every((n) => n > 0)).toBe(true);
  });
});

describe.skipIf(!usingPostgres())('audit checkpoints of two replicas on one database, by event count (PostgreSQL only: the embedded database belongs to one process)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'sr-rep-ckpt-'));
  const EVERY = 10;
  const { set } = replicas(dir, 0, EVERY);

  it('checkpoint once the events of both replicas together reach the count, as the database counts them', async () => {
    const [a, b] = set().replicas as [Replica, Replica];
    const t = await tenantThrough(b);
    const start = await mark(set(), t.id);
    const first = await head(set(), t.id);
    // Alternating: when the head is EVERY past the mark, each replica has appended about half of the events.
    let n = 0;
    while ((await head(set(), t.id)) - start < EVERY) {
      const res = await (n++ % 2 ? a : b).call('UserGet', { mode: 'login', identity: 'nobody' }, t.admin);
      expect(res.status).toBe(404);
    }
    expect(n).toBeLessThanOrEqual(EVERY);
    await vi.waitFor(async () => expect(await mark(set(), t.id)).toBeGreaterThanOrEqual(start + EVERY), { timeout: 10_000, interval: 100 });
    expect(first - start).toBeLessThan(EVERY);
  });

  it('sign each head once when both replicas find the count reached at the same time', async () => {
    const t = await tenantThrough(set().replicas[0]!);
    await load(set(), t.admin, 240);
    // A look set off by an event counted before its commit may find the head just before it; a read's event is
    // counted after its commit. One read last: its look sees every event.
    expect((await set().replicas[1]!.call('UserGet', { mode: 'login', identity: 'nobody' }, t.admin)).status).toBe(404);
    const last = await head(set(), t.id);
    await vi.waitFor(async () => expect(await mark(set(), t.id)).toBeGreaterThan(last - EVERY), { timeout: 10_000, interval: 100 });
    const { written } = signedOnce(set(), dir, t.id);
    expect(written.length).toBeGreaterThan(5);
    // Never more often than the count: consecutive checkpoints at least EVERY events apart.
    const seqs = written.map((c) => c.seq).sort((x, y) => x - y);
    for (let i = 1; i < seqs.length; i++) expect(seqs[i]! - seqs[i - 1]!).toBeGreaterThanOrEqual(EVERY);
  });
});
