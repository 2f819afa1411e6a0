// The operation behind POST /v1/consent/{mode}/{identity}/{brief}: AgreementAccept, with the legal basis created on
// first use (v1 briefs were free-form). Judged, run and audited as every v2 operation.
import { z } from 'zod';
import { defineOp, personOp } from '../define.js';
import { Done } from '../outputs.js';
import { ADA } from '../examples.js';
import { subjectRow } from '../subject.js';
import { recordAgreement } from '../consent/AgreementAccept.js';
import { LegalBasisCreate } from '../consent/LegalBasisCreate.js';
import { MODES } from '../../vault/identities.js';
import { agreementStatus, basisType } from '../../vault/consent.js';
import { badRequest } from '../../errors.js';

/** A v1 consent record: status (accept/cancel or any alias), method, reference, who, start and expiry. */
export const V1Consent = z.object({
  status: z.string().optional(),
  consentmethod: z.string().max(1024).optional(),
  agreementmethod: z.string().max(1024).optional(),
  referencecode: z.string().max(1024).optional(),
  lastmodifiedby: z.string().max(1024).optional(),
  lawfulbasis: z.string().optional(),
  starttime: z.union([z.string(), z.number()]).optional(),
  expiration: z.union([z.string(), z.number()]).optional(),
  finaltime: z.union([z.string(), z.number()]).optional(),
});

/** v1 consent: an AgreementAccept whose legal basis is created on first use, as v1 briefs were free-form. */
export const V1ConsentAccept = defineOp({
  name: 'AgreementAccept',
  summary: 'POST /v1/consent/{mode}/{identity}/{brief}: AgreementAccept, creating the legal basis on first use',
  output: Done,
  example: { ...ADA, brief: 'marketing-email' },
  ...personOp('write', ['agreement'], 'own'),
  input: V1Consent.extend({ mode: z.enum(MODES), identity: z.string(), brief: z.string() }),
  async run({ input, ctx }) {
    const row = await subjectRow(ctx, input, true);
    const consent = ctx.services.consent;
    const type = input.lawfulbasis === undefined ? 'consent' : basisType(input.lawfulbasis);
    if (!type) throw badRequest('bad lawfulbasis value');
    if (input.status !== undefined && !agreementStatus(input.status)) throw badRequest('bad status value');
    if (!(await ctx.stores.consent.basis(input.brief))) {
      // Creating the legal basis is an action of its own, judged as LegalBasisCreate (a login xtoken may not).
      await ctx.gate.also(LegalBasisCreate);
      await consent.createBasis(ctx, input.brief, { basistype: type });
    }
    await recordAgreement(ctx, row.token, { ...input, agreementmethod: input.consentmethod ?? input.agreementmethod, finaltime: input.expiration ?? input.finaltime }, 'expiration');
    return {};
  },
});
