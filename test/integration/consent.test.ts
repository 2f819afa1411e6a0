// Legal bases, agreements and processing activities over HTTP: the happy paths, the aliases and time forms,
// expiry, the error cases, and what a login xtoken may do with its own consent.
import { describe, expect } from 'vitest';
import { it, buildProfile, type TestVault } from '../fixtures/vault.js';
import { nowSeconds } from '../../api/vault/durations.js';

async function user(vault: TestVault): Promise<{ token: string; email: string }> {
  const profile = buildProfile();
  const res = await vault.call('UserCreate', { profile });
  return { token: res.body.token as string, email: profile.email as string };
}

let seq = 0;
async function basis(vault: TestVault, extra: Record<string, unknown> = {}): Promise<string> {
  const brief = `basis-${++seq}-${Date.now() % 100000}`;
  const res = await vault.call('LegalBasisCreate', { brief, shortdesc: 'Newsletter', ...extra });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return brief;
}

describe('legal bases', () => {
  it('are created, listed, updated (and renamed), and refused twice', async ({ vault }) => {
    const brief = await basis(vault, { module: 'marketing', basistype: 'Legitimate_Interest', requiredflag: true, requiredmsg: 'needed' });
    const list = await vault.call('LegalBasisListAgreements');
    const row = list.body.rows.find((r: { brief: string }) => r.brief === brief);
    expect(row).toMatchObject({ brief, status: 'active', module: 'marketing', basistype: 'legitimate-interest', requiredflag: true, requiredmsg: 'needed' });
    expect(list.body.total).toBe(list.body.rows.length);
    expect(row!.creationtime).toBeGreaterThan(0);

    const dup = await vault.call('LegalBasisCreate', { brief: brief.toUpperCase() });
    expect(dup.status).toBe(409);
    expect(dup.body.message).toBe('The legal basis record already exists');

    // Clearing the flag drops the message; a rename carries the basis over.
    expect((await vault.call('LegalBasisUpdate', { brief, requiredflag: false, status: 'disabled' })).status).toBe(200);
    const renamed = `${brief}-v2`;
    expect((await vault.call('LegalBasisUpdate', { brief, newbrief: renamed, fulldesc: 'Full' })).status).toBe(200);
    const after = (await vault.call('LegalBasisListAgreements')).body.rows.find((r: { brief: string }) => r.brief === renamed);
    expect(after).toMatchObject({ status: 'inactive', requiredflag: false, requiredmsg: null, fulldesc: 'Full', module: 'marketing' });
    expect((await vault.call('LegalBasisUpdate', { brief, status: 'active' })).status).toBe(404);
  });

  it('answers 400 naming the field for bad input and 404 for an unknown brief', async ({ vault }) => {
    expect((await vault.call('LegalBasisCreate', {})).body.message).toBe('Missing API request parameters: brief');
    expect((await vault.call('LegalBasisCreate', { brief: 'has space' })).body.message).toMatch(/brief/);
    expect((await vault.call('LegalBasisCreate', { brief: 'x'.repeat(65) })).status).toBe(400);
    expect((await vault.call('LegalBasisCreate', { brief: 'ok-brief-x', basistype: 'whim' })).body.message).toMatch(/basistype/);
    expect((await vault.call('LegalBasisCreate', { brief: 'ok-brief-y', status: 'maybe' })).body.message).toMatch(/status/);
    expect((await vault.call('LegalBasisCreate', { brief: 'ok-brief-z', requiredflag: 'perhaps' })).body.message).toMatch(/requiredflag/);
    const missing = await vault.call('LegalBasisDelete', { brief: 'never-was' });
    expect(missing.status).toBe(404);
    expect(missing.body.message).toBe('The legal basis record was not found');
  });

  it('go when unused, and are kept as deleted with their agreements revoked when used', async ({ vault }) => {
    const unused = await basis(vault);
    expect((await vault.call('LegalBasisDelete', { brief: unused })).body.result).toBe('deleted');
    const used = await basis(vault);
    const u = await user(vault);
    await vault.call('AgreementAccept', { mode: 'token', identity: u.token, brief: used });
    expect((await vault.call('LegalBasisDelete', { brief: used })).body.result).toBe('marked');
    expect((await vault.call('LegalBasisListAgreements')).body.rows.map((r: { brief: string }) => r.brief)).not.toContain(used);
    expect((await vault.call('AgreementGet', { mode: 'token', identity: u.token, brief: used })).body.agreement.status).toBe('revoked');
    expect((await vault.call('AgreementAccept', { mode: 'token', identity: u.token, brief: used })).status).toBe(404);
    // The brief can be created again.
    expect((await vault.call('LegalBasisCreate', { brief: used })).status).toBe(200);
  });
});

describe('agreements', () => {
  it('are accepted by any identification mode, read back with one canonical status, listed and cancelled', async ({ vault }) => {
    const u = await user(vault);
    const brief = await basis(vault);
    const accepted = await vault.call('AgreementAccept', {
      mode: 'email',
      identity: u.email,
      brief,
      agreementmethod: 'web-form',
      referencecode: 'ref-1',
      lastmodifiedby: 'dpo',
      status: 'yes',
      finaltime: '1y',
    });
    expect(accepted.status, JSON.stringify(accepted.body)).toBe(200);
    const got = await vault.call('AgreementGet', { mode: 'token', identity: u.token, brief });
    const now = nowSeconds();
    expect(got.body.agreement).toMatchObject({
      brief,
      token: u.token,
      status: 'active',
      agreementmethod: 'web-form',
      referencecode: 'ref-1',
      lastmodifiedby: 'dpo',
      mode: 'email',
      who: u.email,
    });
    expect(got.body.agreement.endtime).toBeGreaterThan(now + 364 * 86_400);
    expect(got.body.agreement.finaltime).toBe(got.body.agreement.endtime);
    expect(Math.abs(got.body.agreement.starttime - now)).toBeLessThan(60);

    const second = await basis(vault);
    await vault.call('AgreementAccept', { mode: 'token', identity: u.token, brief: second, status: 'accept' });
    const list = await vault.call('AgreementListUserAgreements', { mode: 'token', identity: u.token });
    expect(list.body.total).toBe(2);
    expect(list.body.rows.map((r: { brief: string }) => r.brief).sort()).toEqual([brief, second].sort());
    expect(list.body.rows.find((r: { brief: string }) => r.brief === second).agreementmethod).toBe('api');

    expect((await vault.call('AgreementCancel', { mode: 'token', identity: u.token, brief })).status).toBe(200);
    const cancelled = (await vault.call('AgreementGet', { mode: 'token', identity: u.token, brief })).body.agreement;
    expect(cancelled).toMatchObject({ status: 'canceled', endtime: 0 });
    // Accepting again replaces the record.
    await vault.call('AgreementAccept', { mode: 'token', identity: u.token, brief, status: 'active' });
    expect((await vault.call('AgreementGet', { mode: 'token', identity: u.token, brief })).body.agreement.status).toBe('active');
  });

  it('take every status alias and time form, and refuse the rest naming the field', async ({ vault }) => {
    const u = await user(vault);
    const ref = { mode: 'token', identity: u.token };
    const brief = await basis(vault);
    for (const [alias, canonical] of [
      ['agree', 'active'],
      [true, 'active'],
      ['no', 'canceled'],
      ['cancel', 'canceled'],
      ['revoked', 'revoked'],
      ['expired', 'expired'],
      ['pending', 'pending'],
    ] as const) {
      const res = await vault.call('AgreementAccept', { ...ref, brief, status: alias });
      expect(res.status, `${alias} ${JSON.stringify(res.body)}`).toBe(200);
      expect((await vault.call('AgreementGet', { ...ref, brief })).body.agreement.status).toBe(canonical);
    }
    const start = nowSeconds() + 86_400;
    await vault.call('AgreementAccept', { ...ref, brief, starttime: new Date(start * 1000).toISOString(), finaltime: String(start + 86_400) });
    const later = (await vault.call('AgreementGet', { ...ref, brief })).body.agreement;
    expect(later).toMatchObject({ status: 'pending', starttime: start, endtime: start + 86_400 });
    await vault.call('AgreementAccept', { ...ref, brief, starttime: '2030-01-01', finaltime: '2031-01-01' });
    expect((await vault.call('AgreementGet', { ...ref, brief })).body.agreement).toMatchObject({
      starttime: Date.UTC(2030, 0, 1) / 1000,
      endtime: Date.UTC(2031, 0, 1) / 1000,
    });

    expect((await vault.call('AgreementAccept', { ...ref, brief, status: 'whatever' })).body.message).toMatch(/status/);
    expect((await vault.call('AgreementAccept', { ...ref, brief, finaltime: 'soon' })).body.message).toMatch(/finaltime/);
    expect((await vault.call('AgreementAccept', { ...ref, brief, starttime: 'later' })).body.message).toMatch(/starttime/);
    expect((await vault.call('AgreementAccept', { ...ref, brief, starttime: '2031-01-01', finaltime: '2030-01-01' })).body.message).toMatch(/finaltime/);
    expect((await vault.call('AgreementAccept', { ...ref })).body.message).toBe('Missing API request parameters: brief');
    expect((await vault.call('AgreementAccept', { brief })).body.message).toBe('Missing API request parameters: mode, identity');
  });

  it('answer 404 for an unknown user, brief or agreement, and 409 for an inactive basis', async ({ vault }) => {
    const u = await user(vault);
    const ref = { mode: 'token', identity: u.token };
    const brief = await basis(vault);
    const nobody = { mode: 'email', identity: 'nobody@example.invalid' };
    expect((await vault.call('AgreementAccept', { ...nobody, brief })).body.message).toBe('The user record was not found');
    expect((await vault.call('AgreementAccept', { ...ref, brief: 'no-such-basis' })).body.message).toBe('The legal basis record was not found');
    const none = await vault.call('AgreementGet', { ...ref, brief });
    expect(none.status).toBe(404);
    expect(none.body.message).toBe('The agreement record was not found');
    expect((await vault.call('AgreementCancel', { ...ref, brief })).status).toBe(404);
    expect((await vault.call('AgreementListUserAgreements', nobody)).status).toBe(404);
    const inactive = await basis(vault, { status: 'inactive' });
    const refused = await vault.call('AgreementAccept', { ...ref, brief: inactive });
    expect(refused.status).toBe(409);
    expect(refused.body.message).toBe('The legal basis is not active');
  });

  it('read as expired past their end, before and after the sweeper marks them', async ({ vault }) => {
    const u = await user(vault);
    const ref = { mode: 'token', identity: u.token };
    const brief = await basis(vault);
    await vault.call('AgreementAccept', { ...ref, brief, finaltime: '1d' });
    const db = vault.api.services.db.orm.em.getConnection();
    // The day passes: the stored end moves back instead of the test sleeping.
    await db.execute('update tenant_1.agreements set endtime = ? where user_token = ? and brief = ?', [nowSeconds() - 5, u.token, brief]);
    expect((await vault.call('AgreementGet', { ...ref, brief })).body.agreement.status).toBe('expired');
    await vault.api.services.sweeper.sweepOnce();
    const [row] = await db.execute('select status from tenant_1.agreements where user_token = ? and brief = ?', [u.token, brief]);
    expect(row!.status).toBe('expired');
    expect((await vault.call('AgreementGet', { ...ref, brief })).body.agreement.status).toBe('expired');
  });

  it('begin at a start that lay ahead, while a pending given without one stays pending', async ({ vault }) => {
    const db = vault.api.services.db.orm.em.getConnection();
    const scheduled = await user(vault);
    const held = await user(vault);
    const brief = await basis(vault);
    await vault.call('AgreementAccept', { mode: 'token', identity: scheduled.token, brief, starttime: '1d' });
    await vault.call('AgreementAccept', { mode: 'token', identity: held.token, brief, status: 'pending' });
    // A day passes for both: every stored time moves back instead of the test sleeping.
    await db.execute('update tenant_1.agreements set starttime = starttime - 86400 - 5, updated = updated - 86400 - 5, creationtime = creationtime - 86400 - 5 where brief = ?', [brief]);
    expect((await vault.call('AgreementGet', { mode: 'token', identity: scheduled.token, brief })).body.agreement.status).toBe('active');
    expect((await vault.call('AgreementGet', { mode: 'token', identity: held.token, brief })).body.agreement.status).toBe('pending');
    await vault.api.services.sweeper.sweepOnce();
    const rows = await db.execute('select user_token, status from tenant_1.agreements where brief = ? order by status', [brief]);
    expect(rows.map((r) => [r.user_token, r.status])).toEqual([
      [scheduled.token, 'active'],
      [held.token, 'pending'],
    ]);
  });

  it('are all revoked for one brief by AgreementRevokeAll, and go with their user', async ({ vault }) => {
    const brief = await basis(vault);
    const a = await user(vault);
    const b = await user(vault);
    await vault.call('AgreementAccept', { mode: 'token', identity: a.token, brief });
    await vault.call('AgreementAccept', { mode: 'token', identity: b.token, brief });
    const res = await vault.call('AgreementRevokeAll', { brief });
    expect(res.body).toEqual({ status: 'ok', revoked: 2 });
    expect((await vault.call('AgreementGet', { mode: 'token', identity: a.token, brief })).body.agreement.status).toBe('revoked');
    expect((await vault.call('AgreementRevokeAll', { brief: 'no-such-basis' })).status).toBe(404);
    await vault.call('UserDelete', { mode: 'token', identity: a.token });
    const [count] = await vault.api.services.db.orm.em.getConnection().execute('select count(*)::int as n from tenant_1.agreements where user_token = ?', [a.token]);
    expect(count!.n).toBe(0);
  });

  it('keep their free-text details sealed in the database', async ({ vault }) => {
    const u = await user(vault);
    const brief = await basis(vault);
    await vault.call('AgreementAccept', { mode: 'token', identity: u.token, brief, referencecode: 'VISIBLE-REFERENCE-42' });
    const [row] = await vault.api.services.db.orm.em.getConnection().execute('select details from tenant_1.agreements where user_token = ?', [u.token]);
    expect(Buffer.from(row!.details).toString('latin1')).not.toContain('VISIBLE-REFERENCE-42');
  });

  it('are given and read by the person’s own login xtoken, but withdrawn only through a request', async ({ vault }) => {
    const u = await user(vault);
    const other = await user(vault);
    const brief = await basis(vault);
    const login = { 'x-bunker-token': (await vault.call('XTokenCreateForUser', { mode: 'token', identity: u.token })).body.xtoken };
    expect((await vault.call('AgreementAccept', { mode: 'token', identity: u.token, brief }, login)).status).toBe(200);
    expect((await vault.call('AgreementGet', { mode: 'token', identity: u.token, brief }, login)).body.agreement.status).toBe('active');
    expect((await vault.call('AgreementAccept', { mode: 'token', identity: other.token, brief }, login)).status).toBe(403);
    expect((await vault.call('AgreementCancel', { mode: 'token', identity: u.token, brief }, login)).status).toBe(403);
    expect((await vault.call('LegalBasisCreate', { brief: 'by-login' }, login)).status).toBe(403);
    const req = await vault.call('AgreementCancelRequest', { mode: 'token', identity: u.token, brief }, login);
    expect(req.body.requestuuid).toMatch(/^[0-9a-f-]{36}$/);
  });
});

describe('processing activities', () => {
  it('are created, linked to legal bases, listed, updated, unlinked and deleted', async ({ vault }) => {
    const brief = await basis(vault);
    const activity = `newsletter-${Date.now() % 100000}`;
    expect((await vault.call('ProcessingActivityCreate', { activity, title: 'Newsletter', script: 'send.sh', fulldesc: 'Weekly', applicableto: 'customers' })).status).toBe(200);
    expect((await vault.call('ProcessingActivityCreate', { activity })).status).toBe(409);
    expect((await vault.call('ProcessingActivityLinkLegalBasis', { activity, brief })).status).toBe(200);
    expect((await vault.call('ProcessingActivityLinkLegalBasis', { activity, brief })).status).toBe(200);
    let rows = (await vault.call('ProcessingActivityListActivities')).body.rows;
    expect(rows.find((r: { activity: string }) => r.activity === activity)).toMatchObject({
      activity,
      title: 'Newsletter',
      script: 'send.sh',
      fulldesc: 'Weekly',
      applicableto: 'customers',
      legalbasis: [brief],
    });
    const renamed = `${activity}-2`;
    expect((await vault.call('ProcessingActivityUpdate', { activity, newactivity: renamed, title: 'Digest' })).status).toBe(200);
    rows = (await vault.call('ProcessingActivityListActivities')).body.rows;
    expect(rows.find((r: { activity: string }) => r.activity === renamed)).toMatchObject({ title: 'Digest', script: 'send.sh', legalbasis: [brief] });
    expect((await vault.call('ProcessingActivityUnlinkLegalBasis', { activity: renamed, brief })).status).toBe(200);
    rows = (await vault.call('ProcessingActivityListActivities')).body.rows;
    expect(rows.find((r: { activity: string }) => r.activity === renamed).legalbasis).toEqual([]);
    expect((await vault.call('ProcessingActivityDelete', { activity: renamed })).status).toBe(200);
    expect((await vault.call('ProcessingActivityDelete', { activity: renamed })).status).toBe(404);
  });

  it('answer 404 for an unknown activity or brief and 400 naming the field', async ({ vault }) => {
    const brief = await basis(vault);
    const missing = await vault.call('ProcessingActivityLinkLegalBasis', { activity: 'no-such-activity', brief });
    expect(missing.status).toBe(404);
    expect(missing.body.message).toBe('The processing activity record was not found');
    await vault.call('ProcessingActivityCreate', { activity: 'act-x' });
    expect((await vault.call('ProcessingActivityLinkLegalBasis', { activity: 'act-x', brief: 'no-such-basis' })).status).toBe(404);
    expect((await vault.call('ProcessingActivityUpdate', { activity: 'no-such-activity', title: 't' })).status).toBe(404);
    expect((await vault.call('ProcessingActivityCreate', {})).body.message).toBe('Missing API request parameters: activity');
    expect((await vault.call('ProcessingActivityCreate', { activity: 'bad activity!' })).body.message).toMatch(/activity/);
    expect((await vault.call('ProcessingActivityCreate', { activity: 'act-y', title: 5 })).body.message).toMatch(/title/);
  });
});
