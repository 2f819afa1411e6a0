// POST /v2/UserCreateBulk: many profiles in one transaction; duplicates go to `errors`, never fail the batch.
import { z } from 'zod';
import { defineOp } from '../define.js';
import { Profile, TimeInput } from '../schemas.js';
import { expiryFrom } from '../../vault/durations.js';
import { assertNoGroup, GroupRef } from '../../vault/groups.js';
import { badRequest } from '../../http/errors.js';

export const UserCreateBulk = defineOp({
  name: 'UserCreateBulk',
  access: 'tenant',
  effect: 'write',
  input: z.object({
    records: z.array(z.object({ profile: Profile, ...GroupRef })).min(1),
    finaltime: TimeInput.optional(),
    slidingtime: TimeInput.optional(),
  }),
  async run({ input, ctx }) {
    const max = ctx.services.config.bulkMaxRecords;
    if (input.records.length > max) throw badRequest(`Invalid API request parameter: records: at most ${max} per request`);
    const expiry = expiryFrom(input, ctx.now);
    input.records.forEach(assertNoGroup);
    const outcome = await ctx.services.users.createMany(ctx, input.records.map((r) => r.profile), expiry);
    ctx.audit.after = { created: outcome.created.map((c) => c.token), errors: outcome.errors.length };
    return { created: outcome.created, errors: outcome.errors, summary: { created: outcome.created.length, errors: outcome.errors.length } };
  },
});
