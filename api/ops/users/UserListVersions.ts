// POST /v2/UserListVersions: the kept versions of a profile with their time and MD5.
import { z } from 'zod';
import { defineOp, personOp } from '../define.js';
import { Versions } from '../outputs.js';
import { ADA } from '../examples.js';
import { UserRef } from '../schemas.js';
import { subjectRow } from '../subject.js';
import { UserGet } from './UserGet.js';
import { maskProfile } from '../../vault/policy-mask.js';

export const UserListVersions = defineOp({
  name: 'UserListVersions',
  summary: 'The kept versions of a profile with their time and MD5',
  output: Versions,
  example: { ...ADA },
  ...personOp('read', ['profile'], 'own'),
  input: z.object(UserRef),
  async run({ input, ctx }) {
    const row = await subjectRow(ctx, input);
    // Each version's hash is of what the caller's UserGet shows: a field a Deny hides is no input to it.
    const grant = await ctx.gate.also(UserGet);
    const view = grant === '*' ? undefined : (profile: Record<string, unknown>) => maskProfile(profile, grant);
    return { versions: await ctx.services.users.versions(ctx, row, view) };
  },
});
