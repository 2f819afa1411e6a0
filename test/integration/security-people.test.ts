// Security review findings on what people do, reproduced over HTTP: the lockout raced by a burst of guesses (N11),
// logins and lockouts missing from the person's trail (N12), unbounded change requests (N7) and the cost of a
// person-judged BulkListAllUsers page (N15).
import { describe, expect } from 'vitest';
import fc from 'fast-check';
import { vaultTest, buildProfile, type TestVault } from '../fixtures/vault.js';
import { MAIN_TENANT_ID } from '../../api/store/database.js';

import { MAX_CHANGE_BYTES, MAX_OPEN_REQUESTS } from '../../api/vault/requests.js';
import { REPORT_REQUESTS } from '../../api/vault/report.js';
import { LOOKAHEAD } from '../../api/ops/bulk/BulkListAllUsers.js';
import { roleWith } from '../fixtures/roles.js';
import { inbox, prelogin, pub, type Sent } from '../fixtures/login.js';

const MAX_FAILURES = 5;
// The login rate limits are another finding's business: off here, so a burst reaches the lockout itself.
const it = vaultTest({ env: { STRONGROOM_LOGIN_MAX_FAILURES: String(MAX_FAILURES), STRONGROOM_LOGIN_RATE_PER_ADDRESS: '0', STRONGROOM_LOGIN_RATE_PER_TENANT: '0' } });

const other = (code: string) => String((Number(code) + 1) % 1e8).padStart(8, '0');

async function someone(vault: TestVault) {
  const profile = buildProfile();
  const created = await vault.call('UserCreate', { profile });
  expect(created.status, JSON.stringify(created.body)).toBe(200);
  return { profile, token: created.body.token as string };
}

/** The wrong codes the vault holds against the person now. */
async function counted(vault: TestVault, token: string): Promise<number> {
  const { logins } = vault.api.services.db.global();
  return (await logins.failures(MAIN_TENANT_ID, token, 0)).count;
}

async function metric(vault: TestVault, name: string): Promise<string[]> {
  const text = await (await fetch(`${vault.url}/metrics`)).text();
  return text.split('\n').filter((l) => l.startsWith(name));
}

describe('N11: the lockout', () => {
  it('cannot be raced: a burst of wrong codes counts at most the limit, and a right code then fails', async ({ vault }) => {
    const sent = inbox(vault);
    const p = await someone(vault);
    const owner = await prelogin(vault, 'email', p.profile.email);
    const ownerCode = sent.at(-1)!.code;
    const { loginid } = await prelogin(vault, 'email', p.profile.email);
    const code = sent.at(-1)!.code;
    const burst = await Promise.all(Array.from({ length: 39 }, () => pub(vault, 'UserLogin', { mode: 'email', identity: p.profile.email, smscode: other(code), loginid })));
    expect(burst.every((r) => r.body.message === 'login-error')).toBe(true);
    expect(await counted(vault, p.token)).toBe(MAX_FAILURES);
    const right = await pub(vault, 'UserLogin', { mode: 'email', identity: p.profile.email, smscode: ownerCode, loginid: owner.loginid });
    expect(right.body).toEqual({ status: 'error', message: 'login-error' });
  });

  it('holds for any interleaving of concurrent wrong and right codes (against the oracle)', async ({ vault }) => {
    const sent: Sent[] = inbox(vault);
    const logins = vault.api.services.logins;
    await fc.assert(
      fc.asyncProperty(fc.array(fc.array(fc.boolean(), { minLength: 1, maxLength: 8 }), { minLength: 1, maxLength: 4 }), async (batches) => {
        const p = await someone(vault);
        for (const batch of batches) {
          const { loginid } = await prelogin(vault, 'email', p.profile.email);
          const code = sent.at(-1)!.code;
          const lockedBefore = (await counted(vault, p.token)) >= MAX_FAILURES;
          const answers = await Promise.allSettled(batch.map((right) => logins.login(MAIN_TENANT_ID, 'email', p.profile.email, right ? code : other(code), { loginid })));
          const ok = answers.filter((a) => a.status === 'fulfilled');
          // Oracle: never more than the limit counted; nothing succeeds once locked; a code opens at most once.
          expect(await counted(vault, p.token)).toBeLessThanOrEqual(MAX_FAILURES);
          if (lockedBefore) expect(ok).toEqual([]);
          expect(ok.length).toBeLessThanOrEqual(1);
          for (const [i, a] of answers.entries()) if (!batch[i]) expect(a.status).toBe('rejected');
        }
      }),
      { numRuns: 12 },
    );
  });
});

describe('N12: logins and lockouts on the trail', () => {
  it('puts no lockout on the trail for guesses that name no loginid: they stop only themselves', async ({ vault }) => {
    const p = await someone(vault);
    for (let i = 0; i < MAX_FAILURES + 2; i++) await pub(vault, 'UserLogin', { mode: 'email', identity: p.profile.email, smscode: '00000009' });
    const rows = (await vault.call('AuditListUserEvents', { mode: 'token', identity: p.token })).body.rows as { title: string }[];
    expect(rows.map((e) => e.title)).not.toContain('UserLockout');
  });

  it('a successful login and a lockout are events of the person; failures are counted in /metrics', async ({ vault }) => {
    const sent = inbox(vault);
    const p = await someone(vault);
    const { loginid } = await prelogin(vault, 'email', p.profile.email);
    const login = await pub(vault, 'UserLogin', { mode: 'email', identity: p.profile.email, smscode: sent.at(-1)!.code, loginid });
    expect(login.body.status).toBe('ok');
    const failuresBefore = await metric(vault, 'strongroom_login_failures_total{reason="wrong-code"}');
    for (let i = 0; i < MAX_FAILURES + 1; i++) await pub(vault, 'UserLogin', { mode: 'email', identity: p.profile.email, smscode: other(sent.at(-1)!.code), loginid });
    await expect
      .poll(async () => ((await vault.call('AuditListUserEvents', { mode: 'token', identity: p.token })).body.rows as { title: string; status: string }[]).map((e) => `${e.title}:${e.status}`))
      .toEqual(expect.arrayContaining(['UserLogin:ok', 'UserLockout:ok']));
    const rows = (await vault.call('AuditListUserEvents', { mode: 'token', identity: p.token })).body.rows as { title: string }[];
    // One lockout event, however many guesses followed it; the guesses themselves are counters, not events.
    expect(rows.filter((e) => e.title === 'UserLockout')).toHaveLength(1);
    const after = await metric(vault, 'strongroom_login_failures_total{reason="wrong-code"}');
    const value = (lines: string[]) => Number(lines[0]?.split(' ')[1] ?? 0);
    expect(value(after) - value(failuresBefore)).toBe(MAX_FAILURES);
    expect(await metric(vault, 'strongroom_login_failures_total{reason="locked-out"}')).not.toEqual([]);
    expect(JSON.stringify(await metric(vault, 'strongroom_login'))).not.toContain(p.profile.email);
  });
});

describe('N7: what people may store in requests', () => {
  it('caps the open requests of one person; an identical one is still answered, a closed one frees a place', async ({ vault }) => {
    const p = await someone(vault);
    const ref = { mode: 'token', identity: p.token };
    const uuids: string[] = [];
    for (let i = 0; i < MAX_OPEN_REQUESTS; i++) {
      const r = await vault.call(i % 2 ? 'UserUpdateRequest' : 'AppdataUpdateRequest', i % 2 ? { ...ref, profile: { n: i } } : { ...ref, appname: 'prefs', appdata: { n: i } });
      expect(r.status, JSON.stringify(r.body)).toBe(200);
      uuids.push(r.body.requestuuid as string);
    }
    const over = await vault.call('UserPatchRequest', { ...ref, patch: [{ op: 'add', path: '/n', value: 99 }] });
    expect(over.status).toBe(409);
    expect(over.body.message).toMatch(/open requests/);
    expect((await vault.call('UserUpdateRequest', { ...ref, profile: { n: 1 } })).body).toMatchObject({ status: 'ok', requestuuid: uuids[1], result: 'request-exists' });
    // Asking to be forgotten is never held back by the cap.
    expect((await vault.call('UserDeleteRequest', ref)).status).toBe(200);
    expect((await vault.call('UserRequestCancel', { requestuuid: uuids[0] })).status).toBe(200);
    expect((await vault.call('UserPatchRequest', { ...ref, patch: [{ op: 'add', path: '/n', value: 99 }] })).status).toBe(200);
  });

  it('keeps no change of a canceled request: cancel and re-open stores nothing that grows', async ({ vault }) => {
    const p = await someone(vault);
    const ref = { mode: 'token', identity: p.token };
    const login = { 'x-bunker-token': (await vault.call('XTokenCreateForUser', ref)).body.xtoken as string };
    const big = { note: 'z'.repeat(MAX_CHANGE_BYTES - 1024) };
    for (let round = 0; round < 3; round++) {
      const opened = await vault.call('UserUpdateRequest', { ...ref, profile: { ...big, round } }, login);
      expect(opened.status, JSON.stringify(opened.body)).toBe(200);
      expect((await vault.call('UserRequestCancel', { requestuuid: opened.body.requestuuid }, login)).status).toBe(200);
      const got = await vault.call('UserRequestGet', { requestuuid: opened.body.requestuuid });
      expect(got.body.request).toMatchObject({ status: 'canceled', change: null });
    }
    const held = await vault.api.services.db.global().sql.query(`select count(*)::int as n, coalesce(sum(octet_length(change)), 0)::int as bytes from tenant_${MAIN_TENANT_ID}.user_requests where user_token = $1`,
      [p.token],
    );
    expect(held[0]).toEqual({ n: 3, bytes: 0 });
  });

  it('holds each person to the cap when their requests race', async ({ vault }) => {
    const p = await someone(vault);
    const tries = await Promise.all(Array.from({ length: MAX_OPEN_REQUESTS + 6 }, (_, i) => vault.call('UserUpdateRequest', { mode: 'token', identity: p.token, profile: { n: i } })));
    expect(tries.filter((t) => t.status === 200)).toHaveLength(MAX_OPEN_REQUESTS);
    expect(tries.filter((t) => t.status !== 200).every((t) => t.status === 409)).toBe(true);
  });

  it('refuses a change larger than the cap with a 400 naming the field', async ({ vault }) => {
    const p = await someone(vault);
    const ref = { mode: 'token', identity: p.token };
    const big = 'x'.repeat(MAX_CHANGE_BYTES);
    for (const [op, body, field] of [
      ['UserUpdateRequest', { ...ref, profile: { big } }, 'profile'],
      ['AppdataUpdateRequest', { ...ref, appname: 'prefs', appdata: { big } }, 'appdata'],
    ] as const) {
      const r = await vault.call(op, body);
      expect(r.status, op).toBe(400);
      expect(r.body.message).toContain(field);
    }
  });

  it('keeps a hash of the change in the request’s audit event, not the change', async ({ vault }) => {
    const p = await someone(vault);
    const secret = `secret-${Date.now()}`;
    const opened = await vault.call('UserUpdateRequest', { mode: 'token', identity: p.token, profile: { secret } });
    expect(opened.status).toBe(200);
    await expect
      .poll(async () => (((await vault.call('AuditListUserEvents', { mode: 'token', identity: p.token })).body.rows ?? []) as { title: string }[]).map((e) => e.title))
      .toContain('UserUpdateRequest');
    const list = (await vault.call('AuditListUserEvents', { mode: 'token', identity: p.token })).body.rows as { title: string; auditeventuuid: string }[];
    const event = await vault.call('AuditGetEvent', { auditeventuuid: list.find((e) => e.title === 'UserUpdateRequest')!.auditeventuuid });
    expect(JSON.stringify(event.body)).not.toContain(secret);
    expect(event.body.details.after).toEqual({ requestuuid: opened.body.requestuuid, change: { hash: expect.stringMatching(/^[\w-]{20,}$/), bytes: expect.any(Number) } });
  });

  it('pages the requests in the person’s report', async ({ vault }) => {
    const p = await someone(vault);
    const ref = { mode: 'token', identity: p.token };
    for (let round = 0; round < 3; round++) {
      const opened = await Promise.all(Array.from({ length: MAX_OPEN_REQUESTS }, (_, i) => vault.call('UserUpdateRequest', { ...ref, profile: { round, i } })));
      for (const o of opened) expect((await vault.call('UserRequestCancel', { requestuuid: o.body.requestuuid })).status).toBe(200);
    }
    const report = (await vault.call('SystemGetUserReport', ref)).body.report;
    expect(report.requeststotal).toBe(3 * MAX_OPEN_REQUESTS);
    expect(report.requests).toHaveLength(REPORT_REQUESTS);
    const page = await vault.call('UserRequestListUserRequests', { ...ref, offset: REPORT_REQUESTS, limit: 100 });
    expect(page.body.rows).toHaveLength(3 * MAX_OPEN_REQUESTS - REPORT_REQUESTS);
  });
});

describe('N15: a person-judged BulkListAllUsers page', () => {
  it('judges only what its page needs, and paging by nextoffset answers exactly the people the policy lets it see', async ({ vault }) => {
    const team = `team-${Date.now() % 100000}`;
    // Who is visible follows a fixed irregular pattern, with runs of refused people longer than a page's look-ahead.
    const pattern = [1, 0, 0, 1, 1, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 0, 1, 0];
    for (const v of pattern) await vault.call('UserCreate', { profile: buildProfile({ team: v ? team : 'other' }) });
    const role = await roleWith(vault, [
      { Effect: 'Allow', Action: 'BulkListUnlock', Resource: '*' },
      // A list shows at most what the role's UserGet shows of each person.
      { Effect: 'Allow', Action: ['BulkListAllUsers', 'UserGet'], Resource: '*', Condition: { StringEquals: { '${user:team}': team } } },
    ]);
    const unlock = async (headers?: Record<string, string>) => (await vault.call('BulkListUnlock', {}, headers)).body.unlockuuid as string;
    const everyone = (await vault.call('BulkListAllUsers', { unlockuuid: await unlock(), offset: 0, limit: 1000 })).body;
    const order = (everyone.rows as { token: string; profile: { team?: string } }[]).map((r) => ({ token: r.token, visible: r.profile.team === team }));

    // The people each page opens (and judges), counted on the way through the real users service.
    const users = vault.api.services.users;
    const openMany = users.openMany.bind(users);
    let opened = 0;
    users.openMany = async (tenantId, rows) => {
      opened += rows.length;
      return openMany(tenantId, rows);
    };
    try {
      await fc.assert(
        fc.asyncProperty(fc.integer({ min: 1, max: 6 }), fc.integer({ min: 0, max: order.length }), async (limit, start) => {
          const unlockuuid = await unlock(role);
          const got: string[] = [];
          let offset: number | undefined = start;
          while (offset !== undefined) {
            opened = 0;
            const page = await vault.call('BulkListAllUsers', { unlockuuid, offset, limit }, role);
            expect(page.status, JSON.stringify(page.body)).toBe(200);
            expect(page.body.total).toBe(order.length);
            expect(page.body.rows.length).toBeLessThanOrEqual(limit);
            expect(opened).toBeLessThanOrEqual(limit * LOOKAHEAD);
            got.push(...(page.body.rows as { token: string; profile: { team: string } }[]).map((r) => (expect(r.profile.team).toBe(team), r.token)));
            expect(page.body.nextoffset === undefined || page.body.nextoffset > offset).toBe(true);
            offset = page.body.nextoffset as number | undefined;
          }
          // Oracle: from `start` on, every visible person once, in the list's order, and no one else.
          expect(got).toEqual(order.slice(start).filter((p) => p.visible).map((p) => p.token));
        }),
        { numRuns: 8 },
      );
    } finally {
      users.openMany = openMany;
    }
  });
});
