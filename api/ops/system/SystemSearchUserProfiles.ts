// POST /v2/SystemSearchUserProfiles: UserSearch across every tenant; main tenant only, behind the unlock UUID.
import { z } from 'zod';
import { defineOp, mainTenantOp } from '../define.js';
import { page, TenantRecord } from '../outputs.js';
import { GENERATED } from '../examples.js';
import { Identity } from '../schemas.js';
import { searchModes } from '../../vault/search.js';
import { profilesEverywhere } from './crossTenant.js';

export const SystemSearchUserProfiles = defineOp({
  name: 'SystemSearchUserProfiles',
  summary: 'UserSearch across every tenant; main tenant only, behind the unlock UUID',
  output: page(TenantRecord),
  example: { unlockuuid: GENERATED.unlockuuid, identity: 'ada@example.com' },
  ...mainTenantOp('read', ['profile']),
  input: z.object({ unlockuuid: z.string(), identity: Identity, mode: z.string().optional() }),
  async run({ input, ctx }) {
    await ctx.services.unlocks.check(input.unlockuuid, ctx.principal, ctx.tenantId, ctx.now);
    ctx.audit.identity = input.identity;
    return profilesEverywhere(ctx, searchModes(input.identity), input.identity);
  },
});
