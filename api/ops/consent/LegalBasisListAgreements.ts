// POST /v2/LegalBasisListAgreements: despite the name, the tenant's legal bases (CONTRACT §2.5).
import { z } from 'zod';
import { defineOp } from '../define.js';
import { page, LegalBasisOut } from '../outputs.js';

export const LegalBasisListAgreements = defineOp({
  name: 'LegalBasisListAgreements',
  summary: "Despite the name, the tenant's legal bases (CONTRACT §2.5)",
  output: page(LegalBasisOut),
  example: {},
  access: 'tenant',
  login: 'own',
  kinds: [],
  transaction: 'read',
  housekeeping: true,
  input: z.object({}),
  async run({ ctx }) {
    const rows = await ctx.stores.consent.bases();
    return { total: rows.length, rows };
  },
});
