// Rows the vault did not write, in the two tables a tenant's database role may add to (the audit queue and the
// privacy events' outbox), hold back nothing of the vault's own (a stranger's findings, 29 November): an event of a
// time no date has, or whose `fields` is not a list, stalled a subscription's deliveries or the tenant's whole fan-out;
// a queued row of 200 MB stalled the chainer for good (its link call past the tokenizer's largest message) and grew
// the api by a gigabyte; data naming a tenant or a person went out in the signed event as the vault's word.
import * as http from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomUUID } from 'node:crypto';
import { describe, expect } from 'vitest';
import { vaultTest, buildProfile, type TestVault } from '../fixtures/vault.js';
import { usingPostgres } from '../fixtures/database.js';
import { MAX_QUEUED_DETAILS } from '../../api/store/audit.js';

const it = vaultTest({ env: { STRONGROOM_EVENTS_ALLOW_ADDRESSES: '127.0.0.1/32', STRONGROOM_EVENTS_RETRY_FIRST_MS: '100' } });
const sql = (vault: TestVault, text: string, params: unknown[] = []) => vault.api.services.db.global().sql.query<Record<string, any>>(text, params);
const now = () => Math.floor(Date.now() / 1000);

async function tenant(vault: TestVault): Promise<{ id: number; as: Record<string, string> }> {
  const name = `sor${randomUUID().slice(0, 8)}`;
  const t = await vault.call('TenantCreate', { tenantname: name, tenantorg: 'x' });
  expect(t.status).toBe(200);
  return { id: t.body.tenantid as number, as: { 'x-bunker-token': t.body.xtoken as string, 'x-bunker-tenant': name } };
}

/** A webhook that keeps every event it is sent. */
async function receiver(): Promise<{ url: string; got: Record<string, any>[]; close: () => void }> {
  const got: Record<string, any>[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      got.push(JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, any>);
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`, got, close: () => server.close() };
}

describe('rows put into the outbox by other hands', () => {
  it('never hold back the vault\'s own events, nor speak for another tenant or person', async ({ vault }) => {
    const t = await tenant(vault);
    const hook = await receiver();
    try {
      expect((await vault.call('EventSubscriptionCreate', { url: hook.url, types: ['person.updated', 'person.erased'], fields: ['name'] }, t.as)).status).toBe(200);
      const { token } = (await vault.call('UserCreate', { profile: buildProfile() }, t.as)).body as { token: string };
      const ms = Date.now();
      const put = (type: string, time: number, person: string | null, data: string) =>
        sql(vault, `insert into tenant_${t.id}.privacy_events (uuid, type, "time", person, data) values ($1, $2, $3, $4, $5::jsonb) returning id`, [randomUUID(), type, time, person, data]);
      // First in the person's line: a time past any date, then a `fields` that is not a list, then data of every shape.
      const [timeless] = await put('person.erased', 9_000_000_000_000_000, token, '{}');
      // A time a date has, but far ahead (year 10000): no receiver takes it, and its retries would never end.
      const [ahead] = await put('person.updated', 253_402_300_800_000, token, '{"fields": ["name"]}');
      // Data of a size no event of the vault's has (receivers refuse it: NATS past 1 MiB).
      const [bulky] = await put('person.updated', ms, token, JSON.stringify({ fields: ['name'], padding: 'x'.repeat(2 * 1024 * 1024) }));
      await put('person.updated', ms, token, '{"fields": "name"}');
      for (const data of ['null', '"abc"', '[1, 2]', '{"fields": {"name": 1}}']) await put('person.updated', ms, null, data);
      await put('person.updated', ms, null, '{"tenant": 999, "person": "someone-else", "fields": ["name"]}');
      await put('person.updated', ms, null, '{"__proto__": {"tenant": 999}, "constructor": {"prototype": {"tenant": 999}}, "fields": ["name"]}');
      // The vault's own, after them.
      expect((await vault.call('UserUpdate', { mode: 'token', identity: token, profile: { name: 'Changed' } }, t.as)).status).toBe(200);
      expect((await vault.call('UserDelete', { mode: 'token', identity: token }, t.as)).status).toBe(200);
      const own = (type: string) => hook.got.find((e) => e.type === type && e.subject === token && e.data.fields?.[0] !== undefined === (type === 'person.updated'));
      await expect.poll(() => own('person.updated') && own('person.erased') && true, { timeout: 20_000, interval: 100 }).toBe(true);
      expect(own('person.updated')!.data).toMatchObject({ tenant: t.id, person: token, fields: ['name'] });
      // Whatever a row's data says, the event speaks for its own tenant, and names a person only by its column.
      for (const e of hook.got) {
        expect(e.data.tenant).toBe(t.id);
        expect(e.data.person).toBe(e.subject);
        expect(Object.keys(e.data)).not.toContain('__proto__');
        expect(Object.keys(e.data)).not.toContain('constructor');
        expect(Number.isNaN(Date.parse(e.time))).toBe(false);
        expect(Date.parse(e.time)).toBeLessThan(Date.now() + 3_600_000);
      }
      expect(hook.got.some((e) => e.data.fields?.[0] === 'name' && e.subject === undefined)).toBe(true);
      // The event no message can carry is dead-lettered, not retried for ever.
      for (const row of [timeless, ahead, bulky]) {
        await expect.poll(async () => (await sql(vault, `select status from tenant_${t.id}.event_deliveries where event = $1`, [row!.id]))[0]?.status, { timeout: 10_000 }).toBe('dead');
      }
    } finally {
      hook.close();
    }
  });
});

describe('rows put into the audit queue by other hands', () => {
  /** The sweeper's drain, until the queue is empty. */
  async function drained(vault: TestVault, id: number): Promise<void> {
    await expect
      .poll(async () => {
        await vault.api.services.audit.drainIfQueued(id);
        return Number((await sql(vault, `select count(*)::int as n from tenant_${id}.audit_queue`))[0]!.n);
      }, { timeout: 60_000, interval: 200 })
      .toBe(0);
  }

  it('are refused unread when larger than any event, read a bounded batch at a time, and the trail goes on', async ({ vault }) => {
    const t = await tenant(vault);
    const { token } = (await vault.call('UserCreate', { profile: buildProfile() }, t.as)).body as { token: string };
    const queue = (uuid: string, bytes: number) =>
      sql(vault, `insert into tenant_${t.id}.audit_queue (uuid, "when", title, status, actor, details) values ($1, $2, 'UserGet', 'ok', 'root', convert_to(repeat('A', $3), 'UTF8'))`, [uuid, now(), bytes]);
    // Three rows of 7 MiB, each its own batch past the first (16 MiB of details a batch), refused for their MAC.
    const big = [randomUUID(), randomUUID(), randomUUID()];
    for (const uuid of big) await queue(uuid, 7 * 1024 * 1024);
    // Larger than any event of the vault (and than the tokenizer takes): the embedded database holds it in the
    // test's own memory, so it is queued on PostgreSQL only.
    const huge = randomUUID();
    if (usingPostgres()) await queue(huge, MAX_QUEUED_DETAILS + 1);
    // Clear columns no event of the vault's has: a message of 48 MiB of a character JSON escapes six times over (a
    // stranger's), and a MAC of 1 MiB. Each stalled the chainer, answering the tenant's every call 503.
    const [wordy, macky] = [randomUUID(), randomUUID()];
    await sql(vault, `insert into tenant_${t.id}.audit_queue (uuid, "when", title, status, actor, msg) values ($1, $2, 'UserGet', 'ok', 'root', repeat(chr(1), $3))`, [wordy, now(), 48 * 1024 * 1024]);
    await sql(vault, `insert into tenant_${t.id}.audit_queue (uuid, "when", title, status, actor, mac) values ($1, $2, 'UserGet', 'ok', 'root', convert_to(repeat('m', $3), 'UTF8'))`, [macky, now(), 1024 * 1024]);
    expect((await vault.call('UserUpdate', { mode: 'token', identity: token, profile: { note: 'after them' } }, t.as)).status).toBe(200);
    await drained(vault, t.id);
    const refused = (await sql(vault, `select uuid from tenant_${t.id}.audit_refused`)).map((r) => r.uuid as string);
    expect(refused.sort()).toEqual([...big, wordy, macky, ...(usingPostgres() ? [huge] : [])].sort());
    const events = await vault.call('AuditListUserEvents', { mode: 'token', identity: token }, t.as);
    expect(events.status).toBe(200);
    expect((events.body.rows as { title: string }[]).map((r) => r.title)).toContain('UserUpdate');
    expect((await vault.call('AuditVerify', {}, t.as)).body).toMatchObject({ status: 'ok', result: 'intact' });
  });
});
