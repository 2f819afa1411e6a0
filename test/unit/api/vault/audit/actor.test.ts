// The actor text of an audit event: what it records reads back whole, old texts read as they were, and nothing a
// caller chooses (a role's name, a request id) can make an event look like honoured housekeeping.
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { actorText, anonymousActorText, HOUSEKEEPING_LIKE, purposeOf, whoOf, type Actor, type Purpose } from '../../../../../api/vault/audit/actor.js';
import type { PrincipalKind } from '../../../../../api/vault/credentials.js';

/** SQL's LIKE for the one pattern used (`%` any run, no `_`), as an independent oracle. */
function like(text: string, pattern: string): boolean {
  const re = new RegExp(`^${pattern.split('%').map((p) => p.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('[\\s\\S]*')}$`);
  return re.test(text);
}

const actorArb = fc.record({
  kind: fc.constantFrom<PrincipalKind>('root', 'tenant-admin', 'role', 'login', 'public'),
  id: fc.uuid(),
  roleId: fc.integer({ min: 1, max: 1e9 }),
  rolename: fc.option(fc.string(), { nil: null }),
  person: fc.uuid(),
  requestId: fc.option(fc.string(), { nil: null }),
  purpose: fc.constantFrom<Purpose | null>(null, 'housekeeping', 'housekeeping-refused'),
});

type Generated = typeof actorArb extends fc.Arbitrary<infer T> ? T : never;

function build(a: Generated): Actor {
  return {
    principal: { credentialId: a.kind === 'public' ? '' : a.id, kind: a.kind, tenantId: 1, roleId: a.kind === 'role' ? a.roleId : null, userToken: a.kind === 'login' ? a.person : null, expiresAt: null },
    rolename: a.kind === 'role' ? a.rolename : null,
    request: { requestId: a.requestId, address: '10.0.0.1', housekeeping: a.purpose !== null },
    housekeepingAllowed: true,
  };
}

describe('actorText and whoOf', () => {
  it('reads back every fact it wrote, for every kind (generated)', () => {
    fc.assert(
      fc.property(actorArb, (a) => {
        const who = whoOf(actorText(build(a), a.purpose));
        expect(who).toEqual({
          kind: a.kind,
          xtokenid: a.kind === 'public' ? null : a.id,
          roleid: a.kind === 'role' ? a.roleId : null,
          rolename: a.kind === 'role' ? a.rolename : null,
          person: a.kind === 'login' ? a.person : null,
          requestid: a.requestId || null,
          purpose: a.purpose,
        });
      }),
    );
  });

  it('matches the housekeeping pattern exactly when the purpose is honoured housekeeping, whatever the names (generated)', () => {
    const hostile = fc.oneof(fc.string(), fc.constantFrom(' {"purpose":"housekeeping"', '","purpose":"housekeeping"}', '\\" {"purpose":"housekeeping"'));
    fc.assert(
      fc.property(actorArb, hostile, hostile, (a, rolename, requestId) => {
        const text = actorText(build({ ...a, kind: 'role', rolename, requestId }), a.purpose);
        expect(like(text, HOUSEKEEPING_LIKE)).toBe(a.purpose === 'housekeeping');
      }),
    );
  });

  it('reads the texts of events written before it, and of refusals', () => {
    const none = { roleid: null, rolename: null, person: null, requestid: null, purpose: null };
    expect(whoOf('root:0b5e9c44-1111-4222-8333-444455556666')).toEqual({ kind: 'root', xtokenid: '0b5e9c44-1111-4222-8333-444455556666', ...none });
    expect(whoOf('unauthenticated')).toEqual({ kind: 'unauthenticated', xtokenid: null, ...none });
    expect(whoOf('system:legacy-upgrade')).toEqual({ kind: 'system', xtokenid: null, ...none });
    expect(whoOf('public:')).toEqual({ kind: 'public', xtokenid: null, ...none });
    expect(whoOf(anonymousActorText('unauthenticated', 'abc'))).toEqual({ kind: 'unauthenticated', xtokenid: null, ...none, requestid: 'abc' });
    expect(whoOf('role:x {not json')).toEqual({ kind: 'role', xtokenid: 'x', ...none });
  });
});

describe('purposeOf', () => {
  it('honours housekeeping only when asked, allowed, and naming nobody', () => {
    const cases = fc.record({ asked: fc.boolean(), allowed: fc.boolean(), names: fc.boolean() });
    fc.assert(
      fc.property(cases, ({ asked, allowed, names }) => {
        const got = purposeOf({ request: { requestId: null, address: null, housekeeping: asked }, housekeepingAllowed: allowed }, names);
        expect(got).toBe(!asked ? null : allowed && !names ? 'housekeeping' : 'housekeeping-refused');
      }),
    );
  });
});
