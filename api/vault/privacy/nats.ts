// The JetStream sink: privacy events published to a NATS JetStream subject, each with its CloudEvent id as the
// message id (JetStream drops a redelivery inside the stream's duplicate window), pipelined, and counted as
// delivered only once the stream acknowledged it. One NatsBroker (one connection) serves every sink of a process.
import { connect, headers, type NatsConnection } from '@nats-io/transport-node';
import { jetstream, jetstreamManager, type JetStreamClient, type JetStreamManager } from '@nats-io/jetstream';
import { deliverEach, failure, type DeliveryResult, type Outgoing, type Sink } from './sink.js';

const CONTENT_TYPE = 'application/cloudevents+json';

/** Publishes in flight at once per deliver() call: enough to hide the round trip, bounded for memory. */
const PIPELINE = 1000;

export interface NatsBrokerOptions {
  /** The connection's name on the server's monitoring pages. */
  name?: string;
  /** How long a publish waits for its PubAck; while NATS is down a publish fails after this (default 5000). */
  publishTimeoutMs?: number;
}

/** A short reason for a failed publish, in NATS's terms but without the message. */
function publishError(err: unknown, timeoutMs: number): string {
  const name = err instanceof Error ? err.name : '';
  if (name === 'TimeoutError') return `no PubAck within ${timeoutMs} ms`;
  // A JetStream publish nobody answers: no stream captures the subject, or JetStream is off.
  if (name === 'JetStreamNotEnabled') return 'no stream captures the subject';
  return `publish failed: ${err instanceof Error ? err.message.slice(0, 200) : 'unknown error'}`;
}

/** A sink publishing to one subject; its results come from the stream's acknowledgements. */
export class JetStreamSink implements Sink {
  constructor(
    private readonly js: JetStreamClient,
    private readonly subject: string,
    private readonly timeoutMs: number,
    /**
     * Appended to each event's id to make the message id: two subscriptions captured by one stream must not drop each
     * other's messages as duplicates (JetStream de-duplicates by message id within the stream).
     */
    private readonly idSuffix = '',
  ) {}

  deliver(events: readonly Outgoing[]): Promise<DeliveryResult[]> {
    return deliverEach(events, PIPELINE, (event) => this.publish(event));
  }

  private async publish(event: Outgoing): Promise<DeliveryResult> {
    const h = headers();
    h.set('content-type', CONTENT_TYPE);
    try {
      // A duplicate ack (the id was stored before) is a delivery too: the stream holds the event once.
      await this.js.publish(this.subject, event.body, { msgID: `${event.id}${this.idSuffix}`, headers: h, timeout: this.timeoutMs });
      return { ok: true };
    } catch (err) {
      return failure(publishError(err, this.timeoutMs));
    }
  }

  /** The connection is the broker's: closing a sink leaves it open for the others. */
  close(): Promise<void> {
    return Promise.resolve();
  }
}

/** The vault process's one NATS connection, reconnecting for as long as the process runs. */
export class NatsBroker {
  private constructor(
    private readonly nc: NatsConnection,
    private readonly js: JetStreamClient,
    private readonly jsm: JetStreamManager,
    private readonly timeoutMs: number,
  ) {}

  /** Connects to `servers` (comma-separated `host:port`s); throws when none answers now. */
  static async connect(servers: string, opts: NatsBrokerOptions = {}): Promise<NatsBroker> {
    const nc = await connect({
      servers: servers.split(',').map((server) => server.trim()).filter((server) => server !== ''),
      name: opts.name ?? 'strongroom',
      // A long-running vault never gives up on its broker; publishes fail (and are retried) meanwhile.
      maxReconnectAttempts: -1,
    });
    try {
      const timeoutMs = opts.publishTimeoutMs ?? 5000;
      const jsm = await jetstreamManager(nc, { timeout: timeoutMs, checkAPI: false });
      return new NatsBroker(nc, jetstream(nc, { timeout: timeoutMs }), jsm, timeoutMs);
    } catch (err) {
      await nc.close();
      throw err;
    }
  }

  /** A sink publishing to `subject`; `idSuffix` makes its message ids its own (the subscription's id). */
  sink(subject: string, idSuffix = ''): Sink {
    return new JetStreamSink(this.js, subject, this.timeoutMs, idSuffix);
  }

  /** The name of a stream capturing `subject`; undefined when none does or JetStream cannot say. */
  async streamFor(subject: string): Promise<string | undefined> {
    try {
      return await this.jsm.streams.find(subject);
    } catch {
      return undefined;
    }
  }

  /** Waits for publishes in flight, then closes the connection. */
  async close(): Promise<void> {
    if (this.nc.isClosed()) return;
    try {
      await this.nc.drain();
    } catch {
      await this.nc.close();
    }
  }
}
