// The admission gate cannot be walked around: a person-dependent Deny binds every way to that person's data, a Deny
// of a kind binds every operation that carries it, field grants work at any depth, v1 is judged for what it does.
// Each case is a bypass that worked before the gate judged on the data.
import { describe, expect } from 'vitest';
import { it, type TestVault } from '../fixtures/vault.js';
import { person, roleWith } from '../fixtures/roles.js';


const NO_FINNS = [
  { Effect: 'Allow', Action: '*', Resource: '*' },
  { Effect: 'Deny', Action: '*', Resource: '*', Condition: { StringEquals: { '${user:address.country}': 'FI' } } },
];

describe('a Deny about the person', () => {
  it('refuses the person’s profile on every path, not only UserGet', async ({ vault }) => {
    const finn = await person(vault, { address: { country: 'FI', city: 'Oulu' } });
    const swede = await person(vault, { address: { country: 'SE', city: 'Lund' } });
    const role = await roleWith(vault, NO_FINNS);
    expect((await vault.call('UserGet', finn.ref, role)).status).toBe(403);
    expect((await vault.call('UserGet', swede.ref, role)).status).toBe(200);

    // Lists and searches leave the person out. A page judged per person walks the tenant's list (its `total`)
    // and says where the next page starts (`nextoffset`).
    const unlockuuid = (await vault.call('BulkListUnlock', {}, role)).body.unlockuuid;
    const all = await vault.call('BulkListAllUsers', { unlockuuid, offset: 0, limit: 100 }, role);
    expect(all.status).toBe(200);
    const everyone = (await vault.call('BulkListAllUsers', { unlockuuid: (await vault.call('BulkListUnlock')).body.unlockuuid, offset: 0, limit: 100 })).body;
    const finns = everyone.rows.filter((r: { profile: { address?: { country?: string } } }) => r.profile.address?.country === 'FI').length;
    expect(all.body.total).toBe(everyone.total);
    expect(all.body.rows).toHaveLength(everyone.rows.length - finns);
    expect(all.body.rows.map((r: { token: string }) => r.token)).toContain(swede.token);
    for (const [op, body] of [
      ['BulkListAllUsers', { unlockuuid, offset: 0, limit: 100 }],
      ['BulkListUsers', { unlockuuid, users: [{ mode: 'email', identity: finn.profile.email }] }],
      ['UserSearch', { unlockuuid, identity: finn.profile.email }],
    ] as const) {
      const res = await vault.call(op, body, role);
      expect(res.status, op).toBe(200);
      expect(JSON.stringify(res.body), op).not.toContain(finn.token);
      expect(JSON.stringify(res.body), op).not.toContain('Oulu');
    }
    expect((await vault.call('UserSearch', { unlockuuid, identity: swede.profile.email }, role)).body.total).toBe(1);

    // Reaching the person through an audit event, a session or a request: refused outright (fail closed).
    const [created] = (await vault.call('AuditListUserEvents', finn.ref)).body.rows as { auditeventuuid: string }[];
    const event = await vault.call('AuditGetEvent', { auditeventuuid: created!.auditeventuuid }, role);
    expect(event.status).toBe(403);
    expect(JSON.stringify(event.body)).not.toContain('Oulu');

    const sessionuuid = crypto.randomUUID();
    expect((await vault.call('SessionUpsert', { sessionuuid, sessiondata: { token: finn.token, seen: 'Oulu' } })).status).toBe(200);
    expect((await vault.call('SessionGet', { sessionuuid }, role)).status).toBe(403);

    const forget = await vault.call('UserDeleteRequest', finn.ref);
    expect(forget.status).toBe(200);
    const requestuuid = forget.body.requestuuid as string;
    expect((await vault.call('UserRequestGet', { requestuuid }, role)).status).toBe(403);
    expect((await vault.call('UserRequestApprove', { requestuuid }, role)).status).toBe(403);
    expect((await vault.call('UserRequestCancel', { requestuuid }, role)).status).toBe(403);
    // The refused approval changed nothing: the person is still there.
    expect((await vault.call('UserGet', finn.ref)).status).toBe(200);

    for (const op of ['SystemGetUserReport', 'SystemGetUserHTMLReport']) {
      expect((await vault.call(op, finn.ref, role)).status, op).toBe(403);
      expect((await vault.call(op, swede.ref, role)).status, op).toBe(200);
    }
  });
});

describe('a Deny of a kind of data', () => {
  it('binds every operation that carries that kind, reports included', async ({ vault }) => {
    const p = await person(vault);
    expect((await vault.call('AppdataCreate', { ...p.ref, appname: 'secret', appdata: { diagnosis: 'x' } })).status).toBe(200);
    const role = await roleWith(vault, [
      { Effect: 'Allow', Action: '*', Resource: '*' },
      { Effect: 'Deny', Action: '*', Resource: 'users.appdata' },
    ]);
    expect((await vault.call('UserGet', p.ref, role)).status).toBe(200);
    for (const [op, body] of [
      ['AppdataGet', { ...p.ref, appname: 'secret' }],
      ['SystemGetUserReport', p.ref],
      ['SystemGetUserHTMLReport', p.ref],
    ] as const) {
      const res = await vault.call(op, body, role);
      expect(res.status, op).toBe(403);
      expect(JSON.stringify(res.body), op).not.toContain('diagnosis');
    }
  });

  it('lets an Allow of one kind reach that kind only, not a report that carries every kind', async ({ vault }) => {
    const p = await person(vault);
    await vault.call('AppdataCreate', { ...p.ref, appname: 'prefs', appdata: { a: 1 } });
    const role = await roleWith(vault, { Effect: 'Allow', Action: '*', Resource: 'users.appdata' });
    expect((await vault.call('AppdataGet', { ...p.ref, appname: 'prefs' }, role)).status).toBe(200);
    expect((await vault.call('SystemGetUserReport', p.ref, role)).status).toBe(403);
    expect((await vault.call('UserGet', p.ref, role)).status).toBe(403);
  });
});

describe('field resources', () => {
  it('hide a nested field with a Deny, at any depth', async ({ vault }) => {
    const p = await person(vault, { address: { city: 'Oulu', street: 'Kauppurienkatu 1', geo: { lat: 65.01, lon: 25.47 } } });
    const role = await roleWith(vault, [
      { Effect: 'Allow', Action: 'UserGet', Resource: '*' },
      { Effect: 'Deny', Action: 'UserGet', Resource: ['users.profile.address.city', 'users.profile.address.geo.lat'] },
    ]);
    const seen = (await vault.call('UserGet', p.ref, role)).body.profile;
    expect(seen.address).toEqual({ city: '***', street: 'Kauppurienkatu 1', geo: { lon: 25.47 } });
    expect(seen.email).toBe(p.profile.email);
  });

  it('show only a granted nested field with an Allow', async ({ vault }) => {
    const p = await person(vault, { address: { city: 'Oulu', street: 'Kauppurienkatu 1' } });
    const role = await roleWith(vault, { Effect: 'Allow', Action: 'UserGet', Resource: 'users.profile.address.city' });
    const seen = (await vault.call('UserGet', p.ref, role)).body.profile;
    expect(seen.address).toEqual({ city: 'Oulu', street: '***' });
    expect(seen.email).toBe('***');
    expect(JSON.stringify(seen)).not.toContain(p.profile.email);
  });
});

describe('v1 endpoints', () => {
  async function v1Consent(vault: TestVault, p: { token: string }, brief: string, headers: Record<string, string>) {
    return fetch(`${vault.url}/v1/consent/token/${p.token}/${brief}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...headers },
      body: JSON.stringify({ status: 'accept' }),
    });
  }

  it('judge the legal basis they create as LegalBasisCreate, for roles and login xtokens', async ({ vault }) => {
    const p = await person(vault);
    const role = await roleWith(vault, [
      { Effect: 'Allow', Action: '*', Resource: '*' },
      { Effect: 'Deny', Action: 'LegalBasisCreate' },
    ]);
    const fresh = `gate-new-${Date.now() % 100000}`;
    expect((await v1Consent(vault, p, fresh, role)).status).toBe(403);
    expect((await vault.call('LegalBasisListAgreements', {})).body.rows.map((r: { brief: string }) => r.brief)).not.toContain(fresh);
    const existing = `gate-old-${Date.now() % 100000}`;
    expect((await vault.call('LegalBasisCreate', { brief: existing })).status).toBe(200);
    expect((await v1Consent(vault, p, existing, role)).status).toBe(200);

    const login = { 'x-bunker-token': (await vault.call('XTokenCreateForUser', p.ref)).body.xtoken as string };
    expect((await v1Consent(vault, p, `gate-login-${Date.now() % 100000}`, login)).status).toBe(403);
    expect((await v1Consent(vault, p, existing, login)).status).toBe(200);
  });

  it('judge the app record they create as AppdataCreate', async ({ vault }) => {
    const p = await person(vault);
    const role = await roleWith(vault, [
      { Effect: 'Allow', Action: '*', Resource: '*' },
      { Effect: 'Deny', Action: 'AppdataCreate' },
    ]);
    const post = (appname: string) =>
      fetch(`${vault.url}/v1/userapp/token/${p.token}/${appname}`, { method: 'POST', headers: { 'content-type': 'application/json', ...role }, body: JSON.stringify({ a: 1 }) });
    expect((await post('fresh')).status).toBe(403);
    expect((await vault.call('AppdataGet', { ...p.ref, appname: 'fresh' })).status).toBe(404);
    expect((await vault.call('AppdataCreate', { ...p.ref, appname: 'there', appdata: { a: 0 } })).status).toBe(200);
    expect((await post('there')).status).toBe(200);
  });
});

describe('PolicyExplain', () => {
  it('says why, with the same verdicts as enforcement, and never the person’s data', async ({ vault }) => {
    const finn = await person(vault, { address: { country: 'FI', city: 'Oulu' } });
    const swede = await person(vault, { address: { country: 'SE', city: 'Lund' } });
    const rolename = `explain-${Date.now() % 100000}`;
    const policyname = `${rolename}-p`;
    expect((await vault.call('RoleCreate', { rolename })).status).toBe(200);
    expect(
      (
        await vault.call('PolicyCreate', {
          policyname,
          policy: [
            { Effect: 'Allow', Action: 'UserGet', Resource: '*' },
            { Effect: 'Deny', Action: 'UserGet', Resource: 'users.profile.address.city' },
            { Effect: 'Deny', Action: '*', Resource: '*', Condition: { StringEquals: { '${user:address.country}': 'FI' } } },
          ],
        })
      ).status,
    ).toBe(200);
    expect((await vault.call('RoleLinkPolicy', { rolename, policyname })).status).toBe(200);
    const created = await vault.call('XTokenCreateForRole', { rolename });
    const xtoken = { 'x-bunker-token': created.body.xtoken as string };

    const onSwede = await vault.call('PolicyExplain', { rolename, operation: 'UserGet', ...swede.ref });
    expect(onSwede.status).toBe(200);
    expect(onSwede.body.verdict).toBe('partial');
    expect(onSwede.body.fields.masked).toEqual([{ field: 'address.city', policy: policyname, statement: 1, effect: 'Deny' }]);
    expect(onSwede.body.conditions).toEqual([
      { policy: policyname, statement: 2, effect: 'Deny', operator: 'StringEquals', variable: '${user:address.country}', wanted: ['FI'], matched: false },
    ]);
    expect((await vault.call('UserGet', swede.ref, xtoken)).body.profile.address).toEqual({ country: 'SE', city: '***' });

    const onFinn = await vault.call('PolicyExplain', { rolename, operation: 'UserGet', ...finn.ref });
    expect(onFinn.body.verdict).toBe('deny');
    expect(onFinn.body.decidedby).toEqual([{ policy: policyname, statement: 2, effect: 'Deny' }]);
    expect(JSON.stringify(onFinn.body)).not.toContain('Oulu');
    // A condition about the person says whether it matched, never what the person's field holds.
    expect(onFinn.body.conditions.every((c: Record<string, unknown>) => !('saw' in c))).toBe(true);
    expect((await vault.call('UserGet', finn.ref, xtoken)).status).toBe(403);

    // Through the xtoken's id, and for an operation the role cannot be judged on per person: refused, as enforced.
    expect(typeof created.body.xtokenid).toBe('string');
    const event = await vault.call('PolicyExplain', { xtokenid: created.body.xtokenid, operation: 'AuditGetEvent' });
    expect(event.body.verdict).toBe('deny');
    const [first] = (await vault.call('AuditListUserEvents', swede.ref)).body.rows as { auditeventuuid: string }[];
    expect((await vault.call('AuditGetEvent', { auditeventuuid: first!.auditeventuuid }, xtoken)).status).toBe(403);
    const list = await vault.call('PolicyExplain', { xtokenid: created.body.xtokenid, operation: 'BulkListAllUsers' });
    expect(list.body.verdict).toBe('partial');

    // Main-tenant admins only; a bad operation name is a 400 naming the field.
    expect((await vault.call('PolicyExplain', { rolename, operation: 'UserGet' }, xtoken)).status).toBe(403);
    const bad = await vault.call('PolicyExplain', { rolename, operation: 'NoSuchOperation' });
    expect(bad.status).toBe(400);
    expect(bad.body.message).toContain('operation');
  });
});

describe('policies the engine cannot enforce', () => {
  it('are refused with a 400 naming the part', async ({ vault }) => {
    for (const [policy, part] of [
      [{ Effect: 'Allow', Action: 'UserGet', Resource: 'users.secrets' }, '0.Resource'],
      [[{ Effect: 'Allow', Action: '*' }, { Effect: 'Deny', Action: '*', Resource: ['users.profile.name', 'tokens'] }], '1.Resource'],
      [{ Effect: 'Allow', Action: 'UserGet', Condition: { StringLike: { '${request_metadata:x}': 'y' } } }, 'Condition'],
    ] as const) {
      const res = await vault.call('PolicyCreate', { policyname: `bad-${Math.random().toString(16).slice(2, 8)}`, policy });
      expect(res.status, JSON.stringify(policy)).toBe(400);
      expect(res.body.message).toContain(part);
    }
  });
});
