// Privacy events in the pages: the console's Events view makes a webhook subscription (its secret shown once), sees a
// write delivered to a real receiver on 127.0.0.1, tests, pauses, rotates, replays and deletes; an erasure shows
// which recipient confirmed (the receiver answers {"erased": true}) and which is pending; and the person's portal
// keeps a receipt that shows, without signing in, how many recipients their erasure reached.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import type { TestVault } from '../fixtures/vault.js';
import { expectAccessible, openPage, pagesVault, poll, screenshot, shown } from './support.js';

let vault: TestVault;
let browser: Browser;

pagesVault(
  (v, b) => {
    vault = v;
    browser = b;
  },
  true,
  // The receiver below listens on loopback, which the SSRF guard refuses unless named.
  { env: { STRONGROOM_EVENTS_ALLOW_ADDRESSES: '127.0.0.1/32' } },
);

interface Received {
  path: string;
  id: string;
  type: string;
  subject: string | undefined;
}

/** A webhook receiver: under /confirm it confirms each erasure ({"erased": true}); under /silent it only acknowledges. */
function receiver(): { server: Server; received: Received[]; url: (path: string) => string } {
  const received: Received[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const event = JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}') as { id?: string; type?: string; subject?: string };
      received.push({ path: req.url ?? '', id: event.id ?? '', type: event.type ?? '', subject: event.subject });
      if (req.url === '/confirm' && event.type === 'person.erased') {
        res.writeHead(200, { 'content-type': 'application/json' }).end('{"erased": true}');
      } else {
        res.writeHead(204).end();
      }
    });
  });
  return { server, received, url: (path) => `http://127.0.0.1:${(server.address() as AddressInfo).port}${path}` };
}

const hook = receiver();
beforeAll(() => new Promise<void>((resolve) => hook.server.listen(0, '127.0.0.1', resolve)));
afterAll(() => new Promise<void>((resolve) => hook.server.close(() => resolve())));

const newPage = (width?: number, height?: number) => openPage(browser, width, height);

async function signIn(page: Page, path: string): Promise<void> {
  await page.goto(`${vault.url}/console/${path}`);
  await page.getByLabel('Token').fill(vault.rootToken);
  await page.getByRole('button', { name: 'Sign in' }).click();
}

const subscriptions = (page: Page) => page.getByRole('table', { name: /^Subscriptions \(\d+\)/ });

/** A person, their erasure asked for and approved through the API: the request's uuid. */
async function erased(token: string): Promise<string> {
  const requestuuid = (await vault.call('UserDeleteRequest', { mode: 'token', identity: token })).body.requestuuid as string;
  expect((await vault.call('UserRequestApprove', { requestuuid, reason: 'test' })).status).toBe(200);
  return requestuuid;
}

describe('the console Events view', { timeout: 240_000 }, () => {
  it('makes a webhook subscription, shows its secret once and sees a write delivered, tested and replayed', async () => {
    const { page, problems } = await newPage();
    await signIn(page, 'events');
    await poll(() => shown(page.getByRole('heading', { name: 'Privacy events', level: 1 }))).toBe('shown');
    expect(await page.title()).toBe('Events · Strongroom console');
    expect(await page.getByRole('navigation', { name: 'Console sections' }).getByRole('link', { name: 'Events', exact: true }).getAttribute('aria-current')).toBe('page');
    await poll(() => shown(page.getByText('No subscriptions yet: events go nowhere.'))).toBe('shown');

    await page.getByLabel('Webhook URL').fill(hook.url('/confirm'));
    await page.getByRole('checkbox', { name: /^person\.created\b/ }).check();
    expect(await page.getByRole('checkbox', { name: /^person\.erased\b/ }).isChecked()).toBe(true);
    await page.getByLabel('Description (optional)').fill('CRM');
    await expectAccessible(page, 'console events form');
    await page.getByRole('button', { name: 'Create subscription' }).click();

    const notice = page.getByRole('status').filter({ hasText: 'You will not see it again' });
    await poll(() => shown(notice)).toBe('shown');
    const secret = (await notice.locator('code').textContent()) ?? '';
    expect(secret).toMatch(/^whsec_/);
    expect(await notice.getByRole('button', { name: 'Copy signing secret' }).count()).toBe(1);
    const row = subscriptions(page).getByRole('row').filter({ hasText: 'CRM' });
    await poll(() => shown(row)).toBe('shown');
    expect(await row.textContent()).toContain(hook.url('/confirm'));
    expect(await row.textContent()).toContain('person.created, person.erased');
    await expectAccessible(page, 'console events subscriptions');
    await screenshot(page, 'console-events');
    // Shown once: the list never carries it, and after a reload it is gone.
    await page.reload();
    await poll(() => shown(row)).toBe('shown');
    expect(await page.getByText(secret).count()).toBe(0);

    await row.getByRole('button', { name: 'Send test event' }).click();
    await poll(() => shown(page.getByRole('status').filter({ hasText: 'Test event to CRM: delivered (HTTP 204).' }))).toBe('shown');
    expect(hook.received.some((r) => r.type === 'subscription.test')).toBe(true);

    // A write through the API reaches the receiver and shows as delivered.
    const token = (await vault.call('UserCreate', { profile: { email: `ev-${randomUUID().slice(0, 8)}@example.com` } })).body.token as string;
    await page.getByRole('tab', { name: 'Deliveries' }).click();
    expect(page.url()).toBe(`${vault.url}/console/events/deliveries`);
    await page.getByLabel('Status', { exact: true }).selectOption('delivered');
    const delivered = page.getByRole('table', { name: /^Deliveries/ }).getByRole('row').filter({ hasText: token }).filter({ hasText: 'person.created' });
    await poll(async () => {
      await page.getByRole('button', { name: 'Refresh' }).click();
      return shown(delivered);
    }).toBe('shown');
    expect(await delivered.textContent()).toContain('delivered');
    expect(hook.received.filter((r) => r.type === 'person.created' && r.subject === token)).toHaveLength(1);
    await expectAccessible(page, 'console events deliveries');
    await screenshot(page, 'console-events-deliveries');

    // Replaying from an hour ago sends the same event (same id) again, after a confirmation.
    const id = hook.received.find((r) => r.type === 'person.created' && r.subject === token)!.id;
    await page.getByRole('button', { name: 'Replay', exact: true }).click();
    const dialog = page.getByRole('dialog');
    await poll(() => shown(dialog)).toBe('shown');
    expect(await dialog.getByRole('heading').textContent()).toMatch(/^Replay events to CRM from /);
    await dialog.getByRole('button', { name: 'Send them again' }).click();
    await poll(() => shown(page.getByRole('status').filter({ hasText: /^\d+ events queued again/ }))).toBe('shown');
    await poll(() => hook.received.filter((r) => r.id === id).length).toBe(2);
    expect(problems).toEqual([]);
    await page.context().close();
  });

  it('pauses, resumes, rotates a secret (shown once) and deletes after a confirmation', async () => {
    const description = `Throwaway ${randomUUID().slice(0, 6)}`;
    const made = await vault.call('EventSubscriptionCreate', { url: hook.url('/silent'), types: ['person.updated'], description, confirmerasures: false });
    expect(made.body.secret).toMatch(/^whsec_/);
    const { page, problems } = await newPage();
    await signIn(page, 'events');
    const row = subscriptions(page).getByRole('row').filter({ hasText: description });
    await poll(() => shown(row)).toBe('shown');

    await row.getByRole('button', { name: 'Pause' }).click();
    await poll(() => row.getByRole('cell').nth(4).textContent()).toBe('paused');
    await row.getByRole('button', { name: 'Resume' }).click();
    await poll(() => row.getByRole('cell').nth(4).textContent()).toBe('active');

    await row.getByRole('button', { name: 'Rotate secret' }).click();
    const dialog = page.getByRole('dialog');
    await poll(() => shown(dialog)).toBe('shown');
    expect(await page.evaluate<string>('document.activeElement?.textContent')).toBe('Keep it');
    await dialog.getByLabel('The previous secret keeps signing for').selectOption('1h');
    await expectAccessible(page, 'console events rotate dialog');
    await dialog.getByRole('button', { name: 'Make a new secret' }).click();
    const notice = page.getByRole('status').filter({ hasText: 'You will not see it again' });
    await poll(() => shown(notice)).toBe('shown');
    const rotated = (await notice.locator('code').textContent()) ?? '';
    expect(rotated).toMatch(/^whsec_/);
    expect(rotated).not.toBe(made.body.secret);
    const listed = (await vault.call('EventSubscriptionList', {})).body.rows as { subscriptionid: string; previoussecretuntil: number | null }[];
    const until = listed.find((s) => s.subscriptionid === made.body.subscriptionid)?.previoussecretuntil ?? 0;
    expect(Math.abs(until - (Date.now() / 1000 + 3600))).toBeLessThan(120);

    await row.getByRole('button', { name: 'Delete' }).click();
    await dialog.getByRole('button', { name: 'Delete the subscription' }).click();
    await poll(() => row.count()).toBe(0);
    expect(((await vault.call('EventSubscriptionList', {})).body.rows as { subscriptionid: string }[]).map((s) => s.subscriptionid)).not.toContain(made.body.subscriptionid);
    expect(problems).toEqual([]);
    await page.context().close();
  });
});

describe('erasure confirmations', { timeout: 240_000 }, () => {
  it('show in the console which recipient confirmed and which is pending, and in the portal as "reached N of M"', async () => {
    // Beside the CRM made above (which confirms), a warehouse that only acknowledges.
    await vault.call('EventSubscriptionCreate', { url: hook.url('/silent'), types: ['person.erased'], description: 'Warehouse' });
    const token = (await vault.call('UserCreate', { profile: { email: `er-${randomUUID().slice(0, 8)}@example.com`, name: 'Erin Rase' } })).body.token as string;

    // The person asks in the portal: the browser keeps a receipt; before approval there is nothing to show yet.
    const { page, problems } = await newPage();
    const xtoken = (await vault.call('XTokenCreateForUser', { mode: 'token', identity: token, finaltime: '1h' })).body.xtoken as string;
    await page.goto(`${vault.url}/portal/`);
    await page.evaluate((s) => sessionStorage.setItem('strongroom.portal', s), JSON.stringify({ xtoken, token }));
    await page.goto(`${vault.url}/portal/profile`);
    await page.getByRole('button', { name: 'Ask for erasure' }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Yes, erase all my data' }).click();
    await poll(() => shown(page.getByRole('link', { name: 'erasure receipt' }))).toBe('shown');
    const kept = JSON.parse((await page.evaluate<string | null>("localStorage.getItem('strongroom.portal.erasure-receipts')")) ?? '[]') as { tenant: string; token: string; requestuuid: string }[];
    expect(kept).toHaveLength(1);
    expect(Object.keys(kept[0]!).sort()).toEqual(['requestuuid', 'tenant', 'token']);
    expect(kept[0]!.token).toBe(token);
    await page.getByRole('link', { name: 'erasure receipt' }).click();
    await poll(() => shown(page.getByText('There is nothing to show yet.', { exact: false }))).toBe('shown');

    const requestuuid = kept[0]!.requestuuid;
    expect((await vault.call('UserRequestApprove', { requestuuid, reason: 'test' })).status).toBe(200);
    // The CRM's webhook answer confirms; the warehouse's does not.
    await poll(async () => ((await vault.call('ErasureStatusGet', { requestuuid })).body.erasures as { confirmed: number }[])[0]?.confirmed).toBe(1);
    const status = (await vault.call('ErasureStatusGet', { requestuuid })).body.erasures as { total: number; token: string; recipients: { description: string; via: string | null }[] }[];
    expect(status).toHaveLength(1);
    expect(status[0]!.total).toBe(2);
    expect(status[0]!.token).toBe(token);

    // Signed out (the person is erased), the sign-in page leads to the receipt, which needs no sign-in.
    await page.evaluate(() => sessionStorage.clear());
    await page.goto(`${vault.url}/portal/`);
    await page.getByRole('link', { name: 'See your erasure receipt' }).click();
    expect(page.url()).toBe(`${vault.url}/portal/erasure-receipt`);
    await poll(() => shown(page.getByText('Your erasure reached 1 of 2 recipients.'))).toBe('shown');
    expect(await page.title()).toMatch(/^Erasure receipt · /);
    await expectAccessible(page, 'portal erasure receipt');
    await screenshot(page, 'portal-erasure-receipt');
    expect(problems).toEqual([]);
    await page.context().close();

    // The console, by the request's uuid (as the inbox links it) and by the person's token.
    const console_ = await newPage();
    await signIn(console_.page, `events/erasures?requestuuid=${requestuuid}`);
    const card = console_.page.getByRole('region', { name: '1 of 2 recipients confirmed' });
    await poll(() => shown(card)).toBe('shown');
    const recipients = card.getByRole('table', { name: /^Recipients of this erasure/ });
    await poll(() => recipients.getByRole('row').filter({ hasText: 'CRM' }).getByRole('cell').allTextContents()).toEqual(['CRM', 'confirmed', expect.any(String), 'the webhook answered {"erased": true}']);
    expect(await recipients.getByRole('row').filter({ hasText: 'Warehouse' }).getByRole('cell').allTextContents()).toEqual(['Warehouse', 'pending', '—', '—']);
    await expectAccessible(console_.page, 'console erasure status');
    await screenshot(console_.page, 'console-events-erasure');

    await console_.page.getByLabel('Look up by').selectOption('token');
    await console_.page.getByLabel('Value').fill(token);
    await console_.page.getByRole('button', { name: 'Look up' }).click();
    await poll(() => console_.page.url()).toBe(`${vault.url}/console/events/erasures?token=${token}`);
    await poll(() => shown(console_.page.getByRole('region', { name: '1 of 2 recipients confirmed' }))).toBe('shown');
    expect(console_.problems).toEqual([]);
    await console_.page.context().close();
  });

  it('say "0 of 1" while the only recipient has not confirmed', async () => {
    // End the recipients above (a paused one would still owe its confirmation), so this erasure owes one only, to one
    // that never confirms.
    for (const s of (await vault.call('EventSubscriptionList', {})).body.rows as { subscriptionid: string }[]) await vault.call('EventSubscriptionDelete', { subscriptionid: s.subscriptionid });
    await vault.call('EventSubscriptionCreate', { url: hook.url('/silent'), types: ['person.erased'], description: 'Mailer' });
    const token = (await vault.call('UserCreate', { profile: { email: `zero-${randomUUID().slice(0, 8)}@example.com` } })).body.token as string;
    const requestuuid = await erased(token);
    await poll(() => hook.received.some((r) => r.type === 'person.erased' && r.subject === token)).toBe(true);

    const { page, problems } = await newPage();
    await page.goto(`${vault.url}/portal/`);
    const host = new URL(vault.url).host;
    await page.evaluate((r) => localStorage.setItem('strongroom.portal.erasure-receipts', r), JSON.stringify([{ tenant: host, token, requestuuid }]));
    await page.goto(`${vault.url}/portal/erasure-receipt`);
    await poll(() => shown(page.getByText('Your erasure reached 0 of 1 recipients.'))).toBe('shown');

    await signIn(page, `events/erasures?token=${token}`);
    await poll(() => shown(page.getByRole('region', { name: '0 of 1 recipients confirmed' }))).toBe('shown');
    expect(problems).toEqual([]);
    await page.context().close();
  });
});
