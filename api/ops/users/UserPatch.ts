// POST /v2/UserPatch: RFC 6902 JSON Patch applied to the profile.
import { z } from 'zod';
import { defineOp, personOp } from '../define.js';
import { Done } from '../outputs.js';
import { ADA } from '../examples.js';
import { UserRef } from '../schemas.js';
import { changeProfile } from '../subject.js';
import { applyProfilePatch, type PatchOperation as ProfilePatchOperation } from '../../vault/profile-patch.js';
import { mayPatch } from '../profile-reads.js';

export const PatchOperation = z.object({
  op: z.enum(['add', 'remove', 'replace', 'move', 'copy', 'test']),
  path: z.string(),
  value: z.unknown().optional(),
  from: z.string().optional(),
});

export const UserPatch = defineOp({
  name: 'UserPatch',
  summary: 'RFC 6902 JSON Patch applied to the profile',
  output: Done,
  example: { ...ADA, patch: [{ op: 'replace', path: '/name', value: 'Ada, Countess of Lovelace' }] },
  ...personOp('write', ['profile']),
  readsProfile: true,
  input: z.object({ ...UserRef, patch: z.array(PatchOperation).min(1) }),
  async run({ input, ctx }) {
    await changeProfile(ctx, input, async (profile) => {
      // A test, copy or move reads the profile for the caller, and any operation's error would describe it: only
      // what its UserGet shows whole is read or pointed into, before anything is applied or tested.
      await mayPatch(ctx, input.patch);
      return applyProfilePatch(profile, input.patch as ProfilePatchOperation[], ctx.services.config.profileMaxBytes);
    });
    return {};
  },
});
