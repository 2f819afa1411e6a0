// Tenants' own key-encryption keys in a real SoftHSM2 token, with the real tokenizer process in `pkcs11` custody:
// two tenants on two KEKs, one revoked (503 everywhere for it, the other serving, the revocation audited, a restored
// copy of its keys still unreadable, then deleted as erased); a KEK object removed with pkcs11-tool; a populated
// tenant moved onto a KEK while it is read.
import { randomUUID } from 'node:crypto';
import { describe, expect } from 'vitest';
import { buildProfile, vaultTest, type TestVault } from '../fixtures/vault.js';
import { NO_SOFTHSM } from '../fixtures/softhsm.js';

// A short key-cache TTL: the tokenizer probes tenants' KEK objects every 500 ms.
const it = vaultTest({ hsm: true, tokenizerEnv: { STRONGROOM_TOKENIZER_KEY_CACHE_SECONDS: '2' } });

const UNAVAILABLE = 'The tenant\'s key is unavailable';

async function tenant(vault: TestVault, kek?: string): Promise<{ id: number; name: string; as: Record<string, string> }> {
  const name = `t${randomUUID().replaceAll('-', '').slice(0, 12)}`;
  const res = await vault.call('TenantCreate', { tenantname: name, tenantorg: 'Org', ...(kek && { kek }) });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return { id: res.body.tenantid as number, name, as: { 'x-bunker-tenant': name } };
}

async function unlock(vault: TestVault, as: Record<string, string> = {}): Promise<string> {
  return (await vault.call('BulkListUnlock', undefined, as)).body.unlockuuid as string;
}

/** A person with a profile, app data and a file in the tenant. */
async function person(vault: TestVault, as: Record<string, string>) {
  const profile = buildProfile();
  const made = await vault.call('UserCreate', { profile }, as);
  expect(made.status, JSON.stringify(made.body)).toBe(200);
  const ref = { mode: 'token', identity: made.body.token as string };
  expect((await vault.call('AppdataCreate', { ...ref, appname: 'shop', appdata: { card: 'secret' } }, as)).status).toBe(200);
  const file = await vault.call('FileCreate', { ...ref, filename: 'a.txt', filedata: Buffer.from('secret file').toString('base64') }, as);
  expect(file.status, JSON.stringify(file.body)).toBe(200);
  return { ref, profile, fileuuid: file.body.fileuuid as string };
}

type Person = Awaited<ReturnType<typeof person>>;

/** Every read of the tenant: status and message of each. */
async function reads(vault: TestVault, as: Record<string, string>, p: Person): Promise<Record<string, { status: number; message?: string; retry?: string | null }>> {
  const u = await unlock(vault, as);
  const calls: [string, Record<string, unknown>][] = [
    ['UserGet', p.ref],
    ['UserGet', { mode: 'email', identity: p.profile.email }],
    ['AppdataGet', { ...p.ref, appname: 'shop' }],
    ['FileGet', { ...p.ref, fileuuid: p.fileuuid }],
    ['BulkListAllUsers', { unlockuuid: u }],
    ['SystemGetUserReport', p.ref],
    ['AuditListUserEvents', p.ref],
  ];
  const out: Record<string, { status: number; message?: string; retry?: string | null }> = {};
  for (const [op, body] of calls) {
    const res = await vault.call(op, body, as);
    const key = op === 'UserGet' && body.mode === 'email' ? 'UserGet(email)' : op;
    out[key] = res.status === 200 ? { status: 200 } : { status: res.status, message: res.body.message, retry: res.headers.get('retry-after') };
  }
  return out;
}

const allServe = (r: Record<string, { status: number }>) => Object.values(r).every((x) => x.status === 200) || JSON.stringify(r);
const allRefused = (r: Record<string, { status: number; message?: string; retry?: string | null }>) =>
  Object.values(r).every((x) => x.status === 503 && x.message === UNAVAILABLE && Number(x.retry) > 0);

describe.skipIf(NO_SOFTHSM)(`tenants' own key-encryption keys${NO_SOFTHSM ? ` (skipped: ${NO_SOFTHSM})` : ''}`, () => {
  it('refuses a kek the HSM does not hold (400 naming kek, no tenant left behind), and one another tenant uses (409)', async ({ vault }) => {
    const name = `t${randomUUID().replaceAll('-', '').slice(0, 12)}`;
    const missing = await vault.call('TenantCreate', { tenantname: name, tenantorg: 'Org', kek: 'no-such-object' });
    expect(missing.status).toBe(400);
    expect(missing.body.message).toMatch(/^Invalid API request parameter: kek: /);
    expect((await vault.call('TenantGet', { tenantname: name })).status).toBe(404);
    const keyring = await vault.call('TenantCreate', { tenantname: name, tenantorg: 'Org', kek: vault.hsm!.settings.keyLabel });
    expect(keyring.status).toBe(400);
    expect(keyring.body.message).toMatch(/kek: that is the keyring's own key object/);
    vault.hsm!.makeKey('kek-shared');
    await tenant(vault, 'kek-shared');
    const taken = await vault.call('TenantCreate', { tenantname: name, tenantorg: 'Org', kek: 'kek-shared' });
    expect(taken.status).toBe(409);
    expect((await vault.call('TenantGet', { tenantname: name })).status).toBe(404);
  });

  it('revokes one of two tenants on two KEKs: it fails closed everywhere, the other serves, audited, and deleted as erased', async ({ vault }) => {
    vault.hsm!.makeKey('kek-a');
    vault.hsm!.makeKey('kek-b');
    const a = await tenant(vault, 'kek-a');
    const b = await tenant(vault, 'kek-b');
    const pa = await person(vault, a.as);
    const pb = await person(vault, b.as);
    expect(allServe(await reads(vault, a.as, pa))).toBe(true);
    expect(allServe(await reads(vault, b.as, pb))).toBe(true);
    // Every key of the tenant is under its tenant key (version 0), none under a master version.
    expect([...(await vault.api.services.db.stores(a.id).subjectKeys.countsByVersion()).keys()]).toEqual([0]);
    const before = (await vault.call('SystemGetKeyringStatus')).body.tenantkeks as { tenantid: number; kek: string; state: string }[];
    expect(before.filter((t) => [a.id, b.id].includes(t.tenantid)).map((t) => [t.kek, t.state])).toEqual([['kek-a', 'up'], ['kek-b', 'up']]);

    // A copy of the tenant's rows as a database backup would hold them: its wrapped keys and its wrapped tenant key.
    const tokens = [pa.ref.identity, '00000000-0000-0000-0000-000000000000'];
    const keysCopy = await vault.api.services.db.stores(a.id).subjectKeys.get(tokens);
    const kekCopy = (await vault.api.services.db.global().tenants.kek(a.id))!;

    expect((await vault.call('TenantRevokeKek', { tenantid: a.id })).status).toBe(400);
    expect((await vault.call('TenantRevokeKek', { tenantid: a.id, unlockuuid: randomUUID() })).status).toBe(403);
    const revoked = await vault.call('TenantRevokeKek', { tenantid: a.id, unlockuuid: await unlock(vault) });
    expect(revoked.status, JSON.stringify(revoked.body)).toBe(200);
    expect(revoked.body).toMatchObject({ tenantid: a.id, kek: 'kek-a', destroyed: true });

    const refused = await reads(vault, a.as, pa);
    expect(allRefused(refused), JSON.stringify(refused)).toBe(true);
    expect(JSON.stringify(refused)).not.toContain(pa.profile.email);
    expect(allServe(await reads(vault, b.as, pb))).toBe(true);
    // A search across tenants passes over the revoked one.
    const search = await vault.call('SystemGetUserProfiles', { mode: 'email', identity: pb.profile.email, unlockuuid: await unlock(vault) });
    expect(search.status, JSON.stringify(search.body)).toBe(200);

    const after = (await vault.call('SystemGetKeyringStatus')).body.tenantkeks as { tenantid: number; state: string }[];
    expect(after.filter((t) => [a.id, b.id].includes(t.tenantid)).map((t) => t.state)).toEqual(['revoked', 'up']);
    expect((await vault.call('TenantGet', { tenantid: a.id })).body).toMatchObject({ kek: 'kek-a', kekrevoked: true });

    // The revocation is in the main tenant's audit trail.
    const events = (await vault.call('BulkListAllAuditEvents', { unlockuuid: await unlock(vault), offset: 0, limit: 1000 })).body.rows as Record<string, any>[];
    const event = events.find((e) => JSON.stringify(e).includes('TenantRevokeKek') && e.status === 'ok');
    expect(event).toBeDefined();

    // The backup restored: the keys, the tenant key and the KEK as they were before. Still unreadable: the object
    // that opens them is destroyed inside the HSM.
    const g = vault.api.services.db.global().sql;
    await g.query(`update strongroom.tenants set kek_revoked = null, kek_wrapped = $2 where id = $1`, [a.id, kekCopy.wrapped]);
    await vault.api.services.db.stores(a.id).subjectKeys.rewrap(
      tokens.map((t) => ({ token: t, old: (keysCopy.get(t) as Buffer), wrapped: keysCopy.get(t) as Buffer })),
    );
    await vault.api.services.tenantKeks.refresh();
    // The tokenizer itself refuses (not only the api's own view of the tenant): its KEK object is destroyed.
    const wrappedCopy = keysCopy.get(pa.ref.identity) as Buffer;
    await expect(vault.api.services.tokenizer.run(a.id, { rewrapKeys: [{ subject: pa.ref.identity, wrapped: wrappedCopy }] })).rejects.toThrow(UNAVAILABLE);
    const restored = await reads(vault, a.as, pa);
    expect(allRefused(restored), JSON.stringify(restored)).toBe(true);
    expect((await vault.call('SystemGetKeyringStatus')).body.tenantkeks.find((t: { tenantid: number }) => t.tenantid === a.id).state).toBe('unavailable');

    // Gone for good: removed as erased, the event naming what was destroyed.
    const deleted = await vault.call('TenantDelete', { tenantid: a.id });
    expect(deleted.status, JSON.stringify(deleted.body)).toBe(200);
    expect((await vault.call('TenantGet', { tenantid: a.id })).status).toBe(404);
    const rows = (await vault.call('BulkListAllAuditEvents', { unlockuuid: await unlock(vault), offset: 0, limit: 1000 })).body.rows as Record<string, any>[];
    const del = rows.find((e) => JSON.stringify(e).includes('TenantDelete') && e.status === 'ok' && JSON.stringify(e).includes(String(a.id)));
    expect(del).toBeDefined();
    const details = await vault.call('AuditGetEvent', { auditeventuuid: del!.auditeventuuid });
    expect(details.body.details?.after ?? details.body.after).toMatchObject({ tenantid: a.id, kek: 'kek-a', destroyed: { schema: `tenant_${a.id}` } });
    expect(allServe(await reads(vault, b.as, pb))).toBe(true);
  });

  it('answers 503 for a tenant whose KEK object is removed from the HSM with pkcs11-tool, others serving', async ({ vault }) => {
    vault.hsm!.makeKey('kek-c');
    vault.hsm!.makeKey('kek-d');
    const c = await tenant(vault, 'kek-c');
    const d = await tenant(vault, 'kek-d');
    const pc = await person(vault, c.as);
    const pd = await person(vault, d.as);
    expect(allServe(await reads(vault, c.as, pc))).toBe(true);
    vault.hsm!.deleteKey('kek-c');
    // Within the tokenizer's probe interval: the cached tenant key and data keys are forgotten.
    await expect.poll(async () => (await vault.call('UserGet', pc.ref, c.as)).status, { timeout: 10_000, interval: 200 }).toBe(503);
    // Every call of the tenant, once the api's next probe of tenants' KEKs (every 5 s) has seen the object gone.
    await expect.poll(async () => allRefused(await reads(vault, c.as, pc)), { timeout: 15_000, interval: 500 }).toBe(true);
    expect(allServe(await reads(vault, d.as, pd))).toBe(true);
    const states = (await vault.call('SystemGetKeyringStatus')).body.tenantkeks as { tenantid: number; state: string }[];
    expect(states.filter((t) => [c.id, d.id].includes(t.tenantid)).map((t) => t.state)).toEqual(['unavailable', 'up']);
  });

  it('moves a populated tenant onto a KEK in the background while its people are read, none failing', async ({ vault }) => {
    const e = await tenant(vault);
    const people = [];
    for (let i = 0; i < 12; i++) people.push(await person(vault, e.as));
    const failures: string[] = [];
    let reading = true;
    const reader = (async () => {
      let n = 0;
      while (reading) {
        const p = people[n++ % people.length]!;
        const res = await vault.call('UserGet', p.ref, e.as);
        if (res.status !== 200 || res.body.profile?.email !== p.profile.email) failures.push(`${res.status} ${JSON.stringify(res.body)}`);
      }
      return n;
    })();
    vault.hsm!.makeKey('kek-e');
    const moved = await vault.call('TenantUpdate', { tenantid: e.id, kek: 'kek-e' });
    expect(moved.status, JSON.stringify(moved.body)).toBe(200);
    const keys = vault.api.services.db.stores(e.id).subjectKeys;
    await expect.poll(async () => [...(await keys.countsByVersion()).keys()], { timeout: 30_000, interval: 200 }).toEqual([0]);
    // A person made now gets a key under the tenant key at once.
    people.push(await person(vault, e.as));
    reading = false;
    expect(await reader).toBeGreaterThan(0);
    expect(failures).toEqual([]);
    expect([...(await keys.countsByVersion()).keys()]).toEqual([0]);
    // The keys now open only through the KEK: revoking it leaves nothing readable.
    expect((await vault.call('TenantRevokeKek', { tenantid: e.id, unlockuuid: await unlock(vault) })).status).toBe(200);
    expect(allRefused(await reads(vault, e.as, people[0]!))).toBe(true);
  });

  it('lets only main-tenant admins set a kek, never revokes the main tenant, and refuses a tenant without one (409)', async ({ vault }) => {
    const f = await tenant(vault);
    const xtoken = (await vault.call('TenantRotateAdminToken', { tenantid: f.id })).body.xtoken as string | undefined;
    if (xtoken) {
      const own = await vault.call('TenantUpdate', { kek: 'kek-x' }, { 'x-bunker-token': xtoken, 'x-bunker-tenant': f.name });
      expect(own.status).toBe(403);
    }
    expect((await vault.call('TenantRevokeKek', { tenantid: 1, unlockuuid: await unlock(vault) })).status).toBe(400);
    expect((await vault.call('TenantRevokeKek', { tenantid: f.id, unlockuuid: await unlock(vault) })).status).toBe(409);
  });
});
