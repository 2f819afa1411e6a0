// The gate's verdicts, alone (the access oracle over HTTP is the end-to-end proof): a login xtoken reaches its own
// record freely and another's, or nobody's, only through its group roles; a role that asks about the person is
// judged on the person found; a call that had to judge a person and did not is refused.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Stores } from '../../../../api/store/stores.js';
import { Gate } from '../../../../api/ops/gate.js';
import type { Admission } from '../../../../api/ops/admission.js';
import type { Services } from '../../../../api/vault/services.js';
import type { Principal } from '../../../../api/vault/credentials.js';
import type { UserRow } from '../../../../api/store/users.js';
import { ForbiddenError } from '../../../../api/errors.js';

const row = (token: string) => ({ token }) as UserRow;
const principal = (kind: Principal['kind'], userToken: string | null = null): Principal =>
  ({ credentialId: 'c', kind, tenantId: 2, roleId: 7, userToken, expiresAt: null }) as Principal;
const userGet = { name: 'UserGet', kinds: ['profile' as const], masks: true as const, judges: 'person' as const };

/** The parts a judgement reads: a person's profile is their token; a group role, when allowed, lets UserGet. */
function world(groupAllows: boolean) {
  const services = {
    users: { open: async (_tenantId: number, r: UserRow) => ({ token: r.token }) },
    roles: { statementsOf: async () => ({ rolename: 'parent', statements: [{ Effect: 'Allow', Action: 'UserGet', Resource: '*' }] }) },
  } as unknown as Services;
  const stores = { tenantId: 2, groups: { membershipsOf: async () => (groupAllows ? [{ groupId: 1, roleId: 7 }] : []) } } as unknown as Stores;
  return { services, stores };
}

describe('Gate', () => {
  it('judges a person as the oracle says, over every kind of caller and person (fast-check)', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom<Principal['kind']>('login', 'role', 'tenant-admin', 'root'),
        fc.constantFrom('me', 'other', null),
        fc.boolean(), // a group policy lets a login reach others
        fc.constantFrom('none', 'allow', 'deny'), // a role's judgement about the person
        async (kind, who, groupAllows, subject) => {
          const judged: string[] = [];
          const { services, stores } = world(groupAllows);
          const admission: Admission = {
            asker: { services, principal: principal(kind, kind === 'login' ? 'me' : null), tenantId: 2, metadata: {} },
            op: userGet,
            fields: '*',
            deniedUnlessSubject: false,
            ...(subject === 'none'
              ? {}
              : {
                  role: {
                    grant: subject === 'deny' ? null : '*',
                    judgesSubject: true,
                    needs: { profile: true, agreements: false },
                    judgeOrNull: (facts) => {
                      judged.push(String(facts.profile?.token));
                      return subject === 'deny' ? null : '*';
                    },
                  },
                }),
          };
          const gate = new Gate(admission, stores);
          const target = who === null ? null : row(who);
          // The oracle: a role's refusal stands, and a role that asks about the person is refused nobody as it is
          // refused someone (F5); a login reaches only itself unless its groups allow another (a person, never nobody).
          const refused = subject === 'deny' || (subject === 'allow' && who === null) || (kind === 'login' && who !== 'me' && (who === null || !groupAllows));
          const verdict = await gate.person(target).then(
            () => 'allowed',
            (e: unknown) => (e instanceof ForbiddenError ? 'refused' : 'error'),
          );
          expect(verdict).toBe(refused ? 'refused' : 'allowed');
          expect(judged).toEqual(subject !== 'none' && who !== null ? [who] : []);
          if (verdict === 'allowed') expect(() => gate.assertJudged()).not.toThrow();
        },
      ),
    );
  });

  it('refuses a call that had to judge its person and did not', () => {
    const { services, stores } = world(false);
    const admission: Admission = { asker: { services, principal: principal('role'), tenantId: 2, metadata: {} }, op: userGet, fields: '*', deniedUnlessSubject: true };
    expect(() => new Gate(admission, stores).assertJudged()).toThrow(ForbiddenError);
    expect(() => new Gate({ ...admission, deniedUnlessSubject: false }, stores).assertJudged()).not.toThrow();
  });

  it('gives every listed person the call’s own grant unless the role judges each', async () => {
    const { services, stores } = world(false);
    const fields = new Set(['name']);
    const asker = { services, principal: principal('role'), tenantId: 2, metadata: {} };
    const plain = new Gate({ asker, op: { ...userGet, judges: 'list' }, fields, deniedUnlessSubject: false }, stores);
    expect(plain.judgesEach).toBe(false);
    expect(await plain.list([{ row: row('a'), profile: {} }, { row: row('b'), profile: {} }])).toEqual([fields, fields]);
    const role = { grant: null, judgesSubject: true, needs: { profile: true, agreements: false }, judgeOrNull: (f: { profile?: Record<string, unknown> }) => (f.profile?.name === 'a' ? '*' : null) } as const;
    const judging = new Gate({ asker, op: { ...userGet, judges: 'list' }, fields: '*', deniedUnlessSubject: true, role }, stores);
    expect(judging.judgesEach).toBe(true);
    expect(await judging.list([{ row: row('a'), profile: { name: 'a' } }, { row: row('b'), profile: { name: 'b' } }])).toEqual(['*', null]);
    expect(() => judging.assertJudged()).not.toThrow();
  });

  it('lets a public call reach anyone (its gate judges nobody)', async () => {
    const { services, stores } = world(false);
    const gate = Gate.open(services, principal('public'), stores);
    await expect(gate.person(row('x'))).resolves.toBeUndefined();
    await expect(gate.person(null)).resolves.toBeUndefined();
    expect(gate.fields).toBe('*');
    await expect(gate.also(userGet)).resolves.toBe('*');
  });
});
