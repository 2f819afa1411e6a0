// POST /v2/SessionDelete: ends a session.
import { z } from 'zod';
import { defineOp, tenantOp } from '../define.js';
import { Uuid } from '../schemas.js';
import { notFound, Messages } from '../../errors.js';

export const SessionDelete = defineOp({
  name: 'SessionDelete',
  ...tenantOp('write', ['session']),
  input: z.object({ sessionuuid: Uuid }),
  async run({ input, ctx }) {
    if (!(await ctx.stores.sessions.remove(input.sessionuuid.toLowerCase(), ctx.now))) throw notFound(Messages.sessionNotFound);
    return {};
  },
});
