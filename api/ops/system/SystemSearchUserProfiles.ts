// POST /v2/SystemSearchUserProfiles: UserSearch across every tenant; main tenant only, behind the unlock UUID.
import { z } from 'zod';
import { defineOp } from '../define.js';
import { Identity } from '../schemas.js';
import { searchModes } from '../../vault/search.js';
import { profilesEverywhere } from './crossTenant.js';

export const SystemSearchUserProfiles = defineOp({
  name: 'SystemSearchUserProfiles',
  access: 'mainTenant',
  kinds: ['profile'],
  transaction: 'read',
  input: z.object({ unlockuuid: z.string(), identity: Identity, mode: z.string().optional() }),
  async run({ input, ctx }) {
    await ctx.services.unlocks.check(input.unlockuuid, ctx.principal, ctx.tenantId, ctx.now);
    ctx.audit.identity = input.identity;
    return profilesEverywhere(ctx, searchModes(input.identity), input.identity);
  },
});
