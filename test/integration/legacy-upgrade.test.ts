// The upgrade of a database sealed before per-person keys (test/fixtures/legacy: made by commit 11833ee itself).
// Today's vault starts on it, answers 503 with Retry-After for the tenants not yet upgraded (never a 500, never
// legacy bytes read as today's), reseals everything under per-person keys in the background, resumes after a
// restart, re-chains the audit trail under the keyed chain saying so in the trail, and reports a tampered legacy
// chain. Then every person reads back exactly what the legacy vault was given, by every lookup mode.
import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { expected, legacySql, startLegacyVault, type LegacyVault } from '../fixtures/legacy/load.js';

const ex = expected();
const adminOf = (tenant: string) => ex.tenants[tenant]!.adminToken ?? ex.rootToken;

async function readyz(vault: LegacyVault): Promise<{ status: number; body: Record<string, any> }> {
  const res = await fetch(`http://127.0.0.1:${vault.port}/readyz`);
  return { status: res.status, body: (await res.json()) as Record<string, any> };
}

async function upgraded(vault: LegacyVault): Promise<void> {
  await expect.poll(async () => (await readyz(vault)).body.keyring, { timeout: 60_000, interval: 100 }).toBe('ok');
}

async function sql<T = Record<string, unknown>>(vault: LegacyVault, text: string): Promise<T[]> {
  return (await vault.api.services.db.orm.em.getConnection().execute(text)) as T[];
}

/** Every sealed column of every tenant: how many values are still in the legacy format (0x01). */
async function legacyValuesLeft(vault: LegacyVault): Promise<number> {
  let n = 0;
  for (const t of Object.keys(ex.tenants)) {
    const s = `tenant_${t}`;
    const [r] = await sql<{ n: number }>(
      vault,
      `select (select count(*) from ${s}.users where get_byte(profile, 0) = 1) + (select count(*) from ${s}.user_versions where get_byte(profile, 0) = 1)
        + (select count(*) from ${s}.app_records where get_byte(data, 0) = 1) + (select count(*) from ${s}.app_versions where get_byte(data, 0) = 1)
        + (select count(*) from ${s}.sessions where get_byte(data, 0) = 1) + (select count(*) from ${s}.agreements where get_byte(details, 0) = 1)
        + (select count(*) from ${s}.user_requests where get_byte(change, 0) = 1) + (select count(*) from ${s}.files where get_byte(name_sealed, 0) = 1)
        + (select count(*) from ${s}.tokens where get_byte(sealed, 0) = 1) + (select count(*) from ${s}.audit_events where get_byte(details, 0) = 1)
        + (select count(*) from ${s}.audit_events where digest is null) as n`,
    );
    n += Number(r!.n);
  }
  return n;
}

/** The person's whole legacy record, read back through the API by every mode; each mismatch fails the test. */
async function readsBack(vault: LegacyVault, tenant: string, p: any): Promise<void> {
  const as = adminOf(tenant);
  const modes: [string, string][] = [['token', p.token]];
  for (const m of ['login', 'email', 'phone', 'custom']) if (p.profile[m]) modes.push([m, p.profile[m]]);
  for (const [mode, identity] of modes) {
    const got = await vault.call('UserGet', { mode, identity }, as);
    expect(got.status, `${mode}`).toBe(200);
    expect(got.body.token).toBe(p.token);
    expect(got.body.profile).toEqual(p.profile);
  }
  for (const [i, v] of (p.versions as unknown[]).entries()) {
    expect((await vault.call('UserGet', { mode: 'token', identity: p.token, version: i + 1 }, as)).body.profile).toEqual(v);
  }
  if (!p.appdata) return;
  const app = await vault.call('AppdataGet', { mode: 'token', identity: p.token, appname: 'shop' }, as);
  expect(app.body.appdata).toEqual(p.appdata.shop);
  // Each version's MD5 is computed from its opened content: both app versions opened as they were sealed.
  const md5 = (v: unknown) => createHash('md5').update(JSON.stringify(v)).digest('hex');
  const versions = await vault.call('AppdataListVersions', { mode: 'token', identity: p.token, appname: 'shop' }, as);
  expect(versions.body.versions.map((v: any) => v.md5)).toEqual(p.appdataVersions.shop.map(md5));
  const session = await vault.call('SessionGet', { sessionuuid: p.session.sessionuuid }, as);
  expect(session.body.sessiondata, JSON.stringify(session.body)).toEqual(p.session.data);
  expect(session.body.token).toBe(p.token);
  const agreement = await vault.call('AgreementGet', { mode: 'token', identity: p.token, brief: 'marketing' }, as);
  expect(agreement.body.agreement).toMatchObject({ ...p.agreement, token: p.token, status: 'active' });
  const request = await vault.call('UserRequestGet', { requestuuid: p.request.requestuuid }, as);
  expect(request.body.request).toMatchObject({ token: p.token, status: 'open', change: p.request.change });
  const file = await vault.call('FileGet', { mode: 'token', identity: p.token, fileuuid: p.file.fileuuid }, as);
  expect({ filename: file.body.filename, content: file.body.filedata }).toEqual({ filename: p.file.filename, content: p.file.content });
  const listed = await vault.call('FileListUserFiles', { mode: 'token', identity: p.token }, as);
  expect(JSON.stringify(listed.body)).toContain(p.file.filename);
  const shared = await vault.call('SharedRecordGet', { recorduuid: p.shared.recorduuid }, as);
  expect(shared.body.data).toEqual(p.shared.data);
  // Every audit event about the person opens; the legacy UserCreate's details are their first profile.
  const events = await vault.call('AuditListUserEvents', { mode: 'token', identity: p.token, offset: 0, limit: 100 }, as);
  expect(events.body.total).toBeGreaterThan(10);
  let created: any;
  for (const e of events.body.rows) {
    const one = await vault.call('AuditGetEvent', { auditeventuuid: e.auditeventuuid }, as);
    expect(one.status).toBe(200);
    expect(one.body.details?.erased).toBeUndefined();
    if (e.title === 'UserCreate') created = one.body.details;
  }
  expect(created.after ?? created).toMatchObject(p.versions[0]);
}

describe('upgrading a legacy database', () => {
  it('reseals every value under per-person keys, re-chains the trail, and every person reads back their data', async () => {
    const vault = await startLegacyVault();
    try {
      await upgraded(vault);
      expect(await legacyValuesLeft(vault)).toBe(0);
      const status = await vault.call('SystemGetKeyringStatus', {});
      expect(status.body.legacy).toEqual(
        Object.keys(ex.tenants).map((t) => expect.objectContaining({ tenant: Number(t), phase: 'done', persons: { done: ex.tenants[t]!.people.length, total: ex.tenants[t]!.people.length } })),
      );
      for (const [tenant, { people }] of Object.entries(ex.tenants)) {
        for (const p of people) await readsBack(vault, tenant, p);
        const verified = await vault.call('AuditVerify', {}, adminOf(tenant));
        expect(verified.body.result).toBe('intact');
        // The trail itself says what happened to it, from which legacy head.
        const verdict = status.body.legacy.find((l: any) => l.tenant === Number(tenant)).legacyaudit;
        expect(verdict).toMatchObject({ result: 'intact' });
        const [event] = await sql<{ title: string; status: string; msg: string; seq: string }>(vault, `select title, status, msg, seq from tenant_${tenant}.audit_events where title = 'LegacyAuditRechained'`);
        expect(event).toMatchObject({ status: 'ok' });
        expect(event!.msg).toContain(`from a legacy sha256 chain of ${verdict.events} events whose head was ${verdict.head}`);
        expect(event!.msg).toContain('the legacy chain verified intact');
      }
      const t1 = ex.tenants['1']!;
      expect((await vault.call('TokenGet', { token: t1.token!.tokenbase })).body.record).toBe(t1.token!.record);
      expect((await vault.call('SessionGet', { sessionuuid: t1.anonymousSession!.sessionuuid })).body.sessiondata).toEqual(t1.anonymousSession!.data);

      // A migrated person erased: nothing of theirs opens any more.
      const gone = t1.people[1];
      expect((await vault.call('UserDelete', { mode: 'token', identity: gone.token })).status).toBe(200);
      for (const [mode, identity] of [['token', gone.token], ['login', gone.profile.login], ['email', gone.profile.email], ['phone', gone.profile.phone]]) {
        expect((await vault.call('UserGet', { mode, identity })).status).toBe(404);
      }
      expect((await vault.call('SessionGet', { sessionuuid: gone.session.sessionuuid })).status).toBe(404);
      expect((await vault.call('SharedRecordGet', { recorduuid: gone.shared.recorduuid })).status).toBe(404);
      const [key] = await sql<{ wrapped: Buffer | null }>(vault, `select wrapped from tenant_1.subject_keys where token = '${gone.token}'`);
      expect(key!.wrapped).toBeNull();
      const events = await sql<{ uuid: string }>(vault, `select uuid from tenant_1.audit_events where record = '${gone.token}' and title = 'UserCreate'`);
      expect((await vault.call('AuditGetEvent', { auditeventuuid: events[0]!.uuid })).body.details).toEqual({ erased: true });
      // The other person of the tenant is untouched.
      await readsBack(vault, '1', t1.people[0]);
      expect((await vault.call('AuditVerify', {})).body.result).toBe('intact');
    } finally {
      await vault.stop();
    }
  });

  it('answers 503 with Retry-After until a tenant is done, never a 500 or wrong data, and resumes after a restart', async () => {
    // One person per transaction and a long pause: slow enough to call, and to restart, in the middle.
    const vault = await startLegacyVault({ env: { STRONGROOM_LEGACY_BATCH: '1', STRONGROOM_REWRAP_PAUSE_MS: '250', STRONGROOM_REWRAP_SECONDS: '1' } });
    try {
      const first = await readyz(vault);
      expect(first.status).toBe(200);
      expect(first.body.keyring).toBe('migrating');
      const p = ex.tenants['1']!.people[0];
      const answers = new Map<number, number>();
      const during = async () => {
        const got = await vault.call('UserGet', { mode: 'email', identity: p.profile.email });
        answers.set(got.status, (answers.get(got.status) ?? 0) + 1);
        if (got.status === 503) {
          expect(got.headers.get('retry-after')).toBe('1');
          expect(got.body.message).toBe("This tenant's data is being upgraded to per-person keys: try again shortly");
        } else {
          expect(got.status).toBe(200);
          expect(got.body.profile).toEqual(p.profile);
        }
      };
      // Mid-migration: some persons done, not all.
      await expect
        .poll(
          async () => {
            await during();
            const s = (await vault.call('SystemGetKeyringStatus', {})).body.legacy.find((l: any) => l.tenant === 1);
            return s.persons.done > 0 && s.phase !== 'done';
          },
          { timeout: 30_000, interval: 50 },
        )
        .toBe(true);
      await vault.restart({ STRONGROOM_LEGACY_BATCH: '1', STRONGROOM_REWRAP_PAUSE_MS: '100', STRONGROOM_REWRAP_SECONDS: '1' });
      const after = await readyz(vault);
      expect(after.body.keyring).toBe('migrating');
      expect(after.body.migration.find((m: any) => m.tenant === 1).persons.done).toBeGreaterThan(0);
      await expect
        .poll(
          async () => {
            await during();
            return (await readyz(vault)).body.keyring;
          },
          { timeout: 60_000, interval: 50 },
        )
        .toBe('ok');
      await during();
      expect(answers.get(503)).toBeGreaterThan(0);
      expect(answers.get(200)).toBeGreaterThan(0);
      expect([...answers.keys()].sort()).toEqual([200, 503]);
      expect(await legacyValuesLeft(vault)).toBe(0);
      for (const [tenant, { people }] of Object.entries(ex.tenants)) for (const q of people) await readsBack(vault, tenant, q);
      expect((await vault.call('AuditVerify', {})).body.result).toBe('intact');
    } finally {
      await vault.stop();
    }
  });

  it('drops the audit details of a person the legacy version erased without a trace', async () => {
    // The legacy UserDelete removed the person's versions and row and nothing else: their events stayed, sealed
    // under the tenant's key. Here the profile-only person of the main tenant was erased that way.
    const person = ex.tenants['1']!.people.find((p: any) => !p.appdata)!;
    const lines = legacySql().split('\n').filter((l) => !(/^INSERT INTO "tenant_1"\."(users|user_versions)"/.test(l) && l.includes(person.token)));
    const vault = await startLegacyVault({ sql: lines.join('\n') });
    try {
      await upgraded(vault);
      const events = await sql<{ uuid: string; details: Buffer | null }>(vault, `select uuid, details from tenant_1.audit_events where record = '${person.token}'`);
      expect(events.length).toBeGreaterThan(0);
      for (const e of events) {
        expect(e.details).toBeNull();
        expect((await vault.call('AuditGetEvent', { auditeventuuid: e.uuid }, adminOf('1'))).body.details).toEqual({ erased: true });
      }
      // Everyone else keeps their details: an event about a live person still opens.
      const live = ex.tenants['1']!.people.find((p: any) => p.appdata)!;
      const [kept] = await sql<{ uuid: string }>(vault, `select uuid from tenant_1.audit_events where record = '${live.token}' and details is not null limit 1`);
      expect((await vault.call('AuditGetEvent', { auditeventuuid: kept!.uuid }, adminOf('1'))).body.details.erased).toBeUndefined();
      expect(await legacyValuesLeft(vault)).toBe(0);
    } finally {
      await vault.stop();
    }
  });

  it('reports a tampered legacy chain in the log, the status and the trail itself', async () => {
    // One legacy event of the main tenant changed after the fact: its title no longer matches its sha256 link.
    const lines = legacySql().split('\n');
    const at = lines.findIndex((l) => l.startsWith('INSERT INTO "tenant_1"."audit_events"') && l.includes("'UserUpdate'"));
    lines[at] = lines[at]!.replace("'UserUpdate'", "'UserGet'");
    const seq = Number(/VALUES \((\d+),/.exec(lines[at]!)![1]);
    const vault = await startLegacyVault({ sql: lines.join('\n') });
    try {
      await upgraded(vault);
      const verdict = (await vault.call('SystemGetKeyringStatus', {})).body.legacy.find((l: any) => l.tenant === 1).legacyaudit;
      expect(verdict).toMatchObject({ result: 'broken', broken: { seq, why: 'link' } });
      const [event] = await sql<{ status: string; msg: string }>(vault, `select status, msg from tenant_1.audit_events where title = 'LegacyAuditRechained'`);
      expect(event!.status).toBe('error');
      expect(event!.msg).toContain(`the legacy chain was found BROKEN at event ${seq} (link)`);
      // The other tenant's chain was not touched and says so.
      const other = (await vault.call('SystemGetKeyringStatus', {})).body.legacy.find((l: any) => l.tenant === 2).legacyaudit;
      expect(other.result).toBe('intact');
    } finally {
      await vault.stop();
    }
  });

  it('refuses a keyring that cannot open the legacy data, and does not take it for the database\'s own', async () => {
    const vault = await startLegacyVault({ otherKeyring: true });
    try {
      const ready = await readyz(vault);
      expect(ready.status).toBe(503);
      expect(ready.body.keyring).toBe('mismatch');
      const refused = await vault.call('UserGet', { mode: 'login', identity: ex.tenants['1']!.people[0].profile.login });
      expect(refused.status).toBe(503);
      expect(refused.body.message).toBe('The keyring does not match this database');
      // No sentinel was sealed with the wrong keyring: the right one is still taken when it comes.
      expect(await sql(vault, `select 1 from strongroom.settings where key = 'keyring.sentinel'`)).toEqual([]);
      expect(await legacyValuesLeft(vault)).toBeGreaterThan(0);
    } finally {
      await vault.stop();
    }
  });
});
