// POST /v2/TenantGetUIConf (public): what a portal shows. A request that names a tenant (header or Host) gets the
// answer of a tenant without a UI configuration, whether or not the tenant exists, so the call reveals nothing
// about which tenants exist; the vault's own portal (no tenant named) shows the main tenant's organisation.
import { z } from 'zod';
import { defineOp } from '../define.js';

export const TenantGetUIConf = defineOp({
  name: 'TenantGetUIConf',
  summary: 'What a portal shows (no token)',
  output: z.object({ ui: z.record(z.string(), z.union([z.string(), z.boolean()])).meta({ description: 'What the portal shows: company, links, terms.' }) }),
  example: {},
  access: 'public',
  kinds: [],
  transaction: 'read',
  servedWhenKeyRevoked: true,
  input: z.object({}),
  async run({ ctx }) {
    const title = ctx.tenantNamed ? '' : (await ctx.services.tenants.get(ctx.tenantId)).tenantorg;
    return {
      ui: {
        logo_link: '',
        company_title: title,
        company_vat: '',
        company_city: '',
        company_link: '',
        company_country: '',
        company_address: '',
        term_of_service_title: '',
        term_of_service_link: '',
        privacy_policy_title: '',
        privacy_policy_link: '',
        custom_css_link: '',
        magic_lookup: false,
      },
    };
  },
});
