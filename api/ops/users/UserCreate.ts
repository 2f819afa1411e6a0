// POST /v2/UserCreate: stores a new profile and returns its token.
import { z } from 'zod';
import { defineOp, tenantOp } from '../define.js';
import { RecordToken } from '../outputs.js';
import { ADA_PROFILE } from '../examples.js';
import { Profile, TimeInput } from '../schemas.js';
import { expiryFrom } from '../../vault/durations.js';
import { GroupRef } from '../../vault/groups.js';

export const UserCreate = defineOp({
  name: 'UserCreate',
  summary: 'Stores a new profile and returns its token',
  output: z.object({ token: RecordToken }),
  example: { profile: ADA_PROFILE },
  ...tenantOp('write', ['profile']),
  input: z.object({ profile: Profile, ...GroupRef, finaltime: TimeInput.optional(), slidingtime: TimeInput.optional() }),
  async run({ input, ctx }) {
    const expiry = expiryFrom(input, ctx.now);
    // The group and role are checked before the user exists: an unknown one fails the call, nothing is stored.
    const membership = await ctx.services.groups.membership(ctx, input);
    const token = await ctx.services.users.create(ctx, input.profile, expiry);
    if (membership) await ctx.stores.groups.addMembers(membership.groupId, [token], membership.roleId);
    ctx.audit.record = token;
    ctx.audit.after = input.profile;
    ctx.event.publish({ type: 'person.created', person: token, data: {} });
    return { token };
  },
});
