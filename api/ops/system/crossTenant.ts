// What the cross-tenant System operations share: finding a user's records in every tenant, with their profiles.
import type { OpContext } from '../define.js';
import type { IndexMode } from '../../vault/identities.js';
import { findInTenant, tenantsNamed } from '../../vault/search.js';
import { notFound, Messages } from '../../errors.js';

export async function profilesEverywhere(ctx: OpContext, modes: IndexMode[], identity: string) {
  const out: { token: string; profile: Record<string, unknown>; tenantid: number; tenantname: string }[] = [];
  for (const t of await tenantsNamed(ctx.services, {})) {
    const rows = await findInTenant(ctx.services, t.tenantid, { modes, identity }, ctx.now);
    const profiles = await ctx.services.users.openMany(t.tenantid, rows);
    rows.forEach((r, i) => out.push({ token: r.token, profile: profiles[i]!, tenantid: t.tenantid, tenantname: t.tenantname }));
  }
  if (!out.length) throw notFound(Messages.userNotFound);
  return { total: out.length, rows: out };
}
