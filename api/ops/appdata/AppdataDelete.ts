// POST /v2/AppdataDelete: removes the user's record for an app with its versions.
import { z } from 'zod';
import { defineOp, personOp } from '../define.js';
import { Done } from '../outputs.js';
import { ADA } from '../examples.js';
import { UserRef } from '../schemas.js';
import { notFound, Messages } from '../../errors.js';
import { AppName } from './schemas.js';
import { subjectRow } from '../subject.js';

export const AppdataDelete = defineOp({
  name: 'AppdataDelete',
  summary: "Removes the user's record for an app with its versions",
  output: Done,
  example: { ...ADA, appname: 'shop' },
  ...personOp('write', ['appdata']),
  input: z.object({ ...UserRef, appname: AppName }),
  async run({ input, ctx }) {
    ctx.audit.app = input.appname;
    const row = await subjectRow(ctx, input, true);
    if (!(await ctx.stores.appdata.remove(row.token, input.appname))) throw notFound(Messages.appNotFound);
    ctx.event.publish({ type: 'appdata.updated', person: row.token, data: { app: input.appname, action: 'deleted' } });
    return {};
  },
});
