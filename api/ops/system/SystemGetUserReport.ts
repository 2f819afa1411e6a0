// POST /v2/SystemGetUserReport: everything the vault holds about one person, as one JSON object (a DSAR export).
import { z } from 'zod';
import { defineOp, personOp } from '../define.js';
import { UserRef } from '../schemas.js';
import { subjectRow } from '../subject.js';
import { userReport } from '../../vault/report.js';

export const SystemGetUserReport = defineOp({
  name: 'SystemGetUserReport',
  ...personOp('read', ['profile', 'appdata', 'agreement', 'group', 'session', 'file', 'request', 'audit']),
  input: z.object(UserRef),
  async run({ input, ctx }) {
    const row = await subjectRow(ctx, input);
    return { report: await userReport(ctx.services, ctx, row) };
  },
});
