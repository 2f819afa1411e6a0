// Where the vault's privacy events (CloudEvents 1.0, structured-mode JSON) go: the one shape every delivery sink
// (webhook, JetStream; Kafka or AMQP would follow the same way) offers the dispatcher that drains the outbox.
// A sink delivers a batch it is given and says, per event, what the delivery came to; ordering per person,
// retries and backoff are the dispatcher's, so a sink keeps no queue of its own.

/** One event to deliver: its CloudEvent id (a uuid), the structured-mode JSON body, and its time (unix seconds). */
export interface Outgoing {
  id: string;
  body: string;
  time: number;
}

/**
 * What one delivery came to.
 * - `ok`: the receiver took the event (a 2xx answer, a JetStream PubAck, a broker's confirm).
 * - `status`: the HTTP status, when there was an answer.
 * - `erased`: the receiver answered a JSON body `{"erased": true}` (it says it erased the person's data).
 * - `retry`: on a failure, whether trying again can help. Every failure the current sinks report is retryable
 *   (an address the SSRF guard refuses included: DNS answers and the allow list change); `false` is kept for a
 *   failure no retry can fix (say a broker refusing a message as too large).
 * - `error`: a short reason for a failure, without any secret, URL path or event body
 *   ("HTTP 500", "timed out after 10000 ms", "address 127.0.0.1 is not allowed").
 */
export interface DeliveryResult {
  ok: boolean;
  status?: number;
  erased?: boolean;
  retry?: boolean;
  error?: string;
  /** Never tried again: the event cannot be made into a message (a row put into the outbox by other hands). */
  unsendable?: boolean;
}

/**
 * A destination for privacy events. A Kafka sink would map `deliver` onto one idempotent producer batch
 * (`acks: all`, the event id as a header), an AMQP sink onto publishes awaiting publisher confirms.
 */
export interface Sink {
  /** Delivers each event; never throws for a per-event failure; results in the same order. */
  deliver(events: readonly Outgoing[]): Promise<DeliveryResult[]>;
  /** Ends the sink's connections and forgets its secrets; later deliveries fail. */
  close(): Promise<void>;
}

/** A retryable failure with a short reason. */
export function failure(error: string, status?: number): DeliveryResult {
  return status === undefined ? { ok: false, retry: true, error } : { ok: false, status, retry: true, error };
}

/**
 * Runs `deliverOne` over the events with at most `limit` in flight, results in the events' order. A thrown error
 * becomes that event's failure, so the batch always completes.
 */
export async function deliverEach(
  events: readonly Outgoing[],
  limit: number,
  deliverOne: (event: Outgoing) => Promise<DeliveryResult>,
): Promise<DeliveryResult[]> {
  const results = new Array<DeliveryResult>(events.length);
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < events.length) {
      const index = next++;
      try {
        results[index] = await deliverOne(events[index]!);
      } catch (err) {
        results[index] = failure(err instanceof Error ? err.message : 'delivery failed');
      }
    }
  };
  const workers = Array.from({ length: Math.max(1, Math.min(limit, events.length)) }, worker);
  await Promise.all(workers);
  return results;
}
