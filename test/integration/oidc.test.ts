// The console's sign-in by OpenID Connect against a real OpenID provider (oidc-provider) started here: the code
// flow with PKCE, groups mapped to the main tenant's admin or a role, the credential handed over once in a cookie
// and never in an address, and every way it is refused.
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startVault, type TestVault } from '../fixtures/vault.js';
import { startIdentityProvider, type IdentityProvider, oidcEnv } from '../fixtures/identity-provider.js';

let idp: IdentityProvider;
let vault: TestVault;
const role = `support-${randomUUID().slice(0, 6)}`;

beforeAll(async () => {
  idp = await startIdentityProvider();
  vault = await startVault({
    env: oidcEnv(idp, { 'vault-admins': 'admin', 'support-desk': role, ghosts: 'no-such-role' }, { STRONGROOM_OIDC_TOKEN_SECONDS: '300' }),
  });
  idp.serve(`${vault.url}/oidc/callback`);
  await vault.call('RoleCreate', { rolename: role });
  await vault.call('PolicyCreate', { policyname: `${role}-stats`, policy: { Effect: 'Allow', Action: ['LegalBasisListAgreements'] } });
  await vault.call('RoleLinkPolicy', { rolename: role, policyname: `${role}-stats` });
}, 120_000);

afterAll(async () => {
  await vault?.stop();
  await idp?.stop();
});

/** A browser's cookies, per host, as far as these tests need them (no paths, no expiry). */
class Browser {
  private readonly jar = new Map<string, Map<string, string>>();
  /** Every address the browser was sent to. */
  readonly visited: string[] = [];

  async fetch(url: string, init: RequestInit = {}): Promise<Response> {
    const host = new URL(url).host;
    const cookies = [...(this.jar.get(host) ?? new Map<string, string>())].map(([k, v]) => `${k}=${v}`).join('; ');
    const res = await fetch(url, { ...init, redirect: 'manual', headers: { ...(init.headers as Record<string, string>), ...(cookies ? { cookie: cookies } : {}) } });
    for (const line of res.headers.getSetCookie()) {
      const [pair] = line.split(';');
      const at = pair!.indexOf('=');
      const [name, value] = [pair!.slice(0, at), pair!.slice(at + 1)];
      const jar = this.jar.get(host) ?? new Map<string, string>();
      if (value && !/expires=Thu, 01 Jan 1970/i.test(line)) jar.set(name, value);
      else jar.delete(name);
      this.jar.set(host, jar);
    }
    return res;
  }

  /** Follows redirects from `url`, submitting the provider's login form as `username`, to the console's address. */
  async signIn(username: string, url = `${vault.url}/oidc/login`): Promise<URL> {
    let res = await this.fetch(url);
    for (let hops = 0; hops < 20; hops++) {
      this.visited.push(url);
      if (res.status >= 300 && res.status < 400) {
        url = new URL(res.headers.get('location')!, url).href;
        if (url.startsWith(`${vault.url}/console/`)) return new URL(url);
        res = await this.fetch(url);
      } else if (res.status === 200 && url.includes('/interaction/')) {
        const action = /action="([^"]+)"/.exec(await res.text())![1]!;
        url = new URL(action, url).href;
        res = await this.fetch(url, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: `username=${encodeURIComponent(username)}` });
      } else {
        throw new Error(`unexpected ${res.status} at ${url}: ${await res.text()}`);
      }
    }
    throw new Error('too many redirects');
  }

  session(): Promise<Response> {
    return this.fetch(`${vault.url}/oidc/session`, { method: 'POST' });
  }
}

const asToken = (token: string) => ({ 'x-bunker-token': token });

describe('console sign-in by OpenID Connect', () => {
  it('maps the admin group to a short-lived main-tenant admin token, handed over once and never in an address', async () => {
    idp.people.set('grace', ['vault-admins', 'support-desk']);
    const browser = new Browser();
    const back = await browser.signIn('grace');
    expect(back.search).toBe('?oidc=done');
    const first = await browser.session();
    expect(first.status).toBe(200);
    const body = (await first.json()) as { token: string; kind: string; expires: number };
    expect(body.kind).toBe('admin');
    expect(body.expires - Date.now() / 1000).toBeGreaterThan(250);
    expect(body.expires - Date.now() / 1000).toBeLessThanOrEqual(300);
    expect((await vault.call('TenantListTenants', {}, asToken(body.token))).status).toBe(200);
    // Once only: the cookie is gone with the answer.
    expect((await browser.session()).status).toBe(404);
    // The credential never appeared in any address the browser was sent to.
    expect(browser.visited.some((u) => u.includes(body.token))).toBe(false);
    // The authorization request asked for PKCE (S256) and a state.
    const authorize = new URL(browser.visited.find((u) => u.startsWith(idp.issuer))!);
    expect(authorize.searchParams.get('code_challenge_method')).toBe('S256');
    expect(authorize.searchParams.get('state')).toBeTruthy();
  });

  it('maps a group to its role: the xtoken acts as the role and nothing more', async () => {
    idp.people.set('ada', ['staff', 'support-desk']);
    const browser = new Browser();
    expect((await browser.signIn('ada')).search).toBe('?oidc=done');
    const body = (await (await browser.session()).json()) as { token: string; kind: string; role: string };
    expect(body).toMatchObject({ kind: 'role', role });
    expect((await vault.call('LegalBasisListAgreements', {}, asToken(body.token))).status).toBe(200);
    expect((await vault.call('TenantListTenants', {}, asToken(body.token))).status).toBe(403);
    expect((await vault.call('UserCreate', { profile: { name: 'x' } }, asToken(body.token))).status).toBe(403);
  });

  it('refuses a person in no mapped group, or mapped to a role that does not exist, and hands nothing over', async () => {
    for (const [name, groups] of [['mallory', ['staff']], ['casper', ['ghosts']]] as const) {
      idp.people.set(name, [...groups]);
      const browser = new Browser();
      expect((await browser.signIn(name)).search).toBe('?oidc=denied');
      expect((await browser.session()).status).toBe(404);
    }
  });

  it('refuses a callback whose state is not the one this browser started with', async () => {
    idp.people.set('eve', ['vault-admins']);
    const victim = new Browser();
    await victim.fetch(`${vault.url}/oidc/login`);
    // The attacker's own completed login, replayed into another browser's attempt.
    const attacker = new Browser();
    let url = `${vault.url}/oidc/login`;
    let res = await attacker.fetch(url);
    let callback = '';
    for (let hops = 0; hops < 20 && !callback; hops++) {
      if (res.status >= 300 && res.status < 400) {
        url = new URL(res.headers.get('location')!, url).href;
        if (url.startsWith(`${vault.url}/oidc/callback`)) callback = url;
        else res = await attacker.fetch(url);
      } else {
        url = new URL(/action="([^"]+)"/.exec(await res.text())![1]!, url).href;
        res = await attacker.fetch(url, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'username=eve' });
      }
    }
    const replayed = await victim.fetch(callback);
    expect(replayed.headers.get('location')).toBe('/console/?oidc=failed');
    expect((await victim.session()).status).toBe(404);
    // Without any attempt cookie at all, too.
    expect((await new Browser().fetch(callback)).headers.get('location')).toBe('/console/?oidc=failed');
  });

  it('ends the sign-in’s credential at sign-out, and no other (found by an outside tester)', async () => {
    idp.people.set('lin', ['vault-admins']);
    const browser = new Browser();
    expect((await browser.signIn('lin')).search).toBe('?oidc=done');
    const { token } = (await (await browser.session()).json()) as { token: string };
    expect((await vault.call('TenantListTenants', {}, asToken(token))).status).toBe(200);
    const out = await fetch(`${vault.url}/oidc/logout`, { method: 'POST', headers: asToken(token) });
    expect(await out.json()).toMatchObject({ status: 'ok', ended: true });
    expect((await vault.call('TenantListTenants', {}, asToken(token))).status).toBe(403);
    // A credential that is not a session (the root token, a tenant's own admin token) is not ended by it.
    const kept = await fetch(`${vault.url}/oidc/logout`, { method: 'POST', headers: asToken(vault.rootToken) });
    expect(await kept.json()).toMatchObject({ ended: false });
    expect((await vault.call('TenantListTenants', {})).status).toBe(200);
  });

  it('labels a handed-over credential from the vault’s record of it, never from the cookie', async () => {
    idp.people.set('mo', ['staff', 'support-desk']);
    const browser = new Browser();
    expect((await browser.signIn('mo')).search).toBe('?oidc=done');
    const real = (await (await browser.session()).json()) as { token: string; kind: string; role: string };
    const forge = (o: unknown) => `strongroom_console=${Buffer.from(JSON.stringify(o)).toString('base64url')}`;
    const post = (cookie: string) => fetch(`${vault.url}/oidc/session`, { method: 'POST', headers: { cookie } });
    // A real credential relabelled as admin is handed over as what it is.
    const relabelled = await post(forge({ ...real, kind: 'admin', role: '<img src=x onerror=alert(1)>', expires: 9_999_999_999 }));
    expect(await relabelled.json()).toMatchObject({ kind: 'role', role, token: real.token });
    // A made-up token, or the long-lived root token, hands over nothing.
    expect((await post(forge({ token: '00000000-0000-4000-8000-000000000000', kind: 'admin' }))).status).toBe(404);
    expect((await post(forge({ token: vault.rootToken, kind: 'admin' }))).status).toBe(404);
  });

  it('says whether it is on, for the console to offer it', async () => {
    const res = await fetch(`${vault.url}/oidc/status`);
    expect(await res.json()).toEqual({ enabled: true });
  });
});
