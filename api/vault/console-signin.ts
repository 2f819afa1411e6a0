// What a person signed in by the identity provider becomes in the console: the credential their groups map to
// (STRONGROOM_OIDC_ROLE_MAP), made in the main tenant and short-lived. No root token ever reaches a browser.
import { ADMIN } from '../config-oidc.js';
import type { Credentials } from './credentials.js';
import type { Database } from '../store/database.js';
import { MAIN_TENANT_ID } from '../store/database.js';

/** `admin` when any of the person's groups maps to it; else the role of the first group of the map they are in. */
export function roleFor(groups: readonly string[], map: readonly [string, string][]): string | null {
  if (map.some(([group, role]) => role === ADMIN && groups.includes(group))) return ADMIN;
  return map.find(([group]) => groups.includes(group))?.[1] ?? null;
}

/** The groups a claim lists: an array of names, or one name; anything else lists none. */
export function groupsOf(claim: unknown): string[] {
  if (typeof claim === 'string') return [claim];
  return Array.isArray(claim) ? claim.filter((g): g is string => typeof g === 'string') : [];
}

export interface ConsoleCredential {
  token: string;
  /** What the console calls the credential: `admin` a tenant admin of the main tenant, `role` a role's xtoken. */
  kind: 'admin' | 'role';
  role: string;
  expires: number;
}

/** The credential for `role` (or ADMIN), or null when the mapped role does not exist in the vault. */
export async function issueConsoleCredential(credentials: Credentials, db: Database, role: string, expiresAt: number): Promise<ConsoleCredential | null> {
  if (role === ADMIN) {
    const token = await credentials.issue('tenant-admin', MAIN_TENANT_ID, { expiresAt });
    return { token, kind: 'admin', role, expires: expiresAt };
  }
  const row = await db.global().roles.role({ name: role });
  if (!row) return null;
  const token = await credentials.issue('role', MAIN_TENANT_ID, { roleId: row.roleid, expiresAt });
  return { token, kind: 'role', role, expires: expiresAt };
}
