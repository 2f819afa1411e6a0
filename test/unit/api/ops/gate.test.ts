// The gate's verdicts, alone (the access oracle over HTTP is the end-to-end proof): a login xtoken reaches its own
// record freely and another's, or nobody's, only through its group roles; a role that asks about the person is
// judged on the person found; a call that had to judge a person and did not is refused.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { EntityManager } from '@mikro-orm/postgresql';
import { Gate } from '../../../../api/ops/gate.js';
import type { Admission } from '../../../../api/ops/admission.js';
import type { Principal } from '../../../../api/vault/credentials.js';
import type { UserRow } from '../../../../api/store/users.js';
import { ForbiddenError } from '../../../../api/errors.js';

const em = {} as EntityManager;
const row = (token: string) => ({ token }) as UserRow;
const principal = (kind: Principal['kind'], userToken: string | null = null): Principal =>
  ({ credentialId: 'c', kind, tenantId: 2, roleId: null, userToken, expiresAt: null }) as Principal;

describe('Gate', () => {
  it('judges a person as the oracle says, over every kind of caller and person (fast-check)', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom<Principal['kind']>('login', 'role', 'tenant-admin', 'root'),
        fc.constantFrom('me', 'other', null),
        fc.boolean(), // a group policy lets a login reach others
        fc.constantFrom('none', 'allow', 'deny'), // a role's judgement about the person
        async (kind, who, groupAllows, subject) => {
          const judgedSubjects: (string | null)[] = [];
          const admission: Admission = {
            fields: '*',
            deniedUnlessSubject: false,
            authoriseAlso: async () => '*',
            ...(subject === 'none'
              ? {}
              : {
                  authoriseSubject: async (r: UserRow | null) => {
                    judgedSubjects.push(r?.token ?? null);
                    if (subject === 'deny') throw new ForbiddenError('API access denied');
                  },
                }),
            ...(kind === 'login' && groupAllows ? { authoriseOther: async () => undefined } : {}),
          };
          const gate = new Gate(admission, principal(kind, kind === 'login' ? 'me' : null), () => em);
          const target = who === null ? null : row(who);
          // The oracle: a role's refusal stands; a login reaches only itself unless its groups allow another (a
          // person, never nobody).
          const refused = subject === 'deny' || (kind === 'login' && who !== 'me' && (who === null || !groupAllows));
          const verdict = await gate.person(target, em).then(
            () => 'allowed',
            (e: unknown) => (e instanceof ForbiddenError ? 'refused' : 'error'),
          );
          expect(verdict).toBe(refused ? 'refused' : 'allowed');
          if (subject !== 'none') expect(judgedSubjects).toEqual([who]);
        },
      ),
    );
  });

  it('refuses a call that had to judge its person and did not', () => {
    const admission: Admission = { fields: '*', deniedUnlessSubject: true, authoriseAlso: async () => '*' };
    expect(() => new Gate(admission, principal('role'), () => em).assertJudged()).toThrow(ForbiddenError);
    admission.deniedUnlessSubject = false;
    expect(() => new Gate(admission, principal('role'), () => em).assertJudged()).not.toThrow();
  });

  it('gives every listed person the call’s own grant unless the role judges each', async () => {
    const fields = new Set(['name']);
    const plain = new Gate({ fields, deniedUnlessSubject: false, authoriseAlso: async () => '*' }, principal('role'), () => em);
    expect(plain.judgesEach).toBe(false);
    expect(await plain.list([{ row: row('a'), profile: {} }, { row: row('b'), profile: {} }])).toEqual([fields, fields]);
    const judging = new Gate(
      { fields: '*', deniedUnlessSubject: false, authoriseAlso: async () => '*', judgeListed: async (people) => people.map((p) => (p.row.token === 'a' ? '*' : null)) },
      principal('role'),
      () => em,
    );
    expect(judging.judgesEach).toBe(true);
    expect(await judging.list([{ row: row('a'), profile: {} }, { row: row('b'), profile: {} }])).toEqual(['*', null]);
  });

  it('lets a public call reach anyone (its gate judges nobody)', async () => {
    const gate = Gate.open(principal('public'), () => em);
    await expect(gate.person(row('x'), em)).resolves.toBeUndefined();
    await expect(gate.person(null, em)).resolves.toBeUndefined();
    expect(gate.fields).toBe('*');
  });
});
