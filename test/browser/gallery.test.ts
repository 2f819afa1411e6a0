// The gallery in web/README.md, taken from the real pages against a vault with a little example data. It writes
// into the repository, so it runs only when asked: `STRONGROOM_GALLERY=1 npx vitest run test/browser/gallery.test.ts`.
import { randomUUID } from 'node:crypto';
import { mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, it } from 'vitest';
import type { Browser, Locator, Page } from 'playwright-core';
import { startVault, type TestVault } from '../fixtures/vault.js';
import { startIdentityProvider, type IdentityProvider, oidcEnv } from '../fixtures/identity-provider.js';
import { ensurePagesBuilt, launch, poll, shown } from './support.js';

const WANTED = process.env.STRONGROOM_GALLERY === '1';
const GALLERY = fileURLToPath(new URL('../../web/screenshots/', import.meta.url));

let vault: TestVault;
let browser: Browser;
let idp: IdentityProvider;

beforeAll(async () => {
  if (!WANTED) return;
  ensurePagesBuilt();
  // An identity provider, so the sign-in page shows the organisation's sign-in as a deployment with one does.
  idp = await startIdentityProvider();
  vault = await startVault({
    env: oidcEnv(idp, { 'vault-admins': 'admin' }),
  });
  idp.serve(`${vault.url}/oidc/callback`);
  browser = await launch();
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await vault?.stop();
  await idp?.stop();
});

async function page(width = 1280, height = 800): Promise<Page> {
  const context = await browser.newContext({ viewport: { width, height }, locale: 'en-GB', timezoneId: 'Europe/London' });
  return context.newPage();
}

/** The screen as it is, or only one part of the page (`part`). */
async function shot(p: Page, name: string, part?: Locator): Promise<void> {
  mkdirSync(GALLERY, { recursive: true });
  await (part ?? p).screenshot({ path: `${GALLERY}${name}.png`, caret: 'hide', animations: 'disabled' });
}

async function consolePage(path: string, width?: number, height?: number): Promise<Page> {
  const p = await page(width, height);
  await p.goto(`${vault.url}/console/${path}`);
  await p.getByLabel('Token').fill(vault.rootToken);
  await p.getByRole('button', { name: 'Sign in' }).click();
  return p;
}

async function portal(token: string, path: string, width?: number, height?: number): Promise<Page> {
  const p = await page(width, height);
  const xtoken = (await vault.call('XTokenCreateForUser', { mode: 'token', identity: token, finaltime: '1h' })).body.xtoken as string;
  await p.context().addInitScript(`sessionStorage.setItem('strongroom.portal', ${JSON.stringify(JSON.stringify({ xtoken, token }))});`);
  await p.goto(`${vault.url}/portal/${path}`);
  return p;
}

async function seed() {
  const ada = (
    await vault.call('UserCreate', {
      profile: { name: 'Ada Lovelace', email: 'ada@example.com', phone: '+44 7700 900123', address: { street: '12 St James Square', city: 'London' }, languages: ['English', 'French'] },
    })
  ).body.token as string;
  await vault.call('UserUpdate', { mode: 'token', identity: ada, profile: { name: 'Ada King, Countess of Lovelace', phone: null, title: 'Countess' } });
  const grace = (await vault.call('UserCreate', { profile: { name: 'Grace Hopper', email: 'grace@example.com' } })).body.token as string;
  const alan = (await vault.call('UserCreate', { profile: { name: 'Alan Turing', email: 'alan@example.com' } })).body.token as string;
  await vault.call('UserDeleteRequest', { mode: 'token', identity: grace });
  await vault.call('UserUpdateRequest', { mode: 'token', identity: alan, profile: { city: 'Wilmslow' } });
  await vault.call('LegalBasisCreate', { brief: 'newsletter', shortdesc: 'Weekly newsletter', fulldesc: 'One email a week about new features. Withdraw at any time.', basistype: 'consent', usercontrol: true });
  await vault.call('LegalBasisCreate', { brief: 'billing', shortdesc: 'Invoices', fulldesc: 'Your address and payments, kept to send invoices as the contract asks.', basistype: 'contract' });
  await vault.call('AgreementAccept', { mode: 'token', identity: ada, brief: 'newsletter', status: 'yes' });
  await vault.call('PolicyCreate', { policyname: 'support-read', policydesc: 'Names and emails only', policy: { Effect: 'Allow', Action: ['UserGet'], Resource: ['users.profile.name', 'users.profile.email'] } });
  await vault.call('PolicyCreate', { policyname: 'billing-write', policy: { Effect: 'Allow', Action: ['UserGet', 'UserUpdate'] } });
  for (const [rolename, roledesc, policyname] of [
    ['support', 'The support desk', 'support-read'],
    ['billing', 'Invoices and payments', 'billing-write'],
  ]) {
    await vault.call('RoleCreate', { rolename, roledesc });
    await vault.call('RoleLinkPolicy', { rolename, policyname });
    await vault.call('XTokenCreateForRole', { rolename, finaltime: '1d' });
  }
  // The support desk reads Ada's name, so her trail has someone else in it.
  const desk = (await vault.call('XTokenCreateForRole', { rolename: 'support', finaltime: '1h' })).body.xtoken as string;
  await vault.call('UserGet', { mode: 'token', identity: ada }, { 'x-bunker-token': desk });
  await vault.call('RoleCreate', { rolename: 'analytics', roledesc: 'Made by the Kubernetes operator', managedby: randomUUID() });
  return { ada, grace };
}

describe.runIf(WANTED)('the gallery in web/README.md (only with STRONGROOM_GALLERY=1: it rewrites the screenshots)', { timeout: 300_000 }, () => {
  it('is taken from the real pages', async () => {
    const { ada, grace } = await seed();

    const signin = await page(1280, 640);
    await signin.goto(`${vault.url}/console/`);
    await poll(() => shown(signin.getByRole('link', { name: "Sign in with your organisation's account" }))).toBe('shown');
    await shot(signin, 'console-sign-in');

    const overview = await consolePage('overview', 1280, 1400);
    await poll(() => overview.locator('figure.chart canvas').count()).toBe(3);
    await poll(() => shown(overview.getByRole('meter', { name: /^Version 1 \(active\)/ }))).toBe('shown');
    await overview.getByRole('button', { name: 'Verify the chain' }).click();
    await poll(() => shown(overview.getByText(/^The chain is intact/))).toBe('shown');
    await shot(overview, 'console-overview');

    const versions = await consolePage(`people/${ada}/versions`);
    await poll(() => shown(versions.getByRole('table', { name: 'Changes from version 1 to version 2' }))).toBe('shown');
    await shot(versions, 'console');

    const record = await consolePage(`people/${ada}`);
    await poll(() => shown(record.getByText('12 St James Square'))).toBe('shown');
    await shot(record, 'console-person');

    const inbox = await consolePage('requests');
    await inbox.getByRole('button', { name: 'Unlock for 60 s' }).click();
    await poll(() => shown(inbox.getByRole('link', { name: 'Grace Hopper' }))).toBe('shown');
    await poll(() => shown(inbox.getByRole('link', { name: 'Alan Turing' }))).toBe('shown');
    const requestuuid = (await vault.call('UserRequestListUserRequests', { mode: 'token', identity: grace })).body.rows[0].requestuuid as string;
    await inbox.goto(`${vault.url}/console/requests/${requestuuid}`);
    await inbox.getByRole('button', { name: 'Unlock for 60 s' }).click();
    await poll(() => shown(inbox.getByRole('link', { name: 'Grace Hopper' }).first())).toBe('shown');
    await poll(() => shown(inbox.getByRole('link', { name: 'Alan Turing' }))).toBe('shown');
    await shot(inbox, 'console-inbox');
    await inbox.getByRole('button', { name: 'Approve erasure' }).click();
    await poll(() => shown(inbox.getByRole('dialog'))).toBe('shown');
    await shot(inbox, 'console-erasure');

    const roles = await consolePage('access/roles/support');
    await poll(() => shown(roles.getByRole('table', { name: /^Roles \(3\)/ }))).toBe('shown');
    await poll(() => roles.getByRole('table', { name: /^Roles/ }).getByRole('cell', { name: '…' }).count()).toBe(0);
    await poll(() => shown(roles.getByRole('heading', { name: 'Role support' }))).toBe('shown');
    await shot(roles, 'console-roles', roles.getByRole('region', { name: 'Roles and xtokens' }));

    const audit = await consolePage(`people/${ada}/audit`, 1366, 1700);
    const byDesk = audit.getByRole('row').filter({ hasText: /^.*role support \(xtoken/ });
    await poll(() => shown(byDesk.first())).toBe('shown');
    await byDesk.first().getByRole('button', { name: 'Details' }).click();
    await poll(() => shown(audit.getByRole('region', { name: /^Event UserGet at/ }))).toBe('shown');
    await shot(audit, 'console-audit');

    const create = await consolePage('people', 1280, 700);
    await create.getByLabel('Name', { exact: true }).fill('Mary Somerville');
    await create.getByLabel('Email', { exact: true }).fill('mary@example.com');
    await create.getByRole('button', { name: 'Add a field' }).click();
    await create.getByLabel('Field 1 name').fill('city');
    await create.getByLabel('Field 1 value').fill('Jedburgh');
    await create.getByRole('heading', { name: 'Create a person' }).scrollIntoViewIfNeeded();
    await shot(create, 'console-create');

    const consents = await portal(ada, 'consents');
    await poll(() => shown(consents.getByText('One email a week about new features. Withdraw at any time.'))).toBe('shown');
    await shot(consents, 'portal');

    const share = await portal(ada, 'share');
    await share.getByRole('checkbox', { name: 'name', exact: true }).check();
    await share.getByRole('checkbox', { name: 'address › city' }).check();
    await share.getByLabel('Who it is for (optional)').fill('Royal Society');
    await share.getByRole('button', { name: 'Create shared link' }).click();
    const link = share.getByText(/^Your link, valid until/).getByRole('link');
    await poll(() => shown(link)).toBe('shown');
    await shot(share, 'portal-share');

    const accesses = await portal(ada, 'accesses', 1280, 1150);
    await poll(() => shown(accesses.getByRole('cell', { name: "the organisation's staff (role support)" }).first())).toBe('shown');
    await shot(accesses, 'portal-accesses');

    const recipient = await page();
    await recipient.goto((await link.getAttribute('href'))!);
    await poll(() => shown(recipient.getByRole('region', { name: 'Shared details' }))).toBe('shown');
    await shot(recipient, 'portal-shared');

    const phone = await portal(ada, 'profile', 390, 844);
    await poll(() => shown(phone.getByText('12 St James Square'))).toBe('shown');
    await shot(phone, 'phone-portal');
  });
});
