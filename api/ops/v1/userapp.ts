// The operation behind POST /v1/userapp/{mode}/{identity}/{appname}: AppdataUpdate that creates the record if needed.
import { z } from 'zod';
import { defineOp, personOp } from '../define.js';
import { Done } from '../outputs.js';
import { ADA } from '../examples.js';
import { subjectRow } from '../subject.js';
import { MODES } from '../../vault/identities.js';
import { AppdataCreate } from '../appdata/AppdataCreate.js';

/** v1 userapp: creates the person's record for the app, or merges into the one there is. */
export const V1UserappPut = defineOp({
  name: 'AppdataUpdate',
  summary: 'POST /v1/userapp/{mode}/{identity}/{appname}: AppdataUpdate that creates the record if needed',
  output: Done,
  example: { ...ADA, appname: 'shop', appdata: { newsletter: true } },
  ...personOp('write', ['appdata']),
  input: z.object({ mode: z.enum(MODES), identity: z.string(), appname: z.string(), appdata: z.record(z.string(), z.unknown()) }),
  async run({ input, ctx }) {
    ctx.audit.app = input.appname;
    const row = await subjectRow(ctx, input, true);
    // Creating the record is an action of its own, judged as AppdataCreate.
    if (!(await ctx.stores.appdata.get(row.token, input.appname))) await ctx.gate.also(AppdataCreate);
    await ctx.services.appdata.merge(ctx, row.token, input.appname, input.appdata, { create: true });
    return { token: row.token };
  },
});
