// A Role's xtoken: made in the Role's tenant by XTokenCreateForRole, written to its Secret, and replaced before it
// expires. The old token stays valid until its own expiry, so applications that reread the Secret never see a gap.
import type { ReconcileDeps } from '../deps.js';
import type { Clock } from '../runtime/clock.js';
import { durationSeconds, type Role, type RoleSpec } from '../types/resources.js';

/** A Unix time as RFC 3339 (seconds), as status and Secrets show it. */
export const iso = (unixSeconds: number) => new Date(unixSeconds * 1000).toISOString().replace(/\.\d+Z$/, 'Z');

/**
 * When to replace a token: `rotateBefore` ahead of its expiry, but never in the first half of its life, so a
 * margin larger than the lifetime (or a lifetime the vault capped) cannot make the operator replace it at once.
 */
export function rotateAt(issued: number, expires: number, marginSeconds: number): number {
  return expires - Math.min(marginSeconds, (expires - issued) / 2);
}

export interface XTokenState {
  /** Unix seconds. */
  expires: number;
  /** Unix seconds, possibly fractional. */
  rotateAt: number;
}

/** How long until the token is due for rotation, as a requeue delay: at least a second, so a token already due is not looked at again in a tight loop. */
export function untilRotation(state: XTokenState, clock: Clock): number {
  return Math.max(1000, Math.ceil(state.rotateAt * 1000 - clock.now()));
}

/** The Role's proven tenant: its id and name, and the owner mark (its Tenant's uid) the vault checks again. */
export interface ProvenTenant {
  id: number;
  name: string;
  managedby: string;
}

const XTOKEN_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * Revokes the xtokens a Secret of this Role names: the one it holds and the one it replaced, which stays valid until
 * its own expiry (Secrets written before ids were kept name none).
 */
async function revoke(deps: ReconcileDeps, secret: Record<string, string>): Promise<void> {
  for (const id of [secret.xtokenId, secret.previousXTokenId]) if (id && XTOKEN_ID.test(id)) await deps.vault.xtokenRevoke(id);
}

/**
 * The Role's tenant is no longer its Tenant's (its mark is gone or another tenant holds the name): the xtoken it made
 * there is revoked and its Secret deleted, so nothing this resource wrote keeps acting in a tenant it does not own.
 */
export async function withdrawXToken(deps: ReconcileDeps, obj: Role, spec: RoleSpec, why: string): Promise<void> {
  const secretName = spec.xtoken.secretName;
  const current = await deps.secrets.readIfOwned(obj, secretName);
  if (!current) return;
  await revoke(deps, current);
  await deps.secrets.remove(obj, secretName);
  await deps.events.emit(obj, 'Warning', 'XTokenRevoked', `${why}: the xtoken of role ${spec.roleName} in tenant ${current.tenantName ?? '?'} is revoked and Secret ${secretName} deleted`);
}

export async function ensureXToken(deps: ReconcileDeps, obj: Role, spec: RoleSpec, tenant: ProvenTenant, previousSecret: string | undefined): Promise<XTokenState> {
  const secretName = spec.xtoken.secretName;
  const margin = durationSeconds(spec.xtoken.rotateBefore);
  const now = deps.clock.now() / 1000;
  const current = await deps.secrets.read(obj, secretName);
  const issued = Number(current?.issued);
  const expires = Number(current?.expires);
  const sameTenant = Boolean(current?.xtoken) && current?.tenantId === String(tenant.id);
  const usable = sameTenant && current?.roleName === spec.roleName && issued > 0 && expires > 0 && now < rotateAt(issued, expires, margin);
  let state: { xtoken: string; xtokenId: string; previousId: string; issued: number; expires: number };
  if (usable) {
    state = { xtoken: current!.xtoken!, xtokenId: current!.xtokenId ?? '', previousId: current!.previousXTokenId ?? '', issued, expires };
  } else {
    const made = await deps.vault.xtokenCreateForRole(spec.roleName, tenant, durationSeconds(spec.xtoken.lifetime));
    const previousId = sameTenant ? (current?.xtokenId ?? '') : '';
    // Issued as the vault answered, not as it was asked: the vault stamps the expiry within the call, so a second
    // turning meanwhile never makes `expires - issued` longer than the lifetime asked for.
    state = { xtoken: made.xtoken, xtokenId: made.xtokenid, previousId, issued: Math.floor(deps.clock.now() / 1000), expires: made.expires };
    // The vault holds a lifetime to its STRONGROOM_XTOKEN_MAX_SECONDS and says so: the Role's author hears it too.
    if (made.capped) await deps.events.emit(obj, 'Warning', 'XTokenLifetimeCapped', `the vault caps xtokens below the lifetime ${spec.xtoken.lifetime}: this one expires at ${iso(made.expires)}`);
  }
  const data = {
    xtoken: state.xtoken,
    xtokenId: state.xtokenId,
    previousXTokenId: state.previousId,
    expires: String(state.expires),
    expiresAt: iso(state.expires),
    issued: String(state.issued),
    roleName: spec.roleName,
    tenantName: tenant.name,
    tenantId: String(tenant.id),
    url: deps.publicUrl,
  };
  await deps.secrets.write(obj, secretName, data);
  // A token the Secret held for another tenant (its Tenant's tenant was replaced) stops working with its Secret entry.
  if (current?.xtoken && !sameTenant) await revoke(deps, current);
  if (!usable) {
    const rotation = Boolean(current?.xtoken);
    deps.metrics.xtokenIssued.inc({ reason: rotation ? 'rotation' : 'new' });
    await deps.events.emit(obj, 'Normal', rotation ? 'XTokenRotated' : 'XTokenIssued', `a new xtoken for role ${spec.roleName} in tenant ${tenant.name} is in Secret ${secretName}, valid until ${data.expiresAt}`);
  }
  if (previousSecret && previousSecret !== secretName) await deps.secrets.remove(obj, previousSecret);
  return { expires: state.expires, rotateAt: rotateAt(state.issued, state.expires, margin) };
}

