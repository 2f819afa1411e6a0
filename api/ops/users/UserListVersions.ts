// POST /v2/UserListVersions: the kept versions of a profile with their time and MD5.
import { z } from 'zod';
import { defineOp } from '../define.js';
import { UserRef } from '../schemas.js';
import { subjectRow } from '../subject.js';

export const UserListVersions = defineOp({
  name: 'UserListVersions',
  access: 'tenant',
  login: 'own',
  kinds: ['profile'],
  judges: 'person',
  transaction: 'read',
  input: z.object(UserRef),
  async run({ input, ctx }) {
    const row = await subjectRow(ctx, input);
    return { versions: await ctx.services.users.versions(ctx, row) };
  },
});
