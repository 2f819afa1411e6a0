// The console as a new administrator meets it (issue 28): addresses for every section and record, lists and
// pickers in place of typed names, the inbox naming the person, a form to create one, dialogs before what cannot
// be undone, copy buttons, verdict colours and an audit table that reads at 1366 px.
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
      ['Events', 'events', 'Privacy events'],
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

describe('creating a person', { timeout: 180_000 }, () => {
  it('takes a small form, keeps JSON as the advanced path, and shows nested values as nested fields', async () => {
    const email = `form-${randomUUID().slice(0, 8)}@example.com`;
    const { page, problems } = await newPage();
    await signIn(page, 'people');
    await page.getByLabel('Name', { exact: true }).fill('Chien-Shiung Wu');
    await page.getByLabel('Email', { exact: true }).fill(email);
    await page.getByLabel('Login', { exact: true }).fill(`wu-${email.slice(5, 13)}`);
    await page.getByRole('button', { name: 'Add a field' }).click();
    await page.getByLabel('Field 1 name').fill('city');
    await page.getByLabel('Field 1 value').fill('Shanghai');
    await expectAccessible(page, 'console create form');
    await screenshot(page, 'console-create-person');
    // The advanced path starts from what the form holds; a nested value is written there.
    await page.getByRole('button', { name: 'Write JSON instead' }).click();
    const editor = page.getByLabel('Profile (JSON)', { exact: true });
    const fromForm = JSON.parse(await editor.inputValue()) as Record<string, unknown>;
    expect(fromForm).toEqual({ name: 'Chien-Shiung Wu', email, login: `wu-${email.slice(5, 13)}`, city: 'Shanghai' });
    await editor.fill(JSON.stringify({ ...fromForm, address: { street: '1 Physics Way', postal_code: '10027' }, labs: ['Columbia', 'Princeton'] }));
    await page.getByRole('button', { name: 'Create person' }).click();
    await poll(() => shown(heading(page, 'Chien-Shiung Wu'))).toBe('shown');
    const stored = await vault.call('UserGet', { mode: 'email', identity: email });
    expect(stored.body.profile.address).toEqual({ street: '1 Physics Way', postal_code: '10027' });

    // Nested values read as nested fields and lists, never as JSON strings.
    const profile = page.getByRole('definition').filter({ has: page.getByText('1 Physics Way') });
    await poll(() => shown(profile.getByText('postal code'))).toBe('shown');
    expect(await page.getByRole('tabpanel').textContent()).not.toContain('{"street"');
    expect(await page.getByRole('listitem').filter({ hasText: 'Princeton' }).count()).toBe(1);
    await expectAccessible(page, 'console nested profile');
    await screenshot(page, 'console-nested-profile');
    expect(problems).toEqual([]);
    await page.context().close();
  });
});

describe('what cannot be undone', { timeout: 180_000 }, () => {
  it('asks in a dialog naming the person or object, styled as destructive, and the badge follows the decision', async () => {
    const email = `erase-${randomUUID().slice(0, 8)}@example.com`;
    const token = (await vault.call('UserCreate', { profile: { email, name: 'Lise Meitner' } })).body.token as string;
    await vault.call('UserDeleteRequest', { mode: 'token', identity: token });
    const requestuuid = (await vault.call('UserRequestListUserRequests', { mode: 'token', identity: token })).body.rows[0].requestuuid as string;
    const { page, problems } = await newPage();
    await signIn(page, `requests/${requestuuid}`);
    const detail = page.getByRole('region', { name: `Request ${requestuuid}` });
    await poll(() => shown(detail.getByText('The person asks to be erased'))).toBe('shown');
    await poll(() => shown(detail.getByRole('link', { name: 'Lise Meitner' }))).toBe('shown');
    const approve = detail.getByRole('button', { name: 'Approve erasure' });
    expect(await approve.getAttribute('class')).toBe('danger');
    await approve.click();
    const dialog = page.getByRole('dialog', { name: 'Approve erasure of Lise Meitner?' });
    await poll(() => shown(dialog)).toBe('shown');
    // The safe choice has the focus; the destructive one is red, not the blue primary.
    expect(await page.evaluate<string>('document.activeElement?.textContent')).toBe('Keep it');
    const erase = dialog.getByRole('button', { name: 'Erase Lise Meitner for good' });
    expect(await page.evaluate<string>("getComputedStyle(document.querySelector('dialog.confirm-dialog button.danger.primary')).backgroundColor")).toBe('rgb(179, 38, 30)');
    await expectAccessible(page, 'console erasure dialog');
    await screenshot(page, 'console-erasure-dialog');
    await page.keyboard.press('Escape');
    await poll(() => dialog.count()).toBe(0);
    expect((await vault.call('UserGet', { mode: 'token', identity: token })).status).toBe(200);

    await approve.click();
    await erase.click();
    await poll(() => shown(detail.getByText('This request is approved.'))).toBe('shown');
    expect(await detail.locator('.tag').allTextContents()).toEqual(['forget-me', 'approved']);
    expect((await vault.call('UserGet', { mode: 'token', identity: token })).status).toBe(404);

    // Deleting a person names them too.
    const other = (await vault.call('UserCreate', { profile: { email: `b-${email}`, name: 'Otto Hahn' } })).body.token as string;
    await page.goto(`${vault.url}/console/people/${other}`);
    await page.getByRole('button', { name: 'Delete person' }).click();
    await poll(() => shown(page.getByRole('dialog', { name: 'Delete person Otto Hahn?' }))).toBe('shown');
    await page.getByRole('button', { name: 'Keep it' }).click();
    expect((await vault.call('UserGet', { mode: 'token', identity: other })).status).toBe(200);

    // And a token.
    const made = (await vault.call('TokenCreate', { tokentype: 'text', record: 'secret note' })).body as { tokenuuid: string };
    await section(page, 'Tokens').click();
    await page.getByLabel('Token (tokenbase or tokenuuid)').fill(made.tokenuuid);
    await page.getByRole('button', { name: 'Delete token' }).click();
    await page.getByRole('dialog', { name: `Delete token ${made.tokenuuid}?` }).getByRole('button', { name: 'Delete the token for good' }).click();
    await poll(() => shown(page.getByText('Token deleted.'))).toBe('shown');
    expect(problems).toEqual([]);
    await page.context().close();
  });
});

describe('copy buttons and verdicts', { timeout: 180_000 }, () => {
  it('copy a secret shown once and identifiers, and colour verdicts by meaning', async () => {
    const rolename = `copy-${randomUUID().slice(0, 6)}`;
    await vault.call('RoleCreate', { rolename });
    await vault.call('PolicyCreate', { policyname: `${rolename}-names`, policy: { Effect: 'Allow', Action: ['UserGet'], Resource: ['users.profile.name'] } });
    await vault.call('RoleLinkPolicy', { rolename, policyname: `${rolename}-names` });
    const { page, problems } = await newPage();
    await page.context().grantPermissions(['clipboard-read', 'clipboard-write'], { origin: vault.url });
    const clipboard = () => page.evaluate<string>('navigator.clipboard.readText()');
    await signIn(page, `access/roles/${rolename}`);
    await poll(() => shown(page.getByRole('heading', { name: `Role ${rolename}` }))).toBe('shown');
    await page.getByRole('button', { name: 'Create xtoken' }).click();
    const secret = page.getByText(/^xtoken [0-9a-f-]{36}, valid until/);
    await poll(() => shown(secret)).toBe('shown');
    await secret.getByRole('button', { name: 'Copy xtoken' }).click();
    await poll(() => shown(secret.getByText('Copied.'))).toBe('shown');
    const xtoken = (await secret.locator('code').textContent())!;
    expect(await clipboard()).toBe(xtoken);
    // The copied secret signs in.
    expect((await vault.call('RoleGet', { rolename }, { 'x-bunker-token': xtoken })).status).not.toBe(401);
    const ids = page.getByRole('table', { name: /^Xtokens of this role/ });
    await ids.getByRole('button', { name: 'Copy id' }).first().click();
    expect(await clipboard()).toBe(await ids.locator('code').first().textContent());

    // "partial" is a warning, not a success.
    await page.getByLabel('Role', { exact: true }).selectOption(rolename);
    await page.getByLabel('Operation', { exact: true }).selectOption('UserGet');
    await page.getByRole('button', { name: 'Explain' }).click();
    const verdict = page.getByRole('status').filter({ hasText: /^Verdict:/ }).locator('.tag');
    await poll(() => verdict.textContent()).toBe('partial');
    expect(await verdict.getAttribute('class')).toContain('verdict-warn');
    const [r, g, b] = (await page.evaluate<string>("getComputedStyle(document.querySelector('[role=status] .tag')).backgroundColor")).match(/\d+/g)!.map(Number);
    expect(g! > r! + 20 && g! > b! + 20, 'not green').toBe(false);
    await page.getByLabel('Operation', { exact: true }).selectOption('UserDelete');
    await page.getByRole('button', { name: 'Explain' }).click();
    await poll(() => verdict.textContent()).toBe('deny');
    expect(await verdict.getAttribute('class')).toContain('verdict-bad');
    await expectAccessible(page, 'console copy and verdicts');
    await screenshot(page, 'console-copy-verdict');

    const person = (await vault.call('UserCreate', { profile: { email: `copy-${rolename}@example.com`, name: 'Copy Me' } })).body.token as string;
    await page.goto(`${vault.url}/console/people/${person}`);
    await page.getByRole('button', { name: 'Copy record token' }).click();
    expect(await clipboard()).toBe(person);
    expect(problems).toEqual([]);
    await page.context().close();
  });
});

/**
 * Words of the table's cells that the browser broke across lines (a word drawn on more than one line). Run in the
 * page as a string: the tests are type-checked without the DOM's types.
 */
function brokenWords(page: Page, selector: string): Promise<string[]> {
  return page.evaluate<string[]>(`(() => {
    const broken = [];
    for (const cell of document.querySelectorAll(${JSON.stringify(`${selector} td, ${selector} th`)})) {
      const walker = document.createTreeWalker(cell, NodeFilter.SHOW_TEXT);
      for (let node = walker.nextNode(); node; node = walker.nextNode()) {
        for (const match of (node.textContent ?? '').matchAll(/\\S+/g)) {
          const range = document.createRange();
          range.setStart(node, match.index);
          range.setEnd(node, match.index + match[0].length);
          const lines = new Set([...range.getClientRects()].map((r) => Math.round(r.top)));
          if (lines.size > 1) broken.push(match[0]);
        }
      }
    }
    return broken;
  })()`);
}

describe('the audit table', { timeout: 180_000 }, () => {
  it('keeps every word whole at 1366 px', async () => {
    const email = `audit-${randomUUID().slice(0, 8)}@example.com`;
    const token = (await vault.call('UserCreate', { profile: { email, name: 'Emmy Noether' } })).body.token as string;
    await vault.call('UserUpdate', { mode: 'token', identity: token, profile: { city: 'Erlangen' } });
    await vault.call('UserGet', { mode: 'login', identity: 'nobody-by-that-login' });
    // Long operation names and long messages, as a busy trail has them.
    await vault.call('BulkListAllUsers', { unlockuuid: randomUUID() });
    await vault.call('SharedRecordListUserRecords', { mode: 'token', identity: token });
    await vault.call('AgreementListUserAgreements', { mode: 'token', identity: token });
    await vault.call('AppdataGet', { mode: 'token', identity: token, appname: 'no-such-application-here' });
    await vault.call('UserGet', { mode: 'token', identity: token, version: 99 });
    // A role with hyphens in its name, in the Who column: "role audit-desk-… (xtoken …)" breaks only between words.
    const rolename = `audit-desk-${randomUUID().slice(0, 6)}`;
    await vault.call('RoleCreate', { rolename });
    const roleXtoken = (await vault.call('XTokenCreateForRole', { rolename, finaltime: '1h' })).body.xtoken as string;
    await vault.call('UserGet', { mode: 'token', identity: token }, { 'x-bunker-token': roleXtoken });
    const { page, problems } = await newPage(1366, 768);
    await signIn(page, 'audit');
    await page.getByRole('button', { name: 'Unlock for 60 s' }).click();
    await poll(() => shown(page.getByRole('table', { name: /^Events 1–/ }))).toBe('shown');
    expect(await page.locator('table.audit tbody tr').count()).toBeGreaterThan(5);
    await poll(() => shown(page.locator('table.audit td').filter({ hasText: `role ${rolename} (xtoken` }).first())).toBe('shown');
    expect(await brokenWords(page, 'table.audit')).toEqual([]);
    await screenshot(page, 'console-audit-1366');
    await page.goto(`${vault.url}/console/people/${token}/audit`);
    await poll(() => shown(page.getByRole('table', { name: /Events about this person/ }))).toBe('shown');
    expect(await brokenWords(page, 'table.audit')).toEqual([]);
    await expectAccessible(page, 'console person audit at 1366 px');
    expect(problems).toEqual([]);
    await page.context().close();
  });
});
