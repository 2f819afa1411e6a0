// POST /v2/UserSearch: users whose email (for an address) or login, phone or custom index equals the identity.
import { z } from 'zod';
import { defineOp } from '../define.js';
import { page, UserOut } from '../outputs.js';
import { GENERATED } from '../examples.js';
import { Identity } from '../schemas.js';
import { presentUser } from '../../vault/users.js';
import { findInTenant, searchModes } from '../../vault/search.js';
import { visiblePeople } from '../listed.js';

export const UserSearch = defineOp({
  name: 'UserSearch',
  summary: 'Users whose email (for an address) or login, phone or custom index equals the identity',
  output: page(UserOut),
  example: { unlockuuid: GENERATED.unlockuuid, identity: 'ada@example.com' },
  access: 'tenant',
  kinds: ['profile'],
  masks: true,
  showsProfile: true,
  judges: 'list',
  transaction: 'read',
  // `mode` is accepted and ignored: the documentation's examples send it, the SDKs do not.
  input: z.object({ unlockuuid: z.string(), identity: Identity, mode: z.string().optional() }),
  async run({ input, ctx }) {
    await ctx.services.unlocks.check(input.unlockuuid, ctx.principal, ctx.tenantId, ctx.now);
    ctx.audit.identity = input.identity;
    const rows = await findInTenant(ctx.services, ctx.tenantId, { modes: searchModes(input.identity), identity: input.identity }, ctx.now);
    const shown = await visiblePeople(ctx, rows, await ctx.services.users.openMany(ctx.tenantId, rows));
    return { total: shown.length, rows: shown.map((p) => presentUser(p.row, p.profile)) };
  },
});
