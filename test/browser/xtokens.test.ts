// The console's roles and xtokens in a real browser: a role made and opened, an xtoken made for it, listed, revoked,
// and refused from then on; a person's login xtokens; a role another tool manages shown read-only.
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import type { TestVault } from '../fixtures/vault.js';
import { expectAccessible, openPage, pagesVault, poll, screenshot, shown } from './support.js';

let vault: TestVault;
let browser: Browser;

pagesVault((v, b) => {
  vault = v;
  browser = b;
});

const newPage = () => openPage(browser);

/** Types the token into the console's sign-in form; the caller checks what follows. */
async function submitToken(page: Page, token: string): Promise<void> {
  await page.goto(`${vault.url}/console/`);
  await page.getByLabel('Token').fill(token);
  await page.getByRole('button', { name: 'Sign in' }).click();
}

async function signInAsRoot(page: Page): Promise<void> {
  await submitToken(page, vault.rootToken);
  await poll(() => shown(page.getByRole('heading', { name: 'People', level: 1 }))).toBe('shown');
}

async function openRole(page: Page, rolename: string): Promise<void> {
  await page.getByRole('navigation', { name: 'Console sections' }).getByRole('link', { name: 'Access', exact: true }).click();
  await page.getByLabel('Role name').fill(rolename);
  await page.getByRole('button', { name: 'Open role' }).click();
  await poll(() => shown(page.getByRole('heading', { name: `Role ${rolename}` }))).toBe('shown');
}

/** Looks a person up by email in the console, as whoever is signed in. */
async function findByEmail(page: Page, email: string): Promise<void> {
  await page.getByRole('navigation', { name: 'Console sections' }).getByRole('link', { name: 'People', exact: true }).click();
  await page.getByLabel('Find by').selectOption('email');
  await page.getByLabel('Value').fill(email);
  await page.getByRole('button', { name: 'Find', exact: true }).click();
}

describe("a role's xtokens in the console", { timeout: 180_000 }, () => {
  it('are made, listed by id, revoked after a confirmation, and a revoked xtoken can no longer sign in', async () => {
    const email = `mae-${randomUUID().slice(0, 8)}@example.com`;
    await vault.call('UserCreate', { profile: { email, name: 'Mae Jemison' } });
    const rolename = `desk-${randomUUID().slice(0, 6)}`;
    const policyname = `${rolename}-read`;
    await vault.call('PolicyCreate', { policyname, policy: { Effect: 'Allow', Action: ['UserGet'], Resource: ['users.profile.name', 'users.profile.email'] } });

    const { page, problems } = await newPage();
    await signInAsRoot(page);
    await page.getByRole('navigation', { name: 'Console sections' }).getByRole('link', { name: 'Access', exact: true }).click();
    await page.getByLabel('Role name').fill(rolename);
    await page.getByLabel('Role description').fill('Support desk');
    await page.getByRole('button', { name: 'Create role' }).click();
    await poll(() => shown(page.getByRole('heading', { name: `Role ${rolename}` }))).toBe('shown');
    await poll(() => shown(page.getByText('this console or the API (no owner mark)'))).toBe('shown');
    await page.getByLabel('Policy to link').selectOption(policyname);
    await page.getByRole('button', { name: 'Link policy' }).click();
    await poll(() => shown(page.getByRole('table', { name: `Policies of role ${rolename}` }).getByRole('cell', { name: policyname }))).toBe('shown');
    expect((await vault.call('RoleGet', { rolename })).body).toMatchObject({ roledesc: 'Support desk', policies: [{ policyname }] });

    await page.getByLabel('xtoken lifetime', { exact: true }).fill('2');
    await page.getByLabel('xtoken lifetime unit').selectOption('h');
    await page.getByRole('button', { name: 'Create xtoken' }).click();
    const made = page.getByText(/^xtoken [0-9a-f-]{36}, valid until .* \(id [0-9a-f-]{36}\)\. It is shown once/);
    await poll(() => shown(made)).toBe('shown');
    const xtoken = (await made.locator('code').textContent())!;
    const xtokenid = /\(id ([0-9a-f-]{36})\)/.exec((await made.textContent())!)![1]!;
    const row = page.getByRole('table', { name: 'Xtokens of this role (1)' }).getByRole('row').filter({ hasText: xtokenid });
    await poll(() => shown(row)).toBe('shown');
    // The list names xtokens by id; the secret appears only in the one-time notice.
    expect(await page.getByRole('table', { name: /^Xtokens of this role/ }).textContent()).not.toContain(xtoken);
    expect((await vault.call('XTokenListForRole', { rolename })).body.rows).toMatchObject([{ xtokenid }]);
    await expectAccessible(page, 'console role with its xtokens');
    await screenshot(page, 'console-role-xtokens');

    // The xtoken works before it is revoked: it signs in and reads what its policy allows.
    const holder = await newPage();
    await submitToken(holder.page, xtoken);
    await poll(() => shown(holder.page.getByText('tenant credential'))).toBe('shown');
    await findByEmail(holder.page, email);
    await poll(() => shown(holder.page.getByRole('heading', { name: 'Mae Jemison' }))).toBe('shown');

    await row.getByRole('button', { name: 'Revoke' }).click();
    await row.getByRole('button', { name: 'Revoke it now' }).click();
    await poll(() => shown(page.getByText(`xtoken ${xtokenid} was revoked: it no longer signs in.`))).toBe('shown');
    await poll(() => shown(page.getByText('No live xtokens for this role.'))).toBe('shown');
    expect((await vault.call('XTokenListForRole', { rolename })).body).toMatchObject({ total: 0, rows: [] });
    await expectAccessible(page, 'console role after a revocation');

    // The tab still signed in with it is refused at its next call, and signing in again fails.
    await holder.page.getByRole('button', { name: '← Back to people' }).click();
    await findByEmail(holder.page, email);
    await poll(() => holder.page.getByRole('alert').textContent()).toContain('Access denied');
    await holder.page.getByRole('button', { name: 'Sign out' }).click();
    await submitToken(holder.page, xtoken);
    await poll(() => holder.page.getByRole('alert').textContent()).toContain('not valid here');
    expect(await holder.page.getByText('tenant credential').count()).toBe(0);
    await screenshot(holder.page, 'console-revoked-xtoken-refused');
    expect((await vault.call('UserGet', { mode: 'email', identity: email }, { 'x-bunker-token': xtoken })).status).toBe(403);
    expect(holder.problems).toEqual([]);
    await holder.page.context().close();

    // Revoking it again is refused as unknown: the id is gone, not hidden.
    expect((await vault.call('XTokenRevoke', { xtokenid })).status).toBe(404);
    expect(problems).toEqual([]);
    await page.context().close();
  });

  it('of a role another tool manages are listed read-only, with its policies and owner mark', async () => {
    const rolename = `op-${randomUUID().slice(0, 6)}`;
    const managedby = randomUUID();
    await vault.call('RoleCreate', { rolename, roledesc: 'Made by the operator', managedby });
    await vault.call('PolicyCreate', { policyname: `${rolename}-p`, policy: { Effect: 'Allow', Action: ['UserGet'] }, managedby });
    await vault.call('RoleLinkPolicy', { rolename, policyname: `${rolename}-p` });
    const { xtokenid } = (await vault.call('XTokenCreateForRole', { rolename, finaltime: '1h' })).body as { xtokenid: string };

    const { page, problems } = await newPage();
    await signInAsRoot(page);
    await openRole(page, rolename);
    await poll(() => shown(page.locator('dl').getByText(managedby, { exact: true }))).toBe('shown');
    await poll(() => shown(page.getByText(/another tool manages it.*read-only here/))).toBe('shown');
    await poll(() => shown(page.getByRole('table', { name: `Policies of role ${rolename}` }).getByRole('cell', { name: `${rolename}-p` }))).toBe('shown');
    await poll(() => shown(page.getByRole('table', { name: 'Xtokens of this role (1)' }).getByRole('cell', { name: xtokenid }))).toBe('shown');
    for (const control of ['Revoke', 'Create xtoken', 'Link policy', 'Unlink', 'Save description', 'Delete role']) expect(await page.getByRole('button', { name: control, exact: true }).count(), control).toBe(0);
    await expectAccessible(page, 'console managed role');
    await screenshot(page, 'console-managed-role');

    // A name the vault does not know is said so, in the page.
    await openRoleMissing(page, `none-${randomUUID().slice(0, 6)}`);
    expect(problems).toEqual([]);
    await page.context().close();
  });
});

describe('a role opened with another tenant chosen', { timeout: 180_000 }, () => {
  it('is read from the main tenant, and its xtokens are made and listed in the chosen tenant only', async () => {
    const tenantname = `t${randomUUID().slice(0, 6)}`;
    expect((await vault.call('TenantCreate', { tenantname, tenantorg: 'Branch office' })).status).toBe(200);
    const rolename = `branch-${randomUUID().slice(0, 6)}`;
    await vault.call('RoleCreate', { rolename });

    const { page, problems } = await newPage();
    await signInAsRoot(page);
    await page.getByLabel('Tenant', { exact: true }).selectOption(tenantname);
    await openRole(page, rolename);
    await poll(() => shown(page.getByText(`Live xtokens of this role in ${tenantname}`))).toBe('shown');
    await page.getByRole('button', { name: 'Create xtoken' }).click();
    await poll(() => shown(page.getByRole('table', { name: 'Xtokens of this role (1)' }))).toBe('shown');
    const inBranch = (await vault.call('XTokenListForRole', { rolename }, { 'x-bunker-tenant': tenantname })).body;
    expect(inBranch.total).toBe(1);
    expect((await vault.call('XTokenListForRole', { rolename })).body.total).toBe(0);
    expect(problems).toEqual([]);
    await page.context().close();
  });
});

async function openRoleMissing(page: Page, rolename: string): Promise<void> {
  await page.getByLabel('Role name').fill(rolename);
  await page.getByRole('button', { name: 'Open role' }).click();
  await poll(() => page.getByRole('alert').textContent()).toMatch(/not found/i);
}

describe("a person's login xtokens in the console", { timeout: 180_000 }, () => {
  it('are made, listed and revoked from the record, and a revoked one is refused by the API', async () => {
    const email = `ida-${randomUUID().slice(0, 8)}@example.com`;
    const token = (await vault.call('UserCreate', { profile: { email, name: 'Ida Rhodes' } })).body.token as string;
    const earlier = (await vault.call('XTokenCreateForUser', { mode: 'email', identity: email, finaltime: '1h' })).body as { xtoken: string; xtokenid: string };

    const { page, problems } = await newPage();
    await signInAsRoot(page);
    await findByEmail(page, email);
    await poll(() => shown(page.getByRole('heading', { name: 'Ida Rhodes' }))).toBe('shown');
    await page.getByRole('tab', { name: 'Xtokens' }).click();
    await poll(() => shown(page.getByRole('table', { name: 'Xtokens of this person (1)' }).getByRole('cell', { name: earlier.xtokenid }))).toBe('shown');

    await page.getByRole('button', { name: 'Create xtoken' }).click();
    const made = page.getByText(/^xtoken [0-9a-f-]{36}, valid until/);
    await poll(() => shown(made)).toBe('shown');
    const xtoken = (await made.locator('code').textContent())!;
    await poll(() => shown(page.getByRole('table', { name: 'Xtokens of this person (2)' }))).toBe('shown');
    // The new login xtoken reads the person's own record.
    expect((await vault.call('UserGet', { mode: 'token', identity: token }, { 'x-bunker-token': xtoken })).status).toBe(200);
    await expectAccessible(page, 'console person xtokens');
    await screenshot(page, 'console-person-xtokens');

    const row = page.getByRole('row').filter({ hasText: earlier.xtokenid });
    await row.getByRole('button', { name: 'Revoke' }).click();
    await row.getByRole('button', { name: 'Keep it' }).click();
    expect((await vault.call('XTokenListForUser', { mode: 'email', identity: email })).body.total).toBe(2);
    await row.getByRole('button', { name: 'Revoke' }).click();
    await row.getByRole('button', { name: 'Revoke it now' }).click();
    await poll(() => shown(page.getByRole('table', { name: 'Xtokens of this person (1)' }))).toBe('shown');
    expect(await page.getByRole('row').filter({ hasText: earlier.xtokenid }).count()).toBe(0);
    expect((await vault.call('UserGet', { mode: 'token', identity: token }, { 'x-bunker-token': earlier.xtoken })).status).toBe(403);
    expect((await vault.call('UserGet', { mode: 'token', identity: token }, { 'x-bunker-token': xtoken })).status).toBe(200);
    expect(problems).toEqual([]);
    await page.context().close();
  });
});
