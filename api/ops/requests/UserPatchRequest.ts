// POST /v2/UserPatchRequest: proposes a JSON Patch of the profile (`change-profile`), pending approval.
import { requestCreated } from '../../vault/privacy/events.js';
import { z } from 'zod';
import { defineOp, personOp } from '../define.js';
import { RequestAnswer } from '../outputs.js';
import { ADA } from '../examples.js';
import { UserRef } from '../schemas.js';
import { PatchOperation } from '../users/UserPatch.js';
import { applyProfilePatch, type PatchOperation as ProfilePatchOperation } from '../../vault/profile-patch.js';
import { subjectRow } from '../subject.js';
import { mayPatch } from '../profile-reads.js';

export const UserPatchRequest = defineOp({
  name: 'UserPatchRequest',
  summary: 'Proposes a JSON Patch of the profile (`change-profile`), pending approval',
  output: RequestAnswer,
  example: { ...ADA, patch: [{ op: 'add', path: '/nickname', value: 'Ada' }] },
  ...personOp('write', ['request', 'profile'], 'own'),
  readsProfile: true,
  input: z.object({ ...UserRef, patch: z.array(PatchOperation).min(1) }),
  async run({ input, ctx }) {
    const row = await subjectRow(ctx, input, true);
    const patch = input.patch as ProfilePatchOperation[];
    // A test, copy or move reads the profile for the caller, and any operation's error would describe it: only
    // what its UserGet shows whole is read or pointed into, before anything is applied or tested.
    await mayPatch(ctx, patch);
    // A patch that cannot apply to the profile as it is now is refused at once, not at approval.
    applyProfilePatch(await ctx.services.users.open(ctx.tenantId, row), patch, ctx.services.config.profileMaxBytes);
    const { requestuuid, existed, hash, bytes } = await ctx.services.requests.open(ctx, row.token, 'change-profile', {}, { patch });
    if (!existed) ctx.event.publish(requestCreated(row.token, requestuuid, 'change-profile'));
    // The change is sealed in the request; its event keeps only its keyed hash and size.
    ctx.audit.after = { requestuuid, change: { hash, bytes } };
    return { requestuuid, ...(existed ? { result: 'request-exists' } : {}) };
  },
});
