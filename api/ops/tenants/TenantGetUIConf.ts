// POST /v2/TenantGetUIConf (public): what a portal shows for the tenant named by header or subdomain.
import { z } from 'zod';
import { defineOp } from '../define.js';

export const TenantGetUIConf = defineOp({
  name: 'TenantGetUIConf',
  access: 'public',
  kinds: [],
  transaction: 'read',
  input: z.object({}),
  async run({ ctx }) {
    const tenant = await ctx.services.tenants.get(ctx.tenantId);
    return {
      ui: {
        logo_link: '',
        company_title: tenant.tenantorg,
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
