// The console's overview in a real browser: people and requests as numbers, the charts drawn by uPlot under the
// pages' strict Content-Security-Policy, the chain's checkpoint and verification, the keyring's seals, axe.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { buildProfile, startVault, type TestVault } from '../fixtures/vault.js';
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

async function seed(): Promise<void> {
  const brief = `news-${randomUUID().slice(0, 6)}`;
  await vault.call('LegalBasisCreate', { brief });
  for (let i = 0; i < 3; i++) {
    const { token } = (await vault.call('UserCreate', { profile: buildProfile() })).body;
    const ref = { mode: 'token', identity: token };
    await vault.call('AgreementAccept', { ...ref, brief });
    if (i === 0) await vault.call('AgreementCancel', { ...ref, brief });
    await vault.call('UserUpdateRequest', { ...ref, profile: { city: `City ${i}` } });
  }
}

describe('the console overview', { timeout: 180_000 }, () => {
  it('shows people, requests, charts, the chain and the keyring, with no CSP or axe violation', async () => {
    await seed();
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    const problems = watch(page);
    const csp: string[] = [];
    page.on('console', (msg) => {
      if (/Content Security Policy/i.test(msg.text())) csp.push(msg.text());
    });
    await page.goto(`${vault.url}/console/overview`);
    await page.getByLabel('Token').fill(vault.rootToken);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await poll(() => shown(page.getByRole('heading', { name: 'Overview', level: 1 }))).toBe('shown');
    const tiles = page.getByRole('region', { name: 'Now' });
    await poll(() => tiles.textContent()).toBe('People3Requests pending3Requests overdue0');

    // Three charts, each a canvas drawn by uPlot, named for screen readers with its totals.
    await poll(() => page.locator('figure.chart canvas').count()).toBe(3);
    expect(await page.getByRole('img', { name: /^Consent given and withdrawn per day: Consent given 3, Consent withdrawn 1 in the last 30 days$/ }).count()).toBe(1);
    expect(await page.getByRole('img', { name: /^Requests made per day: Requests made 3 in/ }).count()).toBe(1);
    // The numbers are there as a table too.
    await page.getByText('The numbers by day').first().click();
    const table = page.getByRole('table', { name: 'Calls and refusals per day, by day (UTC)' });
    expect(await table.getByRole('row').count()).toBe(31);

    // Fewer days: the charts are drawn again for the window.
    await page.getByLabel('Days shown').selectOption('7');
    await poll(() => page.getByRole('img', { name: /in the last 7 days$/ }).count()).toBe(3);

    await page.getByRole('button', { name: 'Verify the chain' }).click();
    await poll(() => shown(page.getByText(/^The chain is intact: events 1 to \d+ verified./))).toBe('shown');
    expect(await page.getByRole('meter', { name: /Events under a signed checkpoint/ }).count()).toBe(1);
    await poll(() => page.getByRole('meter', { name: /^Version 1 \(active\): [\d,]+ of 1,073,741,824 seals/ }).count()).toBe(1);

    await expectAccessible(page, 'console overview');
    await screenshot(page, 'console-overview');
    expect(csp).toEqual([]);
    expect(problems).toEqual([]);
    await context.close();
  });

  it('shows a tenant admin their own tenant, without the keyring', async () => {
    const t = await vault.call('TenantCreate', { tenantname: `ov${randomUUID().slice(0, 6)}`, tenantorg: 'Overview' });
    const context = await browser.newContext({ viewport: { width: 390, height: 844 } });
    const page = await context.newPage();
    const problems = watch(page);
    await page.goto(`${vault.url}/console/overview`);
    await page.getByLabel('Token').fill(t.body.xtoken as string);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await poll(() => page.getByRole('region', { name: 'Now' }).textContent()).toContain('People0');
    await poll(() => page.locator('figure.chart canvas').count()).toBe(3);
    expect(await page.getByRole('heading', { name: 'Keyring seals' }).count()).toBe(0);
    // Phone width: the charts fit the screen.
    expect(await page.evaluate<number>('document.documentElement.scrollWidth - window.innerWidth')).toBeLessThanOrEqual(0);
    await expectAccessible(page, 'console overview, phone');
    expect(problems).toEqual([]);
    await context.close();
  });
});
