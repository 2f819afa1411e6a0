// POST /v2/SystemGetUserProfiles: one person's records in every tenant; main tenant only, behind the unlock UUID.
import { z } from 'zod';
import { defineOp, mainTenantOp } from '../define.js';
import { page, TenantRecord } from '../outputs.js';
import { ADA, GENERATED } from '../examples.js';
import { Identity } from '../schemas.js';
import { Messages } from '../../errors.js';
import { profilesEverywhere } from './crossTenant.js';

export const SystemGetUserProfiles = defineOp({
  name: 'SystemGetUserProfiles',
  summary: "One person's records in every tenant; main tenant only, behind the unlock UUID",
  output: page(TenantRecord),
  example: { unlockuuid: GENERATED.unlockuuid, ...ADA },
  ...mainTenantOp('read', ['profile']),
  input: z.object({
    unlockuuid: z.string(),
    mode: z.enum(['login', 'email', 'phone', 'custom'], { error: (iss) => (iss.input === undefined ? undefined : Messages.badMode) }),
    identity: Identity,
  }),
  async run({ input, ctx }) {
    await ctx.services.unlocks.check(input.unlockuuid, ctx.principal, ctx.tenantId, ctx.now);
    ctx.audit.mode = input.mode;
    ctx.audit.identity = input.identity;
    return profilesEverywhere(ctx, [input.mode], input.identity);
  },
});
