// The standard gRPC health service (grpc.health.v1): Check answers now, Watch streams every change.
import * as grpc from '@grpc/grpc-js';
import type { HealthCheckRequest__Output, HealthCheckResponse, HealthCheckResponse__Output, HealthHandlers } from '../proto/loader.js';

export type ServingStatus = HealthCheckResponse__Output['status'];

type WatchCall = grpc.ServerWritableStream<HealthCheckRequest__Output, HealthCheckResponse>;

export class HealthService {
  private readonly statuses = new Map<string, ServingStatus>();
  private readonly watchers = new Set<WatchCall>();
  private stopped = false;

  /** `""` stands for the whole server, as the protocol defines. */
  constructor(services: string[], status: ServingStatus = 'SERVING') {
    for (const s of ['', ...services]) this.statuses.set(s, status);
  }

  set(service: string, status: ServingStatus): void {
    if (this.statuses.get(service) === status) return;
    this.statuses.set(service, status);
    for (const call of this.watchers) if (call.request.service === service) call.write({ status });
  }

  /**
   * Marks everything NOT_SERVING and ends the watch streams: they never end on their own, and a graceful
   * shutdown waits for every open call.
   */
  stop(): void {
    this.stopped = true;
    for (const service of this.statuses.keys()) this.set(service, 'NOT_SERVING');
    for (const call of this.watchers) call.end();
    this.watchers.clear();
  }

  implementation(): HealthHandlers {
    return {
      Check: (call, callback) => {
        const status = this.statuses.get(call.request.service);
        if (!status) return callback({ code: grpc.status.NOT_FOUND, details: 'unknown service' });
        return callback(null, { status });
      },
      Watch: (call: WatchCall) => {
        // Unknown services are watched too: the protocol says they may appear later.
        call.write({ status: this.statuses.get(call.request.service) ?? 'SERVICE_UNKNOWN' });
        if (this.stopped) return void call.end();
        this.watchers.add(call);
        const forget = () => this.watchers.delete(call);
        call.once('cancelled', forget);
        call.once('close', forget);
      },
    };
  }
}
