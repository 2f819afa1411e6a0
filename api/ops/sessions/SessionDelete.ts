// POST /v2/SessionDelete: ends a session.
import { z } from 'zod';
import { defineOp, tenantOp } from '../define.js';
import { Done } from '../outputs.js';
import { Uuid } from '../schemas.js';
import { notFound, Messages } from '../../errors.js';

export const SessionDelete = defineOp({
  name: 'SessionDelete',
  summary: 'Ends a session',
  output: Done,
  example: { sessionuuid: 'd3b07384-d9a0-4c9b-8f3e-1a2b3c4d5e6f' },
  ...tenantOp('write', ['session']),
  input: z.object({ sessionuuid: Uuid }),
  async run({ input, ctx }) {
    if (!(await ctx.stores.sessions.remove(input.sessionuuid.toLowerCase(), ctx.now))) throw notFound(Messages.sessionNotFound);
    return {};
  },
});
