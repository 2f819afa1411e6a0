// POST /v2/AgreementAccept: records (or replaces) a person's agreement to a legal basis.
import { z } from 'zod';
import { defineOp, type OpContext, personOp } from '../define.js';
import { Done } from '../outputs.js';
import { ADA } from '../examples.js';
import { UserRef, TimeInput } from '../schemas.js';
import { Brief } from './schemas.js';
import { subjectRow } from '../subject.js';
import { parseTimeValue, toDeadline, TIME_FORMS } from '../../vault/durations.js';
import { parseAgreementStatus } from '../../vault/consent.js';
import { badRequest } from '../../errors.js';

const Text = z.union([z.string().max(1024), z.number().transform(String)]);

export const AgreementAccept = defineOp({
  name: 'AgreementAccept',
  summary: "Records (or replaces) a person's agreement to a legal basis",
  output: Done,
  example: { ...ADA, brief: 'marketing-email', agreementmethod: 'web-form', referencecode: 'signup-page', finaltime: '1y' },
  ...personOp('write', ['agreement'], 'own'),
  input: z.object({
    ...UserRef,
    brief: Brief,
    agreementmethod: Text.optional(),
    referencecode: Text.optional(),
    lastmodifiedby: Text.optional(),
    status: z.union([z.string(), z.boolean(), z.number().transform(String)]).transform(String).optional(),
    starttime: TimeInput.optional(),
    finaltime: TimeInput.optional(),
  }),
  async run({ input, ctx }) {
    const row = await subjectRow(ctx, input, true);
    await recordAgreement(ctx, row.token, input);
    return {};
  },
});

/** AgreementAccept's work once the person is found: times, status and sealed details, audited. v1 consent shares it. */
export async function recordAgreement(
  ctx: OpContext,
  token: string,
  input: {
    mode: string;
    identity: string;
    brief: string;
    agreementmethod?: string | undefined;
    referencecode?: string | undefined;
    lastmodifiedby?: string | undefined;
    status?: string | undefined;
    starttime?: string | number | undefined;
    finaltime?: string | number | undefined;
  },
  finaltimeField = 'finaltime',
): Promise<void> {
  const starttime = timeField(input.starttime, 'starttime', ctx.now) ?? ctx.now;
  const endtime = timeField(input.finaltime, finaltimeField, ctx.now) ?? 0;
  if (endtime && endtime <= starttime) throw badRequest(`Invalid API request parameter: ${finaltimeField} must be after starttime`);
  const status = parseAgreementStatus(input.status, starttime, ctx.now);
  const details = {
    agreementmethod: input.agreementmethod ?? 'api',
    referencecode: input.referencecode ?? '',
    lastmodifiedby: input.lastmodifiedby ?? '',
    mode: input.mode,
    who: input.identity,
  };
  await ctx.services.consent.accept(ctx, token, input.brief, { status, starttime, endtime, details });
  ctx.audit.after = { brief: input.brief, status, starttime, endtime };
  ctx.event.publish({ type: 'consent.accepted', person: token, data: { brief: input.brief } });
}

/** A point in time in any accepted form: a duration counts from now. */
export function timeField(value: string | number | undefined, field: string, now: number): number | undefined {
  if (value === undefined || value === '') return undefined;
  const parsed = parseTimeValue(value, now);
  if (!parsed) throw badRequest(`Invalid API request parameter: ${field}: not a time value (use ${TIME_FORMS})`);
  return toDeadline(parsed, now) ?? now;
}
