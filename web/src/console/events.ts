// What the Events view shares between its tabs: the event types in words, the tenant's subscriptions, and how a
// subscription is named on screen (its description, else where it delivers).
import { useQuery } from '@tanstack/react-query';
import { rowsOf, text } from '../api/client';
import type { EventSubscriptionCreateInput } from '../api/requests.gen';
import { useVault } from './session';

/** An event type the vault publishes, as the generated request types name them. */
export type EventType = EventSubscriptionCreateInput['types'][number];

/**
 * Every event type in words. A `Record` over the generated union: a type the api adds or removes fails the type
 * check here until it is described, so the picker never offers a stale list.
 */
export const EVENT_WORDS: Record<EventType, string> = {
  'person.created': 'a person was created',
  'person.updated': 'a person’s profile changed (field names only)',
  'person.erased': 'a person was erased',
  'person.restored': 'a person was restored',
  'consent.accepted': 'consent was given',
  'consent.withdrawn': 'consent was withdrawn',
  'consent.expired': 'consent reached its end',
  'appdata.updated': 'an application’s data about a person changed',
  'request.created': 'a person asked for something',
  'request.approved': 'a request was approved',
  'request.rejected': 'a request was rejected',
  'token.detokenized': 'tokens were read back (counts only)',
  'audit.checkpoint': 'the audit trail was checkpointed',
  'erasure.overdue': 'a recipient did not confirm an erasure in time',
};

export const EVENT_TYPES = Object.keys(EVENT_WORDS) as EventType[];

/** The statuses a delivery can have (EventDeliveryList). */
export const DELIVERY_STATUSES = ['pending', 'delivered', 'dead'] as const;
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];

/** A subscription as the console names it: its description, else its URL or subject. */
export function subscriptionLabel(row: Record<string, unknown>): string {
  return text(row.description) || text(row.url) || text(row.nats) || text(row.subscriptionid);
}

/** Where a subscription delivers: the webhook's URL or the NATS subject. */
export function subscriptionTarget(row: Record<string, unknown>): string {
  return row.kind === 'nats' ? text(row.nats) : text(row.url);
}

/** A secret the vault answers once (at creation, at a rotation), and the subscription it signs for. */
export interface ShownSecret {
  label: string;
  secret: string;
}

export const subscriptionsKey = (tenant: string) => ['eventsubscriptions', tenant] as const;

/** The tenant's subscriptions (EventSubscriptionList answers them all at once). */
export function useSubscriptions() {
  const vault = useVault();
  const list = useQuery({ queryKey: subscriptionsKey(vault.session.tenant), queryFn: () => vault.call('EventSubscriptionList', {}) });
  return { list, rows: rowsOf(list.data) };
}
