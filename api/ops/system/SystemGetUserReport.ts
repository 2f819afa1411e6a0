// POST /v2/SystemGetUserReport: everything the vault holds about one person, as one JSON object (a DSAR export).
import { z } from 'zod';
import { defineOp } from '../define.js';
import { UserRef } from '../schemas.js';
import { subjectRow } from '../subject.js';
import { userReport } from '../../vault/report.js';

export const SystemGetUserReport = defineOp({
  name: 'SystemGetUserReport',
  access: 'tenant',
  kinds: ['profile', 'appdata', 'agreement', 'group', 'session', 'file', 'request', 'audit'],
  judges: 'person',
  transaction: 'read',
  input: z.object(UserRef),
  async run({ input, ctx }) {
    const row = await subjectRow(ctx, input);
    return { report: await userReport(ctx.services, ctx, row) };
  },
});
