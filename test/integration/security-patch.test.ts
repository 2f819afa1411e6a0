// R1 of the security review: a small JSON Patch that copies a branch into itself through a second branch
// (`copy /a → /b`, then `copy /b → /a/x0`) doubles the profile every two operations. The review's 1.4 KB
// UserPatchRequest, sent with a person's own login xtoken, took the api to 1.79 GB. Every path that applies a patch
// (UserPatch, UserPatchRequest, and a request's approval) is refused with a 400 naming the operation, and the
// process's peak memory (the api runs in this process) does not move by more than a bound far below what one
// doubling series costs.
import { describe, expect } from 'vitest';
import { it, buildProfile, type TestVault } from '../fixtures/vault.js';

/** The review's reproduction: 50 doublings in 100 operations, about 1.4 KB as JSON. */
function doubling(): unknown[] {
  return Array.from({ length: 50 }, (_, i) => [
    { op: 'copy', from: '/a', path: '/b' },
    { op: 'copy', from: '/b', path: `/a/x${i}` },
  ]).flat();
}

/** The process's peak resident memory so far, in MB (it only grows). */
function peakMB(): number {
  return process.resourceUsage().maxRSS / 1024;
}

async function person(vault: TestVault) {
  const profile = { ...buildProfile(), a: { seed: 'x'.repeat(200) } };
  const { token } = (await vault.call('UserCreate', { profile })).body as { token: string };
  const login = (await vault.call('XTokenCreateForUser', { mode: 'token', identity: token })).body.xtoken as string;
  return { token, profile, ref: { mode: 'token', identity: token }, login: { 'x-bunker-token': login } };
}

describe('JSON Patch amplification (R1)', () => {
  it('refuses the doubling patch on UserPatchRequest (a login xtoken) and UserPatch, within a memory bound', async ({ vault }) => {
    const p = await person(vault);
    const patch = doubling();
    expect(JSON.stringify(patch).length).toBeLessThan(4096);
    const before = peakMB();
    const asked = await vault.call('UserPatchRequest', { ...p.ref, patch }, p.login);
    expect(asked.status).toBe(400);
    expect(asked.body.message).toMatch(/patch\[\d+\]: the profile would grow past \d+ bytes/);
    const patched = await vault.call('UserPatch', { ...p.ref, patch });
    expect(patched.status).toBe(400);
    expect(patched.body.message).toMatch(/patch\[\d+\]/);
    // One refused series costs at most the cap (1 MiB) a few times over; the unbounded one cost gigabytes.
    expect(peakMB() - before).toBeLessThan(96);
    expect((await vault.call('UserGet', p.ref)).body.profile).toEqual(p.profile);
    expect((await vault.call('UserRequestListUserRequests', p.ref)).body.total).toBe(0);
  });

  it('refuses at approval a stored patch that would now pass the cap, and leaves the profile as it was', async ({ vault }) => {
    const p = await person(vault);
    // Fits now: the branch is small.
    const copy = [{ op: 'copy', from: '/a', path: '/a2' }];
    const asked = await vault.call('UserPatchRequest', { ...p.ref, patch: copy }, p.login);
    expect(asked.status, JSON.stringify(asked.body)).toBe(200);
    // The branch grows to 0.6 MB by an admin's update: a copy of it passes the 1 MiB cap.
    const big = { seed: 'y'.repeat(600 * 1024) };
    expect((await vault.call('UserUpdate', { ...p.ref, profile: { a: big } })).status).toBe(200);
    const approved = await vault.call('UserRequestApprove', { requestuuid: asked.body.requestuuid });
    expect(approved.status).toBe(400);
    expect(approved.body.message).toMatch(/patch\[0\]: the profile would grow past/);
    expect((await vault.call('UserGet', p.ref)).body.profile.a2).toBeUndefined();
  });

  it('still applies ordinary patches for the person and the admin', async ({ vault }) => {
    const p = await person(vault);
    const patch = [
      { op: 'copy', from: '/a', path: '/b' },
      { op: 'replace', path: '/b/seed', value: 'short' },
      { op: 'move', from: '/b', path: '/c' },
    ];
    const asked = await vault.call('UserPatchRequest', { ...p.ref, patch }, p.login);
    expect(asked.status, JSON.stringify(asked.body)).toBe(200);
    expect((await vault.call('UserRequestApprove', { requestuuid: asked.body.requestuuid })).status).toBe(200);
    const got = (await vault.call('UserGet', p.ref)).body.profile;
    expect(got.c).toEqual({ seed: 'short' });
    expect(got.a).toEqual(p.profile.a);
  });
});
