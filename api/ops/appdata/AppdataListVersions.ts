// POST /v2/AppdataListVersions: the versions of a user's record for an app, with the md5 of each.
import { z } from 'zod';
import { defineOp, personOp } from '../define.js';
import { Versions } from '../outputs.js';
import { ADA } from '../examples.js';
import { UserRef } from '../schemas.js';
import { AppName } from './schemas.js';
import { subjectRow } from '../subject.js';

export const AppdataListVersions = defineOp({
  name: 'AppdataListVersions',
  summary: "The versions of a user's record for an app, with the md5 of each",
  output: Versions,
  example: { ...ADA, appname: 'shop' },
  ...personOp('read', ['appdata'], 'own'),
  input: z.object({ ...UserRef, appname: AppName }),
  async run({ input, ctx }) {
    ctx.audit.app = input.appname;
    const row = await subjectRow(ctx, input);
    return { versions: await ctx.services.appdata.versions(ctx, row.token, input.appname) };
  },
});
