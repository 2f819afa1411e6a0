// No body, however wrong, makes any operation answer 500: every registered operation gets bodies whose fields
// (every field name the contract uses) hold values of the wrong type, out of range, empty, huge or with NUL
// characters. A seeded generator keeps a failure reproducible (the failing body is in the message).
import { describe, expect } from 'vitest';
import { it, buildProfile } from '../fixtures/vault.js';
import { operations } from '../../api/ops/index.js';

const FIELDS = [
  'mode', 'identity', 'brief', 'newbrief', 'status', 'module', 'fulldesc', 'shortdesc', 'basistype', 'requiredmsg', 'requiredflag',
  'agreementmethod', 'referencecode', 'starttime', 'finaltime', 'slidingtime', 'lastmodifiedby', 'activity', 'newactivity', 'title',
  'script', 'applicableto', 'sessionuuid', 'sessiondata', 'recorduuid', 'fields', 'partner', 'appname', 'appdata', 'profile', 'patch',
  'requestuuid', 'reason', 'unlockuuid', 'offset', 'limit', 'filename', 'filedata', 'mimetype', 'tags', 'tag', 'fileuuid', 'raw',
  'version', 'users', 'tokens', 'records', 'groupname', 'groupid', 'grouptype', 'groupdesc', 'rolename', 'roleid', 'roledesc',
  'tenantid', 'tenantname', 'tenantorg', 'email', 'token', 'tokentype', 'record', 'tokenuuid', 'unique', 'policy', 'policyname',
  'policyid', 'policydesc', 'licensekey', 'key1', 'key2', 'key3', 'captchacode', 'code', 'smscode', 'auditeventuuid', 'request_metadata',
];
const VALUES: unknown[] = [
  1, -1, 0, 2.5, 1e20, '99999999999999999999', '9999999999999', 'x', '', ' ', 'a'.repeat(300), 'nul\u0000byte', '../../etc',
  'ab88ca3e-599f-8f17-10dd-c7f424504b94', true, false, [], [1], ['x', { y: 1 }], {}, { a: 1 }, { op: 'remove', path: '/x' },
];

/**
 * Values too deep or too large to be taken, as JSON text (JSON.stringify itself would overflow on the deepest):
 * objects and arrays nested past the 64-level limit and 10,000 deep, and a string of 1.5 MB.
 */
const HOSTILE: string[] = [
  `${'{"a":'.repeat(70)}1${'}'.repeat(70)}`,
  `${'{"a":'.repeat(10_000)}1${'}'.repeat(10_000)}`,
  `${'['.repeat(10_000)}${']'.repeat(10_000)}`,
  JSON.stringify('x'.repeat(1_500_000)),
];
const PLACEHOLDER = '"__hostile__"';

/** A small seeded generator (LCG): the same seed makes the same bodies. */
function generator(seed: number) {
  let s = seed;
  return (n: number) => {
    s = (s * 1103515245 + 12345) % 2147483648;
    return s % n;
  };
}

describe('robustness', () => {
  it('never answers 500 to a wrong body, for any operation', async ({ vault }) => {
    const token = (await vault.call('UserCreate', { profile: buildProfile() })).body.token as string;
    const rnd = generator(20261123);
    const failures: string[] = [];
    for (const op of operations) {
      for (let i = 0; i < 30; i++) {
        // Half the bodies name a real person, so the operations get past the lookup to their own checks.
        const body: Record<string, unknown> = i % 2 ? { mode: 'token', identity: token } : {};
        for (const f of FIELDS) if (rnd(4) === 0) body[f] = VALUES[rnd(VALUES.length)];
        // One body in five carries a hostile value in one of its fields.
        const hostile = i % 5 === 4 ? HOSTILE[rnd(HOSTILE.length)]! : undefined;
        if (hostile) body[FIELDS[rnd(FIELDS.length)]!] = '__hostile__';
        const text = hostile ? JSON.stringify(body).replace(PLACEHOLDER, hostile) : JSON.stringify(body);
        const res = await vault.call(op.name, text);
        // An answer's status is the call's own: 200 is `ok`, except the login errors the contract answers with 200.
        const loginError = ['captcha-error', 'login-error'].includes(res.body?.message);
        if (res.status >= 500 || (res.body?.status !== 'error' && res.status !== 200) || (res.status === 200 && res.body?.status !== 'ok' && !loginError)) {
          failures.push(`${op.name} answered ${res.status} ${JSON.stringify(res.body)} to ${text.slice(0, 300)}`);
        }
      }
    }
    expect(failures).toEqual([]);
  }, 300_000);

  it('answers a body past the limit 413 and a body that is not a JSON object 400, for any operation', async ({ vault }) => {
    const failures: string[] = [];
    const big = JSON.stringify({ profile: { x: 'y'.repeat(3 * 1024 * 1024) } });
    for (const op of operations) {
      for (const [text, status] of [[big, 413], ['[1,2,3]', 400], ['"text"', 400], ['{"a":', 400]] as const) {
        // FileCreate and the bulk creations may carry more: a 3 MB body is within their limit, judged on its content.
        const expected = op.largeBody && text === big ? 400 : status;
        const res = await vault.call(op.name, text);
        if (res.status !== expected || res.body?.status !== 'error') failures.push(`${op.name} answered ${res.status} ${JSON.stringify(res.body)} to ${text.slice(0, 40)}`);
      }
    }
    expect(failures).toEqual([]);
  }, 300_000);

  it('refuses NUL characters in names with a 400 naming the field', async ({ vault }) => {
    const res = await vault.call('GroupCreate', { groupname: 'bad\u0000name' });
    expect(res.status).toBe(400);
    expect(res.body.message).toBe('Invalid API request parameter: groupname must not contain NUL characters');
    const tagged = await vault.call('LegalBasisCreate', { brief: 'nul-check', shortdesc: 'a\u0000b' });
    expect(tagged.status).toBe(400);
  });
});
