// POST /v2/SystemGetUserHTMLReport: the same report as a readable, self-contained HTML page, every value escaped.
import { z } from 'zod';
import { defineOp, personOp } from '../define.js';
import { ADA } from '../examples.js';
import { UserRef } from '../schemas.js';
import { subjectRow } from '../subject.js';
import { reportHtml, userReport } from '../../vault/report.js';

export const SystemGetUserHTMLReport = defineOp({
  name: 'SystemGetUserHTMLReport',
  summary: 'The same report as a readable, self-contained HTML page, every value escaped',
  output: z.object({ html: z.string().meta({ description: 'A self-contained HTML page.' }) }),
  example: { ...ADA },
  ...personOp('read', ['profile', 'appdata', 'agreement', 'group', 'session', 'file', 'request', 'audit']),
  showsProfile: true,
  input: z.object(UserRef),
  async run({ input, ctx }) {
    const row = await subjectRow(ctx, input);
    return { html: reportHtml(await userReport(ctx.services, ctx, row)) };
  },
});
