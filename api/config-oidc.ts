// The console's sign-in by OpenID Connect: its settings (part of API_SETTINGS) and how they are read together.
import { readFileSync } from 'node:fs';
import { z } from 'zod';

/** The value of STRONGROOM_OIDC_ROLE_MAP that maps a group to a tenant admin token rather than a role. */
export const ADMIN = 'admin';

export const OIDC_SETTINGS = {
  STRONGROOM_OIDC_ISSUER: z.url('must be a URL').optional().meta({ description: 'The identity provider\'s issuer URL (its `/.well-known/openid-configuration` is read from there). Set, the console offers "Sign in with your organisation\'s account" (authorization code with PKCE); `http://` only for a loopback address', shown: '– (no OpenID sign-in)' }),
  STRONGROOM_OIDC_CLIENT_ID: z.string().min(1).optional().meta({ description: 'The vault\'s client id at the identity provider; its redirect URL there is `<vault URL>/oidc/callback`' }),
  STRONGROOM_OIDC_CLIENT_SECRET: z.string().min(1).optional().meta({ description: 'The client\'s secret (client_secret_basic); none: a public client, PKCE alone' }),
  STRONGROOM_OIDC_CLIENT_SECRET_FILE: z.string().min(1).optional().meta({ description: 'A file holding the client\'s secret (e.g. a mounted Secret); not with `STRONGROOM_OIDC_CLIENT_SECRET`' }),
  STRONGROOM_OIDC_ROLE_MAP: z.string().optional().meta({ description: 'JSON object from the provider\'s group names to the main tenant\'s role names, or to `admin` for a tenant admin token, e.g. `{"vault-admins":"admin","support":"support"}`. A person in an `admin` group signs in as admin; else the first group of the map they are in gives the role; in none, they are refused', shown: '– (required with the issuer)' }),
  STRONGROOM_OIDC_GROUPS_CLAIM: z.string().min(1).default('groups').meta({ description: 'The claim of the ID token (or of the userinfo answer) that lists the person\'s groups' }),
  STRONGROOM_OIDC_REDIRECT_URL: z.url('must be a URL').optional().meta({ description: 'The redirect URL registered at the provider, when the vault is reached under another address than its requests\' Host', shown: '`<request origin>/oidc/callback`' }),
  STRONGROOM_OIDC_TOKEN_SECONDS: z.coerce.number().int().min(60).max(86_400).default(900).meta({ description: 'How long the credential made at sign-in lives (never past `STRONGROOM_XTOKEN_MAX_SECONDS`)' }),
};

type OidcEnv = z.output<z.ZodObject<typeof OIDC_SETTINGS>>;

export interface OidcConfig {
  issuer: URL;
  clientId: string;
  clientSecret: string | undefined;
  /** Group → role name or ADMIN, in the order given (the first matching group wins, after `admin`). */
  roleMap: [string, string][];
  groupsClaim: string;
  redirectUrl: string | undefined;
  tokenSeconds: number;
}

function invalid(text: string): Error {
  return new Error(`invalid configuration:\n  ${text}`);
}

/** The OpenID settings checked together; undefined when no issuer is set. */
export function oidcOf(e: OidcEnv): OidcConfig | undefined {
  if (!e.STRONGROOM_OIDC_ISSUER) return undefined;
  if (!e.STRONGROOM_OIDC_CLIENT_ID) throw invalid('STRONGROOM_OIDC_CLIENT_ID: required with STRONGROOM_OIDC_ISSUER');
  const issuer = new URL(e.STRONGROOM_OIDC_ISSUER);
  if (issuer.protocol !== 'https:' && !isLoopback(issuer.hostname)) throw invalid('STRONGROOM_OIDC_ISSUER: must be https:// (http:// only for a loopback address)');
  return {
    issuer,
    clientId: e.STRONGROOM_OIDC_CLIENT_ID,
    clientSecret: secretOf(e.STRONGROOM_OIDC_CLIENT_SECRET, e.STRONGROOM_OIDC_CLIENT_SECRET_FILE),
    roleMap: roleMapOf(e.STRONGROOM_OIDC_ROLE_MAP),
    groupsClaim: e.STRONGROOM_OIDC_GROUPS_CLAIM,
    redirectUrl: e.STRONGROOM_OIDC_REDIRECT_URL,
    tokenSeconds: e.STRONGROOM_OIDC_TOKEN_SECONDS,
  };
}

export function isLoopback(host: string): boolean {
  return host === 'localhost' || host === '[::1]' || /^127\.\d+\.\d+\.\d+$/.test(host);
}

const RoleMap = z.record(z.string().min(1), z.string().min(1)).refine((m) => Object.keys(m).length > 0, 'must name at least one group');

function roleMapOf(text: string | undefined): [string, string][] {
  if (!text) throw invalid('STRONGROOM_OIDC_ROLE_MAP: required with STRONGROOM_OIDC_ISSUER');
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw invalid('STRONGROOM_OIDC_ROLE_MAP: must be a JSON object from group names to role names or "admin"');
  }
  const parsed = RoleMap.safeParse(value);
  if (!parsed.success) throw invalid(`STRONGROOM_OIDC_ROLE_MAP: must be a JSON object from group names to role names or "admin" (${parsed.error.issues[0]?.message})`);
  return Object.entries(parsed.data);
}

function secretOf(inline: string | undefined, file: string | undefined): string | undefined {
  if (!file) return inline;
  if (inline) throw invalid('set STRONGROOM_OIDC_CLIENT_SECRET or STRONGROOM_OIDC_CLIENT_SECRET_FILE, not both');
  try {
    const secret = readFileSync(file, 'utf8').trim();
    if (!secret) throw invalid(`STRONGROOM_OIDC_CLIENT_SECRET_FILE (${file}): is empty`);
    return secret;
  } catch (err) {
    if (err instanceof Error && err.message.startsWith('invalid configuration')) throw err;
    throw invalid(`STRONGROOM_OIDC_CLIENT_SECRET_FILE (${file}) cannot be read: ${(err as NodeJS.ErrnoException).code ?? 'error'}`);
  }
}
