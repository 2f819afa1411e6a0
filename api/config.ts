// Every api setting, read from the environment once, validated and typed.
import { readFileSync } from 'node:fs';
import { isIP } from 'node:net';
import { resolve, join } from 'node:path';
import { z } from 'zod';
import { tokenizerSocketPath } from '../proto/paths.js';

const bool = z
  .enum(['true', 'false', '1', '0', 'yes', 'no', 'on', 'off'])
  .transform((v) => ['true', '1', 'yes', 'on'].includes(v));

const size = z
  .string()
  .regex(/^\d+(kb|mb|gb)?$/i, 'a byte count such as 16mb')
  .transform((v) => {
    const m = /^(\d+)(kb|mb|gb)?$/i.exec(v)!;
    const unit = { kb: 1024, mb: 1024 ** 2, gb: 1024 ** 3 }[(m[2] ?? '').toLowerCase()] ?? 1;
    return Number(m[1]) * unit;
  });

const Env = z.object({
  PORT: z.coerce.number().int().min(0).max(65535).default(3000),
  /** A port of its own for GET /metrics (tenant ids are in its labels); 0: served on the public port, as in development. */
  STRONGROOM_METRICS_PORT: z.coerce.number().int().min(0).max(65535).default(0),
  HOST: z.string().default('0.0.0.0'),
  STRONGROOM_DATA_DIR: z.string().default('./data'),
  STRONGROOM_ROOT_TOKEN: z.uuid('must be a UUID').optional(),
  STRONGROOM_ROOT_TOKEN_FILE: z.string().min(1).optional(),
  DATABASE_URL: z.string().regex(/^postgres(ql)?:\/\//, 'must be a postgres:// URL').optional(),
  STRONGROOM_KEYS_DATABASE_URL: z.string().regex(/^postgres(ql)?:\/\//, 'must be a postgres:// URL').optional(),
  STRONGROOM_DB_POOL_MAX: z.coerce.number().int().min(1).max(200).default(10),
  STRONGROOM_TOKENIZER_SOCKET: z.string().optional(),
  STRONGROOM_TOKENIZER_ADDRESS: z.string().optional(),
  STRONGROOM_TOKENIZER_DEADLINE_MS: z.coerce.number().int().min(100).default(10_000),
  STRONGROOM_BODY_LIMIT: size.default(2 * 1024 * 1024),
  STRONGROOM_PUBLIC_BODY_LIMIT: size.default(16 * 1024),
  STRONGROOM_BODY_MEMORY: size.default(96 * 1024 * 1024),
  STRONGROOM_REQUESTS_PER_ADDRESS: z.coerce.number().int().min(0).default(64),
  STRONGROOM_LARGE_BODIES: z.coerce.number().int().min(1).max(64).default(2),
  STRONGROOM_LARGE_BODIES_TOTAL: z.coerce.number().int().min(1).max(256).default(8),
  STRONGROOM_UPLOAD_MIN_RATE: size.default(16 * 1024),
  STRONGROOM_UPLOAD_RATE_WINDOW_SECONDS: z.coerce.number().int().min(1).max(600).default(10),
  STRONGROOM_HEADERS_TIMEOUT_MS: z.coerce.number().int().min(1000).default(20_000),
  STRONGROOM_REQUEST_TIMEOUT_MS: z.coerce.number().int().min(1000).default(120_000),
  STRONGROOM_KEEPALIVE_TIMEOUT_MS: z.coerce.number().int().min(1000).default(65_000),
  STRONGROOM_TRUST_PROXY: bool.default(false),
  STRONGROOM_PROXY_HOPS: z.coerce.number().int().min(1).max(16).default(1),
  STRONGROOM_TRUSTED_PROXIES: z.string().refine((v) => v.split(',').every(isCidr), 'a comma-separated list of CIDRs such as 10.0.0.0/8,fd00::/8').optional(),
  STRONGROOM_TENANT_DOMAIN: z
    .string()
    .regex(/^([a-z0-9]([a-z0-9-]*[a-z0-9])?\.)*[a-z0-9]([a-z0-9-]*[a-z0-9])?$/i, 'a DNS name such as vault.example.com')
    .transform((v) => v.toLowerCase())
    .optional(),
  STRONGROOM_LOGIN_RATE_PER_ADDRESS: z.coerce.number().int().min(0).default(30),
  STRONGROOM_LOGIN_RATE_PER_TENANT: z.coerce.number().int().min(0).default(600),
  STRONGROOM_AUTH_FAILURES_PER_ADDRESS: z.coerce.number().int().min(0).default(60),
  STRONGROOM_AUTH_FAILURES_PER_PREFIX: z.coerce.number().int().min(0).default(60),
  STRONGROOM_AUTH_FAILURES_PER_TENANT: z.coerce.number().int().min(0).default(600),
  STRONGROOM_AUTH_BLOCK_SECONDS: z.coerce.number().int().min(1).default(300),
  STRONGROOM_SHARED_RATE_PER_ADDRESS: z.coerce.number().int().min(0).default(60),
  STRONGROOM_CALLS_PER_CREDENTIAL: z.coerce.number().int().min(0).default(6000),
  STRONGROOM_CALLS_PER_LOGIN_XTOKEN: z.coerce.number().int().min(0).default(300),
  STRONGROOM_CHALLENGE_MAX_NUMBER: z.coerce.number().int().min(100).max(10_000_000).default(100_000),
  STRONGROOM_LOGIN_MAX_FAILURES: z.coerce.number().int().min(1).default(10),
  STRONGROOM_LOGIN_WINDOW_SECONDS: z.coerce.number().int().min(60).default(86_400),
  STRONGROOM_SMS_WEBHOOK_URL: z.url('must be a URL').optional(),
  STRONGROOM_LIST_USERS: bool.default(true),
  STRONGROOM_VERSIONING: bool.default(true),
  STRONGROOM_MAX_VERSIONS: z.coerce.number().int().min(1).max(1000).default(10),
  STRONGROOM_LIMIT_CAP: z.coerce.number().int().min(1).max(10_000).default(100),
  STRONGROOM_UNLOCK_SECONDS: z.coerce.number().int().min(1).default(60),
  STRONGROOM_BULK_MAX_RECORDS: z.coerce.number().int().min(1).default(10_000),
  STRONGROOM_SWEEP_SECONDS: z.coerce.number().int().min(0).default(60),
  STRONGROOM_AUDIT_VERIFY_SECONDS: z.coerce.number().int().min(0).default(3600),
  STRONGROOM_AUDIT_CHECKPOINT_SECONDS: z.coerce.number().int().min(0).default(60),
  STRONGROOM_AUDIT_CHECKPOINT_EVENTS: z.coerce.number().int().min(0).default(10_000),
  STRONGROOM_AUDIT_CHECKPOINT_DIR: z.string().min(1).optional(),
  STRONGROOM_AUDIT_CHECKPOINTS_S3_BUCKET: z.string().min(1).optional(),
  STRONGROOM_AUDIT_CHECKPOINTS_S3_PREFIX: z.string().regex(/^[A-Za-z0-9!_.*'()/-]*$/, 'letters, digits, / and !_.*\'()-').default(''),
  STRONGROOM_AUDIT_CHECKPOINTS_S3_REGION: z.string().min(1).optional(),
  STRONGROOM_AUDIT_CHECKPOINTS_S3_ENDPOINT: z.url('must be a URL').optional(),
  STRONGROOM_AUDIT_CHECKPOINTS_S3_FORCE_PATH_STYLE: bool.default(false),
  STRONGROOM_AUDIT_CHECKPOINTS_S3_OBJECT_LOCK: z.enum(['auto', 'on', 'off']).default('auto'),
  STRONGROOM_AUDIT_CHECKPOINTS_S3_LOCK_MODE: z.enum(['COMPLIANCE', 'GOVERNANCE']).default('COMPLIANCE'),
  STRONGROOM_AUDIT_CHECKPOINTS_S3_RETENTION_DAYS: z.coerce.number().int().min(1).max(36_500).default(365),
  // Keys for the checkpoint bucket alone (often another account, write-only); unset: AWS_ACCESS_KEY_ID's, else the chain.
  STRONGROOM_AUDIT_CHECKPOINTS_S3_ACCESS_KEY_ID: z.string().min(1).optional(),
  STRONGROOM_AUDIT_CHECKPOINTS_S3_SECRET_ACCESS_KEY: z.string().min(1).optional(),
  STRONGROOM_REWRAP_SECONDS: z.coerce.number().int().min(0).default(30),
  STRONGROOM_REWRAP_BATCH: z.coerce.number().int().min(1).max(10_000).default(500),
  STRONGROOM_REWRAP_PAUSE_MS: z.coerce.number().int().min(0).default(50),
  // Persons per transaction of the upgrade from a legacy database (docs/operations.md, "Upgrading a legacy database").
  STRONGROOM_LEGACY_BATCH: z.coerce.number().int().min(1).max(1_000).default(50),
  STRONGROOM_XTOKEN_MAX_SECONDS: z.coerce.number().int().min(60).default(86_400),
  STRONGROOM_SESSION_MAX_SECONDS: z.coerce.number().int().min(60).default(3600),
  /** The largest profile, app record or other sealed document, as JSON. */
  STRONGROOM_PROFILE_MAX_BYTES: z.coerce.number().int().min(1024).max(16 * 1024 * 1024).default(1024 * 1024),
  STRONGROOM_SHARE_MAX_SECONDS: z.coerce.number().int().min(60).default(31 * 86_400),
  STRONGROOM_SMTP_URL: z.string().regex(/^smtps?:\/\//, 'must be an smtp:// or smtps:// URL').optional(),
  STRONGROOM_SMTP_FROM: z.string().default('Strongroom <no-reply@localhost>'),
  STRONGROOM_LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  STRONGROOM_FILE_STORE: z.enum(['local', 's3']).default('local'),
  STRONGROOM_FILE_DIR: z.string().optional(),
  STRONGROOM_FILE_MAX_BYTES: size.default(32 * 1024 * 1024),
  STRONGROOM_FILE_ORPHAN_SECONDS: z.coerce.number().int().min(0).default(86_400),
  STRONGROOM_S3_BUCKET: z.string().min(1).optional(),
  STRONGROOM_S3_REGION: z.string().min(1).optional(),
  STRONGROOM_S3_ENDPOINT: z.url('must be a URL').optional(),
  STRONGROOM_S3_FORCE_PATH_STYLE: bool.default(false),
});

export type Config = ReturnType<typeof loadConfig>;

export function loadConfig(env: NodeJS.ProcessEnv = process.env) {
  const parsed = Env.safeParse(env);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`);
    throw new Error(`invalid configuration:\n  ${lines.join('\n  ')}`);
  }
  const e = parsed.data;
  const dataDir = resolve(e.STRONGROOM_DATA_DIR);
  if (e.STRONGROOM_FILE_STORE === 's3' && !e.STRONGROOM_S3_BUCKET) {
    throw new Error('invalid configuration:\n  STRONGROOM_S3_BUCKET: required when STRONGROOM_FILE_STORE is s3');
  }
  if (!e.STRONGROOM_AUDIT_CHECKPOINTS_S3_ACCESS_KEY_ID !== !e.STRONGROOM_AUDIT_CHECKPOINTS_S3_SECRET_ACCESS_KEY) {
    throw new Error(
      'invalid configuration:\n  STRONGROOM_AUDIT_CHECKPOINTS_S3_ACCESS_KEY_ID and STRONGROOM_AUDIT_CHECKPOINTS_S3_SECRET_ACCESS_KEY: set both or neither',
    );
  }
  // A file is sealed and opened in one tokenizer message, and those may be 256 MiB (tokenizer/proto.ts).
  if (e.STRONGROOM_FILE_MAX_BYTES > 200 * 1024 * 1024) {
    throw new Error('invalid configuration:\n  STRONGROOM_FILE_MAX_BYTES: at most 200mb');
  }
  // A body larger than the budget for bodies in memory could never be taken in.
  const fileBodyLimit = Math.max(e.STRONGROOM_BODY_LIMIT, Math.ceil(e.STRONGROOM_FILE_MAX_BYTES / 3) * 4 + 1024 * 1024);
  if (e.STRONGROOM_BODY_MEMORY < fileBodyLimit) {
    throw new Error(`invalid configuration:\n  STRONGROOM_BODY_MEMORY: at least the largest body, ${fileBodyLimit} bytes (a file of STRONGROOM_FILE_MAX_BYTES)`);
  }
  return {
    port: e.PORT,
    metricsPort: e.STRONGROOM_METRICS_PORT,
    host: e.HOST,
    dataDir,
    rootToken: rootTokenOf(e.STRONGROOM_ROOT_TOKEN, e.STRONGROOM_ROOT_TOKEN_FILE),
    databaseUrl: e.DATABASE_URL,
    /** The key table's own database (persons' wrapped keys); unset: the vault's own database. */
    keysDatabaseUrl: e.STRONGROOM_KEYS_DATABASE_URL,
    dbPoolMax: e.STRONGROOM_DB_POOL_MAX,
    tokenizer: {
      // A unix socket is the default transport; a TCP address wins when given.
      target: e.STRONGROOM_TOKENIZER_ADDRESS ?? `unix:${tokenizerSocketPath({ STRONGROOM_DATA_DIR: dataDir, STRONGROOM_TOKENIZER_SOCKET: e.STRONGROOM_TOKENIZER_SOCKET })}`,
      deadlineMs: e.STRONGROOM_TOKENIZER_DEADLINE_MS,
    },
    bodyLimit: e.STRONGROOM_BODY_LIMIT,
    limits: {
      /** The largest body of an authenticated call (FileCreate's files aside). */
      body: e.STRONGROOM_BODY_LIMIT,
      /** The largest body of a public call (login, shared records, UI configuration). */
      publicBody: e.STRONGROOM_PUBLIC_BODY_LIMIT,
      /** Bytes of bodies read or held at once, all callers together (api/http/body-memory.ts). */
      bodyMemory: e.STRONGROOM_BODY_MEMORY,
      /** How many bodies larger than `body` (FileCreate's) each tenant may have in memory at once. */
      largeBodies: e.STRONGROOM_LARGE_BODIES,
      /** How many such bodies the process holds at once, all tenants together. */
      largeBodiesTotal: e.STRONGROOM_LARGE_BODIES_TOTAL,
      /** Every body must arrive at this many bytes a second, measured over each window after the first; 0: none. */
      uploadMinRate: e.STRONGROOM_UPLOAD_MIN_RATE,
      uploadRateWindowSeconds: e.STRONGROOM_UPLOAD_RATE_WINDOW_SECONDS,
      // Counts per minute (api/vault/limits.ts); 0 turns a limit off.
      publicPerAddress: e.STRONGROOM_LOGIN_RATE_PER_ADDRESS,
      publicPerTenant: e.STRONGROOM_LOGIN_RATE_PER_TENANT,
      sharedPerAddress: e.STRONGROOM_SHARED_RATE_PER_ADDRESS,
      authFailuresPerAddress: e.STRONGROOM_AUTH_FAILURES_PER_ADDRESS,
      authFailuresPerPrefix: e.STRONGROOM_AUTH_FAILURES_PER_PREFIX,
      authFailuresPerTenant: e.STRONGROOM_AUTH_FAILURES_PER_TENANT,
      /** The longest back-off of a key past its refusal budget. */
      authBlockSeconds: e.STRONGROOM_AUTH_BLOCK_SECONDS,
      callsPerCredential: e.STRONGROOM_CALLS_PER_CREDENTIAL,
      callsPerLoginXtoken: e.STRONGROOM_CALLS_PER_LOGIN_XTOKEN,
    },
    server: {
      headersTimeoutMs: e.STRONGROOM_HEADERS_TIMEOUT_MS,
      requestTimeoutMs: e.STRONGROOM_REQUEST_TIMEOUT_MS,
      keepAliveTimeoutMs: e.STRONGROOM_KEEPALIVE_TIMEOUT_MS,
      /** Behind proxies: the client's address is taken from X-Forwarded-For (api/http/client-address.ts). */
      trustProxy: e.STRONGROOM_TRUST_PROXY,
      /** How many proxies append to X-Forwarded-For: the client is this many entries from its right. */
      proxyHops: e.STRONGROOM_PROXY_HOPS,
      /** When set, instead of counting hops: the client is the rightmost entry outside these networks. */
      trustedProxies: (e.STRONGROOM_TRUSTED_PROXIES ?? '').split(',').map((c) => c.trim()).filter(Boolean),
      /** Requests in flight from one client address (an IPv6 /64) at once; 0: no cap. */
      requestsPerAddress: e.STRONGROOM_REQUESTS_PER_ADDRESS,
    },
    /** Subdomains of this name select a tenant (`acme.<domain>`); unset, no Host ever does. */
    tenantDomain: e.STRONGROOM_TENANT_DOMAIN,
    login: {
      challengeMaxNumber: e.STRONGROOM_CHALLENGE_MAX_NUMBER,
      maxFailures: e.STRONGROOM_LOGIN_MAX_FAILURES,
      windowSeconds: e.STRONGROOM_LOGIN_WINDOW_SECONDS,
    },
    listUsers: e.STRONGROOM_LIST_USERS,
    versioning: e.STRONGROOM_VERSIONING,
    maxVersions: e.STRONGROOM_MAX_VERSIONS,
    limitCap: e.STRONGROOM_LIMIT_CAP,
    unlockSeconds: e.STRONGROOM_UNLOCK_SECONDS,
    bulkMaxRecords: e.STRONGROOM_BULK_MAX_RECORDS,
    /** How often expired records are removed; 0 turns the sweeper off (reads still hide expired records). */
    sweepSeconds: e.STRONGROOM_SWEEP_SECONDS,
    audit: {
      /** How often one replica re-verifies every tenant's whole chain (AuditVerify's check); 0: only when asked. */
      verifySeconds: e.STRONGROOM_AUDIT_VERIFY_SECONDS,
      /** How often each tenant's head is checkpointed (signed by the tokenizer) when it moved; 0: never on a timer. */
      checkpointSeconds: e.STRONGROOM_AUDIT_CHECKPOINT_SECONDS,
      /** A checkpoint also once the tenant's committed head is this many events past the last checkpoint; 0: never by count. */
      checkpointEvents: e.STRONGROOM_AUDIT_CHECKPOINT_EVENTS,
      /** Where checkpoints are appended (`tenant-<id>.jsonl`), besides the log; unset: the log only. */
      checkpointDir: e.STRONGROOM_AUDIT_CHECKPOINT_DIR ? resolve(e.STRONGROOM_AUDIT_CHECKPOINT_DIR) : undefined,
      /** A bucket where each checkpoint is also written as one object (`<prefix>tenant-<id>/<seq>.json`); unset: none. */
      checkpointS3: e.STRONGROOM_AUDIT_CHECKPOINTS_S3_BUCKET
        ? {
            bucket: e.STRONGROOM_AUDIT_CHECKPOINTS_S3_BUCKET,
            prefix: e.STRONGROOM_AUDIT_CHECKPOINTS_S3_PREFIX,
            region: e.STRONGROOM_AUDIT_CHECKPOINTS_S3_REGION ?? env.AWS_REGION ?? 'us-east-1',
            endpoint: e.STRONGROOM_AUDIT_CHECKPOINTS_S3_ENDPOINT,
            forcePathStyle: e.STRONGROOM_AUDIT_CHECKPOINTS_S3_FORCE_PATH_STYLE,
            // Its own keys when given; else, as for files, keys in this environment, else the SDK's provider chain.
            credentials: e.STRONGROOM_AUDIT_CHECKPOINTS_S3_ACCESS_KEY_ID
              ? { accessKeyId: e.STRONGROOM_AUDIT_CHECKPOINTS_S3_ACCESS_KEY_ID, secretAccessKey: e.STRONGROOM_AUDIT_CHECKPOINTS_S3_SECRET_ACCESS_KEY! }
              : env.AWS_ACCESS_KEY_ID && env.AWS_SECRET_ACCESS_KEY
                ? { accessKeyId: env.AWS_ACCESS_KEY_ID, secretAccessKey: env.AWS_SECRET_ACCESS_KEY, sessionToken: env.AWS_SESSION_TOKEN }
                : undefined,
            /** auto: retention where the bucket has Object Lock on (else a warning); on: always (a refusal fails the write); off: never. */
            objectLock: e.STRONGROOM_AUDIT_CHECKPOINTS_S3_OBJECT_LOCK,
            lockMode: e.STRONGROOM_AUDIT_CHECKPOINTS_S3_LOCK_MODE,
            retentionDays: e.STRONGROOM_AUDIT_CHECKPOINTS_S3_RETENTION_DAYS,
          }
        : undefined,
    },
    /**
     * Master-key rotation: how often the background rewrap looks for person keys under an older master version (0:
     * only when SystemRotateMasterKey asks), how many it moves per transaction, and the pause between batches.
     */
    rewrap: { seconds: e.STRONGROOM_REWRAP_SECONDS, batch: e.STRONGROOM_REWRAP_BATCH, pauseMs: e.STRONGROOM_REWRAP_PAUSE_MS },
    /** Persons per transaction of the legacy upgrade (api/vault/legacy.ts); it runs on the rewrap's schedule and pace. */
    legacyBatch: e.STRONGROOM_LEGACY_BATCH,
    /** The longest an xtoken may live (`max_xtoken_retention_period`); 10 minutes when the call sets none. */
    xtokenMaxSeconds: e.STRONGROOM_XTOKEN_MAX_SECONDS,
    /** The longest a session lives (`max_session_retention_period`), and how long one without times lives. */
    sessionMaxSeconds: e.STRONGROOM_SESSION_MAX_SECONDS,
    profileMaxBytes: e.STRONGROOM_PROFILE_MAX_BYTES,
    /** The longest a shared record lives (`max_shareable_record_retention_period`), and its default. */
    shareMaxSeconds: e.STRONGROOM_SHARE_MAX_SECONDS,
    smtp: { url: e.STRONGROOM_SMTP_URL, from: e.STRONGROOM_SMTP_FROM },
    smsWebhookUrl: e.STRONGROOM_SMS_WEBHOOK_URL,
    logLevel: e.STRONGROOM_LOG_LEVEL,
    files: {
      /** Largest file content; FileCreate alone accepts a body that large (as base64, plus room for the rest). */
      maxBytes: e.STRONGROOM_FILE_MAX_BYTES,
      bodyLimit: fileBodyLimit,
      /** How often objects that no file names (a crash mid-upload, a removed tenant) are looked for; 0: never. */
      orphanSeconds: e.STRONGROOM_FILE_ORPHAN_SECONDS,
      store:
        e.STRONGROOM_FILE_STORE === 's3'
          ? {
              store: 's3' as const,
              bucket: e.STRONGROOM_S3_BUCKET!,
              region: e.STRONGROOM_S3_REGION ?? env.AWS_REGION ?? 'us-east-1',
              endpoint: e.STRONGROOM_S3_ENDPOINT,
              forcePathStyle: e.STRONGROOM_S3_FORCE_PATH_STYLE,
              // Keys given in this environment are used as such; otherwise the SDK's provider chain finds them.
              credentials:
                env.AWS_ACCESS_KEY_ID && env.AWS_SECRET_ACCESS_KEY
                  ? { accessKeyId: env.AWS_ACCESS_KEY_ID, secretAccessKey: env.AWS_SECRET_ACCESS_KEY, sessionToken: env.AWS_SESSION_TOKEN }
                  : undefined,
            }
          : { store: 'local' as const, dir: resolve(e.STRONGROOM_FILE_DIR ?? join(dataDir, 'files')) },
    },
  };
}

/** `10.0.0.0/8`, `fd00::/8`: an IP address and a prefix length that fits it. */
function isCidr(text: string): boolean {
  const [address = '', bits, ...rest] = text.trim().split('/');
  const family = isIP(address);
  return family !== 0 && rest.length === 0 && bits !== undefined && /^\d{1,3}$/.test(bits) && Number(bits) <= (family === 4 ? 32 : 128);
}

/** The root token from the environment, or from a file (a mounted Secret), never both. */
function rootTokenOf(inline: string | undefined, file: string | undefined): string | undefined {
  if (!file) return inline;
  if (inline) throw new Error('invalid configuration:\n  set STRONGROOM_ROOT_TOKEN or STRONGROOM_ROOT_TOKEN_FILE, not both');
  let text: string;
  try {
    text = readFileSync(file, 'utf8').trim();
  } catch (err) {
    throw new Error(`invalid configuration:\n  STRONGROOM_ROOT_TOKEN_FILE (${file}) cannot be read: ${(err as NodeJS.ErrnoException).code ?? 'error'}`);
  }
  if (!z.uuid().safeParse(text).success) throw new Error(`invalid configuration:\n  STRONGROOM_ROOT_TOKEN_FILE (${file}): must hold a UUID`);
  return text;
}
