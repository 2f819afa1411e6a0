// POST /v2/UserLogout (beyond the contract): ends the login xtoken that calls it, at once and on every replica
// within the principal cache's time, so a signed-out browser's copy of it is worthless. Only a login xtoken signs
// out: any other caller is told so (400). The event is on the person's trail.
import { z } from 'zod';
import { defineOp } from '../define.js';
import { Done } from '../outputs.js';
import { badRequest } from '../../errors.js';

export const UserLogout = defineOp({
  name: 'UserLogout',
  summary: 'Ends the login xtoken that calls it, at once',
  output: Done,
  example: {},
  access: 'tenant',
  login: 'own',
  kinds: [],
  // The credentials are the vault's own table, which a tenant's database role may not change: not the tenant's write.
  transaction: 'own',
  input: z.object({}),
  async run({ ctx }) {
    const { principal } = ctx;
    if (principal.kind !== 'login' || !principal.userToken) throw badRequest('Invalid API request: UserLogout ends a login xtoken, and this caller is not one');
    await ctx.services.credentials.revokeXToken(ctx.stores, principal.credentialId, ctx.tenantId);
    ctx.audit.record = principal.userToken;
    ctx.audit.after = { xtokenid: principal.credentialId };
    return {};
  },
});
