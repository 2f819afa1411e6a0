// The console's sign-in by OpenID Connect in a real browser: "Sign in with your organisation's account", the
// provider's login form (a real oidc-provider), back in the console signed in as the person's groups say, with the
// credential nowhere in an address; a person in no mapped group is told so. Axe on each page.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { startVault, type TestVault } from '../fixtures/vault.js';
import { startIdentityProvider, type IdentityProvider, oidcEnv } from '../fixtures/identity-provider.js';
import { ensurePagesBuilt, expectAccessible, launch, poll, screenshot, shown, watch } from './support.js';

let idp: IdentityProvider;
let vault: TestVault;
let browser: Browser;
const role = `desk-${randomUUID().slice(0, 6)}`;

beforeAll(async () => {
  ensurePagesBuilt();
  idp = await startIdentityProvider();
  vault = await startVault({ env: oidcEnv(idp, { 'vault-admins': 'admin', support: role }) });
  idp.serve(`${vault.url}/oidc/callback`);
  await vault.call('RoleCreate', { rolename: role });
  browser = await launch();
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await vault?.stop();
  await idp?.stop();
});

/** Every address the page's main frame went to. */
function addresses(page: Page): string[] {
  const seen: string[] = [];
  page.on('framenavigated', (frame) => {
    if (frame === page.mainFrame()) seen.push(frame.url());
  });
  page.on('request', (req) => {
    if (req.isNavigationRequest()) seen.push(req.url());
  });
  return seen;
}

async function signInAs(page: Page, username: string): Promise<void> {
  await page.goto(`${vault.url}/console/`);
  await page.getByRole('link', { name: "Sign in with your organisation's account" }).click();
  await page.getByLabel('Username').fill(username);
  await page.getByRole('button', { name: 'Continue' }).click();
}

describe('console sign-in by OpenID Connect', { timeout: 180_000 }, () => {
  it('signs an admin in through the identity provider; the token is never in an address', async () => {
    idp.people.set('grace', ['vault-admins']);
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    const page = await context.newPage();
    const problems = watch(page);
    const seen = addresses(page);
    await page.goto(`${vault.url}/console/`);
    await poll(() => shown(page.getByRole('link', { name: "Sign in with your organisation's account" }))).toBe('shown');
    await expectAccessible(page, 'console sign-in with OpenID');
    await screenshot(page, 'console-sign-in-oidc');
    await signInAs(page, 'grace');
    await poll(() => shown(page.getByRole('heading', { name: 'People', level: 1 }))).toBe('shown');
    expect(await page.getByText('main-tenant admin').count()).toBe(1);
    expect(new URL(page.url()).search).toBe('');
    const kept = JSON.parse((await page.evaluate<string | null>("sessionStorage.getItem('strongroom.console')")) ?? '{}') as { token?: string };
    expect(kept.token).toMatch(/^[0-9a-f-]{36}$/);
    expect(seen.some((u) => u.includes(kept.token!))).toBe(false);
    // Scripts cannot read the hand-over cookie, and it is gone.
    expect(await page.evaluate<string>('document.cookie')).toBe('');
    expect((await vault.call('TenantListTenants', {}, { 'x-bunker-token': kept.token! })).status).toBe(200);
    await expectAccessible(page, 'console after OpenID sign-in');
    expect(problems).toEqual([]);
    await context.close();
  });

  it('signs a support person in as their role, and tells a person in no mapped group why not', async () => {
    idp.people.set('ada', ['support']);
    idp.people.set('mallory', ['visitors']);
    const context = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    const page = await context.newPage();
    const problems = watch(page);
    await signInAs(page, 'ada');
    await poll(() => shown(page.getByText('tenant credential'))).toBe('shown');
    expect(problems).toEqual([]);
    await context.close();
    // Another browser: this one's session at the provider would sign Ada in again without asking.
    const other = await browser.newContext({ viewport: { width: 1280, height: 800 } });
    const refused = await other.newPage();
    const seen = watch(refused);
    await signInAs(refused, 'mallory');
    await poll(() => refused.getByRole('alert').textContent()).toContain('Your account is in no group that may use this vault');
    expect(refused.url()).toBe(`${vault.url}/console/?oidc=denied`);
    await expectAccessible(refused, 'console OpenID sign-in refused');
    expect(seen).toEqual([]);
    await other.close();
  });
});

