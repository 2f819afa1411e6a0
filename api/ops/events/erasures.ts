// An erasure's confirmations, gathered per erasure event, as ErasureStatusGet and the portal's receipt show them.
import { z } from 'zod';
import type { ConfirmationRow } from '../../store/event-subscriptions.js';

export const Recipient = z.object({
  subscriptionid: z.string(),
  description: z.string().nullable(),
  confirmed: z.boolean(),
  confirmedtime: z.number().int().nullable(),
  via: z.enum(['webhook', 'api', 'admin']).nullable().meta({ description: 'How it confirmed: the webhook answered `{"erased": true}`, ErasureConfirm with the recipient\'s own confirming role (`api`), or ErasureConfirm by an admin on its behalf (`admin`).' }),
  confirmedby: z.string().nullable().meta({ description: 'Who confirmed: `role <name>`, `tenant-admin`, `root` or `webhook <subscription>`.' }),
  overdue: z.boolean(),
  deleted: z.boolean().meta({ description: 'The subscription was deleted since; what it owed and confirmed stays on record.' }),
});

export const Erasure = z.object({
  eventid: z.string(),
  token: z.string(),
  requestuuid: z.string().nullable(),
  erasedtime: z.number().int(),
  duetime: z.number().int(),
  confirmed: z.number().int(),
  total: z.number().int(),
  recipients: z.array(Recipient),
});

export function erasuresOf(rows: readonly ConfirmationRow[], now: number): z.infer<typeof Erasure>[] {
  const byEvent = new Map<string, z.infer<typeof Erasure>>();
  for (const r of rows) {
    let e = byEvent.get(r.event);
    if (!e) byEvent.set(r.event, (e = { eventid: r.event, token: r.person, requestuuid: r.request, erasedtime: r.erasedAt, duetime: r.due, confirmed: 0, total: 0, recipients: [] }));
    const confirmed = r.confirmedAt !== null;
    e.total++;
    if (confirmed) e.confirmed++;
    e.recipients.push({ subscriptionid: r.subscription, description: r.description, confirmed, confirmedtime: r.confirmedAt, via: r.via as 'webhook' | 'api' | 'admin' | null, confirmedby: r.by, overdue: !confirmed && r.due < now, deleted: r.deleted });
  }
  return [...byEvent.values()];
}
