// POST /v2/UserDelete: erases the profile, its indexes and its versions. The audit trail keeps no copy.
import { erased } from '../../vault/privacy/events.js';
import { z } from 'zod';
import { defineOp, personOp } from '../define.js';
import { Done } from '../outputs.js';
import { UserRef } from '../schemas.js';
import { subjectRow } from '../subject.js';

export const UserDelete = defineOp({
  name: 'UserDelete',
  summary: 'Erases the profile, its indexes and its versions',
  output: Done,
  example: { mode: 'email', identity: 'alan@example.com' },
  ...personOp('write', ['profile']),
  input: z.object(UserRef),
  async run({ input, ctx }) {
    const row = await subjectRow(ctx, input, true);
    await ctx.services.users.remove(ctx, row.token);
    ctx.event.publish(erased(row.token));
    return {};
  },
});
