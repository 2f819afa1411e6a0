// Input pieces shared by the event operations, and the tenant they act in (the caller's, or for the main tenant's
// admins any tenant named by `tenantid`).
import { z } from 'zod';
import { EVENT_TYPES } from '../../vault/privacy/events.js';
import { MAIN_TENANT_ID } from '../../store/database.js';
import { forbidden, notFound, Messages } from '../../errors.js';
import type { OpContext } from '../define.js';
import type { Stores } from '../../store/stores.js';
import { RecordId, Uuid } from '../schemas.js';

const Name = z.string().min(1).max(256);

export const EventTypes = z
  .array(z.enum(EVENT_TYPES, { error: `Invalid API request parameter: types: each one of ${EVENT_TYPES.join(', ')}` }))
  .min(1)
  .max(EVENT_TYPES.length)
  .meta({ description: 'The event types delivered.' });
export const FieldNames = z.array(Name).max(100).meta({ description: '`person.updated` only when one of these fields changed (dotted names); `[]`: every change.' });
export const Briefs = z.array(Name).max(100).meta({ description: 'Consent events only for these legal bases; `[]`: all.' });
export const Url = z.string().max(2048).meta({ description: 'An http(s) URL the webhook is posted to (no loopback, private, link-local or metadata address unless STRONGROOM_EVENTS_ALLOW_ADDRESSES names it).' });
export const Subject = z.string().max(256).meta({ description: 'A NATS subject under `<prefix>.<tenant id>.` (`strongroom.7.privacy`), captured by a JetStream stream.' });
export const SubscriptionId = Uuid;

/** Beyond the caller's own tenant: main-tenant admins name another with `tenantid`. */
export const ForTenant = { tenantid: RecordId.optional().meta({ description: 'Main-tenant admins only: act in this tenant.' }) };

export const SubscriptionFilters = {
  fields: FieldNames.optional(),
  briefs: Briefs.optional(),
  description: z.string().max(1024).optional(),
  confirmerasures: z.boolean().optional().meta({ description: 'Whether this recipient must confirm each `person.erased` (default true).' }),
  confirmrole: z.string().min(1).max(64).optional().meta({ description: 'A role whose xtokens may confirm erasures for this subscription (ErasureConfirm).' }),
  active: z.boolean().optional(),
};

/** The tenant an event operation acts in, with its stores (as the vault's own user when it is another tenant). */
export async function eventTenant(ctx: OpContext, tenantid: number | undefined): Promise<{ stores: Stores; name: string }> {
  const id = tenantid ?? ctx.tenantId;
  if (id !== ctx.tenantId && ctx.tenantId !== MAIN_TENANT_ID) throw forbidden('Access denied: only the main tenant\'s admins act in another tenant');
  const tenant = await ctx.stores.tenants.byId(id);
  if (!tenant) throw notFound(Messages.tenantNotFound);
  return { stores: id === ctx.tenantId ? ctx.stores : ctx.stores.inTenant(id), name: tenant.name };
}
