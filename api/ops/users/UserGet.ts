// POST /v2/UserGet: one user's profile as stored, or a historic version of it.
import { z } from 'zod';
import { defineOp, personOp } from '../define.js';
import { UserOut } from '../outputs.js';
import { ADA } from '../examples.js';
import { UserRef } from '../schemas.js';
import { presentUser } from '../../vault/users.js';
import { subjectRow } from '../subject.js';

export const UserGet = defineOp({
  name: 'UserGet',
  summary: "One user's profile as stored, or a historic version of it",
  output: UserOut,
  example: { ...ADA },
  ...personOp('read', ['profile'], 'own'),
  masks: true,
  input: z.object({ ...UserRef, version: z.coerce.number().int().min(0).max(2_147_483_647).optional() }),
  async run({ input, ctx }) {
    const users = ctx.services.users;
    const row = await subjectRow(ctx, input);
    // Its note is whole: the event's details are sealed in the same tokenizer message as the profile's opening.
    ctx.event.final(ctx);
    const profile =
      input.version === undefined ? await users.open(ctx.tenantId, row) : await users.profileAt(ctx, row, input.version);
    await users.touch(ctx, row);
    const out = presentUser(row, profile);
    if (input.version !== undefined) out.version = input.version;
    return out;
  },
});
