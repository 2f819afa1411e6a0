// The adversary's test of the policy engine over HTTP: generated policies (Allow and Deny, kinds, nested fields,
// conditions about the person) against a population of people, every answer checked against this file's own
// reading of the policy language: nothing denied ever appears, nothing refused is ever answered.
import { describe, expect } from 'vitest';
import fc from 'fast-check';
import { it, buildProfile, type TestVault } from '../fixtures/vault.js';

type Statement = { Effect: 'Allow' | 'Deny'; Action: string; Resource: string; Condition?: { StringEquals: Record<string, string> } };

const OPS = {
  UserGet: ['profile'],
  AppdataGet: ['appdata'],
  SystemGetUserReport: ['profile', 'appdata', 'agreement', 'group', 'session', 'file', 'request', 'audit'],
  BulkListAllUsers: ['profile'],
} as const;
type Op = keyof typeof OPS;
const RESOURCES = ['*', 'users.profile', 'users.profile.name', 'users.profile.address', 'users.profile.address.city', 'users.appdata', 'users.appdata'];

const statementArb: fc.Arbitrary<Statement> = fc
  .record({
    Effect: fc.constantFrom('Allow' as const, 'Deny' as const),
    Action: fc.constantFrom('*', 'UserGet', 'AppdataGet', 'SystemGetUserReport', 'BulkListAllUsers'),
    Resource: fc.constantFrom(...RESOURCES),
    country: fc.option(fc.constantFrom('FI', 'SE'), { nil: undefined }),
  })
  .map(({ country, ...s }) => (country ? { ...s, Condition: { StringEquals: { '${user:address.country}': country } } } : s));

interface Person {
  ref: { mode: string; identity: string };
  country: string;
  profile: Record<string, unknown>;
}

/** This test's own reading of the policy language for one person and one operation: refused, or what is shown. */
function oracle(policy: Statement[], op: Op, person: Person): { allowed: false } | { allowed: true; paths: { full: boolean; granted: string[]; denied: string[] } } {
  const kinds: readonly string[] = OPS[op];
  const applies = (s: Statement) =>
    (s.Action === '*' || s.Action === op) && (!s.Condition || s.Condition.StringEquals['${user:address.country}'] === person.country);
  const active = policy.filter(applies);
  const profilePath = (r: string) => (r.startsWith('users.profile.') ? r.slice('users.profile.'.length) : null);
  for (const s of active.filter((s) => s.Effect === 'Deny')) {
    if (s.Resource === '*' || s.Resource === 'users.profile') return { allowed: false };
    if (s.Resource === 'users.appdata' && kinds.includes('appdata')) return { allowed: false };
  }
  const denied = active.filter((s) => s.Effect === 'Deny').map((s) => profilePath(s.Resource)).filter((p): p is string => p !== null);
  const allows = active.filter((s) => s.Effect === 'Allow').map((s) => s.Resource);
  const everything = allows.includes('*');
  const full = everything || allows.includes('users.profile');
  const granted = allows.map(profilePath).filter((p): p is string => p !== null);
  const covers = (kind: string) => everything || (kind === 'profile' ? full || granted.length > 0 : allows.includes(`users.${kind}`));
  if (!kinds.every(covers)) return { allowed: false };
  if (kinds.includes('profile') && !full) {
    const left = granted.filter((g) => !denied.some((d) => g === d || g.startsWith(`${d}.`)));
    if (left.length === 0) return { allowed: false };
    // Only answers of profiles (UserGet, the lists) can be masked; a report with some fields of the profile is refused.
    if (op === 'SystemGetUserReport') return { allowed: false };
    return { allowed: true, paths: { full: false, granted: left, denied } };
  }
  if (kinds.includes('profile') && full && denied.length > 0 && op === 'SystemGetUserReport') return { allowed: false };
  return { allowed: true, paths: { full, granted, denied } };
}

/** The profile as the oracle's paths let it be seen: hidden strings are `***`, hidden objects are left out. */
function shown(value: Record<string, unknown>, paths: { full: boolean; granted: string[]; denied: string[] }, prefix = '', grantedAbove = false): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, v] of Object.entries(value)) {
    const path = prefix + key;
    const isDenied = paths.denied.includes(path);
    const isGranted = paths.full || grantedAbove || paths.granted.includes(path);
    const somethingBelow = (list: string[]) => list.some((p) => p.startsWith(`${path}.`));
    if (typeof v === 'object' && v !== null) {
      if (isDenied) continue;
      if (isGranted || somethingBelow(paths.granted)) out[key] = shown(v as Record<string, unknown>, paths, `${path}.`, isGranted && !paths.full);
      continue;
    }
    out[key] = !isDenied && isGranted ? v : '***';
  }
  return out;
}

type Verdict = ReturnType<typeof oracle>;
type Paths = { full: boolean; granted: string[]; denied: string[] };
const whole = (p: Paths) => p.full && p.denied.length === 0;

/**
 * What an answer other than UserGet shows: at most what UserGet shows of the person. Each field is shown by both
 * verdicts or it is not shown; an answer that cannot be masked (the report) needs UserGet to show the whole profile.
 */
function asShown(policy: Statement[], op: Op, person: Person): Verdict & { alsoUserGet?: Paths } {
  const own = oracle(policy, op, person);
  if (op === 'UserGet' || op === 'AppdataGet' || !own.allowed) return own;
  const userGet = oracle(policy, 'UserGet', person);
  if (!userGet.allowed) return { allowed: false };
  if (op === 'SystemGetUserReport') return whole(userGet.paths) ? own : { allowed: false };
  return whole(userGet.paths) ? own : { ...own, alsoUserGet: userGet.paths };
}

/** The strings a profile shows in clear. */
function clear(value: unknown, out = new Set<string>()): Set<string> {
  if (typeof value === 'string' && value !== '***') out.add(value);
  else if (value && typeof value === 'object') for (const v of Object.values(value)) clear(v, out);
  return out;
}

/** A listed person's profile checked against both verdicts: exact where one shows everything, else value by value. */
function expectShown(got: Record<string, unknown>, profile: Record<string, unknown>, v: Verdict & { alsoUserGet?: Paths }, where: string) {
  if (!v.allowed) throw new Error('not allowed');
  if (!v.alsoUserGet) return expect(got, where).toEqual(shown(profile, v.paths));
  if (whole(v.paths)) return expect(got, where).toEqual(shown(profile, v.alsoUserGet));
  const both = [...clear(shown(profile, v.paths))].filter((x) => clear(shown(profile, v.alsoUserGet!)).has(x));
  expect([...clear(got)].sort(), where).toEqual(both.sort());
}

let roles = 0;
async function roleWith(vault: TestVault, policy: Statement[]): Promise<Record<string, string>> {
  const name = `oracle-${++roles}-${Date.now() % 100000}`;
  expect((await vault.call('RoleCreate', { rolename: name })).status).toBe(200);
  const created = await vault.call('PolicyCreate', { policyname: name, policy });
  expect(created.status, JSON.stringify(created.body)).toBe(200);
  expect((await vault.call('RoleLinkPolicy', { rolename: name, policyname: name })).status).toBe(200);
  return { 'x-bunker-token': (await vault.call('XTokenCreateForRole', { rolename: name })).body.xtoken };
}

describe('the policy engine against its oracle', () => {
  it('never answers what a generated policy refuses, nor shows a field it hides', { timeout: 240_000 }, async ({ vault }) => {
    const people: Person[] = [];
    for (const [country, city] of [['FI', 'Oulu'], ['SE', 'Lund'], ['FI', 'Turku'], ['SE', 'Malmo']] as const) {
      const profile = buildProfile({ name: `Person of ${city}`, address: { country, city } });
      const token = (await vault.call('UserCreate', { profile })).body.token as string;
      const ref = { mode: 'token', identity: token };
      expect((await vault.call('AppdataCreate', { ...ref, appname: 'prefs', appdata: { secret: `app-${city}` } })).status).toBe(200);
      people.push({ ref, country, profile });
    }
    await fc.assert(
      fc.asyncProperty(fc.array(statementArb, { minLength: 1, maxLength: 4 }), async (policy) => {
        const role = await roleWith(vault, policy);
        // The list: each person judged on their own when the policy asks about the person, else all or none.
        const aboutPerson = policy.some((s) => s.Condition);
        // BulkListUnlock carries no one's data: judged without a person, allowed by everything or the whole profile.
        const unconditional = policy.filter((s) => !s.Condition && s.Action === '*');
        const unlocks =
          unconditional.some((s) => s.Effect === 'Allow' && (s.Resource === '*' || s.Resource === 'users.profile')) &&
          !unconditional.some((s) => s.Effect === 'Deny' && (s.Resource === '*' || s.Resource === 'users.profile'));
        const unlock = await vault.call('BulkListUnlock', {}, role);
        expect(unlock.status, `BulkListUnlock under ${JSON.stringify(policy)}`).toBe(unlocks ? 200 : 403);
        const unlockuuid = unlocks ? unlock.body.unlockuuid : (await vault.call('BulkListUnlock')).body.unlockuuid;
        const list = await vault.call('BulkListAllUsers', { unlockuuid, offset: 0, limit: 100 }, role);
        const verdicts = people.map((p) => asShown(policy, 'BulkListAllUsers', p));
        const where = `BulkListAllUsers under ${JSON.stringify(policy)}`;
        // Without its own unlock UUID (one issued to another credential) the list is refused whatever the policy.
        if (!unlocks || (!aboutPerson && !verdicts[0]!.allowed)) expect(list.status, `${where} ${JSON.stringify(list.body)}`).toBe(403);
        else {
          expect(list.status, `${where} ${JSON.stringify(list.body)}`).toBe(200);
          const expected = people.flatMap((p, i) => (verdicts[i]!.allowed ? [p] : []));
          const rows = list.body.rows as { token: string; profile: Record<string, unknown> }[];
          expect(rows.map((r) => r.token), where).toEqual(expected.map((p) => p.ref.identity));
          rows.forEach((r, i) => expectShown(r.profile, expected[i]!.profile, verdicts[people.indexOf(expected[i]!)]!, where));
          // `total` is the tenant's list a page walks, whoever the policy leaves out; this page reaches its end.
          expect(list.body.total, where).toBe(people.length);
          expect(list.body.nextoffset, where).toBeUndefined();
        }
        for (const person of people) {
          for (const op of (Object.keys(OPS) as Op[]).filter((o) => o !== 'BulkListAllUsers')) {
            const body = op === 'AppdataGet' ? { ...person.ref, appname: 'prefs' } : person.ref;
            const res = await vault.call(op, body, role);
            const want = asShown(policy, op, person);
            const where = `${op} of a person in ${person.country} under ${JSON.stringify(policy)}`;
            expect(res.status, where).toBe(want.allowed ? 200 : 403);
            if (!want.allowed) {
              expect(JSON.stringify(res.body), where).not.toContain(String((person.profile.address as { city: string }).city));
              continue;
            }
            if (op === 'UserGet') expect(res.body.profile, where).toEqual(shown(person.profile, want.paths));
          }
        }
      }),
      {
        numRuns: 50,
        // The bypasses reported against the engine, tried first every time.
        examples: [
          [[{ Effect: 'Allow', Action: '*', Resource: '*' }, { Effect: 'Deny', Action: '*', Resource: 'users.appdata' }]],
          [[{ Effect: 'Allow', Action: '*', Resource: '*' }, { Effect: 'Deny', Action: '*', Resource: '*', Condition: { StringEquals: { '${user:address.country}': 'FI' } } }]],
          [[{ Effect: 'Allow', Action: '*', Resource: '*' }, { Effect: 'Deny', Action: '*', Resource: 'users.profile.address.city' }]],
          [[{ Effect: 'Allow', Action: '*', Resource: 'users.appdata' }]],
          [[{ Effect: 'Allow', Action: 'UserGet', Resource: 'users.profile.address.city' }]],
        ],
      },
    );
  });
});
