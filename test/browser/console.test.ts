// The console as a new administrator meets it (issue 28): addresses for every section and record, lists and
// pickers in place of typed names, the inbox naming the person, a form to create one, dialogs before what cannot
// be undone, copy buttons, verdict colours and an audit table that reads at 1366 px.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { startVault, type TestVault } from '../fixtures/vault.js';
import { ensurePagesBuilt, expectAccessible, launch, poll, shown, watch } from './support.js';

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
