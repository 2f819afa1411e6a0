// POST /v2/UserPatch: RFC 6902 JSON Patch applied to the profile.
import { z } from 'zod';
import { defineOp } from '../define.js';
import { UserRef } from '../schemas.js';
import { applyProfilePatch, type PatchOperation as ProfilePatchOperation } from '../../vault/profile-patch.js';
import { mayRead, patchReads } from '../profile-reads.js';

export const PatchOperation = z.object({
  op: z.enum(['add', 'remove', 'replace', 'move', 'copy', 'test']),
  path: z.string(),
  value: z.unknown().optional(),
  from: z.string().optional(),
});

export const UserPatch = defineOp({
  name: 'UserPatch',
  access: 'tenant',
  kinds: ['profile'],
  judges: 'person',
  readsProfile: true,
  transaction: 'write',
  input: z.object({ ...UserRef, patch: z.array(PatchOperation).min(1) }),
  async run({ input, ctx }) {
    const users = ctx.services.users;
    ctx.audit.mode = input.mode;
    ctx.audit.identity = input.identity;
    const user = await users.find(ctx, input.mode, input.identity, true);
    ctx.audit.record = user.row.token;
    // A test, copy or move reads the profile for the caller: only what its UserGet would show.
    await mayRead(ctx, patchReads(input.patch));
    const next = applyProfilePatch(user.profile, input.patch as ProfilePatchOperation[], ctx.services.config.profileMaxBytes);
    ctx.audit.before = user.profile;
    ctx.audit.after = next;
    // The event's details are sealed in the same tokenizer round trip as the new profile.
    ctx.auditFinal?.();
    await users.replace(ctx, user, next);
    return {};
  },
});
