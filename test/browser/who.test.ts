// Who did what (issue 28), in a real browser: the console marks only its own reads about the vault as housekeeping
// and the audit list hides them unless asked; each event says who made it (a role and its xtoken, root, the person)
// and, opened, the client's address; the person sees who accessed their data in plain words; every role is listed
// through RoleListAllRoles, past one page; lifetimes are a number and a unit, and a capped one says so.
import { randomUUID } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import type { TestVault } from '../fixtures/vault.js';
import { HOUSEKEEPING } from '../../web/src/api/housekeeping.js';
import { expectAccessible, openPage, pagesVault, poll, screenshot, shown, streamText } from './support.js';
import { verifyProof } from '../../api/vault/audit/proof.js';

let vault: TestVault;
let browser: Browser;

// Checkpoints every second, so that a person's proof covers their events at once.
pagesVault(
  (v, b) => {
    vault = v;
    browser = b;
  },
  true,
  { env: { STRONGROOM_AUDIT_CHECKPOINT_SECONDS: '1' } },
);

interface Sent {
  op: string;
  purpose: string | undefined;
}

/** Every API call the page makes, with its purpose header. */
function recordCalls(page: Page): Sent[] {
  const sent: Sent[] = [];
  page.on('request', (req) => {
    const m = /\/v2\/(\w+)$/.exec(new URL(req.url()).pathname);
    if (m) sent.push({ op: m[1]!, purpose: req.headers()['x-strongroom-purpose'] });
  });
  return sent;
}

async function signIn(page: Page, path = ''): Promise<void> {
  await page.goto(`${vault.url}/console/${path}`);
  await page.getByLabel('Token').fill(vault.rootToken);
  await page.getByRole('button', { name: 'Sign in' }).click();
}

const section = (page: Page, name: string) => page.getByRole('navigation', { name: 'Console sections' }).getByRole('link', { name, exact: true });

/** A person, a role allowed to read them, and one of its xtokens. */
async function personAndRole(): Promise<{ token: string; rolename: string; xtoken: string; xtokenid: string }> {
  const token = (await vault.call('UserCreate', { profile: { email: `who-${randomUUID().slice(0, 8)}@example.com`, name: 'Ada Byron' } })).body.token as string;
  const rolename = `support-${randomUUID().slice(0, 6)}`;
  await vault.call('PolicyCreate', { policyname: `${rolename}-read`, policy: { Effect: 'Allow', Action: ['UserGet'], Resource: ['users.profile.*'] } });
  await vault.call('RoleCreate', { rolename });
  await vault.call('RoleLinkPolicy', { rolename, policyname: `${rolename}-read` });
  const { xtoken, xtokenid } = (await vault.call('XTokenCreateForRole', { rolename, finaltime: '1h' })).body as { xtoken: string; xtokenid: string };
  return { token, rolename, xtoken, xtokenid };
}

async function auditList(includehousekeeping: boolean): Promise<{ title: string; who: { purpose: string | null } }[]> {
  const unlockuuid = (await vault.call('BulkListUnlock', {})).body.unlockuuid as string;
  const body = { unlockuuid, limit: 100, ...(includehousekeeping ? { includehousekeeping: true } : {}) };
  return (await vault.call('BulkListAllAuditEvents', body)).body.rows as { title: string; who: { purpose: string | null } }[];
}

describe('housekeeping', { timeout: 180_000 }, () => {
  it('is sent only on the console reads about the vault, never on a person read, and hidden from the audit list unless asked', async () => {
    const { token } = await personAndRole();
    const { page, problems } = await openPage(browser, 1366, 900);
    const sent = recordCalls(page);
    await signIn(page, 'access');
    await poll(() => shown(page.getByRole('table', { name: /^Roles \(/ }))).toBe('shown');
    for (const name of ['Consent', 'Groups', 'System', 'Overview']) {
      await section(page, name).click();
      await page.waitForLoadState('networkidle');
    }
    await page.goto(`${vault.url}/console/people/${token}`);
    await poll(() => shown(page.getByRole('heading', { name: 'Ada Byron' }))).toBe('shown');

    const marked = sent.filter((s) => s.purpose !== undefined);
    expect(marked.length).toBeGreaterThan(3);
    expect(marked.every((s) => s.purpose === 'housekeeping' && HOUSEKEEPING.has(s.op as never))).toBe(true);
    expect(sent.filter((s) => HOUSEKEEPING.has(s.op as never) && s.purpose === undefined)).toEqual([]);
    expect(sent.filter((s) => s.op === 'UserGet').length).toBeGreaterThan(0);
    expect(sent.filter((s) => s.op === 'UserGet' && s.purpose !== undefined)).toEqual([]);

    // The vault honours the mark: hidden by default, listed (and marked) when asked for.
    expect((await auditList(false)).filter((e) => e.who.purpose === 'housekeeping')).toEqual([]);
    const all = await auditList(true);
    expect(all.filter((e) => e.title === 'RoleListAllRoles' && e.who.purpose === 'housekeeping').length).toBeGreaterThan(0);

    await section(page, 'Audit').click();
    await page.getByRole('button', { name: 'Unlock for 60 s' }).click();
    const table = page.getByRole('table', { name: /^Events 1–/ });
    await poll(() => shown(table)).toBe('shown');
    expect(await table.textContent()).not.toContain('console housekeeping');
    await page.getByLabel("Show the console's own reads").check();
    await poll(() => shown(table.getByRole('row').filter({ hasText: 'console housekeeping' }).first())).toBe('shown');
    await expectAccessible(page, 'console audit with housekeeping shown');
    await screenshot(page, 'console-audit-housekeeping');
    expect(problems).toEqual([]);
    await page.context().close();
  });
});

describe('who made each event', { timeout: 180_000 }, () => {
  it('is said in the console per event (role and xtoken, root, the person), with the address in the event', async () => {
    const { token, rolename, xtoken, xtokenid } = await personAndRole();
    expect((await vault.call('UserGet', { mode: 'token', identity: token }, { 'x-bunker-token': xtoken })).status).toBe(200);
    const login = (await vault.call('XTokenCreateForUser', { mode: 'token', identity: token, finaltime: '1h' })).body.xtoken as string;
    expect((await vault.call('UserGet', { mode: 'token', identity: token }, { 'x-bunker-token': login })).status).toBe(200);

    const { page, problems } = await openPage(browser, 1366, 900);
    await signIn(page, `people/${token}/audit`);
    const table = page.getByRole('table', { name: /Events about this person/ });
    const byRole = table.getByRole('row').filter({ hasText: `role ${rolename} (xtoken ${xtokenid.slice(0, 4)}…)` });
    await poll(() => shown(byRole.first())).toBe('shown');
    expect(await table.getByRole('cell', { name: 'the person themselves', exact: true }).count()).toBeGreaterThan(0);
    expect(await table.getByRole('cell', { name: 'root', exact: true }).count()).toBeGreaterThan(0);
    expect(await table.textContent()).not.toContain(xtoken);

    await byRole.first().getByRole('button', { name: 'Details' }).click();
    const detail = page.getByRole('region', { name: /^Event UserGet at/ });
    await poll(() => shown(detail)).toBe('shown');
    await poll(() => detail.getByRole('definition').nth(0).textContent()).toContain(`role ${rolename}`);
    const address = (await detail.getByRole('term').filter({ hasText: /^Client address$/ }).locator('xpath=following-sibling::dd[1]').textContent()) ?? '';
    expect(address).toMatch(/127\.0\.0\.1|::1/);
    expect(await detail.textContent()).toContain(xtokenid);
    await expectAccessible(page, 'console event with who');
    await screenshot(page, 'console-audit-who');
    expect(problems).toEqual([]);
    await page.context().close();
  });

  it('is shown to the person in the portal, in plain words', async () => {
    const { token, rolename, xtoken } = await personAndRole();
    await vault.call('UserGet', { mode: 'token', identity: token }, { 'x-bunker-token': xtoken });
    const login = (await vault.call('XTokenCreateForUser', { mode: 'token', identity: token, finaltime: '1h' })).body.xtoken as string;
    const session = JSON.stringify({ xtoken: login, token });
    for (const width of [1280, 390]) {
      const { page, problems } = await openPage(browser, width, 844);
      await page.context().addInitScript(`if (!sessionStorage.getItem('strongroom.portal')) sessionStorage.setItem('strongroom.portal', ${JSON.stringify(session)});`);
      await page.goto(`${vault.url}/portal/`);
      await page.getByRole('navigation', { name: 'Your data' }).getByRole('link', { name: 'Who accessed my data' }).click();
      expect(page.url()).toBe(`${vault.url}/portal/accesses`);
      const table = page.getByRole('table', { name: /^Accesses to your data/ });
      const staff = table.getByRole('row').filter({ hasText: `the organisation's staff (role ${rolename})` });
      await poll(() => shown(staff.first())).toBe('shown');
      expect(await staff.first().textContent()).toContain('read your profile');
      expect(await table.getByRole('row').filter({ hasText: 'created your record' }).count()).toBe(1);
      expect(await table.textContent()).not.toMatch(/xtoken|UserGet|\{/);
      await expectAccessible(page, `portal who accessed my data at ${width} px`);
      expect(await page.evaluate<number>('document.documentElement.scrollWidth - window.innerWidth')).toBeLessThanOrEqual(0);
      await screenshot(page, `portal-accesses-${width}`);
      expect(problems).toEqual([]);
      await page.context().close();
    }
  });

  it('gives the person a proof of their log, which verifies offline', async () => {
    const { token, xtoken } = await personAndRole();
    await vault.call('UserGet', { mode: 'token', identity: token }, { 'x-bunker-token': xtoken });
    const login = (await vault.call('XTokenCreateForUser', { mode: 'token', identity: token, finaltime: '1h' })).body.xtoken as string;
    // Once a checkpoint covers what the person's events are so far.
    await poll(async () => ((await vault.call('AuditProveEvents', { mode: 'token', identity: token })).body.unproven as unknown[]).length).toBe(0);
    const { page, problems } = await openPage(browser, 1280, 844);
    await page.context().addInitScript(`sessionStorage.setItem('strongroom.portal', ${JSON.stringify(JSON.stringify({ xtoken: login, token }))});`);
    await page.goto(`${vault.url}/portal/accesses`);
    const button = page.getByRole('button', { name: 'Download a proof of this log' });
    await poll(() => shown(button)).toBe('shown');
    const [file] = await Promise.all([page.waitForEvent('download'), button.click()]);
    expect(file.suggestedFilename()).toBe('my-access-log-proof.json');
    const saved = JSON.parse(await streamText(await file.createReadStream())) as { proof: { record: string }; publickey: string };
    expect(saved.proof.record).toBe(token);
    const report = await verifyProof(saved.proof, await vault.api.services.auditCheckpoints.publicKey());
    expect(report.result).toBe('intact');
    expect(report.proven).toBeGreaterThanOrEqual(2);
    await poll(() => shown(page.getByText('Your download has started.', { exact: false }))).toBe('shown');
    await expectAccessible(page, 'portal proof of the access log');
    expect(problems).toEqual([]);
    await page.context().close();
  });
});

describe('the list of roles', { timeout: 240_000 }, () => {
  it('reads every role with RoleListAllRoles, past the first page, and probes no role by id', async () => {
    const prefix = `many-${randomUUID().slice(0, 4)}`;
    for (let i = 0; i < 110; i += 10) {
      await Promise.all(Array.from({ length: 10 }, (_, j) => vault.call('RoleCreate', { rolename: `${prefix}-${String(i + j).padStart(3, '0')}` })));
    }
    const total = (await vault.call('RoleListAllRoles', { limit: 1 })).body.total as number;
    expect(total).toBeGreaterThan(100);
    const { page, problems } = await openPage(browser);
    const sent = recordCalls(page);
    await signIn(page, 'access');
    const table = page.getByRole('table', { name: new RegExp(`^Roles \\(${total}\\)`) });
    await poll(() => shown(table)).toBe('shown');
    await poll(() => shown(table.getByRole('link', { name: `${prefix}-109`, exact: true }))).toBe('shown');
    expect(sent.filter((s) => s.op === 'RoleListAllRoles').length).toBeGreaterThanOrEqual(2);
    expect(sent.filter((s) => s.op === 'RoleGet')).toEqual([]);
    expect(problems).toEqual([]);
    await page.context().close();
  });
});

describe('lifetimes', { timeout: 180_000 }, () => {
  it('are a number and a unit: 30 minutes lives 30 minutes, and a capped one says to when', async () => {
    const rolename = `life-${randomUUID().slice(0, 6)}`;
    await vault.call('RoleCreate', { rolename });
    const { page, problems } = await openPage(browser);
    await signIn(page, `access/roles/${rolename}`);
    await poll(() => shown(page.getByRole('heading', { name: `Role ${rolename}` }))).toBe('shown');
    await page.getByLabel('xtoken lifetime', { exact: true }).fill('30');
    await page.getByLabel('xtoken lifetime unit').selectOption('min');
    await page.getByRole('button', { name: 'Create xtoken' }).click();
    await poll(() => shown(page.getByText(/It is shown once/))).toBe('shown');
    const [made] = (await vault.call('XTokenListForRole', { rolename })).body.rows as { created: number; expires: number }[];
    expect(made!.expires - made!.created).toBeGreaterThanOrEqual(1795);
    expect(made!.expires - made!.created).toBeLessThanOrEqual(1805);
    expect(await page.getByText(/capped to/).count()).toBe(0);

    await page.getByLabel('xtoken lifetime', { exact: true }).fill('2');
    await page.getByLabel('xtoken lifetime unit').selectOption('d');
    await page.getByRole('button', { name: 'Create xtoken' }).click();
    await poll(() => shown(page.getByText(/capped to .*: the longest lifetime this vault allows/))).toBe('shown');
    await expectAccessible(page, 'console xtoken lifetime capped');
    await screenshot(page, 'console-lifetime-capped');
    expect(problems).toEqual([]);
    await page.context().close();
  });

  it('in the portal, a share of two months is capped and says so', async () => {
    const token = (await vault.call('UserCreate', { profile: { email: `life-${randomUUID().slice(0, 8)}@example.com`, name: 'Ada Byron' } })).body.token as string;
    const login = (await vault.call('XTokenCreateForUser', { mode: 'token', identity: token, finaltime: '1h' })).body.xtoken as string;
    const { page, problems } = await openPage(browser);
    await page.context().addInitScript(`sessionStorage.setItem('strongroom.portal', ${JSON.stringify(JSON.stringify({ xtoken: login, token }))});`);
    await page.goto(`${vault.url}/portal/share`);
    await page.getByRole('checkbox', { name: 'name', exact: true }).check();
    await page.getByLabel('Expires after', { exact: true }).fill('2');
    await page.getByLabel('Expires after unit').selectOption('mo');
    await page.getByRole('button', { name: 'Create shared link' }).click();
    await poll(() => shown(page.getByText(/capped to/))).toBe('shown');
    await expectAccessible(page, 'portal share capped');
    expect(problems).toEqual([]);
    await page.context().close();
  });
});
