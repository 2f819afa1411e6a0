// Kubernetes Events about our resources (core/v1, what `kubectl describe` shows). A repeat of the same event is
// counted on the existing one, as client-go's recorder does, instead of piling up new objects. Events are
// best effort: a failure to record one never fails a reconcile.
import type { Logger } from 'pino';
import { asMergePatch, apiMessage, type Kube } from '../kube.js';
import type { Resource } from '../types/resources.js';
import type { Clock } from './clock.js';

const COMPONENT = 'strongroom-operator';
/** After this long a repeat starts a new Event (the API server expires Events after an hour by default). */
const AGGREGATE_MS = 10 * 60_000;

export type EventType = 'Normal' | 'Warning';

export class EventRecorder {
  private readonly recent = new Map<string, { name: string; count: number; first: number }>();

  constructor(
    private readonly kube: Kube,
    private readonly identity: string,
    private readonly log: Logger,
    /** Event times, and whether a repeat still counts on the earlier Event. */
    private readonly clock: Clock,
  ) {}

  async emit(obj: Resource, type: EventType, reason: string, message: string): Promise<void> {
    const namespace = obj.metadata.namespace;
    const key = `${obj.metadata.uid}|${type}|${reason}|${message}`;
    const now = new Date(this.clock.now());
    try {
      const seen = this.recent.get(key);
      if (seen && now.getTime() - seen.first < AGGREGATE_MS) {
        seen.count++;
        await this.kube.core.patchNamespacedEvent({ namespace, name: seen.name, body: { count: seen.count, lastTimestamp: now.toISOString() } }, asMergePatch);
        return;
      }
      const made = await this.kube.core.createNamespacedEvent({
        namespace,
        body: {
          metadata: { generateName: `${obj.metadata.name}.`, namespace },
          involvedObject: {
            apiVersion: obj.apiVersion,
            kind: obj.kind,
            name: obj.metadata.name,
            namespace,
            uid: obj.metadata.uid,
            resourceVersion: obj.metadata.resourceVersion,
          },
          type,
          reason,
          message,
          count: 1,
          firstTimestamp: now,
          lastTimestamp: now,
          source: { component: COMPONENT },
          reportingComponent: `strongroom.dev/${COMPONENT}`,
          reportingInstance: this.identity,
        },
      });
      this.remember(key, made.metadata!.name!, now.getTime());
    } catch (err) {
      // The Event may have expired meanwhile: the next repeat creates a fresh one.
      this.recent.delete(key);
      this.log.warn({ reason, err: apiMessage(err) }, 'could not record an event');
    }
  }

  private remember(key: string, name: string, first: number): void {
    this.recent.set(key, { name, count: 1, first });
    if (this.recent.size > 5000) {
      for (const [k, v] of this.recent) if (first - v.first > AGGREGATE_MS) this.recent.delete(k);
    }
  }
}
