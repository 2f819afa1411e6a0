// Every operation of the registry against every kind of caller: who is turned away (403) and who gets through
// to the operation itself (any other answer: 200, or 400 for the empty body this test sends).
import { createHash } from 'node:crypto';
import { describe, expect } from 'vitest';
import { test, buildProfile } from '../fixtures/vault.js';
import { operations } from '../../api/ops/index.js';
import type { OpDefinition } from '../../api/ops/define.js';

const headers: Record<string, Record<string, string>> = {};

type Who = 'none' | 'garbage' | 'expired' | 'login' | 'roleWithoutPolicy' | 'roleUserGetOnly' | 'adminOfOtherTenant' | 'tenantAdmin' | 'root';

const LOGIN_OPS = new Set([
  'UserGet',
  'UserListVersions',
  'AuditListUserEvents',
  'AuditProveEvents',
  'AppdataGet',
  'AppdataListUserAppNames',
  'AppdataListVersions',
  'LegalBasisListAgreements',
  'AgreementAccept',
  'AgreementGet',
  'AgreementListUserAgreements',
  'AgreementCancelRequest',
  'UserDeleteRequest',
  'UserUpdateRequest',
  'UserPatchRequest',
  'AppdataUpdateRequest',
  'UserRequestGet',
  'UserRequestCancel',
  'UserLogout',
  'UserRequestListUserRequests',
  'SessionListUserSessions',
  'SharedRecordCreate',
  'SharedRecordDelete',
  'SharedRecordListUserRecords',
  'FileGet',
  'FileListUserFiles',
]);

/**
 * The main tenant's operations (the contract's MT, and ours beyond it): this test's own list, so a definition whose
 * `access` is wrong fails here instead of setting its own expectation.
 */
const MAIN_TENANT_OPS = new Set([
  'PolicyCreate', 'PolicyDelete', 'PolicyExplain', 'PolicyGet', 'PolicyListAllPolicies', 'PolicyUpdate',
  'RoleCreate', 'RoleDelete', 'RoleGet', 'RoleLinkPolicy', 'RoleListAllRoles', 'RoleUnlinkPolicy', 'RoleUpdate',
  'SystemDeleteUserProfiles', 'SystemGenerateWrappingKey', 'SystemGetKeyringStatus', 'SystemGetUserProfiles', 'SystemResplitRecoveryKey', 'SystemRestoreUserProfile',
  'SystemRotateMasterKey', 'SystemSearchUserProfiles', 'SystemSetLicenseKey',
  'TenantCreate', 'TenantDelete', 'TenantListTenants', 'TenantRevokeKek', 'TenantRotateAdminToken',
]);

/** The expected outcome for a caller and an operation. */
function expected(who: Who, op: OpDefinition): 'through' | 'denied' {
  if (op.access === 'public') return 'through';
  switch (who) {
    case 'root':
      return 'through';
    case 'tenantAdmin':
      return MAIN_TENANT_OPS.has(op.name) ? 'denied' : 'through';
    case 'login':
      return LOGIN_OPS.has(op.name) ? 'through' : 'denied';
    case 'roleUserGetOnly':
      return op.name === 'UserGet' ? 'through' : 'denied';
    default:
      return 'denied';
  }
}

test.beforeAll(async ({ vault }) => {
  const ok = async (op: string, body: unknown, h?: Record<string, string>) => {
    const res = await vault.call(op, body, h);
    expect(res.status, `${op} ${JSON.stringify(res.body)}`).toBe(200);
    return res.body;
  };
  const a = await ok('TenantCreate', { tenantname: 'matrixa', tenantorg: 'A' });
  const b = await ok('TenantCreate', { tenantname: 'matrixb', tenantorg: 'B' });
  await ok('RoleCreate', { rolename: 'matrix-none' });
  await ok('RoleCreate', { rolename: 'matrix-get' });
  await ok('PolicyCreate', { policyname: 'matrix-get', policy: { Effect: 'Allow', Action: 'UserGet' } });
  await ok('RoleLinkPolicy', { rolename: 'matrix-get', policyname: 'matrix-get' });
  const user = await ok('UserCreate', { profile: buildProfile() });
  const expiring = await ok('XTokenCreateForRole', { rolename: 'matrix-get', finaltime: '1s' });
  Object.assign(headers, {
    none: {},
    garbage: { 'x-bunker-token': 'not-a-token' },
    expired: { 'x-bunker-token': expiring.xtoken },
    login: { 'x-bunker-token': (await ok('XTokenCreateForUser', { mode: 'token', identity: user.token })).xtoken },
    roleWithoutPolicy: { 'x-bunker-token': (await ok('XTokenCreateForRole', { rolename: 'matrix-none' })).xtoken },
    roleUserGetOnly: { 'x-bunker-token': (await ok('XTokenCreateForRole', { rolename: 'matrix-get' })).xtoken },
    adminOfOtherTenant: { 'x-bunker-token': b.xtoken, 'x-bunker-tenant': 'matrixa' },
    tenantAdmin: { 'x-bunker-token': a.xtoken },
    root: { 'x-bunker-token': vault.rootToken },
  } satisfies Record<Who, Record<string, string>>);
  // Its life over, as if the second had passed: the expiry moves back; the token was never used, so never cached.
  await vault.api.services.db.orm.em
    .getConnection()
    .execute('update strongroom.credentials set expires_at = expires_at - 3600 where hash = ?', [createHash('sha256').update(expiring.xtoken).digest('hex')]);
});

describe('the access matrix', () => {
  const callers: Who[] = ['none', 'garbage', 'expired', 'login', 'roleWithoutPolicy', 'roleUserGetOnly', 'adminOfOtherTenant', 'tenantAdmin', 'root'];
  // TenantDelete with an empty body is harmless (400); nothing here changes state a later pair depends on, but
  // UserLogout, which ends the login xtoken that calls it: it goes last.
  const ordered = [...operations.filter((op) => op.name !== 'UserLogout'), ...operations.filter((op) => op.name === 'UserLogout')];
  test.for(callers)('%s', async (who, { vault }) => {
    const wrong: string[] = [];
    for (const op of ordered) {
      const res = await fetch(`${vault.url}/v2/${op.name}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...headers[who] },
        body: '{}',
      });
      const body = (await res.json()) as { status: string; message?: string };
      const got = res.status === 403 ? 'denied' : 'through';
      if (got !== expected(who, op)) wrong.push(`${op.name}: ${res.status} ${JSON.stringify(body)}`);
      // No header at all is named as such (the contract's v1 message); every other refusal says only that it is one.
      if (got === 'denied') expect(who === 'none' ? ['missing X-Bunker-Token header'] : ['Access denied', 'API access denied']).toContain(body.message);
      expect(res.status, op.name).not.toBe(500);
    }
    expect(wrong).toEqual([]);
  });
});
