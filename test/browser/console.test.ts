// The console as a new administrator meets it (issue 28): addresses for every section and record, lists and
// pickers in place of typed names, the inbox naming the person, a form to create one, dialogs before what cannot
// be undone, copy buttons, verdict colours and an audit table that reads at 1366 px.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { startVault, type TestVault } from '../fixtures/vault.js';
import { ensurePagesBuilt, expectAccessible, launch, poll, screenshot, shown, watch } from './support.js';

let vault: TestVault;
let browser: Browser;

beforeAll(async () => {
  ensurePagesBuilt();
  vault = await startVault();
  browser = await launch();
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await vault?.stop();
});

async function newPage(width = 1280, height = 900): Promise<{ page: Page; problems: string[] }> {
  const context = await browser.newContext({ viewport: { width, height } });
  const page = await context.newPage();
  return { page, problems: watch(page) };
}

async function signIn(page: Page, path = ''): Promise<void> {
  await page.goto(`${vault.url}/console/${path}`);
  await page.getByLabel('Token').fill(vault.rootToken);
  await page.getByRole('button', { name: 'Sign in' }).click();
}

const heading = (page: Page, name: string | RegExp) => page.getByRole('heading', { name, level: 1 });
const section = (page: Page, name: string) => page.getByRole('navigation', { name: 'Console sections' }).getByRole('link', { name, exact: true });

describe('console addresses', { timeout: 180_000 }, () => {
  it('give every section and record its own address: deep links, back and reload keep the place', async () => {
    const email = `route-${randomUUID().slice(0, 8)}@example.com`;
    const token = (await vault.call('UserCreate', { profile: { email, name: 'Mary Somerville' } })).body.token as string;
    const { page, problems } = await newPage();

    // A deep link asked for before signing in opens once the token is given.
    await signIn(page, `people/${token}/versions`);
    await poll(() => shown(heading(page, 'Mary Somerville'))).toBe('shown');
    await poll(() => shown(page.getByRole('tab', { name: 'Versions', selected: true }))).toBe('shown');
    await expectAccessible(page, 'console record by address');

    await page.getByRole('tab', { name: 'App data' }).click();
    await poll(() => page.url()).toBe(`${vault.url}/console/people/${token}/app-data`);
    await page.reload();
    await poll(() => shown(page.getByRole('tab', { name: 'App data', selected: true }))).toBe('shown');
    await page.goBack();
    await poll(() => shown(page.getByRole('tab', { name: 'Versions', selected: true }))).toBe('shown');

    for (const [name, path, title] of [
      ['Requests', 'requests', 'User requests'],
      ['Consent', 'consent', 'Consent'],
      ['Tokens', 'tokens', 'Tokens'],
      ['Access', 'access', 'Access'],
      ['Groups', 'groups', 'Groups'],
      ['Audit', 'audit', 'Audit trail'],
      ['Tenants', 'tenants', 'Tenants'],
      ['System', 'system', 'System'],
    ] as const) {
      await section(page, name).click();
      await poll(() => shown(heading(page, title))).toBe('shown');
      expect(page.url()).toBe(`${vault.url}/console/${path}`);
      expect(await section(page, name).getAttribute('aria-current')).toBe('page');
      expect(await page.title()).toBe(`${name} · Strongroom console`);
    }
    await page.reload();
    await poll(() => shown(heading(page, 'System'))).toBe('shown');
    await page.goBack();
    await poll(() => shown(heading(page, 'Tenants'))).toBe('shown');

    await page.goto(`${vault.url}/console/no-such-page`);
    await poll(() => shown(heading(page, 'Nothing here'))).toBe('shown');
    expect(await page.title()).not.toContain('Mary');
    expect(problems).toEqual([]);
    await page.context().close();
  });

  it('are answered by the vault with the page, under its security headers, at any depth', async () => {
    for (const path of ['/console/people/0e6c0f1e-0000-4000-8000-000000000000/audit', '/console/access/roles/support', '/portal/shared/0e6c0f1e-0000-4000-8000-000000000000']) {
      const res = await fetch(`${vault.url}${path}`);
      expect(res.status, path).toBe(200);
      expect(res.headers.get('content-type')).toContain('text/html');
      expect(res.headers.get('content-security-policy')).toContain("script-src 'self'");
      expect(await res.text()).toMatch(/<script type="module" crossorigin src="\/static\//);
    }
  });
});

describe('console lists and pickers', { timeout: 180_000 }, () => {
  it('list every role with its policies and live xtokens, and offer existing names where a name must exist', async () => {
    const rolename = `api-made-${randomUUID().slice(0, 6)}`;
    const policyname = `${rolename}-read`;
    const spare = `${rolename}-spare`;
    await vault.call('RoleCreate', { rolename, roledesc: 'Made through the API' });
    await vault.call('PolicyCreate', { policyname, policy: { Effect: 'Allow', Action: ['UserGet'] } });
    expect((await vault.call('PolicyCreate', { policyname: spare, policy: { Effect: 'Allow', Action: ['UserDelete'] } })).status).toBe(200);
    await vault.call('RoleLinkPolicy', { rolename, policyname });
    await vault.call('XTokenCreateForRole', { rolename, finaltime: '1h' });
    await vault.call('XTokenCreateForRole', { rolename, finaltime: '1h' });
    const groupname = `team-${randomUUID().slice(0, 6)}`;
    await vault.call('GroupCreate', { groupname, groupdesc: 'Made through the API' });

    const { page, problems } = await newPage();
    await signIn(page, 'access');
    const roles = page.getByRole('table', { name: /^Roles \(\d+\)/ });
    const row = roles.getByRole('row').filter({ hasText: rolename });
    await poll(() => shown(row)).toBe('shown');
    await poll(() => row.getByRole('cell').allTextContents()).toEqual([rolename, 'Made through the API', policyname, '2', 'console or API']);
    await expectAccessible(page, 'console roles list');
    await screenshot(page, 'console-roles');

    await row.getByRole('link', { name: rolename }).click();
    await poll(() => shown(page.getByRole('heading', { name: `Role ${rolename}` }))).toBe('shown');
    expect(page.url()).toBe(`${vault.url}/console/access/roles/${rolename}`);
    // The picker offers the policies that exist and are not linked yet.
    const picker = page.getByLabel('Policy to link');
    await poll(() => picker.locator('option').allTextContents()).toContain(spare);
    expect(await picker.locator('option').allTextContents()).not.toContain(policyname);
    await picker.selectOption(spare);
    await page.getByRole('button', { name: 'Link policy', exact: true }).click();
    await poll(() => shown(page.getByRole('table', { name: `Policies of role ${rolename}` }).getByRole('cell', { name: spare }))).toBe('shown');
    await poll(() => row.getByRole('cell').nth(2).textContent()).toBe(`${policyname}, ${spare}`);

    // Explain offers the roles and the operations by name.
    await page.getByLabel('Role', { exact: true }).selectOption(rolename);
    await page.getByLabel('Operation', { exact: true }).selectOption('UserGet');
    await page.getByRole('button', { name: 'Explain' }).click();
    await poll(() => shown(page.getByText(/^Verdict: allow/))).toBe('shown');

    await section(page, 'Groups').click();
    const group = page.getByRole('row').filter({ hasText: groupname });
    await poll(() => shown(group)).toBe('shown');
    await group.getByRole('button', { name: 'Members' }).click();
    expect(page.url()).toBe(`${vault.url}/console/groups/${groupname}`);
    await poll(() => page.getByLabel('Role in the group (optional)').locator('option').allTextContents()).toContain(rolename);
    await expectAccessible(page, 'console groups with members');
    expect(problems).toEqual([]);
    await page.context().close();
  });
});

describe('the request inbox', { timeout: 180_000 }, () => {
  it('names the person through the audited read and shows the age against the one-month deadline', async () => {
    const email = `inbox-${randomUUID().slice(0, 8)}@example.com`;
    const token = (await vault.call('UserCreate', { profile: { email, name: 'Dorothy Hodgkin' } })).body.token as string;
    const nameless = `nameless-${randomUUID().slice(0, 8)}@example.com`;
    const other = (await vault.call('UserCreate', { profile: { email: nameless } })).body.token as string;
    expect((await vault.call('UserDeleteRequest', { mode: 'token', identity: token })).status).toBe(200);
    expect((await vault.call('UserUpdateRequest', { mode: 'token', identity: other, profile: { name: 'Ruth' } })).status).toBe(200);
    const { page, problems } = await newPage();
    await signIn(page, 'requests');
    await page.getByRole('button', { name: 'Unlock for 60 s' }).click();
    const row = page.getByRole('row').filter({ hasText: 'Dorothy Hodgkin' });
    await poll(() => shown(row)).toBe('shown');
    expect(await row.textContent()).not.toContain(token);
    await poll(() => row.getByRole('cell').nth(4).textContent()).toMatch(/^(30|31|29|28) days left 0 days old, due /);
    // A person without a name is named by their email.
    await poll(() => shown(page.getByRole('row').filter({ hasText: nameless }))).toBe('shown');
    // Opening the person is the same audited UserGet the record view makes.
    const reads = await vault.call('AuditListUserEvents', { mode: 'token', identity: token, limit: 50 });
    expect(reads.body.rows.some((e: { title: string }) => e.title === 'UserGet')).toBe(true);
    await expectAccessible(page, 'console inbox with people');
    await screenshot(page, 'console-inbox');
    await row.getByRole('link', { name: 'Dorothy Hodgkin' }).click();
    await poll(() => page.url()).toBe(`${vault.url}/console/people/${token}`);
    expect(problems).toEqual([]);
    await page.context().close();
  });
});
