// Privacy events across three replicas on one PostgreSQL database: one dispatcher per tenant at a time (the tenant's
// lease), and when the replica holding it is killed mid-delivery under write load, another takes over: every event
// that committed reaches the receiver, none of a write that did not. PostgreSQL only: the embedded database belongs
// to one process.
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { usingPostgres } from '../fixtures/database.js';
import { startReplicas, type Replica, type ReplicaSet } from '../fixtures/replicas.js';
import { tenantSchema } from '../../api/store/schemas.js';

let set: ReplicaSet;
let replicas: Replica[];

/** The api process holding the tenant's dispatcher lease (its pid, from the lease connection's name), if any. */
async function leaseHolders(tenantId: number): Promise<number[]> {
  const rows = await set.sql<{ name: string }>(
    `select a.application_name as name from pg_locks l join pg_stat_activity a on a.pid = l.pid
      where l.locktype = 'advisory' and l.granted and l.database = (select oid from pg_database where datname = current_database()) and l.objid = ((hashtext($1)::bigint) & 4294967295)::bigint::oid
        and a.application_name like 'strongroom-leases-%'`,
    [`strongroom:events:${tenantId}`],
  );
  return rows.map((r) => Number(r.name.replace('strongroom-leases-', '')));
}

describe.skipIf(!usingPostgres())('privacy events on three replicas (PostgreSQL only: the embedded database belongs to one process)', () => {
  beforeAll(async () => {
    set = await startReplicas(3, { env: { STRONGROOM_EVENTS_ALLOW_ADDRESSES: '127.0.0.1/32', STRONGROOM_EVENTS_RETRY_FIRST_MS: '100' } });
    replicas = set.replicas;
  }, 180_000);
  afterAll(async () => {
    await set?.stop();
  }, 60_000);

  it('deliver every committed event after the delivering replica is killed mid-load, from one dispatcher at a time', async () => {
    const received = new Map<string, number>();
    let slow = true;
    const server = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const id = (JSON.parse(Buffer.concat(chunks).toString('utf8')) as { id: string }).id;
        // Slow answers at first: deliveries are in flight when the dispatcher's replica dies.
        setTimeout(() => {
          received.set(id, (received.get(id) ?? 0) + 1);
          res.writeHead(204).end();
        }, slow ? 30 : 0);
      });
    });
    await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
    try {
      const name = `evr${Math.random().toString(36).slice(2, 8)}`;
      const t = await replicas[0]!.call('TenantCreate', { tenantname: name, tenantorg: 'x' });
      const tenantId = t.body.tenantid as number;
      const as = { 'x-bunker-token': t.body.xtoken as string, 'x-bunker-tenant': name };
      const sub = await replicas[0]!.call('EventSubscriptionCreate', { url, types: ['person.created', 'person.updated'] }, as);
      expect(sub.status, JSON.stringify(sub.body)).toBe(200);

      // Write load through every replica.
      let stop = false;
      let acked = 0;
      let next = 0;
      const worker = async () => {
        while (!stop) {
          const r = replicas[next++ % replicas.length]!;
          await r.call('UserCreate', { profile: { n: next } }, as).then((res) => (res.status === 200 ? acked++ : 0)).catch(() => undefined);
        }
      };
      const load = Promise.all(Array.from({ length: 6 }, worker));
      await expect.poll(() => received.size, { timeout: 30_000, interval: 50 }).toBeGreaterThan(20);
      const holders = await leaseHolders(tenantId);
      expect(holders, 'one dispatcher holds the tenant').toHaveLength(1);
      const victim = replicas.find((r) => r.api.pid === holders[0]);
      expect(victim, 'the lease holder is one of the replicas').toBeDefined();
      const ackedAtKill = acked;
      await victim!.kill();
      // The survivors keep taking writes (and the new dispatcher delivering them) for a while.
      await expect.poll(() => acked, { timeout: 60_000, interval: 50 }).toBeGreaterThan(ackedAtKill + 150);
      stop = true;
      await load;
      slow = false;

      // Another replica took the tenant over.
      await expect.poll(() => leaseHolders(tenantId), { timeout: 30_000, interval: 200 }).toHaveLength(1);
      const [taker] = await leaseHolders(tenantId);
      expect(taker).not.toBe(victim!.api.pid);

      const committed = (await set.sql<{ uuid: string }>(`select uuid from "${tenantSchema(tenantId)}".privacy_events where type = 'person.created'`)).map((r) => r.uuid);
      expect(committed.length).toBeGreaterThanOrEqual(acked);
      await expect.poll(() => committed.filter((id) => !received.has(id)).length, { timeout: 60_000, interval: 200 }).toBe(0);
      // Nothing that did not commit; a duplicate only of a delivery whose acknowledgement the victim never recorded.
      const unknown = [...received.keys()].filter((id) => !committed.includes(id));
      expect(unknown).toEqual([]);
      const twice = [...received.values()].filter((n) => n > 1).length;
      expect(twice).toBeLessThanOrEqual(1_000);
      const pending = await set.sql<{ n: number }>(`select count(*)::int as n from "${tenantSchema(tenantId)}".event_deliveries where status <> 'delivered'`);
      expect(pending[0]!.n).toBe(0);
    } finally {
      server.closeAllConnections();
      await new Promise<void>((done) => server.close(() => done()));
    }
  }, 180_000);
});
