// POST /v2/ErasureReceiptGet: public, limited per client address. The person whose erasure a request asked for learns
// how many of its recipients confirmed it (their portal's receipt): it takes both the person's token and the
// request's uuid (neither is guessable) and answers counts and times only.
import { z } from 'zod';
import { defineOp } from '../define.js';
import { NotFoundError } from '../../errors.js';
import { Uuid } from '../schemas.js';
import { erasuresOf } from './erasures.js';

export const ErasureReceiptGet = defineOp({
  name: 'ErasureReceiptGet',
  summary: 'For the erased person: how many recipients of their erasure confirmed it (their token and the request uuid)',
  output: z.object({ erasedtime: z.number().int(), confirmed: z.number().int(), total: z.number().int() }),
  example: { token: '6d7e3d1a-63a6-4a3f-8f6b-0d4b3c0b1d11', requestuuid: '1b4e28ba-2fa1-41d2-883f-0016d3cca427' },
  access: 'public',
  kinds: [],
  transaction: 'read',
  rateLimited: 'shared',
  input: z.object({ token: Uuid, requestuuid: Uuid }),
  async run({ input, ctx }) {
    const rows = await ctx.stores.eventSubscriptions.confirmations({ request: input.requestuuid.toLowerCase() }, 1_000);
    const [erasure] = erasuresOf(rows.filter((r) => r.person === input.token.toLowerCase()), ctx.now);
    if (!erasure) throw new NotFoundError('Erasure not found');
    return { erasedtime: erasure.erasedtime, confirmed: erasure.confirmed, total: erasure.total };
  },
});
