// An audit sink as the exporter uses it: records in, acknowledged once the transport took them (a syslog socket
// flushed them, a collector answered 2xx). Made from a sink's settings (STRONGROOM_AUDIT_SINKS).
import { hostname } from 'node:os';
import type { AuditSinkSettings } from '../../../config-audit-sinks.js';
import type { ExportRecord } from './record.js';
import { formatSyslog, SyslogSink } from './syslog.js';
import { HttpCollectorSink } from './collector.js';

export interface AuditSink {
  /** Resolves once the sink took every record; rejects otherwise (the exporter sends again from its cursor). */
  send(records: ExportRecord[]): Promise<void>;
  /**
   * Resolves once everything sent so far is known received (a collector's 2xx already says so; a syslog receiver
   * confirms by reading to the end of the connection): only then does the exporter move its cursor.
   */
  confirm(): Promise<void>;
  close(): Promise<void>;
}

/** How long one batch may take to leave. */
const TIMEOUT_MS = 10_000;

export function openAuditSink(s: AuditSinkSettings): AuditSink {
  if (s.type === 'http') {
    const sink = new HttpCollectorSink({ url: s.url, shape: s.shape, timeoutMs: TIMEOUT_MS, ...(s.headers ? { headers: s.headers } : {}), ...(s.index ? { index: s.index } : {}) });
    return { send: (records) => sink.send(records, s.format), confirm: () => Promise.resolve(), close: async () => sink.close() };
  }
  const tls = s.tls === true ? {} : s.tls === false || s.tls === undefined ? undefined : s.tls;
  const sink = new SyslogSink({ host: s.host, port: s.port, timeoutMs: TIMEOUT_MS, ...(tls ? { tls } : {}) });
  const o = { hostname: s.hostname ?? hostname(), appName: 'strongroom', format: s.format };
  return { send: (records) => sink.send(records.map((r) => formatSyslog(r, o))), confirm: () => sink.confirm(), close: async () => sink.close() };
}
