// The portal as a data subject and a share's recipient meet it (issue 28): an address per page, labelled views of
// profile, app data and sessions, shares chosen by checkbox and given as links that open read-only for the
// recipient, and an erasure request that stays visible as "requested (date)".
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

const newPage = (width?: number, height?: number) => openPage(browser, width, height);

/**
 * A person signed in to the portal with a login xtoken of their own, as the emailed code would give them (the
 * sign-in itself is driven end to end in pages.test.ts).
 */
async function signedIn(page: Page, token: string): Promise<void> {
  const xtoken = (await vault.call('XTokenCreateForUser', { mode: 'token', identity: token, finaltime: '1h' })).body.xtoken as string;
  const session = JSON.stringify({ xtoken, token });
  await page.context().addInitScript(`if (!sessionStorage.getItem('strongroom.portal')) sessionStorage.setItem('strongroom.portal', ${JSON.stringify(session)});`);
}

async function person(): Promise<{ token: string; email: string }> {
  const email = `p-${randomUUID().slice(0, 8)}@example.com`;
  const profile = { email, name: 'Ada Byron', date_of_birth: '1815-12-10', address: { city: 'London', street: '12 St James Square' } };
  const token = (await vault.call('UserCreate', { profile })).body.token as string;
  return { token, email };
}

describe('the portal pages', { timeout: 180_000 }, () => {
  it('have their own addresses and show profile, app data and sessions as labelled fields, not JSON', async () => {
    const { token } = await person();
    await vault.call('AppdataCreate', { mode: 'token', identity: token, appname: 'shop', appdata: { size: 'M', newsletter: true, shipping: { city: 'Leeds' } } });
    await vault.call('SessionUpsert', { sessionuuid: randomUUID(), sessiondata: { token, device: 'phone', cart: ['tea', 'scones'] } });
    const { page, problems } = await newPage();
    await signedIn(page, token);
    await page.goto(`${vault.url}/portal/`);
    await poll(() => shown(page.getByRole('heading', { name: 'My profile' }))).toBe('shown');
    const profile = page.getByRole('main');
    await poll(() => shown(profile.getByText('date of birth'))).toBe('shown');
    await poll(() => shown(profile.getByRole('definition').filter({ hasText: /^12 St James Square$/ }))).toBe('shown');
    expect(await profile.textContent()).not.toContain('{"');
    await expectAccessible(page, 'portal profile fields');
    await screenshot(page, 'portal-profile-fields');

    await page.getByRole('navigation', { name: 'Your data' }).getByRole('link', { name: 'App data' }).click();
    expect(page.url()).toBe(`${vault.url}/portal/app-data`);
    await page.reload();
    await poll(() => shown(page.getByRole('heading', { name: 'shop' }))).toBe('shown');
    const shop = page.getByRole('region', { name: 'Data of shop' });
    await poll(() => shown(shop.getByRole('definition').filter({ hasText: /^Leeds$/ }))).toBe('shown');
    expect(await shop.getByRole('definition').filter({ hasText: /^yes$/ }).count()).toBe(1);
    expect(await shop.textContent()).not.toContain('{');

    await page.goto(`${vault.url}/portal/sessions`);
    await poll(() => shown(page.getByRole('heading', { name: 'My sessions' }))).toBe('shown');
    await poll(() => shown(page.getByRole('listitem').filter({ hasText: 'scones' }))).toBe('shown');
    await expectAccessible(page, 'portal sessions fields');
    await page.goBack();
    await poll(() => shown(page.getByRole('heading', { name: 'My app data' }))).toBe('shown');
    expect(problems).toEqual([]);
    await page.context().close();
  });

  it('share chosen fields as a link the recipient opens read-only, without signing in', async () => {
    const { token } = await person();
    const { page, problems } = await newPage();
    await signedIn(page, token);
    await page.goto(`${vault.url}/portal/share`);
    const choices = page.getByRole('group', { name: 'Details to share' });
    await poll(() => choices.getByRole('checkbox').count()).toBe(5);
    expect(await page.getByRole('button', { name: 'Create shared link' }).isDisabled()).toBe(true);
    await choices.getByRole('checkbox', { name: 'name', exact: true }).check();
    await choices.getByRole('checkbox', { name: 'address › city' }).check();
    await page.getByLabel('Who it is for (optional)').fill('Landlord');
    await page.getByRole('button', { name: 'Create shared link' }).click();
    const notice = page.getByText(/^Your link, valid until/);
    await poll(() => shown(notice)).toBe('shown');
    const link = (await notice.getByRole('link').getAttribute('href'))!;
    expect(link).toMatch(new RegExp(`^${vault.url}/portal/shared/[0-9a-f-]{36}$`));
    await expectAccessible(page, 'portal share with checkboxes');
    await screenshot(page, 'portal-share');

    // The recipient: another browser, no session.
    const recipient = await newPage();
    await recipient.page.goto(link);
    await poll(() => shown(recipient.page.getByRole('heading', { name: 'Data shared with you' }))).toBe('shown');
    const details = recipient.page.getByRole('region', { name: 'Shared details' });
    await poll(() => shown(details.getByRole('definition').filter({ hasText: /^Ada Byron$/ }))).toBe('shown');
    expect(await details.getByRole('definition').filter({ hasText: /^London$/ }).count()).toBe(1);
    expect(await details.textContent()).not.toContain('St James');
    expect(await details.textContent()).not.toContain('@example.com');
    await poll(() => shown(recipient.page.getByText(/^Valid until /))).toBe('shown');
    const validUntil = await recipient.page.getByText(/^Valid until /).textContent();
    // Whatever a forwarded link says, the page shows the expiry the vault answers (an outside tester's spoof).
    await recipient.page.goto(`${link}?expires=1`);
    await poll(() => shown(recipient.page.getByText(/^Valid until /))).toBe('shown');
    expect(await recipient.page.getByText(/^Valid until /).textContent()).toBe(validUntil);
    expect(await recipient.page.getByLabel('Your email address').count()).toBe(0);
    expect(await recipient.page.getByRole('textbox').count()).toBe(0);
    await expectAccessible(recipient.page, 'portal shared record');
    await screenshot(recipient.page, 'portal-shared-record');

    // Revoked, the link says so.
    const row = page.getByRole('row').filter({ hasText: 'Landlord' });
    await row.getByRole('button', { name: 'Revoke' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Revoke this link now' }).click();
    await poll(() => shown(page.getByText('No shared links.'))).toBe('shown');
    await recipient.page.reload();
    await poll(() => recipient.page.getByRole('alert').textContent()).toContain('expired or was revoked');
    expect(recipient.problems).toEqual([]);
    await recipient.page.context().close();
    expect(problems).toEqual([]);
    await page.context().close();
  });

  it('show an erasure asked for as "requested (date)", also after a reload', async () => {
    const { token } = await person();
    const { page, problems } = await newPage();
    await signedIn(page, token);
    await page.goto(`${vault.url}/portal/profile`);
    await page.getByRole('button', { name: 'Ask for erasure' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Yes, erase all my data' }).click();
    const today = new Date().toLocaleDateString('en-US', { dateStyle: 'medium' });
    const requested = page.getByRole('button', { name: `Erasure requested (${today})` });
    await poll(() => shown(requested)).toBe('shown');
    expect(await requested.isDisabled()).toBe(true);
    await page.reload();
    await poll(() => shown(requested)).toBe('shown');
    expect(await page.getByRole('button', { name: 'Ask for erasure' }).count()).toBe(0);
    await expectAccessible(page, 'portal erasure requested');
    expect(problems).toEqual([]);
    await page.context().close();
  });
});
