// The console's sign-in by OpenID Connect (authorization code with PKCE, openid-client). GET /oidc/login sends the
// browser to the identity provider; GET /oidc/callback checks the answer, maps the person's groups to a credential
// (api/vault/console-signin.ts) and hands it over in an HttpOnly cookie that only POST /oidc/session reads, once.
//
// Why a cookie and not a code in the address: the credential never appears in a URL, a log line or the browser's
// history; the cookie is HttpOnly (no script reads it before the console asks), SameSite=Strict (another site's page
// cannot make the browser send it), scoped to /oidc/session, and lives 60 seconds; the exchange deletes it. It needs
// no table shared between replicas, as a one-time code would. The console then keeps the token as it keeps a pasted
// one: in sessionStorage for the tab.
import type Router from '@koa/router';
import type { Context } from 'koa';
import * as oidc from 'openid-client';
import type { OidcConfig } from '../config-oidc.js';
import { isLoopback } from '../config-oidc.js';
import { groupsOf, issueConsoleCredential, roleFor } from '../vault/console-signin.js';
import type { Services } from '../vault/services.js';
import { nowSeconds } from '../vault/durations.js';

const ATTEMPT = 'strongroom_oidc';
const HANDOFF = 'strongroom_console';
const ATTEMPT_SECONDS = 600;
const HANDOFF_SECONDS = 60;

/** Where the console goes after the callback: only a word in the address, never a credential. */
const back = (outcome: 'done' | 'denied' | 'failed') => `/console/?oidc=${outcome}`;

export function mountOidc(router: Router, services: Services): void {
  const settings = services.config.oidc;
  if (!settings) return;
  const provider = new Provider(settings);
  router.get('/oidc/login', (ctx) => provider.login(ctx, services));
  router.get('/oidc/callback', (ctx) => provider.callback(ctx, services));
  router.post('/oidc/session', (ctx) => handoff(ctx, services));
  router.post('/oidc/logout', (ctx) => signOut(ctx, services));
  router.get('/oidc/status', (ctx) => {
    ctx.set('Cache-Control', 'no-store');
    ctx.body = { enabled: true };
  });
}

class Provider {
  private discovered: Promise<oidc.Configuration> | undefined;

  constructor(private readonly settings: OidcConfig) {}

  /** The provider's metadata, read once it is first needed (a provider down at start does not stop the vault). */
  private configuration(): Promise<oidc.Configuration> {
    const s = this.settings;
    this.discovered ??= oidc
      .discovery(s.issuer, s.clientId, s.clientSecret, s.clientSecret ? undefined : oidc.None(), isLoopback(s.issuer.hostname) ? { execute: [oidc.allowInsecureRequests] } : {})
      .catch((err: unknown) => {
        this.discovered = undefined;
        throw err;
      });
    return this.discovered;
  }

  private redirectUrl(ctx: Context): string {
    return this.settings.redirectUrl ?? `${ctx.protocol}://${ctx.host}/oidc/callback`;
  }

  async login(ctx: Context, services: Services): Promise<void> {
    let config: oidc.Configuration;
    try {
      config = await this.configuration();
    } catch (err) {
      services.log.warn({ err: (err as Error).name }, 'identity provider unreachable');
      ctx.status = 503;
      ctx.set('Retry-After', '5');
      ctx.body = { status: 'error', message: 'The identity provider cannot be reached' };
      return;
    }
    const attempt = { verifier: oidc.randomPKCECodeVerifier(), state: oidc.randomState(), nonce: oidc.randomNonce() };
    const url = oidc.buildAuthorizationUrl(config, {
      redirect_uri: this.redirectUrl(ctx),
      scope: 'openid',
      code_challenge: await oidc.calculatePKCECodeChallenge(attempt.verifier),
      code_challenge_method: 'S256',
      state: attempt.state,
      nonce: attempt.nonce,
    });
    // Lax: the cookie must come back with the provider's top-level redirect to the callback.
    ctx.cookies.set(ATTEMPT, Buffer.from(JSON.stringify(attempt)).toString('base64url'), {
      httpOnly: true, sameSite: 'lax', path: '/oidc/callback', maxAge: ATTEMPT_SECONDS * 1000, secure: ctx.secure, overwrite: true,
    });
    ctx.set('Cache-Control', 'no-store');
    ctx.redirect(url.href);
  }

  async callback(ctx: Context, services: Services): Promise<void> {
    ctx.set('Cache-Control', 'no-store');
    const attempt = readAttempt(ctx.cookies.get(ATTEMPT));
    ctx.cookies.set(ATTEMPT, null, { path: '/oidc/callback', httpOnly: true, secure: ctx.secure });
    if (!attempt) return ctx.redirect(back('failed'));
    let groups: string[];
    try {
      const config = await this.configuration();
      const current = new URL(ctx.originalUrl, this.redirectUrl(ctx));
      const tokens = await oidc.authorizationCodeGrant(
        config,
        current,
        { pkceCodeVerifier: attempt.verifier, expectedState: attempt.state, expectedNonce: attempt.nonce, idTokenExpected: true },
        { redirect_uri: this.redirectUrl(ctx) },
      );
      const claims = tokens.claims()!;
      let claim = claims[this.settings.groupsClaim];
      if (claim === undefined) claim = (await oidc.fetchUserInfo(config, tokens.access_token, claims.sub))[this.settings.groupsClaim];
      groups = groupsOf(claim);
    } catch (err) {
      // The provider's or the library's message may quote the request: only the error's kind is logged.
      services.log.warn({ err: (err as Error).name, code: (err as { code?: unknown }).code }, 'OpenID sign-in failed');
      return ctx.redirect(back('failed'));
    }
    const role = roleFor(groups, this.settings.roleMap);
    const expires = nowSeconds() + Math.min(this.settings.tokenSeconds, services.config.xtokenMaxSeconds);
    const credential = role ? await issueConsoleCredential(services.credentials, services.db, role, expires) : null;
    if (!credential) {
      services.log.info({ role }, 'OpenID sign-in refused: no group of the role map, or its role does not exist');
      return ctx.redirect(back('denied'));
    }
    services.log.info({ role: credential.role }, 'console sign-in by OpenID Connect');
    const value = Buffer.from(JSON.stringify(credential)).toString('base64url');
    ctx.cookies.set(HANDOFF, value, { httpOnly: true, sameSite: 'strict', path: '/oidc/session', maxAge: HANDOFF_SECONDS * 1000, secure: ctx.secure, overwrite: true });
    ctx.redirect(back('done'));
  }
}

/** Gives the console the credential made at the callback, once: the cookie is deleted with the answer. */
/**
 * Hands the console the credential its sign-in left in the cookie, once. What it is (kind, role, expiry) is read
 * from the vault's own record of the credential, never from the cookie: a cookie planted by someone else can name
 * only a working credential, and cannot label it as more than it is.
 */
async function handoff(ctx: Context, services: Services): Promise<void> {
  ctx.set('Cache-Control', 'no-store');
  const value = ctx.cookies.get(HANDOFF);
  ctx.cookies.set(HANDOFF, null, { path: '/oidc/session', httpOnly: true, secure: ctx.secure });
  const credential = value ? parse(value) : null;
  const principal = typeof credential?.token === 'string' ? await services.credentials.authenticate(credential.token).catch(() => null) : null;
  if (!principal || principal.expiresAt === null || (principal.kind !== 'role' && principal.kind !== 'tenant-admin')) {
    ctx.status = 404;
    ctx.body = { status: 'error', message: 'No sign-in to hand over' };
    return;
  }
  const role = principal.kind === 'role' && principal.roleId !== null ? ((await services.roles.statementsOf(principal.roleId))?.rolename ?? null) : 'admin';
  ctx.body = { status: 'ok', token: credential!.token, kind: principal.kind === 'role' ? 'role' : 'admin', role, expires: principal.expiresAt };
}

/** Signing out of the console ends its session credential at once: a copy taken before is worthless. */
async function signOut(ctx: Context, services: Services): Promise<void> {
  ctx.set('Cache-Control', 'no-store');
  const token = ctx.get('x-bunker-token');
  const principal = token ? await services.credentials.authenticate(token).catch(() => null) : null;
  const ended = principal ? await services.credentials.endSession(principal) : false;
  ctx.body = { status: 'ok', ended };
}

function parse(value: string): Record<string, unknown> | null {
  try {
    const v: unknown = JSON.parse(Buffer.from(value, 'base64url').toString('utf8'));
    return v && typeof v === 'object' ? (v as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

function readAttempt(value: string | undefined): { verifier: string; state: string; nonce: string } | null {
  const v = value ? parse(value) : null;
  if (!v || typeof v.verifier !== 'string' || typeof v.state !== 'string' || typeof v.nonce !== 'string') return null;
  return { verifier: v.verifier, state: v.state, nonce: v.nonce };
}
