// POST /v2/UserUpdate: RFC 7396 merge of the sent fields into the profile; null deletes a field.
import { z } from 'zod';
import mergePatch from 'json-merge-patch';
import { defineOp } from '../define.js';
import { Profile, UserRef } from '../schemas.js';

export const UserUpdate = defineOp({
  name: 'UserUpdate',
  access: 'tenant',
  kinds: ['profile'],
  judges: 'person',
  transaction: 'write',
  input: z.object({ ...UserRef, profile: Profile }),
  async run({ input, ctx }) {
    const users = ctx.services.users;
    ctx.audit.mode = input.mode;
    ctx.audit.identity = input.identity;
    const user = await users.find(ctx, input.mode, input.identity, true);
    ctx.audit.record = user.row.token;
    const next = mergePatch.apply(structuredClone(user.profile), input.profile) as Record<string, unknown>;
    ctx.audit.before = user.profile;
    ctx.audit.after = next;
    // The event's details are sealed in the same tokenizer round trip as the new profile.
    ctx.auditFinal?.();
    await users.replace(ctx, user, next);
    return {};
  },
});
