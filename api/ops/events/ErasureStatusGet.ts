// POST /v2/ErasureStatusGet: for a person's erasure (by its request, the person's token or the event), which
// recipients confirmed it, when, and which are still pending. No personal data is needed or answered.
import { z } from 'zod';
import { defineOp } from '../define.js';
import { badRequest } from '../../errors.js';
import { Uuid } from '../schemas.js';
import { erasuresOf, Erasure } from './erasures.js';

export const ErasureStatusGet = defineOp({
  name: 'ErasureStatusGet',
  summary: "Which recipients of a person's erasure confirmed it and when, and which are pending (by request, token or event)",
  output: z.object({ erasures: z.array(Erasure) }),
  example: { token: '6d7e3d1a-63a6-4a3f-8f6b-0d4b3c0b1d11' },
  access: 'tenant',
  kinds: [],
  transaction: 'read',
  input: z.object({ requestuuid: Uuid.optional(), token: Uuid.optional(), eventid: Uuid.optional() }),
  async run({ input, ctx }) {
    const given = [input.requestuuid, input.token, input.eventid].filter((v) => v !== undefined).length;
    if (given !== 1) throw badRequest('Invalid API request parameter: requestuuid, token or eventid: exactly one of them');
    const rows = await ctx.stores.eventSubscriptions.confirmations({ request: input.requestuuid, person: input.token, event: input.eventid }, 1_000);
    const erasures = erasuresOf(rows, ctx.now);
    if (rows[0]) ctx.audit.record = rows[0].person;
    return { erasures };
  },
});
