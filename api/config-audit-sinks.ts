// Audit sinks and checkpoint timestamps (docs/operations.md, "Audit sinks"): where the chained trail is streamed (RFC
// 5424 syslog over TCP or TLS, an HTTP collector), in which format, filtered how; and the RFC 3161 timestamp
// authority that stamps each signed checkpoint. Part of the api's settings (api/config.ts).
import { readFileSync } from 'node:fs';
import { z } from 'zod';

const Filter = z
  .object({
    operations: z.array(z.string().min(1)).optional(),
    outcomes: z.array(z.enum(['ok', 'error'])).optional(),
    tenants: z.array(z.union([z.number().int().min(1), z.string().min(1)])).optional(),
  })
  .strict();

const Common = {
  name: z.string().regex(/^[a-z0-9][a-z0-9-]{0,62}$/, 'lowercase letters, digits and -'),
  format: z.enum(['json', 'ocsf']).default('json'),
  filter: Filter.default({}),
};

const Syslog = z
  .object({
    ...Common,
    type: z.literal('syslog'),
    host: z.string().min(1),
    port: z.number().int().min(1).max(65_535),
    /** TLS: `true`, or the CA (PEM text or a file path) and the server name to check. */
    tls: z.union([z.boolean(), z.object({ ca: z.string().optional(), servername: z.string().optional(), rejectUnauthorized: z.boolean().optional() }).strict()]).optional(),
    hostname: z.string().min(1).optional(),
  })
  .strict();

const Http = z
  .object({
    ...Common,
    type: z.literal('http'),
    url: z.url(),
    shape: z.enum(['lines', 'splunk-hec', 'elastic-bulk']).default('lines'),
    headers: z.record(z.string(), z.string()).optional(),
    index: z.string().min(1).optional(),
  })
  .strict();

export const AuditSinkConfig = z.discriminatedUnion('type', [Syslog, Http]);
export type AuditSinkSettings = z.output<typeof AuditSinkConfig>;

const SinkList = z.string().transform((text, ctx) => {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    ctx.addIssue({ code: 'custom', message: 'must be a JSON list of sinks' });
    return z.NEVER;
  }
  const parsed = z.array(AuditSinkConfig).safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    ctx.addIssue({ code: 'custom', message: `[${issue.path.join('.')}] ${issue.message}` });
    return z.NEVER;
  }
  const names = parsed.data.map((s) => s.name);
  const twice = names.find((n, i) => names.indexOf(n) !== i);
  if (twice) {
    ctx.addIssue({ code: 'custom', message: `two sinks named ${twice}` });
    return z.NEVER;
  }
  return parsed.data;
});

export const AUDIT_SINK_SETTINGS = {
  STRONGROOM_AUDIT_SINKS: SinkList.optional().meta({ description: 'JSON list of audit sinks: `{"name","type":"syslog","host","port","tls"?,"format":"json"|"ocsf","filter"?}` or `{"name","type":"http","url","shape":"lines"|"splunk-hec"|"elastic-bulk","headers"?,"index"?,"format","filter"?}`; a filter names `operations`, `outcomes` (`ok`, `error`) and `tenants` (ids or names). See docs/operations.md, "Audit sinks"', shown: '– (none)' }),
  STRONGROOM_AUDIT_SINKS_SECONDS: z.coerce.number().int().min(1).max(3600).default(1).meta({ description: 'How often each replica looks for audit events to send (one replica per tenant sends, elected as the events\' dispatcher is); a batch appended here wakes it at once' }),
  STRONGROOM_AUDIT_SINK_LAG_WARN: z.coerce.number().int().min(1).default(10_000).meta({ description: 'Events a sink may fall behind a tenant\'s head before a warning is logged (the lag is always in the metrics)' }),
  STRONGROOM_AUDIT_TSA_URL: z.url().optional().meta({ description: 'An RFC 3161 timestamp authority: each signed checkpoint gets a timestamp token (SHA-256 imprint of the checkpoint and its signature), stored beside it and sent to the sinks; one not had yet is retried', shown: '– (no timestamps)' }),
  STRONGROOM_AUDIT_TSA_TIMEOUT_MS: z.coerce.number().int().min(100).max(60_000).default(10_000).meta({ description: 'Timeout of one timestamp request' }),
};

type SinksEnv = z.output<z.ZodObject<typeof AUDIT_SINK_SETTINGS>>;

/** A CA given as PEM text, or a file holding it. */
function pemOrFile(value: string | undefined): string | undefined {
  if (value === undefined || value.includes('-----BEGIN')) return value;
  return readFileSync(value, 'utf8');
}

export function auditSinksOf(e: SinksEnv) {
  return {
    sinks: (e.STRONGROOM_AUDIT_SINKS ?? []).map((s) => (s.type === 'syslog' && typeof s.tls === 'object' ? { ...s, tls: { ...s.tls, ca: pemOrFile(s.tls.ca) } } : s)),
    seconds: e.STRONGROOM_AUDIT_SINKS_SECONDS,
    lagWarn: e.STRONGROOM_AUDIT_SINK_LAG_WARN,
    tsa: e.STRONGROOM_AUDIT_TSA_URL ? { url: e.STRONGROOM_AUDIT_TSA_URL, timeoutMs: e.STRONGROOM_AUDIT_TSA_TIMEOUT_MS } : undefined,
  };
}
