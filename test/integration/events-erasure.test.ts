// Erasure fan-out past its deadline: a recipient that never confirms is overdue in ErasureStatusGet, in the metrics,
// and announced once by an `erasure.overdue` event; the outbox's depth and the deliveries' results are measured. A
// delivery failing past its retry window is dead-lettered, visible, and sent again by EventReplay.
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect } from 'vitest';
import { vaultTest } from '../fixtures/vault.js';
import { tenantSchema } from '../../api/store/schemas.js';

const it = vaultTest({
  env: {
    STRONGROOM_EVENTS_ALLOW_ADDRESSES: '127.0.0.1/32',
    STRONGROOM_ERASURE_CONFIRM_SECONDS: '1',
    STRONGROOM_EVENTS_MEASURE_SECONDS: '1',
    STRONGROOM_EVENTS_RETRY_SECONDS: '2',
    STRONGROOM_EVENTS_RETRY_FIRST_MS: '100',
  },
});

/** A metric's value for one tenant on /metrics, or undefined. */
async function metric(url: string, name: string, tenantId: number): Promise<number | undefined> {
  const text = await (await fetch(`${url}/metrics`)).text();
  const line = text.split('\n').find((l) => l.startsWith(`${name}{`) && l.includes(`tenant="${tenantId}"`));
  return line === undefined ? undefined : Number(line.split(' ').at(-1));
}

describe('erasure confirmations past their deadline', () => {
  it('are overdue in the status, counted in the metrics and announced once', async ({ vault }) => {
    const types: string[] = [];
    const server = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        types.push((JSON.parse(Buffer.concat(chunks).toString('utf8')) as { type: string }).type);
        res.writeHead(204).end();
      });
    });
    await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
    try {
      const name = `evo${Math.random().toString(36).slice(2, 8)}`;
      const t = await vault.call('TenantCreate', { tenantname: name, tenantorg: 'x' });
      const tenantId = t.body.tenantid as number;
      const as = { 'x-bunker-token': t.body.xtoken as string, 'x-bunker-tenant': name };
      const sub = await vault.call('EventSubscriptionCreate', { url, types: ['person.erased', 'erasure.overdue'] }, as);
      expect(sub.status).toBe(200);
      const { token } = (await vault.call('UserCreate', { profile: { a: 1 } }, as)).body as { token: string };
      expect((await vault.call('UserDelete', { mode: 'token', identity: token }, as)).status).toBe(200);
      await expect.poll(() => types.filter((x) => x === 'erasure.overdue').length, { timeout: 20_000, interval: 100 }).toBe(1);
      const status = await vault.call('ErasureStatusGet', { token }, as);
      const [erasure] = status.body.erasures as { confirmed: number; total: number; recipients: { overdue: boolean }[] }[];
      expect(erasure).toMatchObject({ confirmed: 0, total: 1 });
      expect(erasure!.recipients[0]!.overdue).toBe(true);
      await expect.poll(() => metric(vault.url, 'strongroom_erasures_overdue', tenantId), { timeout: 10_000 }).toBe(1);
      expect(await metric(vault.url, 'strongroom_erasures_pending_confirmation', tenantId)).toBe(1);
      // Once: a second look finds it announced already.
      await new Promise((r) => setTimeout(r, 2_500));
      expect(types.filter((x) => x === 'erasure.overdue')).toHaveLength(1);
      await expect.poll(() => metric(vault.url, 'strongroom_events_outbox_depth', tenantId), { timeout: 10_000 }).toBe(0);
      // An admin's confirmation clears it.
      const confirmed = await vault.call('ErasureConfirm', { eventid: (await vault.call('ErasureStatusGet', { token }, as)).body.erasures[0].eventid, subscriptionid: sub.body.subscriptionid }, as);
      expect(confirmed.body.confirmed).toEqual([sub.body.subscriptionid]);
      // Told apart from the recipient's own confirmation.
      expect((await vault.call('ErasureStatusGet', { token }, as)).body.erasures[0].recipients[0]).toMatchObject({ via: 'admin', confirmedby: 'tenant-admin' });
      await expect.poll(() => metric(vault.url, 'strongroom_erasures_overdue', tenantId), { timeout: 10_000 }).toBe(0);
      const text = await (await fetch(`${vault.url}/metrics`)).text();
      expect(text).toMatch(/strongroom_events_deliveries_total\{kind="webhook",result="delivered"\} \d+/);
    } finally {
      server.closeAllConnections();
      await new Promise<void>((done) => server.close(() => done()));
    }
  });

  it('dead-letters a delivery failing past its window, shows it, and sends it again on replay', async ({ vault }) => {
    let failing = true;
    const got: string[] = [];
    const server = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        if (failing) return void res.writeHead(503).end();
        got.push((JSON.parse(Buffer.concat(chunks).toString('utf8')) as { id: string }).id);
        res.writeHead(204).end();
      });
    });
    await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
    try {
      const name = `evd${Math.random().toString(36).slice(2, 8)}`;
      const t = await vault.call('TenantCreate', { tenantname: name, tenantorg: 'x' });
      const tenantId = t.body.tenantid as number;
      const as = { 'x-bunker-token': t.body.xtoken as string, 'x-bunker-tenant': name };
      const sub = (await vault.call('EventSubscriptionCreate', { url, types: ['person.created'] }, as)).body.subscriptionid as string;
      await vault.call('UserCreate', { profile: { a: 1 } }, as);
      await expect.poll(async () => (await vault.call('EventDeliveryList', { status: 'dead' }, as)).body.total, { timeout: 20_000, interval: 200 }).toBe(1);
      const [row] = (await vault.call('EventDeliveryList', { status: 'dead' }, as)).body.rows as { eventid: string; attempts: number; httpstatus: number; nexttry: number | null }[];
      expect(row!.attempts).toBeGreaterThan(1);
      expect(row!.httpstatus).toBe(503);
      expect(row!.nexttry).toBeNull();
      await expect.poll(() => metric(vault.url, 'strongroom_events_dead_letters', tenantId), { timeout: 10_000 }).toBe(1);
      failing = false;
      expect((await vault.call('EventReplay', { subscriptionid: sub, fromtime: '1h' }, as)).body).toMatchObject({ status: 'ok', replayed: 1 });
      await expect.poll(() => got, { timeout: 10_000 }).toEqual([row!.eventid]);
      expect((await vault.call('EventDeliveryList', { status: 'dead' }, as)).body.total).toBe(0);
    } finally {
      server.closeAllConnections();
      await new Promise<void>((done) => server.close(() => done()));
    }
  });

  it('sweeps delivered events past their retention, keeping those still pending', async ({ vault }) => {
    const name = `evs${Math.random().toString(36).slice(2, 8)}`;
    const t = await vault.call('TenantCreate', { tenantname: name, tenantorg: 'x' });
    const tenantId = t.body.tenantid as number;
    const as = { 'x-bunker-token': t.body.xtoken as string, 'x-bunker-tenant': name };
    // A paused subscription: its deliveries stay pending, so its events are kept.
    const sub = await vault.call('EventSubscriptionCreate', { url: 'http://127.0.0.1:9/never', types: ['person.created'], active: false }, as);
    expect(sub.status).toBe(200);
    await vault.call('UserCreate', { profile: { a: 1 } }, as);
    await vault.call('TokenCreate', { tokentype: 'text', record: 'x' }, as).then(async (r) => vault.call('TokenGet', { token: r.body.tokenuuid }, as));
    const stores = vault.api.services.db.stores(tenantId);
    await expect.poll(async () => (await stores.privacyEvents.backlog()).events, { timeout: 10_000 }).toBe(0);
    const later = Math.floor(Date.now() / 1000) + 8 * 86_400;
    await vault.api.services.sweeper.sweepOnce(later);
    const left = await vault.api.services.db.orm.em.getConnection().execute(`select type from "${tenantSchema(tenantId)}".privacy_events order by id`);
    // The pending delivery's event stayed; the detokenization (delivered to no one) went.
    expect(left.map((r) => r.type as string)).toEqual(['person.created']);
    expect((await stores.privacyEvents.backlog()).deliveries).toBe(1);
  });
});
