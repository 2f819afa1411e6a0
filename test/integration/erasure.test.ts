// Erasure as an adversary sees it: after each kind of erasure (UserDelete, an approved forget-me request, the
// sweeper's expiry), every operation that could show the person answers as erased, and nothing about them left in
// the database opens, whatever key is tried. Someone else's data stays intact throughout.
import { randomUUID } from 'node:crypto';
import { describe, expect } from 'vitest';
import { it, buildProfile, type TestVault } from '../fixtures/vault.js';
import { nowSeconds } from '../../api/vault/durations.js';

/** A person with something in every kind of personal record. */
async function person(vault: TestVault, create: Record<string, unknown> = {}) {
  const profile = buildProfile();
  const created = await vault.call('UserCreate', { profile, ...create });
  expect(created.status, JSON.stringify(created.body)).toBe(200);
  const token = created.body.token as string;
  const ref = { mode: 'token', identity: token };
  await vault.call('UserUpdate', { ...ref, profile: { city: 'Tartu' } });
  await vault.call('AppdataCreate', { ...ref, appname: 'shop', appdata: { card: 'secret-1' } });
  await vault.call('AppdataUpdate', { ...ref, appname: 'shop', appdata: { card: 'secret-2' } });
  const brief = `erasure-${randomUUID().slice(0, 8)}`;
  expect((await vault.call('LegalBasisCreate', { brief })).status).toBe(200);
  expect((await vault.call('AgreementAccept', { ...ref, brief, referencecode: 'ref-secret' })).status).toBe(200);
  const sessionuuid = randomUUID();
  expect((await vault.call('SessionUpsert', { sessionuuid, sessiondata: { token, step: 'secret-step' } })).status).toBe(200);
  const shared = (await vault.call('SharedRecordCreate', { ...ref, fields: 'name' })).body.recorduuid as string;
  const sharedApp = (await vault.call('SharedRecordCreate', { ...ref, appname: 'shop' })).body.recorduuid as string;
  const request = (await vault.call('UserUpdateRequest', { ...ref, profile: { city: 'secret-city' } })).body.requestuuid as string;
  const file = await vault.call('FileCreate', { ...ref, filename: 'secret.txt', filedata: Buffer.from('secret file').toString('base64') });
  expect(file.status, JSON.stringify(file.body)).toBe(200);
  const events = (await vault.call('AuditListUserEvents', { ...ref, limit: 100 })).body.rows as { auditeventuuid: string; eventtype: string }[];
  const createEvent = events.find((e) => e.eventtype === 'UserCreate')!.auditeventuuid;
  const details = await vault.call('AuditGetEvent', { auditeventuuid: createEvent });
  expect(details.body.details.after).toEqual(profile);
  return { token, ref, profile, brief, sessionuuid, shared, sharedApp, request, fileuuid: file.body.fileuuid as string, createEvent };
}

type Person = Awaited<ReturnType<typeof person>>;

/** Every read path that could show the person's data answers as erased. */
async function expectErased(vault: TestVault, p: Person) {
  for (const [mode, identity] of [['token', p.token], ['login', p.profile.login], ['email', p.profile.email], ['phone', p.profile.phone]]) {
    const got = await vault.call('UserGet', { mode, identity });
    expect(got.status, `UserGet by ${mode}`).toBe(404);
  }
  const ref = p.ref;
  const notFound: [string, Record<string, unknown>][] = [
    ['UserGet', { ...ref, version: 1 }],
    ['UserListVersions', ref],
    ['AppdataGet', { ...ref, appname: 'shop' }],
    ['AppdataListVersions', { ...ref, appname: 'shop' }],
    ['SessionGet', { sessionuuid: p.sessionuuid }],
    ['SessionListUserSessions', ref],
    ['AgreementGet', { ...ref, brief: p.brief }],
    ['AgreementListUserAgreements', ref],
    ['UserRequestGet', { requestuuid: p.request }],
    ['UserRequestListUserRequests', ref],
    ['FileGet', { ...ref, fileuuid: p.fileuuid }],
    ['FileListUserFiles', ref],
    ['SharedRecordGet', { recorduuid: p.shared }],
    ['SharedRecordGet', { recorduuid: p.sharedApp }],
    ['SystemGetUserReport', ref],
  ];
  for (const [op, body] of notFound) {
    const res = await vault.call(op, body);
    expect(res.status, `${op} ${JSON.stringify(res.body)}`).toBe(404);
  }
  // The event stays with its non-personal facts; its details answer as erased.
  const event = await vault.call('AuditGetEvent', { auditeventuuid: p.createEvent });
  expect(event.status).toBe(200);
  expect(event.body).toMatchObject({ eventtype: 'UserCreate', record: p.token, status: 'ok', details: { erased: true } });
  expect(JSON.stringify(event.body)).not.toContain(p.profile.email);

  const unlockuuid = (await vault.call('BulkListUnlock')).body.unlockuuid as string;
  const all = await vault.call('BulkListAllUsers', { unlockuuid, limit: 1000 });
  expect(JSON.stringify(all.body)).not.toContain(p.token);
  const audit = await vault.call('BulkListAllAuditEvents', { unlockuuid, limit: 1000 });
  expect(JSON.stringify(audit.body)).not.toContain(p.profile.email);

  await expectNothingOpens(vault, p);
}

/** The database as an adversary with the tokenizer (but not the erased key) sees it: nothing of the person opens. */
async function expectNothingOpens(vault: TestVault, p: Person) {
  const conn = vault.api.services.db.orm.em.getConnection();
  const rows = async (sql: string) => (await conn.execute(sql, [p.token])) as Record<string, unknown>[];
  for (const table of ['users', 'user_versions']) expect(await rows(`select 1 from tenant_1.${table} where token = ?`), table).toEqual([]);
  for (const table of ['app_records', 'app_versions', 'agreements', 'sessions', 'shared_records', 'files']) {
    expect(await rows(`select 1 from tenant_1.${table} where user_token = ?`), table).toEqual([]);
  }
  // Only a forget-me request's record may stay, and without a change.
  for (const r of await rows(`select requesttype, change from tenant_1.user_requests where user_token = ?`)) {
    expect(r).toEqual({ requesttype: 'forget-me', change: null });
  }
  const [key] = await rows(`select wrapped from tenant_1.subject_keys where token = ?`);
  expect(key).toEqual({ wrapped: null });

  // Every sealed detail of the person's events: not under the tenant key, nor under any other person's key.
  const tokenizer = vault.api.services.tokenizer;
  const [other] = (await conn.execute(`select token, wrapped from tenant_1.subject_keys where wrapped is not null limit 1`)) as {
    token: string;
    wrapped: Buffer;
  }[];
  const sealed = (await rows(`select uuid, details from tenant_1.audit_events where record = ? and details is not null`)) as { uuid: string; details: Buffer }[];
  expect(sealed.length).toBeGreaterThan(0);
  for (const e of sealed) {
    const attempts = [
      undefined,
      { subject: p.token, wrapped: other!.wrapped },
      { subject: other!.token, wrapped: other!.wrapped },
    ];
    for (const key of attempts) {
      await expect(tokenizer.run(1, { open: [{ table: 'audit_events', rowId: e.uuid, ciphertext: e.details, key }] })).rejects.toThrow(/rejected/);
    }
  }
}

async function expectIntact(vault: TestVault, p: Person) {
  const got = await vault.call('UserGet', p.ref);
  expect(got.status).toBe(200);
  expect(got.body.profile).toEqual({ ...p.profile, city: 'Tartu' });
  expect((await vault.call('UserGet', { ...p.ref, version: 1 })).body.profile).toEqual(p.profile);
  expect((await vault.call('AppdataGet', { ...p.ref, appname: 'shop' })).body.appdata).toEqual({ card: 'secret-2' });
  expect((await vault.call('SessionGet', { sessionuuid: p.sessionuuid })).status).toBe(200);
  expect((await vault.call('AgreementGet', { ...p.ref, brief: p.brief })).body.agreement).toMatchObject({ referencecode: 'ref-secret' });
  expect((await vault.call('FileGet', { ...p.ref, fileuuid: p.fileuuid })).status).toBe(200);
  expect((await vault.call('AuditGetEvent', { auditeventuuid: p.createEvent })).body.details.after).toEqual(p.profile);
}

describe('erasure', () => {
  it('by UserDelete leaves nothing of the person that opens, anywhere', async ({ vault }) => {
    const [p, other] = [await person(vault), await person(vault)];
    expect((await vault.call('UserDelete', p.ref)).status).toBe(200);
    await expectErased(vault, p);
    await expectIntact(vault, other);
  });

  it('by an approved forget-me request does too, and the request record survives without personal data', async ({ vault }) => {
    const [p, other] = [await person(vault), await person(vault)];
    const requestuuid = (await vault.call('UserDeleteRequest', p.ref)).body.requestuuid as string;
    expect((await vault.call('UserRequestApprove', { requestuuid, reason: 'asked' })).status).toBe(200);
    await expectErased(vault, p);
    await expectIntact(vault, other);
    const record = await vault.call('UserRequestGet', { requestuuid });
    expect(record.status).toBe(200);
    expect(record.body.request).toMatchObject({ requestuuid, requesttype: 'forget-me', status: 'approved', token: p.token, change: null });
    const again = await vault.call('UserRequestApprove', { requestuuid });
    expect(again.status).toBe(409);
    expect(again.body.message).toBe('This user request is closed');
  });

  it('by UserDeleteBulk does too', async ({ vault }) => {
    const [p, other] = [await person(vault), await person(vault)];
    const res = await vault.call('UserDeleteBulk', { users: [{ mode: 'token', identity: p.token }] });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    await expectErased(vault, p);
    await expectIntact(vault, other);
  });

  it('by the sweeper at expiry does too', async ({ vault }) => {
    const p = await person(vault, { finaltime: '1d' });
    const other = await person(vault);
    await vault.api.services.sweeper.sweepOnce(nowSeconds() + 2 * 86400);
    await expectErased(vault, p);
    expect((await vault.call('UserGet', other.ref)).status).toBe(200);
  });

  it('is not what SystemDeleteUserProfiles does: the key stays and the person can be restored', async ({ vault }) => {
    const p = await person(vault);
    const unlockuuid = (await vault.call('BulkListUnlock')).body.unlockuuid as string;
    expect((await vault.call('SystemDeleteUserProfiles', { unlockuuid, mode: 'token', identity: p.token, tenantid: 1 })).status).toBe(200);
    expect((await vault.call('UserGet', p.ref)).status).toBe(404);
    const restored = await vault.call('SystemRestoreUserProfile', { unlockuuid, token: p.token, tenantid: 1 });
    expect(restored.status, JSON.stringify(restored.body)).toBe(200);
    expect((await vault.call('UserGet', p.ref)).body.profile).toEqual({ ...p.profile, city: 'Tartu' });
    expect((await vault.call('AuditGetEvent', { auditeventuuid: p.createEvent })).body.details.after).toEqual(p.profile);
  });
});

describe('a data backup restored after an erasure', () => {
  it('brings nothing back: with the key table kept apart, the person reads as erased and is swept; others are intact', async ({ vault }) => {
    const [p, other] = [await person(vault), await person(vault)];
    const conn = vault.api.services.db.orm.em.getConnection();
    // The "backup" of the data: every row about the person, as a dump of the data database would hold it. The key
    // table is not in it (it lives apart, on a short retention).
    const tables = ['users', 'user_versions', 'app_records', 'app_versions', 'agreements', 'sessions', 'files', 'user_requests'];
    const backup: Record<string, Record<string, unknown>[]> = {};
    for (const t of tables) {
      const column = t === 'users' || t === 'user_versions' ? 'token' : 'user_token';
      backup[t] = (await conn.execute(`select * from tenant_1.${t} where ${column} = ?`, [p.token])) as Record<string, unknown>[];
    }
    expect(backup.users).toHaveLength(1);
    expect((await vault.call('UserDelete', p.ref)).status).toBe(200);

    // Restore the data rows (not the keys).
    for (const t of tables) {
      for (const row of backup[t]!) {
        const columns = Object.keys(row).filter((c) => !(t === 'users' && c === 'seq'));
        const values = columns.map((c) => row[c]);
        await vault.api.services.db.global().sql.query(`insert into tenant_1.${t} (${columns.map((c) => `"${c}"`).join(', ')}) values (${columns.map((_, i) => `$${i + 1}`).join(', ')})`,
          values,
        );
      }
    }
    expect(await conn.execute(`select 1 from tenant_1.users where token = ?`, [p.token])).toHaveLength(1);
    await expectErasedReads(vault, p);
    await expectIntact(vault, other);
    await vault.api.services.sweeper.sweepOnce();
    expect(await conn.execute(`select 1 from tenant_1.users where token = ?`, [p.token])).toEqual([]);
    await expectErased(vault, p);
  });
});

/** The read paths of expectErased, for rows that still exist in the database but whose key is gone. */
async function expectErasedReads(vault: TestVault, p: Person) {
  for (const [mode, identity] of [['token', p.token], ['email', p.profile.email]]) {
    expect((await vault.call('UserGet', { mode, identity })).status, `UserGet by ${mode}`).toBe(404);
  }
  for (const [op, body] of [
    ['UserListVersions', p.ref],
    ['AppdataGet', { ...p.ref, appname: 'shop' }],
    ['SessionGet', { sessionuuid: p.sessionuuid }],
    ['AgreementListUserAgreements', p.ref],
    ['FileListUserFiles', p.ref],
    ['SystemGetUserReport', p.ref],
  ] as [string, Record<string, unknown>][]) {
    const res = await vault.call(op, body);
    expect(res.status, `${op} ${JSON.stringify(res.body)}`).toBe(404);
  }
  expect((await vault.call('AuditGetEvent', { auditeventuuid: p.createEvent })).body.details).toEqual({ erased: true });
  const unlockuuid = (await vault.call('BulkListUnlock')).body.unlockuuid as string;
  expect(JSON.stringify((await vault.call('BulkListAllUsers', { unlockuuid, limit: 1000 })).body)).not.toContain(p.token);
}
