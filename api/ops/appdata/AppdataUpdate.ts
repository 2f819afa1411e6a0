// POST /v2/AppdataUpdate: RFC 7396 merge into the user's record for an app; null deletes a field.
import { z } from 'zod';
import { defineOp, personOp } from '../define.js';
import { Done } from '../outputs.js';
import { ADA } from '../examples.js';
import { UserRef } from '../schemas.js';
import { AppName, AppDataInput } from './schemas.js';
import { subjectRow } from '../subject.js';

export const AppdataUpdate = defineOp({
  name: 'AppdataUpdate',
  summary: "RFC 7396 merge into the user's record for an app; null deletes a field",
  output: Done,
  example: { ...ADA, appname: 'shop', appdata: { newsletter: false } },
  ...personOp('write', ['appdata']),
  input: z.object({ ...UserRef, appname: AppName, appdata: AppDataInput }),
  async run({ input, ctx }) {
    ctx.audit.app = input.appname;
    const row = await subjectRow(ctx, input, true);
    // Its event keeps what the record was and what changed (sealed under the person's key, as a profile change's).
    const { before, after } = await ctx.services.appdata.merge(ctx, row.token, input.appname, input.appdata, { create: false });
    ctx.audit.before = before;
    ctx.audit.after = after;
    ctx.event.publish({ type: 'appdata.updated', person: row.token, data: { app: input.appname } });
    return {};
  },
});
