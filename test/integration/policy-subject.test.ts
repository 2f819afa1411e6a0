// The policy vocabulary about a person's other data and about the person themselves: `.appdata`,
// `.agreement`/`.consent` and `.group` resources, and the `${user:FIELD}` and `${agreement:BRIEF}` variables.
import { describe, expect } from 'vitest';
import { it } from '../fixtures/vault.js';
import { person, roleWith } from '../fixtures/roles.js';

describe('resources naming kinds of a person’s data', () => {
  it('let `.appdata` reach app data and `.consent` agreements, but not the profile', async ({ vault }) => {
    const p = await person(vault);
    await vault.call('AppdataCreate', { ...p.ref, appname: 'prefs', appdata: { a: 1 } });
    const brief = `kind-${Date.now() % 100000}`;
    await vault.call('LegalBasisCreate', { brief });
    await vault.call('AgreementAccept', { ...p.ref, brief });
    const xtoken = await roleWith(vault, { Effect: 'Allow', Action: ['AppdataGet', 'AgreementGet', 'UserGet'], Resource: ['users.appdata', 'users.consent'] });
    expect((await vault.call('AppdataGet', { ...p.ref, appname: 'prefs' }, xtoken)).body.appdata).toEqual({ a: 1 });
    expect((await vault.call('AgreementGet', { ...p.ref, brief }, xtoken)).body.agreement.status).toBe('active');
    const profile = await vault.call('UserGet', p.ref, xtoken);
    expect(profile.status).toBe(403);
    expect(profile.body.message).toBe('API access denied');
  });

  it('reach group members’ app data through `${target_group_members}.appdata` resources only for members', async ({ vault }) => {
    // Parsed and evaluated as a role policy here: the target-group form needs group facts, which only login
    // xtokens of group members bring, so for a role it grants nothing.
    const xtoken = await roleWith(vault, { Effect: 'Allow', Action: 'AppdataGet', Resource: '${target_group_members}.appdata' });
    const p = await person(vault);
    await vault.call('AppdataCreate', { ...p.ref, appname: 'prefs', appdata: { a: 1 } });
    expect((await vault.call('AppdataGet', { ...p.ref, appname: 'prefs' }, xtoken)).status).toBe(403);
  });
});

describe('conditions about the person', () => {
  it('`${agreement:BRIEF}` lets a role read only the people who consented', async ({ vault }) => {
    const brief = `research-${Date.now() % 100000}`;
    await vault.call('LegalBasisCreate', { brief });
    const agreed = await person(vault);
    const refused = await person(vault);
    const never = await person(vault);
    await vault.call('AgreementAccept', { ...agreed.ref, brief });
    await vault.call('AgreementAccept', { ...refused.ref, brief, status: 'no' });
    const xtoken = await roleWith(vault, { Effect: 'Allow', Action: ['UserGet', 'AppdataCreate'], Condition: { StringEquals: { [`\${agreement:${brief}}`]: 'active' } } });
    expect((await vault.call('UserGet', agreed.ref, xtoken)).body.profile).toEqual(agreed.profile);
    expect((await vault.call('UserGet', refused.ref, xtoken)).status).toBe(403);
    expect((await vault.call('UserGet', never.ref, xtoken)).status).toBe(403);
    // Writes are judged the same way, inside their transaction, and a refused one leaves nothing behind.
    expect((await vault.call('AppdataCreate', { ...agreed.ref, appname: 'study', appdata: { x: 1 } }, xtoken)).status).toBe(200);
    expect((await vault.call('AppdataCreate', { ...refused.ref, appname: 'study', appdata: { x: 1 } }, xtoken)).status).toBe(403);
    expect((await vault.call('AppdataGet', { ...refused.ref, appname: 'study' })).status).toBe(404);
    // Withdrawn consent ends the access at once.
    await vault.call('AgreementCancel', { ...agreed.ref, brief });
    expect((await vault.call('UserGet', agreed.ref, xtoken)).status).toBe(403);
    // An unknown person is the same refusal, not a 404 that would tell the caller who exists.
    const unknown = await vault.call('UserGet', { mode: 'email', identity: 'nobody@example.invalid' }, xtoken);
    expect(unknown.status).toBe(403);
    // An operation about no one stands on the policy without the person: refused.
    expect((await vault.call('LegalBasisListAgreements', {}, xtoken)).status).toBe(403);
  });

  it('`${user:FIELD}` (dotted paths too) lets a role reach only people whose profile matches', async ({ vault }) => {
    const here = await person(vault, { address: { country: 'EE' } });
    const there = await person(vault, { address: { country: 'FI' } });
    const xtoken = await roleWith(vault, [
      { Effect: 'Allow', Action: 'UserGet' },
      { Effect: 'Deny', Action: 'UserGet', Condition: { StringEquals: { '${user:address.country}': 'FI' } } },
    ]);
    expect((await vault.call('UserGet', here.ref, xtoken)).status).toBe(200);
    const denied = await vault.call('UserGet', there.ref, xtoken);
    expect(denied.status).toBe(403);
    expect(denied.body.message).toBe('API access denied');
    // Even where the verdict without the person is an allow, a missing person is the same refusal as a refused one:
    // a 404 would tell the caller that the person it was refused exists.
    const missing = await vault.call('UserGet', { mode: 'email', identity: 'nobody@example.invalid' }, xtoken);
    expect([missing.status, missing.body.message]).toEqual([403, 'API access denied']);
  });
});
