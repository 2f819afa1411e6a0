// POST /v2/AppdataGet: the user's record for an app, or an earlier version of it.
import { z } from 'zod';
import { defineOp, personOp } from '../define.js';
import { AnyObject } from '../outputs.js';
import { ADA } from '../examples.js';
import { UserRef } from '../schemas.js';
import { AppName } from './schemas.js';
import { subjectRow } from '../subject.js';

export const AppdataGet = defineOp({
  name: 'AppdataGet',
  summary: "The user's record for an app, or an earlier version of it",
  output: z.object({ appname: z.string(), version: z.number().int(), appdata: AnyObject.meta({ description: 'The record as stored for the app.' }) }),
  example: { ...ADA, appname: 'shop' },
  ...personOp('read', ['appdata'], 'own'),
  input: z.object({ ...UserRef, appname: AppName, version: z.coerce.number().int().min(0).max(2_147_483_647).optional() }),
  async run({ input, ctx }) {
    ctx.audit.app = input.appname;
    const row = await subjectRow(ctx, input);
    const appdata = ctx.services.appdata;
    if (input.version !== undefined) return { appname: input.appname, version: input.version, appdata: await appdata.at(ctx, row.token, input.appname, input.version) };
    const { row: app, data } = await appdata.get(ctx, row.token, input.appname);
    return { appname: input.appname, version: app.version, appdata: data };
  },
});
