// POST /v2/SessionDelete: ends a session.
import { z } from 'zod';
import { defineOp } from '../define.js';
import { Uuid } from '../schemas.js';
import { notFound, Messages } from '../../errors.js';

export const SessionDelete = defineOp({
  name: 'SessionDelete',
  access: 'tenant',
  kinds: ['session'],
  transaction: 'write',
  input: z.object({ sessionuuid: Uuid }),
  async run({ input, ctx }) {
    if (!(await ctx.stores.sessions.remove(input.sessionuuid.toLowerCase(), ctx.now))) throw notFound(Messages.sessionNotFound);
    return {};
  },
});
