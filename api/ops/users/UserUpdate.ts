// POST /v2/UserUpdate: RFC 7396 merge of the sent fields into the profile; null deletes a field.
import { z } from 'zod';
import { defineOp, personOp } from '../define.js';
import { Done } from '../outputs.js';
import { ADA } from '../examples.js';
import { Profile, UserRef } from '../schemas.js';
import { changeProfile } from '../subject.js';
import { mergedShared } from '../../vault/merge-patch.js';

export const UserUpdate = defineOp({
  name: 'UserUpdate',
  summary: 'RFC 7396 merge of the sent fields into the profile; null deletes a field',
  output: Done,
  example: { ...ADA, profile: { name: 'Ada King', address: { city: 'London' } } },
  ...personOp('write', ['profile']),
  input: z.object({ ...UserRef, profile: Profile }),
  async run({ input, ctx }) {
    // The new profile shares the members the patch leaves alone with the old: both are only read from here on.
    await changeProfile(ctx, input, (profile) => mergedShared(profile, input.profile) as Record<string, unknown>);
    return {};
  },
});
