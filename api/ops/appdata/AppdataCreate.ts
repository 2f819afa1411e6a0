// POST /v2/AppdataCreate: stores the user's record for an app (replacing one that exists, which becomes a version).
import { z } from 'zod';
import { defineOp, personOp } from '../define.js';
import { Done } from '../outputs.js';
import { ADA } from '../examples.js';
import { UserRef } from '../schemas.js';
import { AppName, AppDataInput } from './schemas.js';
import { subjectRow } from '../subject.js';

export const AppdataCreate = defineOp({
  name: 'AppdataCreate',
  summary: "Stores the user's record for an app (replacing one that exists, which becomes a version)",
  output: Done,
  example: { ...ADA, appname: 'shop', appdata: { cart: ['analytical-engine-manual'], newsletter: true } },
  ...personOp('write', ['appdata']),
  input: z.object({ ...UserRef, appname: AppName, appdata: AppDataInput }),
  async run({ input, ctx }) {
    ctx.audit.app = input.appname;
    const row = await subjectRow(ctx, input, true);
    await ctx.services.appdata.put(ctx, row.token, input.appname, input.appdata);
    // Its event keeps the record stored (sealed under the person's key); one it replaced is the version kept.
    ctx.audit.after = input.appdata;
    ctx.event.publish({ type: 'appdata.updated', person: row.token, data: { app: input.appname } });
    return {};
  },
});
