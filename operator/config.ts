// Every operator setting, read from the environment once, validated and typed.
import { readFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { randomBytes } from 'node:crypto';
import { z } from 'zod';

const bool = z
  .enum(['true', 'false', '1', '0', 'yes', 'no', 'on', 'off'])
  .transform((v) => ['true', '1', 'yes', 'on'].includes(v));

const seconds = (fallback: number) => z.coerce.number().positive().default(fallback);

const Env = z.object({
  STRONGROOM_URL: z.url({ protocol: /^https?$/, error: (iss) => (iss.input === undefined ? 'required: the vault\'s URL' : 'must be an http:// or https:// URL') }),
  STRONGROOM_ROOT_TOKEN: z.string().min(1).optional(),
  STRONGROOM_ROOT_TOKEN_FILE: z.string().min(1).optional(),
  /** Written into the Secrets for applications; defaults to STRONGROOM_URL. */
  STRONGROOM_PUBLIC_URL: z.url().optional(),
  KUBECONFIG: z.string().optional(),
  WATCH_NAMESPACE: z.string().optional(),
  POD_NAME: z.string().optional(),
  POD_NAMESPACE: z.string().optional(),
  STRONGROOM_OPERATOR_LEADER_ELECT: bool.default(true),
  STRONGROOM_OPERATOR_LEASE_NAME: z.string().min(1).default('strongroom-operator'),
  STRONGROOM_OPERATOR_LEASE_NAMESPACE: z.string().optional(),
  STRONGROOM_OPERATOR_LEASE_SECONDS: seconds(15),
  STRONGROOM_OPERATOR_RENEW_DEADLINE_SECONDS: seconds(10),
  STRONGROOM_OPERATOR_RETRY_PERIOD_SECONDS: seconds(2),
  STRONGROOM_OPERATOR_RESYNC_SECONDS: seconds(600),
  STRONGROOM_OPERATOR_WORKERS: z.coerce.number().int().min(1).max(32).default(2),
  STRONGROOM_OPERATOR_PORT: z.coerce.number().int().min(0).max(65535).default(8080),
  STRONGROOM_OPERATOR_HOST: z.string().default('0.0.0.0'),
  STRONGROOM_LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
});

export type OperatorConfig = ReturnType<typeof loadOperatorConfig>;

export function loadOperatorConfig(env: NodeJS.ProcessEnv = process.env) {
  const parsed = Env.safeParse(Object.fromEntries(Object.entries(env).filter(([, v]) => v !== '')));
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`);
    throw new Error(`invalid configuration:\n  ${lines.join('\n  ')}`);
  }
  const e = parsed.data;
  // Two sources that could disagree would make "which token is in use?" a guess.
  if (e.STRONGROOM_ROOT_TOKEN && e.STRONGROOM_ROOT_TOKEN_FILE) throw new Error('invalid configuration: set STRONGROOM_ROOT_TOKEN or STRONGROOM_ROOT_TOKEN_FILE, not both');
  if (!e.STRONGROOM_ROOT_TOKEN && !e.STRONGROOM_ROOT_TOKEN_FILE) throw new Error('invalid configuration: STRONGROOM_ROOT_TOKEN or STRONGROOM_ROOT_TOKEN_FILE is required');
  if (e.STRONGROOM_OPERATOR_RENEW_DEADLINE_SECONDS >= e.STRONGROOM_OPERATOR_LEASE_SECONDS) {
    throw new Error('invalid configuration: STRONGROOM_OPERATOR_RENEW_DEADLINE_SECONDS must be shorter than STRONGROOM_OPERATOR_LEASE_SECONDS');
  }
  const tokenFile = e.STRONGROOM_ROOT_TOKEN_FILE;
  const inline = e.STRONGROOM_ROOT_TOKEN;
  if (tokenFile) readRootTokenFile(tokenFile);
  return {
    vaultUrl: e.STRONGROOM_URL.replace(/\/+$/, ''),
    publicUrl: (e.STRONGROOM_PUBLIC_URL ?? e.STRONGROOM_URL).replace(/\/+$/, ''),
    /** Read on every use when it comes from a file, so a rotated Secret takes effect without a restart. */
    rootToken: tokenFile ? () => readRootTokenFile(tokenFile) : () => inline!,
    kubeconfig: e.KUBECONFIG,
    watchNamespace: e.WATCH_NAMESPACE,
    podNamespace: e.POD_NAMESPACE,
    leaderElection: {
      enabled: e.STRONGROOM_OPERATOR_LEADER_ELECT,
      name: e.STRONGROOM_OPERATOR_LEASE_NAME,
      /** undefined: the namespace of the kubeconfig's context (in a pod: the pod's own). */
      namespace: e.STRONGROOM_OPERATOR_LEASE_NAMESPACE ?? e.POD_NAMESPACE,
      identity: `${e.POD_NAME ?? hostname()}_${randomBytes(4).toString('hex')}`,
      leaseDurationMs: e.STRONGROOM_OPERATOR_LEASE_SECONDS * 1000,
      renewDeadlineMs: e.STRONGROOM_OPERATOR_RENEW_DEADLINE_SECONDS * 1000,
      retryPeriodMs: e.STRONGROOM_OPERATOR_RETRY_PERIOD_SECONDS * 1000,
    },
    resyncMs: e.STRONGROOM_OPERATOR_RESYNC_SECONDS * 1000,
    workers: e.STRONGROOM_OPERATOR_WORKERS,
    http: { port: e.STRONGROOM_OPERATOR_PORT, host: e.STRONGROOM_OPERATOR_HOST },
    logLevel: e.STRONGROOM_LOG_LEVEL,
  };
}

function readRootTokenFile(file: string): string {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    throw new Error(`STRONGROOM_ROOT_TOKEN_FILE (${file}) cannot be read: ${(err as NodeJS.ErrnoException).code ?? 'error'}`);
  }
  const token = text.trim();
  if (!token) throw new Error(`STRONGROOM_ROOT_TOKEN_FILE (${file}) is empty`);
  return token;
}
