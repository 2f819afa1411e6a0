// POST /v2/SystemGetUserReport: everything the vault holds about one person, as one JSON object (a DSAR export).
import { z } from 'zod';
import { defineOp, personOp } from '../define.js';
import { UnixTime, RecordToken, ProfileOut } from '../outputs.js';
import { ADA } from '../examples.js';
import { UserRef } from '../schemas.js';
import { subjectRow } from '../subject.js';
import { userReport } from '../../vault/report.js';

export const SystemGetUserReport = defineOp({
  name: 'SystemGetUserReport',
  summary: 'Everything the vault holds about one person, as one JSON object (a DSAR export)',
  output: z.object({ report: z.looseObject({ generated: UnixTime, token: RecordToken, profile: ProfileOut }).meta({ description: 'Everything held about the person: profile, app data, agreements, sessions, files, requests, shares, events.' }) }),
  example: { ...ADA },
  ...personOp('read', ['profile', 'appdata', 'agreement', 'group', 'session', 'file', 'request', 'audit']),
  showsProfile: true,
  input: z.object(UserRef),
  async run({ input, ctx }) {
    const row = await subjectRow(ctx, input);
    return { report: await userReport(ctx.services, ctx, row) };
  },
});
