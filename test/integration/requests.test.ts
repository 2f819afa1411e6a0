// The approval workflow over HTTP: each request type opened (by an admin or the person's login xtoken),
// identical open requests folded into one, approval carrying out the stored change, cancellation, 409 once
// closed, the lists, and the error cases.
import { randomUUID } from 'node:crypto';
import { describe, expect } from 'vitest';
import fc from 'fast-check';
import { it, buildProfile, type TestVault } from '../fixtures/vault.js';

async function user(vault: TestVault) {
  const profile = buildProfile();
  const res = await vault.call('UserCreate', { profile });
  const token = res.body.token as string;
  return { token, profile, ref: { mode: 'token', identity: token } };
}

async function loginOf(vault: TestVault, token: string) {
  return { 'x-bunker-token': (await vault.call('XTokenCreateForUser', { mode: 'token', identity: token })).body.xtoken as string };
}

describe('user requests', () => {
  it('change the profile only once approved, by merge or by patch', async ({ vault }) => {
    const u = await user(vault);
    const login = await loginOf(vault, u.token);
    const opened = await vault.call('UserUpdateRequest', { ...u.ref, profile: { name: 'Approved Name', fax: null } }, login);
    expect(opened.status, JSON.stringify(opened.body)).toBe(200);
    const { requestuuid } = opened.body;
    expect((await vault.call('UserGet', u.ref)).body.profile.name).toBe(u.profile.name);

    const got = await vault.call('UserRequestGet', { requestuuid }, login);
    expect(got.body.request).toMatchObject({
      requestuuid,
      requesttype: 'change-profile',
      status: 'open',
      token: u.token,
      change: { profile: { name: 'Approved Name', fax: null } },
      original: u.profile,
    });

    expect((await vault.call('UserRequestApprove', { requestuuid, reason: 'checked' })).status).toBe(200);
    expect((await vault.call('UserGet', u.ref)).body.profile.name).toBe('Approved Name');
    const closed = await vault.call('UserRequestApprove', { requestuuid });
    expect(closed.status).toBe(409);
    expect(closed.body.message).toBe('This user request is closed');
    expect((await vault.call('UserRequestCancel', { requestuuid })).status).toBe(409);
    expect((await vault.call('UserRequestGet', { requestuuid })).body.request).toMatchObject({ status: 'approved', reason: 'checked' });

    const patch = await vault.call('UserPatchRequest', { ...u.ref, patch: [{ op: 'replace', path: '/login', value: 'patched-login-' + Date.now() }] });
    await vault.call('UserRequestApprove', { requestuuid: patch.body.requestuuid });
    expect((await vault.call('UserGet', u.ref)).body.profile.login).toMatch(/^patched-login-/);
    // A patch that cannot apply is refused when asked, not when approved.
    const bad = await vault.call('UserPatchRequest', { ...u.ref, patch: [{ op: 'remove', path: '/no/such/field' }] });
    expect(bad.status).toBe(400);
    expect(bad.body.message).toMatch(/patch/);
  });

  it('fold an identical open request into the existing one, but not a different change', async ({ vault }) => {
    const u = await user(vault);
    const first = await vault.call('UserUpdateRequest', { ...u.ref, profile: { a: 1, b: 2 } });
    const again = await vault.call('UserUpdateRequest', { ...u.ref, profile: { b: 2, a: 1 } });
    expect(again.body).toEqual({ status: 'ok', requestuuid: first.body.requestuuid, result: 'request-exists' });
    const other = await vault.call('UserUpdateRequest', { ...u.ref, profile: { a: 2 } });
    expect(other.body.requestuuid).not.toBe(first.body.requestuuid);
    const del1 = await vault.call('UserDeleteRequest', u.ref);
    const del2 = await vault.call('UserDeleteRequest', u.ref);
    expect(del2.body.requestuuid).toBe(del1.body.requestuuid);
    // Once closed, the same request can be opened anew.
    await vault.call('UserRequestCancel', { requestuuid: del1.body.requestuuid });
    expect((await vault.call('UserDeleteRequest', u.ref)).body.requestuuid).not.toBe(del1.body.requestuuid);
  });

  it('change app data, withdraw consent and erase the person when approved', async ({ vault }) => {
    const u = await user(vault);
    await vault.call('AppdataCreate', { ...u.ref, appname: 'prefs', appdata: { theme: 'dark', lang: 'en' } });
    const app = await vault.call('AppdataUpdateRequest', { ...u.ref, appname: 'prefs', appdata: { lang: 'et' } });
    expect((await vault.call('UserRequestGet', { requestuuid: app.body.requestuuid })).body.request).toMatchObject({
      requesttype: 'change-app-data',
      appname: 'prefs',
      change: { appdata: { lang: 'et' } },
      original: { theme: 'dark', lang: 'en' },
    });
    await vault.call('UserRequestApprove', { requestuuid: app.body.requestuuid });
    expect((await vault.call('AppdataGet', { ...u.ref, appname: 'prefs' })).body.appdata).toEqual({ theme: 'dark', lang: 'et' });
    // App data that does not exist yet is created by the approval.
    const fresh = await vault.call('AppdataUpdateRequest', { ...u.ref, appname: 'fresh', appdata: { x: 1 } });
    await vault.call('UserRequestApprove', { requestuuid: fresh.body.requestuuid });
    expect((await vault.call('AppdataGet', { ...u.ref, appname: 'fresh' })).body.appdata).toEqual({ x: 1 });

    const brief = `req-basis-${Date.now() % 100000}`;
    await vault.call('LegalBasisCreate', { brief });
    await vault.call('AgreementAccept', { ...u.ref, brief });
    const withdraw = await vault.call('AgreementCancelRequest', { ...u.ref, brief });
    expect((await vault.call('AgreementGet', { ...u.ref, brief })).body.agreement.status).toBe('active');
    await vault.call('UserRequestApprove', { requestuuid: withdraw.body.requestuuid });
    expect((await vault.call('AgreementGet', { ...u.ref, brief })).body.agreement.status).toBe('canceled');

    const forget = await vault.call('UserDeleteRequest', u.ref);
    expect((await vault.call('UserGet', u.ref)).status).toBe(200);
    expect((await vault.call('UserRequestApprove', { requestuuid: forget.body.requestuuid })).status).toBe(200);
    expect((await vault.call('UserGet', u.ref)).status).toBe(404);
  });

  it('are listed per person and for the tenant, paginated, and cancelled by their person', async ({ vault }) => {
    const u = await user(vault);
    const login = await loginOf(vault, u.token);
    const uuids: string[] = [];
    for (let i = 0; i < 3; i++) uuids.push((await vault.call('UserUpdateRequest', { ...u.ref, profile: { n: i } })).body.requestuuid);
    const page = await vault.call('UserRequestListUserRequests', { ...u.ref, offset: 1, limit: 1 }, login);
    expect(page.body.total).toBe(3);
    expect(page.body.rows).toHaveLength(1);
    expect(page.body.rows[0]).toMatchObject({ requesttype: 'change-profile', status: 'open', token: u.token });
    expect(page.body.rows[0].change).toBeUndefined();

    expect((await vault.call('UserRequestCancel', { requestuuid: uuids[0] }, login)).status).toBe(200);
    expect((await vault.call('UserRequestGet', { requestuuid: uuids[0] })).body.request).toMatchObject({ status: 'canceled', reason: 'user operation' });
    // A login xtoken may not approve, nor touch someone else's requests.
    expect((await vault.call('UserRequestApprove', { requestuuid: uuids[1] }, login)).status).toBe(403);
    const other = await user(vault);
    const theirs = await vault.call('UserDeleteRequest', other.ref);
    expect((await vault.call('UserRequestGet', { requestuuid: theirs.body.requestuuid }, login)).status).toBe(403);
    expect((await vault.call('UserRequestCancel', { requestuuid: theirs.body.requestuuid }, login)).status).toBe(403);
    expect((await vault.call('UserDeleteRequest', other.ref, login)).status).toBe(403);

    const unlockuuid = (await vault.call('BulkListUnlock')).body.unlockuuid;
    const open = await vault.call('BulkListAllUserRequests', { unlockuuid, limit: 100 });
    expect(open.status).toBe(200);
    const openUuids = open.body.rows.map((r: { requestuuid: string }) => r.requestuuid);
    expect(openUuids).toEqual(expect.arrayContaining([uuids[1], uuids[2], theirs.body.requestuuid]));
    expect(openUuids).not.toContain(uuids[0]);
    expect(open.body.rows.every((r: { status: string }) => r.status === 'open')).toBe(true);
    const canceled = await vault.call('BulkListAllUserRequests', { unlockuuid, status: 'canceled', limit: 100 });
    expect(canceled.body.rows.map((r: { requestuuid: string }) => r.requestuuid)).toContain(uuids[0]);
    expect((await vault.call('BulkListAllUserRequests', { unlockuuid: randomUUID() })).status).toBe(403);
    expect((await vault.call('BulkListAllUserRequests', { unlockuuid, status: 'odd' })).body.message).toMatch(/status/);
  });

  it('answer 404 for an unknown person, request, app or agreement and 400 naming the field', async ({ vault }) => {
    const u = await user(vault);
    const nobody = { mode: 'email', identity: 'nobody@example.invalid' };
    expect((await vault.call('UserDeleteRequest', nobody)).status).toBe(404);
    expect((await vault.call('UserUpdateRequest', { ...nobody, profile: {} })).status).toBe(404);
    expect((await vault.call('UserUpdateRequest', u.ref)).body.message).toBe('Missing API request parameters: profile');
    expect((await vault.call('UserPatchRequest', { ...u.ref, patch: [] })).status).toBe(400);
    expect((await vault.call('AppdataUpdateRequest', { ...u.ref, appname: 'bad name', appdata: {} })).body.message).toMatch(/appname/);
    expect((await vault.call('AgreementCancelRequest', { ...u.ref, brief: 'no-such-basis' })).status).toBe(404);
    const missing = await vault.call('UserRequestGet', { requestuuid: randomUUID() });
    expect(missing.status).toBe(404);
    expect(missing.body.message).toBe('The user request was not found');
    expect((await vault.call('UserRequestApprove', { requestuuid: randomUUID() })).status).toBe(404);
    expect((await vault.call('UserRequestCancel', { requestuuid: 'x' })).body.message).toBe('Bad UUID');
    expect((await vault.call('UserRequestListUserRequests', nobody)).status).toBe(404);
  });

  it('keep the proposed change sealed in the database', async ({ vault }) => {
    const u = await user(vault);
    const res = await vault.call('UserUpdateRequest', { ...u.ref, profile: { secret: 'VISIBLE-PROPOSED-VALUE' } });
    const [row] = await vault.api.services.db.orm.em.getConnection().execute('select change from tenant_1.user_requests where requestuuid = ?', [res.body.requestuuid]);
    expect(Buffer.from(row!.change).toString('latin1')).not.toContain('VISIBLE-PROPOSED-VALUE');
  });

  it("notes an approved profile change as UserUpdate does, the request beside it (generated changes)", async ({ vault }) => {
    const field = fc.constantFrom('name', 'city', 'note', 'visits', 'tags');
    const value = fc.oneof(fc.string({ maxLength: 12 }), fc.integer(), fc.array(fc.string({ maxLength: 4 }), { maxLength: 3 }), fc.constant(null));
    await fc.assert(
      fc.asyncProperty(fc.dictionary(field, value, { minKeys: 1 }), async (change) => {
        const u = await user(vault);
        const before = (await vault.call('UserGet', u.ref)).body.profile;
        const opened = await vault.call('UserUpdateRequest', { ...u.ref, profile: change });
        expect(opened.status, JSON.stringify(opened.body)).toBe(200);
        expect((await vault.call('UserRequestApprove', { requestuuid: opened.body.requestuuid })).status).toBe(200);
        const after = (await vault.call('UserGet', u.ref)).body.profile;
        const details = await approvalDetails(vault, u.token);
        expect(details).toMatchObject({ before, after, request: { requestuuid: opened.body.requestuuid, requesttype: 'change-profile', status: 'approved' } });
      }),
      { numRuns: 12 },
    );
  });

  it("keeps the approval's event of other requests as it was: the request, no profile", async ({ vault }) => {
    const u = await user(vault);
    const opened = await vault.call('AppdataUpdateRequest', { ...u.ref, appname: 'prefs', appdata: { theme: 'dark' } });
    expect((await vault.call('UserRequestApprove', { requestuuid: opened.body.requestuuid })).status).toBe(200);
    const details = await approvalDetails(vault, u.token);
    expect(details.before).toBeUndefined();
    expect(details.request).toBeUndefined();
    expect(details.after).toEqual({ requestuuid: opened.body.requestuuid, requesttype: 'change-app-data', status: 'approved' });
  });

  // The stranger's attack of 29 November: an approval that failed (its patch's test, a taken email, a closed
  // request) was audited with no person, so it was missing from the person's trail.
  it("puts a failed approval in the person's trail, with the request and what it tried", async ({ vault }) => {
    const taken = await user(vault);
    const u = await user(vault);
    const takes = await vault.call('UserUpdateRequest', { ...u.ref, profile: { email: taken.profile.email } });
    const approve = await vault.call('UserRequestApprove', { requestuuid: takes.body.requestuuid });
    expect(approve.status).toBe(409);
    const failed = await approvalDetails(vault, u.token, 'error');
    expect(failed).toMatchObject({ before: u.profile, after: { ...u.profile, email: taken.profile.email }, request: { requestuuid: takes.body.requestuuid, status: 'open' } });
    // A patch whose test held when asked and no longer does when approved.
    const tested = await vault.call('UserPatchRequest', { ...u.ref, patch: [{ op: 'test', path: '/name', value: u.profile.name }, { op: 'replace', path: '/name', value: 'x' }] });
    expect(tested.status, JSON.stringify(tested.body)).toBe(200);
    expect((await vault.call('UserUpdate', { ...u.ref, profile: { name: 'Renamed Meanwhile' } })).status).toBe(200);
    const testFails = await vault.call('UserRequestApprove', { requestuuid: tested.body.requestuuid });
    expect(testFails.status, JSON.stringify(testFails.body)).toBe(400);
    const fine = await vault.call('UserUpdateRequest', { ...u.ref, profile: { city: 'Lyon' } });
    expect((await vault.call('UserRequestApprove', { requestuuid: fine.body.requestuuid })).status).toBe(200);
    expect((await vault.call('UserRequestApprove', { requestuuid: fine.body.requestuuid })).status).toBe(409);
    const rows = (await vault.call('AuditListUserEvents', { mode: 'token', identity: u.token, limit: 100 })).body.rows as { title: string; status: string }[];
    expect(rows.filter((r) => r.title === 'UserRequestApprove').map((r) => r.status).sort()).toEqual(['error', 'error', 'error', 'ok']);
  });
});

/** The details of the person's newest UserRequestApprove event of that status. */
async function approvalDetails(vault: TestVault, token: string, status = 'ok'): Promise<Record<string, unknown>> {
  const rows = (await vault.call('AuditListUserEvents', { mode: 'token', identity: token, limit: 100 })).body.rows as { title: string; status: string; auditeventuuid: string }[];
  const approval = rows.find((e) => e.title === 'UserRequestApprove' && e.status === status);
  expect(approval, `a ${status} UserRequestApprove event`).toBeDefined();
  return (await vault.call('AuditGetEvent', { auditeventuuid: approval!.auditeventuuid })).body.details as Record<string, unknown>;
}
