// POST /v2/XTokenCreateForUser: a login xtoken that reads its own record only.
import { z } from 'zod';
import { defineOp } from '../define.js';
import { RecordToken, NewXToken } from '../outputs.js';
import { ADA } from '../examples.js';
import { TimeInput, UserRef } from '../schemas.js';
import { xtokenExpiry } from './xtokens.js';
import { cappedField } from '../../vault/durations.js';
import { subjectRow } from '../subject.js';

export const XTokenCreateForUser = defineOp({
  name: 'XTokenCreateForUser',
  summary: 'A login xtoken that reads its own record only',
  output: NewXToken.extend({ token: RecordToken }),
  example: { ...ADA, finaltime: '1h' },
  access: 'admin',
  kinds: ['profile'],
  judges: 'person',
  transaction: 'write',
  input: z.object({ ...UserRef, finaltime: TimeInput.optional(), slidingtime: TimeInput.optional() }),
  async run({ input, ctx }) {
    // Locked until commit: a removal of the person waits for this xtoken, and then takes it along.
    const row = await subjectRow(ctx, input, true);
    const { expires: expiresAt, capped } = xtokenExpiry(input, ctx.now, ctx.services.config.xtokenMaxSeconds);
    const { token: xtoken, id: xtokenid } = await ctx.services.credentials.issueWithId('login', ctx.tenantId, { userToken: row.token, expiresAt }, ctx.stores);
    ctx.audit.after = { xtokenid, expires: expiresAt };
    // Beyond the contract: `xtokenid` names it for XTokenRevoke and XTokenListForUser.
    return { xtoken, xtokenid, token: row.token, expires: expiresAt, ...cappedField(capped) };
  },
});
