// The audit events' `who` in plain words, for staff and for the person, from new and old (kind-and-id only) events.
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { shortId, whoForPerson, whoForStaff, whoOf } from '../../../web/src/shared/who.js';

const base = { xtokenid: null, roleid: null, rolename: null, person: null, requestid: null, purpose: null };

describe('whoForStaff', () => {
  it('names the role and a short xtoken id', () => {
    expect(whoForStaff({ ...base, kind: 'role', xtokenid: '5a4b3c2d-0000-4000-8000-000000000000', roleid: 3, rolename: 'support' })).toBe('role support (xtoken 5a4b…)');
  });
  it('says the person themselves, root and tenant admin', () => {
    expect(whoForStaff({ ...base, kind: 'login', xtokenid: 'abcdefgh', person: 'tok' })).toBe('the person themselves');
    expect(whoForStaff({ ...base, kind: 'root', xtokenid: 'abcdefgh' })).toBe('root');
    expect(whoForStaff({ ...base, kind: 'tenant-admin', xtokenid: 'abcdefgh' })).toBe('tenant admin');
  });
  it('reads old events, which carry only kind and xtokenid', () => {
    expect(whoForStaff({ kind: 'role', xtokenid: 'abcdefgh' })).toBe('a role (xtoken abcd…)');
    expect(whoForStaff({ kind: 'system', xtokenid: null })).toBe('the vault itself (a scheduled job)');
  });
  it('marks housekeeping, honoured or refused', () => {
    expect(whoForStaff({ ...base, kind: 'root', purpose: 'housekeeping' })).toBe('root, console housekeeping');
    expect(whoForStaff({ ...base, kind: 'root', purpose: 'housekeeping-refused' })).toMatch(/reached a person/);
  });
  it('never throws and never shows a whole xtoken id, whatever the answer holds', () => {
    fc.assert(
      fc.property(fc.anything(), fc.stringMatching(/^[0-9a-f-]{7,36}$/), (junk, id) => {
        const said = whoForStaff({ ...base, kind: 'role', xtokenid: id });
        expect(said).not.toContain(id);
        expect(typeof whoForStaff(junk)).toBe('string');
        expect(typeof whoForPerson(junk)).toBe('string');
      }),
    );
  });
});

describe('whoForPerson', () => {
  it('speaks to the person', () => {
    expect(whoForPerson({ ...base, kind: 'login' })).toBe('you');
    expect(whoForPerson({ ...base, kind: 'role', rolename: 'support' })).toBe("the organisation's staff (role support)");
    expect(whoForPerson({ kind: 'role', xtokenid: 'x' })).toBe("the organisation's staff");
  });
});

describe('whoOf and shortId', () => {
  it('fills what an old event lacks with null', () => {
    expect(whoOf({ kind: 'root', xtokenid: 'a' })).toEqual({ ...base, kind: 'root', xtokenid: 'a' });
  });
  it('keeps short ids whole', () => {
    expect(shortId('abc')).toBe('abc');
  });
});
