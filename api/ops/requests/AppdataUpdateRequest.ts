// POST /v2/AppdataUpdateRequest: proposes a merge into one of the person's app records (`change-app-data`).
import { requestCreated } from '../../vault/privacy/events.js';
import { z } from 'zod';
import { defineOp, personOp } from '../define.js';
import { RequestAnswer } from '../outputs.js';
import { ADA } from '../examples.js';
import { UserRef } from '../schemas.js';
import { AppName, AppDataInput } from '../appdata/schemas.js';
import { subjectRow } from '../subject.js';

export const AppdataUpdateRequest = defineOp({
  name: 'AppdataUpdateRequest',
  summary: "Proposes a merge into one of the person's app records (`change-app-data`)",
  output: RequestAnswer,
  example: { ...ADA, appname: 'shop', appdata: { newsletter: true } },
  ...personOp('write', ['request', 'appdata'], 'own'),
  input: z.object({ ...UserRef, appname: AppName, appdata: AppDataInput }),
  async run({ input, ctx }) {
    ctx.audit.app = input.appname;
    const row = await subjectRow(ctx, input, true);
    const requests = ctx.services.requests;
    const { requestuuid, existed, hash, bytes } = await requests.open(ctx, row.token, 'change-app-data', { appname: input.appname }, { appdata: input.appdata });
    if (!existed) ctx.event.publish(requestCreated(row.token, requestuuid, 'change-app-data'));
    // The change is sealed in the request; its event keeps only its keyed hash and size.
    ctx.audit.after = { requestuuid, change: { hash, bytes } };
    return { requestuuid, ...(existed ? { result: 'request-exists' } : {}) };
  },
});
