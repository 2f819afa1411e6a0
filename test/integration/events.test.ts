// Privacy events end to end: writes publish CloudEvents through the outbox, the dispatcher delivers them signed to a
// real webhook receiver (checked with the standardwebhooks library) and to the machine's NATS JetStream, retries a
// failing receiver without duplicates or reordering, never sends a personal value, and tracks erasure confirmations.
import * as http from 'node:http';
import { createConnection, type AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect } from 'vitest';
import { Webhook } from 'standardwebhooks';
import { connect } from '@nats-io/transport-node';
import { jetstreamManager } from '@nats-io/jetstream';
import { vaultTest, type TestVault as Vault } from '../fixtures/vault.js';

const it = vaultTest({
  env: {
    STRONGROOM_EVENTS_ALLOW_ADDRESSES: '127.0.0.1/32',
    STRONGROOM_EVENTS_RETRY_FIRST_MS: '50',
    // A silent receiver's requests stay open through a whole test on a loaded machine (the head-of-line test).
    STRONGROOM_EVENTS_TIMEOUT_MS: '120000',
    STRONGROOM_NATS_URL: 'nats://127.0.0.1:4222',
  },
});

interface Delivery {
  headers: http.IncomingHttpHeaders;
  body: string;
  event: { id: string; type: string; subject?: string; sequence: string; data: Record<string, unknown> };
}

/** A webhook receiver on 127.0.0.1: verifies every delivery with `secret()`, answers as `answer` says. */
async function receiver(answer: (d: Delivery) => { status: number; body?: string } = () => ({ status: 204 })) {
  const got: Delivery[] = [];
  const bad: string[] = [];
  let secret = '';
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      try {
        new Webhook(secret).verify(body, req.headers as Record<string, string>);
      } catch (err) {
        bad.push((err as Error).message);
      }
      const d = { headers: req.headers, body, event: JSON.parse(body) as Delivery['event'] };
      const a = answer(d);
      if (a.status < 300) got.push(d);
      res.writeHead(a.status, { 'content-type': 'application/json' }).end(a.body ?? '');
    });
  });
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  return {
    got,
    bad,
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/events`,
    useSecret: (s: string) => (secret = s),
    close: () => new Promise<void>((done) => (server.closeAllConnections(), server.close(() => done()))),
  };
}

async function until<T>(what: () => T | Promise<T>, ok: (v: T) => boolean, ms = 20_000): Promise<T> {
  const end = Date.now() + ms;
  for (;;) {
    const v = await what();
    if (ok(v) || Date.now() > end) return v;
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** A tenant of its own, with its admin token: each test's events are its own. */
async function tenant(vault: Vault) {
  const name = `ev${Math.random().toString(36).slice(2, 10)}`;
  const r = await vault.call('TenantCreate', { tenantname: name, tenantorg: 'Events' });
  const headers = { 'x-bunker-token': r.body.xtoken as string, 'x-bunker-tenant': name };
  return { name, id: r.body.tenantid as number, call: (op: string, body: Record<string, unknown> = {}) => vault.call(op, body, headers) };
}

async function subscribe(t: Awaited<ReturnType<typeof tenant>>, hook: Awaited<ReturnType<typeof receiver>>, extra: Record<string, unknown> = {}) {
  const r = await t.call('EventSubscriptionCreate', { url: hook.url, types: ['person.created', 'person.updated', 'person.erased', 'consent.accepted', 'consent.withdrawn', 'appdata.updated', 'request.created', 'request.approved', 'request.rejected', 'token.detokenized'], ...extra });
  expect(r.body.status).toBe('ok');
  expect(r.body.secret).toMatch(/^whsec_/);
  hook.useSecret(r.body.secret as string);
  return r.body.subscriptionid as string;
}

describe('privacy events', () => {
  it('delivers each write as a signed CloudEvent, in order per person, with field names and no values', async ({ vault }) => {
    const t = await tenant(vault);
    const hook = await receiver();
    await subscribe(t, hook);
    const { token } = (await t.call('UserCreate', { profile: { email: 'ev1@example.com', name: 'Ada' } })).body as { token: string };
    await t.call('UserUpdate', { mode: 'token', identity: token, profile: { name: 'Ada King', address: { city: 'London' } } });
    await t.call('LegalBasisCreate', { brief: 'news', status: 'active', module: 'x', fulldesc: 'x', shortdesc: 'x' });
    await t.call('AgreementAccept', { mode: 'token', identity: token, brief: 'news' });
    await t.call('AgreementCancel', { mode: 'token', identity: token, brief: 'news' });
    await t.call('AppdataCreate', { mode: 'token', identity: token, appname: 'shop', appdata: { cart: 1 } });
    await t.call('UserDelete', { mode: 'token', identity: token });
    await until(() => hook.got.length, (n) => n >= 6);
    expect(hook.bad).toEqual([]);
    const types = hook.got.map((d) => d.event.type);
    expect(types).toEqual(['person.created', 'person.updated', 'consent.accepted', 'consent.withdrawn', 'appdata.updated', 'person.erased']);
    const updated = hook.got[1]!.event;
    expect(updated.subject).toBe(token);
    expect(updated.data).toMatchObject({ tenant: t.id, person: token, fields: ['address.city', 'name'] });
    expect(hook.got.every((d) => d.headers['webhook-id'] === d.event.id)).toBe(true);
    // Sequences rise: the outbox order.
    const seqs = hook.got.map((d) => Number(d.event.sequence));
    expect([...seqs].sort((a, b) => a - b)).toEqual(seqs);
    const listed = await t.call('EventDeliveryList', { status: 'delivered', limit: 100 });
    expect(listed.body.total).toBe(hook.got.length);
    await hook.close();
  });

  it('retries a failing receiver: each event acknowledged exactly once, one person\'s in order', async ({ vault }) => {
    const t = await tenant(vault);
    let failures = 0;
    const hook = await receiver(() => (failures++ < 4 ? { status: 500 } : { status: 200 }));
    await subscribe(t, hook, { types: ['person.created', 'person.updated'] });
    const { token } = (await t.call('UserCreate', { profile: { n: 0 } })).body as { token: string };
    for (let i = 1; i <= 5; i++) await t.call('UserUpdate', { mode: 'token', identity: token, profile: { n: i } });
    const others = await Promise.all([1, 2, 3].map(async (i) => (await t.call('UserCreate', { profile: { other: i } })).body.token as string));
    await until(() => hook.got.length, (n) => n >= 9);
    await new Promise((r) => setTimeout(r, 300));
    const ids = hook.got.map((d) => d.event.id);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids.length).toBe(9);
    const mine = hook.got.filter((d) => d.event.subject === token).map((d) => Number(d.event.sequence));
    expect(mine).toEqual([...mine].sort((a, b) => a - b));
    expect(mine.length).toBe(6);
    expect(others.every((o) => hook.got.some((d) => d.event.subject === o))).toBe(true);
    const failed = await t.call('EventDeliveryList', { limit: 100 });
    expect((failed.body.rows as { attempts: number }[]).some((r) => r.attempts > 1)).toBe(true);
    await hook.close();
  });

  it('dead-letters nothing that a receiver later takes, and EventReplay sends events again', async ({ vault }) => {
    const t = await tenant(vault);
    const hook = await receiver();
    const sub = await subscribe(t, hook, { types: ['person.created'] });
    await t.call('UserCreate', { profile: { a: 1 } });
    await t.call('UserCreate', { profile: { a: 2 } });
    await until(() => hook.got.length, (n) => n >= 2);
    const first = hook.got[0]!.event.id;
    const r = await t.call('EventReplay', { subscriptionid: sub, fromeventid: first });
    expect(r.body).toMatchObject({ status: 'ok', replayed: 2, next: null });
    await until(() => hook.got.length, (n) => n >= 4);
    expect(hook.got.map((d) => d.event.id)).toEqual([first, hook.got[1]!.event.id, first, hook.got[1]!.event.id]);
    await hook.close();
  });

  it('sends again an event replayed while its delivery was under way', async ({ vault }) => {
    const t = await tenant(vault);
    // The first delivery is held unanswered until the replay has committed: its late 2xx must not swallow the replay.
    const ids: string[] = [];
    let release: () => void = () => {};
    const held = new Promise<void>((done) => (release = done));
    const server = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        ids.push((JSON.parse(Buffer.concat(chunks).toString('utf8')) as { id: string }).id);
        const answer = () => res.writeHead(204).end();
        if (ids.length === 1) void held.then(answer);
        else answer();
      });
    });
    await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
    try {
      const sub = await t.call('EventSubscriptionCreate', { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`, types: ['person.created'] });
      expect(sub.status).toBe(200);
      await t.call('UserCreate', { profile: { a: 1 } });
      await until(() => ids.length, (n) => n >= 1);
      const r = await t.call('EventReplay', { subscriptionid: sub.body.subscriptionid, fromeventid: ids[0] });
      expect(r.body).toMatchObject({ status: 'ok', replayed: 1 });
      release();
      await until(() => ids.length, (n) => n >= 2);
      expect(ids).toEqual([ids[0], ids[0]]);
      await expect.poll(async () => (await t.call('EventDeliveryList', { status: 'pending' })).body.total, { timeout: 20_000, interval: 100 }).toBe(0);
      expect((await t.call('EventDeliveryList', { status: 'delivered' })).body.total).toBe(1);
    } finally {
      release();
      await new Promise<void>((done) => (server.closeAllConnections(), server.close(() => done())));
    }
  });

  it('sends no personal value: canaries through every kind of write reach no body or header', async ({ vault }) => {
    const t = await tenant(vault);
    const hook = await receiver();
    await subscribe(t, hook, { types: ['person.created', 'person.updated', 'person.erased', 'consent.accepted', 'consent.withdrawn', 'appdata.updated', 'request.created', 'request.approved', 'request.rejected', 'token.detokenized'] });
    const canary = (k: string) => `CANARY${k}${Math.random().toString(36).slice(2, 8)}`;
    const c = { email: `${canary('mail').toLowerCase()}@example.com`, phone: '+447700900123', login: canary('login').toLowerCase(), name: canary('name'), app: canary('app'), meta: canary('meta'), token: canary('tok'), patch: canary('patch'), file: canary('file'), reason: canary('reason'), method: canary('method') };
    const ok = async (op: string, body: Record<string, unknown>) => {
      const r = await t.call(op, body);
      expect(r.status, `${op} ${JSON.stringify(r.body)}`).toBe(200);
      return r.body;
    };
    const { token } = (await ok('UserCreate', { profile: { email: c.email, phone: c.phone, login: c.login, name: c.name }, request_metadata: { m: c.meta } })) as { token: string };
    await ok('UserUpdate', { mode: 'email', identity: c.email, profile: { name: `${c.name}2`, nested: { secret: c.name } } });
    await ok('UserPatch', { mode: 'token', identity: token, patch: [{ op: 'add', path: '/extra', value: c.patch }] });
    await ok('AppdataCreate', { mode: 'token', identity: token, appname: 'shop', appdata: { v: c.app } });
    await ok('AppdataUpdate', { mode: 'token', identity: token, appname: 'shop', appdata: { w: c.app } });
    await ok('LegalBasisCreate', { brief: 'mail', status: 'active', module: 'x', fulldesc: 'x', shortdesc: 'x' });
    await ok('AgreementAccept', { mode: 'phone', identity: c.phone, brief: 'mail', agreementmethod: c.method, referencecode: c.reason });
    const tok = (await ok('TokenCreate', { record: c.token, tokentype: 'text' })) as { tokenuuid: string };
    await ok('TokenGet', { token: tok.tokenuuid });
    await ok('FileCreate', { mode: 'token', identity: token, filename: 'a.txt', filedata: Buffer.from(c.file).toString('base64'), mimetype: 'text/plain' });
    const req = (await ok('UserUpdateRequest', { mode: 'login', identity: c.login, profile: { name: `${c.name}3` } })) as { requestuuid: string };
    await ok('UserRequestApprove', { requestuuid: req.requestuuid, reason: c.reason });
    const del = (await ok('UserDeleteRequest', { mode: 'token', identity: token })) as { requestuuid: string };
    await ok('UserRequestApprove', { requestuuid: del.requestuuid });
    await until(() => hook.got.map((d) => d.event.type), (types) => types.includes('person.erased'));
    const seen = hook.got.map((d) => d.body + JSON.stringify(d.headers)).join('\n');
    for (const value of Object.values(c)) expect(seen).not.toContain(value);
    expect(seen.toLowerCase()).not.toContain('canary');
    expect(new Set(hook.got.map((d) => d.event.type))).toEqual(new Set(['person.created', 'person.updated', 'appdata.updated', 'consent.accepted', 'token.detokenized', 'request.created', 'request.approved', 'person.erased']));
    await hook.close();
  });

  it('tracks erasure confirmations: one recipient confirms by its answer, another by its role, a third stays pending', async ({ vault }) => {
    const t = await tenant(vault);
    const a = await receiver((d) => ({ status: 200, body: d.event.type === 'person.erased' ? '{"erased": true}' : '' }));
    const b = await receiver();
    const c = await receiver();
    const role = `confirm${t.name}`;
    await vault.call('RoleCreate', { rolename: role });
    const subA = await subscribe(t, a, { types: ['person.erased'], description: 'CRM' });
    const subB = (await t.call('EventSubscriptionCreate', { url: b.url, types: ['person.erased'], description: 'Warehouse', confirmrole: role })).body.subscriptionid as string;
    b.useSecret('');
    const subC = (await t.call('EventSubscriptionCreate', { url: c.url, types: ['person.erased'], description: 'Mailer' })).body.subscriptionid as string;
    const { token } = (await t.call('UserCreate', { profile: { email: 'gone@example.com' } })).body as { token: string };
    const req = (await t.call('UserDeleteRequest', { mode: 'token', identity: token })).body as { requestuuid: string };
    await t.call('UserRequestApprove', { requestuuid: req.requestuuid });
    await until(() => b.got.length + a.got.length, (n) => n >= 2);
    const eventid = b.got[0]!.event.id;
    // The warehouse confirms with an xtoken of its confirmation role.
    const policy = await vault.call('PolicyCreate', { policyname: `p${role}`, policy: { Statement: [{ Effect: 'Allow', Principal: { Role: role }, Action: ['ErasureConfirm'], Resource: '*' }] } });
    await vault.call('RoleLinkPolicy', { rolename: role, policyname: `p${role}` });
    expect(policy.body.status).toBe('ok');
    const x = await t.call('XTokenCreateForRole', { rolename: role });
    const confirmer = { 'x-bunker-token': x.body.xtoken as string, 'x-bunker-tenant': t.name };
    const confirmed = await vault.call('ErasureConfirm', { eventid }, confirmer);
    expect(confirmed.body).toMatchObject({ status: 'ok', confirmed: [subB] });
    // The same role cannot confirm for the mailer, nor read anything else.
    expect((await vault.call('ErasureConfirm', { eventid, subscriptionid: subC }, confirmer)).status).toBe(403);
    expect((await vault.call('UserGet', { mode: 'token', identity: token }, confirmer)).status).toBe(403);
    const status = await until(
      () => t.call('ErasureStatusGet', { requestuuid: req.requestuuid }),
      (r) => (r.body.erasures as { confirmed: number }[] | undefined)?.[0]?.confirmed === 2,
    );
    const erasure = (status.body.erasures as Record<string, unknown>[])[0]!;
    expect(erasure).toMatchObject({ eventid, token, requestuuid: req.requestuuid, confirmed: 2, total: 3 });
    const recipients = erasure.recipients as { subscriptionid: string; confirmed: boolean; via: string | null }[];
    expect(recipients.find((r) => r.subscriptionid === subA)).toMatchObject({ confirmed: true, via: 'webhook', confirmedby: `webhook ${subA}` });
    expect(recipients.find((r) => r.subscriptionid === subB)).toMatchObject({ confirmed: true, via: 'api', confirmedby: `role ${role}` });
    expect(recipients.find((r) => r.subscriptionid === subC)).toMatchObject({ confirmed: false, via: null, confirmedby: null });
    // The person's receipt: counts only, with their token and the request's uuid together.
    const receipt = await vault.call('ErasureReceiptGet', { token, requestuuid: req.requestuuid }, { 'x-bunker-tenant': t.name });
    expect(receipt.body).toMatchObject({ status: 'ok', confirmed: 2, total: 3 });
    expect(JSON.stringify(receipt.body)).not.toContain('Warehouse');
    expect((await vault.call('ErasureReceiptGet', { token: crypto.randomUUID(), requestuuid: req.requestuuid }, { 'x-bunker-tenant': t.name })).status).toBe(404);
    for (const h of [a, b, c]) await h.close();
  });

  it('refuses webhook targets that reach loopback, private, link-local or metadata addresses', async ({ vault }) => {
    const t = await tenant(vault);
    for (const url of ['http://169.254.169.254/latest/meta-data', 'http://10.0.0.1/', 'http://[::1]:8080/', 'http://127.0.0.2/', 'ftp://example.com/', 'http://user:pw@127.0.0.1/']) {
      const r = await t.call('EventSubscriptionCreate', { url, types: ['person.created'] });
      expect(r.status, url).toBe(400);
      expect(r.body.message, url).toMatch(/url/);
    }
  });

  it('keeps the signing secret to the creator, rotates it with an overlap, and bounds what a tenant may ask', async ({ vault }) => {
    const t = await tenant(vault);
    const hook = await receiver();
    const sub = await subscribe(t, hook, { types: ['person.created'] });
    const listed = await t.call('EventSubscriptionList');
    expect(JSON.stringify(listed.body)).not.toContain('whsec_');
    const rotated = await t.call('EventSubscriptionUpdate', { subscriptionid: sub, rotatesecret: true, overlap: '1h' });
    expect(rotated.body.secret).toMatch(/^whsec_/);
    const old = hook.useSecret(rotated.body.secret as string);
    await t.call('UserCreate', { profile: { a: 1 } });
    await until(() => hook.got.length, (n) => n >= 1);
    expect(hook.bad).toEqual([]);
    // Both secrets sign during the overlap.
    expect(() => new Webhook(old).verify(hook.got[0]!.body, hook.got[0]!.headers as Record<string, string>)).not.toThrow();
    expect((await t.call('EventSubscriptionTest', { subscriptionid: sub })).body).toMatchObject({ status: 'ok', delivered: true, httpstatus: 204 });
    // Another tenant's admin sees none of it; an unknown one is a 404.
    const other = await tenant(vault);
    expect((await other.call('EventSubscriptionList')).body.total).toBe(0);
    expect((await other.call('EventSubscriptionDelete', { subscriptionid: sub })).status).toBe(404);
    expect((await other.call('EventSubscriptionList', { tenantid: t.id })).status).toBe(403);
    // The main tenant's root may act in any tenant.
    expect((await vault.call('EventSubscriptionList', { tenantid: t.id })).body.total).toBe(1);
    expect((await t.call('EventSubscriptionCreate', { url: hook.url, types: ['nope'] })).status).toBe(400);
    expect((await t.call('EventSubscriptionDelete', { subscriptionid: sub })).body.status).toBe('ok');
    await hook.close();
  });
});

describe('privacy events, as an attacker tried them', () => {
  it('lets no tenant\'s silent receiver hold up another tenant\'s deliveries', async ({ vault }) => {
    const held: http.ServerResponse[] = [];
    const silent = http.createServer((_req, res) => held.push(res));
    await new Promise<void>((done) => silent.listen(0, '127.0.0.1', done));
    const a = await tenant(vault);
    const b = await tenant(vault);
    const hook = await receiver();
    try {
      const url = `http://127.0.0.1:${(silent.address() as AddressInfo).port}/`;
      expect((await a.call('EventSubscriptionCreate', { url, types: ['person.created'] })).status).toBe(200);
      for (let i = 0; i < 5; i++) await a.call('UserCreate', { profile: { i } });
      await until(() => held.length, (n) => n >= 5);
      await subscribe(b, hook, { types: ['person.created'] });
      await b.call('UserCreate', { profile: { b: 1 } });
      await until(() => hook.got.length, (n) => n >= 1);
      // Delivered while the silent receiver still holds every request it was sent (none timed out yet).
      expect(hook.got).toHaveLength(1);
      expect(held.every((res) => !res.writableEnded && !res.socket?.destroyed)).toBe(true);
    } finally {
      for (const res of held) res.socket?.destroy();
      silent.closeAllConnections();
      await new Promise<void>((done) => silent.close(() => done()));
      await hook.close();
    }
  });

  it('never names a field whose key is itself a personal value', async ({ vault }) => {
    const t = await tenant(vault);
    const hook = await receiver();
    await subscribe(t, hook, { types: ['person.updated'] });
    const { token } = (await t.call('UserCreate', { profile: { contacts: {} } })).body as { token: string };
    await t.call('UserUpdate', { mode: 'token', identity: token, profile: { name: 'x', contacts: { 'keyed-alice@example.com': 1, '+44 7700 900999': 2 } } });
    await until(() => hook.got.length, (n) => n >= 1);
    expect(hook.got[0]!.event.data).toMatchObject({ fields: ['contacts', 'name'], unnamed: 2 });
    expect(hook.got[0]!.body).not.toContain('alice');
    expect(hook.got[0]!.body).not.toContain('7700');
    // A change under such keys alone is still a change the recipients are told of (counted, not named): by an
    // update, a patch, and an approved request.
    await t.call('UserUpdate', { mode: 'token', identity: token, profile: { 'only-bob@example.com': 'v' } });
    await t.call('UserPatch', { mode: 'token', identity: token, patch: [{ op: 'add', path: '/contacts/carol@example.com', value: { k: 1 } }] });
    const asked = await t.call('UserUpdateRequest', { mode: 'token', identity: token, profile: { 'dave@example.com': 'v' } });
    expect((await t.call('UserRequestApprove', { requestuuid: asked.body.requestuuid })).body.status).toBe('ok');
    await until(() => hook.got.length, (n) => n >= 4);
    expect(hook.got.slice(1).map((d) => d.event.data)).toMatchObject([{ fields: [], unnamed: 1 }, { fields: [], unnamed: 1 }, { fields: [], unnamed: 1, request: asked.body.requestuuid }]);
    for (const d of hook.got) expect(d.body).not.toMatch(/bob|carol|dave/);
    await hook.close();
  });

  it('keeps what a deleted subscription owed and confirmed, and bounds subscriptions under a race', async ({ vault }) => {
    const t = await tenant(vault);
    const hook = await receiver((d) => ({ status: 200, body: d.event.type === 'person.erased' ? '{"erased":true}' : '' }));
    const confirming = await subscribe(t, hook, { types: ['person.erased'] });
    const silent = (await t.call('EventSubscriptionCreate', { url: hook.url.replace('/events', '/other'), types: ['person.erased'], active: false })).body.subscriptionid as string;
    const { token } = (await t.call('UserCreate', { profile: { a: 1 } })).body as { token: string };
    await t.call('UserDelete', { mode: 'token', identity: token });
    await until(async () => (await t.call('ErasureStatusGet', { token })).body.erasures?.[0]?.confirmed as number, (n) => n === 1);
    for (const id of [confirming, silent]) expect((await t.call('EventSubscriptionDelete', { subscriptionid: id })).status).toBe(200);
    const [erasure] = (await t.call('ErasureStatusGet', { token })).body.erasures as { confirmed: number; total: number; recipients: { subscriptionid: string; confirmed: boolean; deleted: boolean }[] }[];
    expect(erasure).toMatchObject({ confirmed: 1, total: 2 });
    expect(erasure!.recipients.map((r) => [r.subscriptionid, r.confirmed, r.deleted]).sort()).toEqual([[confirming, true, true], [silent, false, true]].sort());
    // The silence of a deleted subscription cannot be turned into a confirmation after the fact, by anyone.
    const eventid = (erasure as unknown as { eventid: string }).eventid;
    const late = await t.call('ErasureConfirm', { eventid, subscriptionid: silent });
    expect([late.status, late.body.message]).toEqual([409, 'Conflict: the subscription was deleted; the confirmations it owed are closed']);
    expect(((await t.call('ErasureStatusGet', { token })).body.erasures as { confirmed: number }[])[0]).toMatchObject({ confirmed: 1 });
    expect((await t.call('EventSubscriptionList')).body.total).toBe(0);
    // Forty at once against a bound of twenty: never more than twenty.
    await Promise.all(Array.from({ length: 40 }, () => t.call('EventSubscriptionCreate', { url: hook.url, types: ['person.created'] })));
    expect((await t.call('EventSubscriptionList')).body.total).toBe(20);
    await hook.close();
  });

  it('takes a confirming role only if it exists, and gives a new destination a new secret', async ({ vault }) => {
    const t = await tenant(vault);
    const hook = await receiver();
    const sub = await subscribe(t, hook, { types: ['person.created'] });
    const bad = await t.call('EventSubscriptionUpdate', { subscriptionid: sub, confirmrole: `nosuchrole${t.name}` });
    expect(bad.status).toBe(400);
    expect(bad.body.message).toMatch(/confirmrole/);
    const moved = await t.call('EventSubscriptionUpdate', { subscriptionid: sub, url: hook.url.replace('/events', '/moved') });
    expect(moved.body.secret).toMatch(/^whsec_/);
    const [row] = (await t.call('EventSubscriptionList')).body.rows as { previoussecretuntil: number | null }[];
    expect(row!.previoussecretuntil).toBeNull();
    await hook.close();
  });
});

/** Whether the machine's NATS answers on 127.0.0.1:4222. */
async function natsUp(): Promise<boolean> {
  return new Promise((resolve) => {
    const s = createConnection(4222, '127.0.0.1');
    s.once('connect', () => (s.destroy(), resolve(true)));
    s.once('error', () => resolve(false));
  });
}

describe('privacy events to NATS JetStream', () => {
  let up = false;
  beforeAll(async () => {
    up = await natsUp();
    if (!up) console.warn('NATS JetStream is not running on 127.0.0.1:4222 (.ci/run starts it): the JetStream test is skipped');
  });
  afterAll(() => undefined);

  it('publishes each event with its id as the message id, to the tenant\'s own subjects only (with NATS JetStream on 127.0.0.1:4222)', async ({ vault, skip }) => {
    if (!up) skip();
    const t = await tenant(vault);
    const nc = await connect({ servers: '127.0.0.1:4222' });
    const jsm = await jetstreamManager(nc);
    const stream = `SR_${t.name.toUpperCase()}`;
    await jsm.streams.add({ name: stream, subjects: [`strongroom.${t.id}.>`] });
    try {
      expect((await t.call('EventSubscriptionCreate', { nats: `strongroom.${t.id + 1000}.events`, types: ['person.created'] })).status).toBe(400);
      expect((await t.call('EventSubscriptionCreate', { nats: `strongroom.${t.id}.>`, types: ['person.created'] })).status).toBe(400);
      const r = await t.call('EventSubscriptionCreate', { nats: `strongroom.${t.id}.people`, types: ['person.created'] });
      expect(r.body.status).toBe('ok');
      expect(r.body.secret).toBeUndefined();
      // A second subscription captured by the same stream gets every event too (its message ids are its own).
      const second = await t.call('EventSubscriptionCreate', { nats: `strongroom.${t.id}.crm`, types: ['person.created'] });
      // Renaming the tenant changes nothing of its subjects: they are by id.
      expect((await vault.call('TenantUpdate', { tenantid: t.id, tenantname: `${t.name}x` })).status).toBe(200);
      const as = { 'x-bunker-token': (await vault.call('TenantRotateAdminToken', { tenantid: t.id })).body.xtoken as string, 'x-bunker-tenant': `${t.name}x` };
      for (let i = 0; i < 3; i++) expect((await vault.call('UserCreate', { profile: { i } }, as)).status).toBe(200);
      const info = await until(() => jsm.streams.info(stream), (s) => s.state.messages >= 6);
      expect(info.state.messages).toBe(6);
      const js = jsm.jetstream();
      const consumer = await js.consumers.get(stream);
      const msgs = await consumer.fetch({ max_messages: 6, expires: 2000 });
      const bySubject = new Map<string, string[]>();
      for await (const m of msgs) {
        const event = m.json<{ id: string; type: string }>();
        const sub = m.subject.endsWith('.people') ? r.body.subscriptionid : second.body.subscriptionid;
        expect(m.headers?.get('Nats-Msg-Id')).toBe(`${event.id}:${sub}`);
        expect(event.type).toBe('person.created');
        bySubject.set(m.subject, [...(bySubject.get(m.subject) ?? []), event.id]);
        m.ack();
      }
      expect(bySubject.get(`strongroom.${t.id}.people`)).toEqual(bySubject.get(`strongroom.${t.id}.crm`));
    } finally {
      await jsm.streams.delete(stream).catch(() => undefined);
      await nc.close();
    }
  });
});
