// POST /v2/UserSearch: users whose email (for an address) or login, phone or custom index equals the identity.
import { z } from 'zod';
import { defineOp } from '../define.js';
import { Identity } from '../schemas.js';
import { presentUser } from '../../vault/users.js';
import { findInTenant, searchModes } from '../../vault/search.js';

export const UserSearch = defineOp({
  name: 'UserSearch',
  access: 'tenant',
  kinds: ['profile'],
  masks: true,
  transaction: 'read',
  // `mode` is accepted and ignored: the documentation's examples send it, the SDKs do not.
  input: z.object({ unlockuuid: z.string(), identity: Identity, mode: z.string().optional() }),
  async run({ input, ctx }) {
    await ctx.services.unlocks.check(input.unlockuuid, ctx.principal, ctx.tenantId, ctx.now);
    ctx.audit.identity = input.identity;
    const rows = await findInTenant(ctx.services, ctx.tenantId, searchModes(input.identity), input.identity, ctx.now);
    const profiles = await ctx.services.users.openMany(ctx.tenantId, rows);
    return { total: rows.length, rows: rows.map((r, i) => presentUser(r, profiles[i]!)) };
  },
});
