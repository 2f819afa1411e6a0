// Who called, on every audit event (issue 28): each credential kind's event answers the right `who` in every audit
// operation, never a secret or its hash; the client's address is sealed with the details; events written before
// `who` existed still verify and read; and the console's housekeeping reads are marked and left out of the listing,
// but never a call that reaches for a person, whatever it says.
import { createHash, randomUUID } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect } from 'vitest';
import { vaultTest, buildProfile, type TestVault } from '../fixtures/vault.js';
import type { AuditDraft } from '../../api/vault/audit/note.js';

// Behind one proxy: the client's address is the X-Forwarded-For the test sends, so addresses can be generated.
const it = vaultTest({
  env: { STRONGROOM_TRUST_PROXY: 'true', STRONGROOM_AUDIT_CHECKPOINT_SECONDS: '0', STRONGROOM_AUDIT_CHECKPOINT_EVENTS: '0', STRONGROOM_AUDIT_VERIFY_SECONDS: '0' },
});

type Kind = 'root' | 'tenant-admin' | 'role' | 'login' | 'public';

interface World {
  tenant: { id: number; name: string };
  person: { token: string };
  recorduuid: string;
  rolename: string;
  roleid: number;
  /** Per kind: the headers that call as it (none for public), the xtoken's secret and id. */
  callers: Record<Kind, { headers: Record<string, string>; secret: string | null; xtokenid: string | null }>;
}

const sha256 = (s: string) => createHash('sha256').update(s, 'utf8').digest('hex');

async function sql(vault: TestVault, text: string, params: unknown[] = []): Promise<Record<string, unknown>[]> {
  return (await vault.api.services.db.global().sql.query(text, params)) as Record<string, unknown>[];
}

/** A POST with its answer's X-Request-Id. */
async function post(vault: TestVault, op: string, body: unknown, headers: Record<string, string>) {
  const res = await fetch(`${vault.url}/v2/${op}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
  const text = await res.text();
  return { status: res.status, text, body: JSON.parse(text) as Record<string, any>, requestId: res.headers.get('x-request-id') };
}

async function ok(vault: TestVault, op: string, body: unknown, headers?: Record<string, string>) {
  const res = await vault.call(op, body, headers);
  expect(res.status, `${op} ${JSON.stringify(res.body)}`).toBe(200);
  return res.body;
}

const credentialId = async (vault: TestVault, secret: string) => (await sql(vault, 'select id from strongroom.credentials where hash = $1', [sha256(secret)]))[0]!.id as string;

async function makeWorld(vault: TestVault): Promise<World> {
  const suffix = randomUUID().slice(0, 8);
  const made = await ok(vault, 'TenantCreate', { tenantname: `actor${suffix}`, tenantorg: 'Actor' });
  const admin = { 'x-bunker-token': made.xtoken as string };
  const rolename = `support-${suffix}`;
  const role = await ok(vault, 'RoleCreate', { rolename });
  await ok(vault, 'PolicyCreate', { policyname: rolename, policy: { Effect: 'Allow', Action: ['UserGet', 'LegalBasisListAgreements'] } });
  await ok(vault, 'RoleLinkPolicy', { rolename, policyname: rolename });
  const person = await ok(vault, 'UserCreate', { profile: buildProfile({ city: 'Paris' }) }, admin);
  const roleX = await ok(vault, 'XTokenCreateForRole', { rolename }, admin);
  const loginX = await ok(vault, 'XTokenCreateForUser', { mode: 'token', identity: person.token }, admin);
  const share = await ok(vault, 'SharedRecordCreate', { mode: 'token', identity: person.token, fields: 'city' }, admin);
  return {
    tenant: { id: made.tenantid as number, name: `actor${suffix}` },
    person: { token: person.token as string },
    recorduuid: share.recorduuid as string,
    rolename,
    roleid: role.roleid as number,
    callers: {
      root: { headers: { 'x-bunker-token': vault.rootToken, 'x-bunker-tenant': `actor${suffix}` }, secret: vault.rootToken, xtokenid: await credentialId(vault, vault.rootToken) },
      'tenant-admin': { headers: admin, secret: made.xtoken as string, xtokenid: await credentialId(vault, made.xtoken as string) },
      role: { headers: { 'x-bunker-token': roleX.xtoken as string }, secret: roleX.xtoken as string, xtokenid: roleX.xtokenid as string },
      login: { headers: { 'x-bunker-token': loginX.xtoken as string }, secret: loginX.xtoken as string, xtokenid: loginX.xtokenid as string },
      public: { headers: { 'x-bunker-tenant': `actor${suffix}` }, secret: null, xtokenid: null },
    },
  };
}

/** The `who` the test expects of a kind's event: its own oracle, from what it made. */
function expectedWho(w: World, kind: Kind, requestid: string) {
  const c = w.callers[kind];
  return {
    kind,
    xtokenid: c.xtokenid,
    roleid: kind === 'role' ? w.roleid : null,
    rolename: kind === 'role' ? w.rolename : null,
    person: kind === 'login' ? w.person.token : null,
    requestid,
    purpose: null,
  };
}

/** An unlocked listing of a tenant's whole trail, as its admin (or the root for the main tenant). */
async function listAll(vault: TestVault, headers: Record<string, string>, extra: Record<string, unknown> = {}) {
  const { unlockuuid } = await ok(vault, 'BulkListUnlock', {}, headers);
  return (await post(vault, 'BulkListAllAuditEvents', { unlockuuid, limit: 100, ...extra }, headers)).body as { total: number; rows: any[] };
}

const ROOT_MAIN = (vault: TestVault) => ({ 'x-bunker-token': vault.rootToken });
/** IPv6 written as IPv4-mapped is read as its IPv4 (api/http/client-address.ts): left out, to keep the oracle plain. */
const address = fc.oneof(fc.ipV4(), fc.ipV6().filter((a) => !a.toLowerCase().startsWith('::ffff:')));
/** What a client may send as X-Request-Id: a UUID (kept), nothing, or free text (replaced by the vault's own id). */
const sentRequestId = fc.oneof(
  fc.uuid().map((u) => ({ sent: u, kept: true })),
  fc.constant({ sent: undefined, kept: false }),
  fc.string({ unit: fc.constantFrom(...'ada@example.com {}":purpose-housekeeping'.split('')), minLength: 1, maxLength: 40 }).map((s) => ({ sent: `garbage-${s}`, kept: false })),
);

describe('who, on every event', () => {
  it('answers the right who for each credential kind, its address sealed, in every audit operation (generated)', async ({ vault }) => {
    const w = await makeWorld(vault);
    const answers: string[] = [];
    const addresses: string[] = [];
    const garbage: string[] = [];
    await fc.assert(
      fc.asyncProperty(fc.constantFrom<Kind>('root', 'tenant-admin', 'role', 'login', 'public'), address, sentRequestId, async (kind, addr, rid) => {
        const headers = { ...w.callers[kind].headers, 'x-forwarded-for': addr, ...(rid.sent ? { 'x-request-id': rid.sent } : {}) };
        const call = kind === 'public' ? await post(vault, 'SharedRecordGet', { recorduuid: w.recorduuid }, headers) : await post(vault, 'UserGet', { mode: 'token', identity: w.person.token }, headers);
        expect(call.status, call.text).toBe(200);
        const requestid = call.requestId!;
        expect(requestid).toMatch(/^[0-9a-f-]{36}$/);
        if (rid.kept) expect(requestid).toBe(rid.sent!.toLowerCase());
        else if (rid.sent) garbage.push(rid.sent);
        addresses.push(addr);
        // In the person's events, in the tenant's whole trail, and in the event itself (with the sealed address).
        const root = w.callers.root.headers;
        const mine = await post(vault, 'AuditListUserEvents', { mode: 'token', identity: w.person.token, limit: 100 }, root);
        const all = await listAll(vault, w.callers['tenant-admin'].headers);
        const row = mine.body.rows.find((r: any) => r.who.requestid === requestid);
        expect(row, `${kind} ${requestid}`).toBeDefined();
        expect(row.who).toEqual(expectedWho(w, kind, requestid));
        expect(all.rows.find((r: any) => r.auditeventuuid === row.auditeventuuid)?.who).toEqual(row.who);
        const event = await post(vault, 'AuditGetEvent', { auditeventuuid: row.auditeventuuid }, root);
        expect(event.body.who).toEqual({ ...expectedWho(w, kind, requestid), address: addr });
        expect(event.body.details).not.toHaveProperty('address');
        answers.push(call.text, mine.text, JSON.stringify(all), event.text);
      }),
      { numRuns: 30 },
    );
    // Never a secret or its hash, in any answer or any row of the trail; no address or free-text request id in the clear.
    const rows = (await sql(vault, `select row_to_json(e)::text as t from tenant_${w.tenant.id}.audit_events e`)).map((r) => r.t as string);
    const secrets = Object.values(w.callers).flatMap((c) => (c.secret ? [c.secret, sha256(c.secret)] : []));
    for (const text of [...answers, ...rows]) for (const s of secrets) expect(text).not.toContain(s);
    for (const text of rows) {
      // Short addresses (`::1`) are too short to look for in hex without chance matches in ciphertext.
      for (const a of addresses) expect(text.includes(`"${a}"`) || (a.length >= 7 && text.includes(Buffer.from(a).toString('hex'))), a).toBe(false);
      for (const g of garbage) expect(text).not.toContain(g);
    }
  });

  it('keeps events written before who existed verifiable and readable, with what they knew', async ({ vault }) => {
    const w = await makeWorld(vault);
    const { audit, db } = vault.api.services;
    const now = Math.floor(Date.now() / 1000);
    // The previous code path's events: actor `<kind>:<id>` alone, details without an address; a read's and a write's.
    const old = (actor: string, details: Record<string, unknown> | null): AuditDraft => ({
      uuid: randomUUID(), when: now, title: 'UserGet', status: 'ok', msg: null, actor, record: w.person.token, mode: 'token', app: null, details,
    });
    const read = old(`root:${w.callers.root.xtokenid}`, null);
    const write = old(`tenant-admin:${w.callers['tenant-admin'].xtokenid}`, { before: { a: 1 }, after: { a: 2 } });
    const refused = { ...old('unauthenticated', { address: '192.0.2.7' }), record: null, mode: null, status: 'error' as const };
    await audit.record(w.tenant.id, read);
    await audit.record(w.tenant.id, refused);
    await audit.chained(w.tenant.id, await db.write(w.tenant.id, true, (tx) => audit.writeInTx(tx, [write])));
    // New events after them, then the whole chain verified.
    await ok(vault, 'UserGet', { mode: 'token', identity: w.person.token }, w.callers.role.headers);
    expect((await ok(vault, 'AuditVerify', {}, w.callers['tenant-admin'].headers)).result).toBe('intact');
    const get = async (uuid: string) => ok(vault, 'AuditGetEvent', { auditeventuuid: uuid }, w.callers.root.headers);
    const none = { roleid: null, rolename: null, person: null, requestid: null, purpose: null };
    expect((await get(read.uuid)).who).toEqual({ kind: 'root', xtokenid: w.callers.root.xtokenid, ...none, address: null });
    const w2 = await get(write.uuid);
    expect(w2.who).toEqual({ kind: 'tenant-admin', xtokenid: w.callers['tenant-admin'].xtokenid, ...none, address: null });
    expect(w2.details).toEqual({ before: { a: 1 }, after: { a: 2 } });
    expect((await get(refused.uuid)).who).toEqual({ kind: 'unauthenticated', xtokenid: null, ...none, address: '192.0.2.7' });
  });

  it('names the request of a refused credential, and its address only sealed', async ({ vault }) => {
    const w = await makeWorld(vault);
    const requestId = randomUUID();
    const res = await post(vault, 'UserGet', { mode: 'token', identity: w.person.token }, { 'x-bunker-token': randomUUID(), 'x-bunker-tenant': w.tenant.name, 'x-request-id': requestId, 'x-forwarded-for': '198.51.100.23' });
    expect(res.status).toBe(403);
    const row = (await listAll(vault, w.callers['tenant-admin'].headers)).rows.find((r: any) => r.who.requestid === requestId);
    expect(row?.who).toMatchObject({ kind: 'unauthenticated', xtokenid: null });
    expect((await ok(vault, 'AuditGetEvent', { auditeventuuid: row.auditeventuuid }, w.callers.root.headers)).who.address).toBe('198.51.100.23');
  });
});

describe('the console\'s housekeeping', () => {
  it('marks its own reads and leaves them out of the listing unless asked for', async ({ vault }) => {
    const w = await makeWorld(vault);
    const marked = { 'x-strongroom-purpose': 'housekeeping' };
    const [a, b, c] = [randomUUID(), randomUUID(), randomUUID()];
    expect((await post(vault, 'TenantListTenants', {}, { ...ROOT_MAIN(vault), ...marked, 'x-request-id': a })).status).toBe(200);
    expect((await post(vault, 'TenantListTenants', {}, { ...ROOT_MAIN(vault), 'x-request-id': b })).status).toBe(200);
    expect((await post(vault, 'LegalBasisListAgreements', {}, { ...w.callers['tenant-admin'].headers, ...marked, 'x-request-id': c })).status).toBe(200);
    const find = (rows: any[], id: string) => rows.find((r) => r.who.requestid === id);
    const hidden = await listAll(vault, ROOT_MAIN(vault));
    const shown = await listAll(vault, ROOT_MAIN(vault), { includehousekeeping: true });
    expect(find(hidden.rows, a)).toBeUndefined();
    expect(find(shown.rows, a)?.who.purpose).toBe('housekeeping');
    expect(find(hidden.rows, b)?.who.purpose).toBeNull();
    expect(shown.total).toBeGreaterThan(hidden.total);
    expect(find((await listAll(vault, w.callers['tenant-admin'].headers)).rows, c)).toBeUndefined();
    expect(find((await listAll(vault, w.callers['tenant-admin'].headers, { includehousekeeping: true })).rows, c)?.who.purpose).toBe('housekeeping');
    expect((await post(vault, 'BulkListAllAuditEvents', { unlockuuid: randomUUID(), includehousekeeping: 'yes' }, ROOT_MAIN(vault))).body.message).toMatch(/includehousekeeping/);
  });

  it('never hides a call that reaches for a person, whatever its header says (generated)', async ({ vault }) => {
    const w = await makeWorld(vault);
    const T = (kind: Kind) => w.callers[kind].headers;
    const someone = () => ({ mode: 'email', identity: `nobody-${randomUUID().slice(0, 8)}@example.com` });
    const ada = { mode: 'token', identity: w.person.token };
    // The oracle: the test's own list of calls that reach for a person (found or not), by callers that may make
    // them or not (a refused call is audited too), in the tenant whose trail gets their event.
    const personCalls: { op: string; body: () => Record<string, unknown>; as: () => Record<string, string>; trail: () => Record<string, string> }[] = [
      ...(['root', 'tenant-admin', 'role', 'login'] as const).flatMap((k) => [
        { op: 'UserGet', body: () => ada, as: () => T(k), trail: () => T('tenant-admin') },
        { op: 'UserGet', body: someone, as: () => T(k), trail: () => T('tenant-admin') },
        { op: 'AuditListUserEvents', body: () => ada, as: () => T(k), trail: () => T('tenant-admin') },
      ]),
      { op: 'XTokenListForUser', body: () => ada, as: () => T('tenant-admin'), trail: () => T('tenant-admin') },
      { op: 'AppdataListUserAppNames', body: () => ada, as: () => T('root'), trail: () => T('tenant-admin') },
      { op: 'AgreementListUserAgreements', body: () => ada, as: () => T('login'), trail: () => T('tenant-admin') },
      { op: 'SharedRecordGet', body: () => ({ recorduuid: w.recorduuid }), as: () => T('public'), trail: () => T('tenant-admin') },
      // A read that may be housekeeping, but not once it names a person, found or not.
      { op: 'PolicyExplain', body: () => ({ rolename: w.rolename, operation: 'UserGet', tenantid: w.tenant.id, ...ada }), as: () => ROOT_MAIN(vault), trail: () => ROOT_MAIN(vault) },
      { op: 'PolicyExplain', body: () => ({ rolename: w.rolename, operation: 'UserGet', ...someone() }), as: () => ROOT_MAIN(vault), trail: () => ROOT_MAIN(vault) },
    ];
    const purpose = fc.constantFrom('housekeeping', 'Housekeeping', ' HOUSEKEEPING ', 'housekeeping, housekeeping');
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...personCalls), purpose, async (call, said) => {
        const requestId = randomUUID();
        const res = await post(vault, call.op, call.body(), { ...call.as(), 'x-strongroom-purpose': said, 'x-request-id': requestId });
        expect(res.status, res.text).not.toBe(500);
        const row = (await listAll(vault, call.trail())).rows.find((r: any) => r.who.requestid === requestId);
        // Listed by default, and marked as a claim refused when the header was understood.
        expect(row, `${call.op} ${JSON.stringify(call.body())} ${said}`).toBeDefined();
        expect(row.who.purpose).toBe(said.trim().toLowerCase() === 'housekeeping' ? 'housekeeping-refused' : null);
      }),
      { numRuns: 40 },
    );
  });
});
