// What the browser tests share: the pages built once, Debian's Chromium, axe checks, screenshots and CSP reports.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser, type Locator, type Page } from 'playwright-core';
import { AxeBuilder } from '@axe-core/playwright';
import { afterAll, beforeAll, expect } from 'vitest';
import { startVault, type TestVault, type VaultOptions } from '../fixtures/vault.js';
import { ensurePagesBuilt } from '../../web/scripts/ensure-built.js';

export { ensurePagesBuilt };

export const ARTIFACTS = fileURLToPath(new URL('./artifacts/', import.meta.url));
export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

export async function launch(): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM, headless: true, args: ['--no-sandbox', '--disable-dev-shm-usage'] });
}

/** Collects what the page reports as broken: CSP violations, script errors, failed requests to the vault. */
export function watch(page: Page): string[] {
  const problems: string[] = [];
  page.on('console', (msg) => {
    if (msg.type() === 'error' && !/status of (4\d\d)/.test(msg.text())) problems.push(`console: ${msg.text()}`);
  });
  page.on('pageerror', (err) => problems.push(`pageerror: ${err.message}`));
  return problems;
}

/** No serious or critical accessibility violation on the page as it is now. */
export async function expectAccessible(page: Page, name: string): Promise<void> {
  const results = await new AxeBuilder({ page }).analyze();
  const bad = results.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical');
  const summary = bad.map((v) => `${v.id} (${v.impact}): ${v.help} at ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
  expect(summary, `axe on ${name}`).toEqual([]);
}

export async function screenshot(page: Page, name: string): Promise<void> {
  mkdirSync(ARTIFACTS, { recursive: true });
  await page.screenshot({ path: join(ARTIFACTS, `${name}.png`), fullPage: true });
}

/** Waits for the page as a person would, with room for a busy machine. */
export const poll: typeof expect.poll = (fn, options) => expect.poll(fn, { timeout: 30_000, ...(typeof options === 'number' ? { timeout: options } : options) });

/** 'shown' once the locator is visible; until then what the page's alerts say, so a failure tells why. */
export async function shown(locator: Locator): Promise<string> {
  if (await locator.isVisible()) return 'shown';
  const alerts = await locator.page().getByRole('alert').allTextContents();
  return alerts.length ? `the page says: ${alerts.join(' | ')}` : 'not shown';
}

/**
 * A vault and Chromium for one test file: started before its first test (unless `wanted` is false), handed to
 * `started`, and stopped after its last. `options` reach the vault (its environment, for one).
 */
export function pagesVault(started: (vault: TestVault, browser: Browser) => void, wanted = true, options: VaultOptions = {}): void {
  let vault: TestVault | undefined;
  let browser: Browser | undefined;
  beforeAll(async () => {
    if (!wanted) return;
    ensurePagesBuilt();
    vault = await startVault(options);
    browser = await launch();
    started(vault, browser);
  }, 120_000);
  afterAll(async () => {
    await browser?.close();
    await vault?.stop();
  });
}

/** A fresh page in a context of its own, and what it reports as broken. */
export async function openPage(browser: Browser, width = 1280, height = 900): Promise<{ page: Page; problems: string[] }> {
  const context = await browser.newContext({ viewport: { width, height } });
  const page = await context.newPage();
  return { page, problems: watch(page) };
}

/** A download's (or any stream's) whole text. */
export async function streamText(stream: NodeJS.ReadableStream): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(Buffer.from(chunk as Buffer));
  return Buffer.concat(chunks).toString('utf8');
}
