// Every api setting, read from the environment once, validated and typed.
import { readFileSync } from 'node:fs';
import { isIP } from 'node:net';
import { resolve, join } from 'node:path';
import { z } from 'zod';
import { tokenizerSocketPath } from '../proto/paths.js';
import { OIDC_SETTINGS, oidcOf } from './config-oidc.js';
import { EVENTS_SETTINGS, eventsOf } from './config-events.js';
import { AUDIT_SINK_SETTINGS, auditSinksOf } from './config-audit-sinks.js';

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

export const API_SETTINGS = z.object({
  PORT: z.coerce.number().int().min(0).max(65535).default(3000).meta({ description: 'HTTP port of the api' }),
  /** A port of its own for GET /metrics (tenant ids are in its labels); 0: served on the public port, as in development. */
  STRONGROOM_METRICS_PORT: z.coerce.number().int().min(0).max(65535).default(0).meta({ description: 'The api\'s `/metrics` on a port of its own (same `HOST`), and not on the public port; `0`: on the public port' }),
  HOST: z.string().default('127.0.0.1').meta({ description: 'Address the api binds: this machine only unless set (the image and the chart set `0.0.0.0`)' }),
  STRONGROOM_DATA_DIR: z.string().default('./data').meta({ description: 'Data directory: embedded database, keyring, sockets' }),
  STRONGROOM_ROOT_TOKEN: z.uuid('must be a UUID').optional().meta({ description: 'The root token (a UUID). Changing it retires the old one', shown: 'generated once' }),
  STRONGROOM_ROOT_TOKEN_FILE: z.string().min(1).optional().meta({ description: 'A file holding the root token (e.g. a mounted Secret); not with `STRONGROOM_ROOT_TOKEN`' }),
  DATABASE_URL: z.string().regex(/^postgres(ql)?:\/\//, 'must be a postgres:// URL').optional().meta({ description: '`postgres://…` to use a real PostgreSQL; libpq-style parameters such as `?host=/var/run/postgresql` (unix socket) or `?sslmode=require` are honoured', shown: '– (embedded)' }),
  STRONGROOM_KEYS_DATABASE_URL: z.string().regex(/^postgres(ql)?:\/\//, 'must be a postgres:// URL').optional().meta({ description: '`postgres://…` of a database of its own for persons\' wrapped keys, backed up apart on a short retention (see "Keys, erasure and rotation")', shown: '– (the vault\'s own database)' }),
  STRONGROOM_DB_POOL_MAX: z.coerce.number().int().min(1).max(200).default(10).meta({ description: 'Database connections per api process, and as many again for its tenants\' own pools whatever their number (the embedded database always uses 1)' }),
  STRONGROOM_TOKENIZER_SOCKET: z.string().optional().meta({ description: 'The tokenizer\'s unix socket', shown: '`<data dir>/run/tokenizer.sock`' }),
  STRONGROOM_TOKENIZER_ADDRESS: z.string().optional().meta({ description: '`host:port` to reach the tokenizer over TCP instead' }),
  STRONGROOM_TOKENIZER_DEADLINE_MS: z.coerce.number().int().min(100).default(10_000).meta({ description: 'Deadline of every tokenizer call' }),
  STRONGROOM_BODY_LIMIT: size.default(2 * 1024 * 1024).meta({ description: 'Largest JSON body of an authenticated call, at most `64mb` (FileCreate, UserCreateBulk and TokenCreateBulk take the file limit); larger ones get 413, unread when declared', shown: '`2mb`' }),
  STRONGROOM_PUBLIC_BODY_LIMIT: size.default(16 * 1024).meta({ description: 'Largest body of a public call (login, shared records, UI configuration)', shown: '`16kb`' }),
  STRONGROOM_BODY_MEMORY: size.default(96 * 1024 * 1024).meta({ description: 'Bytes of request bodies read or held at once, all callers together; a caller may hold a quarter, a tenant half; more get `503` with `Retry-After` (about a fifth of the api\'s memory limit; at least the largest body)', shown: '`96mb`' }),
  STRONGROOM_REQUESTS_PER_ADDRESS: z.coerce.number().int().min(0).default(64).meta({ description: 'Requests in flight from one client address (an IPv6 /64) at once; more get `503`; `0` off' }),
  STRONGROOM_LARGE_BODIES: z.coerce.number().int().min(1).max(64).default(2).meta({ description: 'Bodies over `STRONGROOM_BODY_LIMIT` (FileCreate, the bulk creations) each tenant may have in memory at once (one per credential, the last for root and tenant admins); more get `503` with `Retry-After`' }),
  STRONGROOM_LARGE_BODIES_TOTAL: z.coerce.number().int().min(1).max(256).default(8).meta({ description: 'The same, all tenants together' }),
  STRONGROOM_UPLOAD_MIN_RATE: size.default(16 * 1024).meta({ description: 'Bytes a second every body must arrive at, over each window after the first; slower ones are cut with `408`; `0` off', shown: '`16kb`' }),
  STRONGROOM_UPLOAD_RATE_WINDOW_SECONDS: z.coerce.number().int().min(1).max(600).default(10).meta({ description: 'That window' }),
  STRONGROOM_HEADERS_TIMEOUT_MS: z.coerce.number().int().min(1000).default(20_000).meta({ description: 'Time a client has to send its headers' }),
  STRONGROOM_REQUEST_TIMEOUT_MS: z.coerce.number().int().min(1000).default(120_000).meta({ description: 'Time a client has to send its whole request (a large upload included)' }),
  STRONGROOM_KEEPALIVE_TIMEOUT_MS: z.coerce.number().int().min(1000).default(65_000).meta({ description: 'How long an idle connection is kept (longer than a load balancer\'s 60 s idle timeout)' }),
  STRONGROOM_TRUST_PROXY: bool.default(false).meta({ description: '`true` behind proxies: the client\'s address (for rate limits) is read from `X-Forwarded-For`, from the right' }),
  STRONGROOM_PROXY_HOPS: z.coerce.number().int().min(1).max(16).default(1).meta({ description: 'How many proxies append to `X-Forwarded-For`: the client is that many entries from its right' }),
  STRONGROOM_TRUSTED_PROXIES: z.string().refine((v) => v.split(',').every(isCidr), 'a comma-separated list of CIDRs such as 10.0.0.0/8,fd00::/8').optional().meta({ description: 'The proxies\' CIDRs, instead of hops: the client is the rightmost entry outside them' }),
  STRONGROOM_TENANT_DOMAIN: z
    .string()
    .regex(/^([a-z0-9]([a-z0-9-]*[a-z0-9])?\.)*[a-z0-9]([a-z0-9-]*[a-z0-9])?$/i, 'a DNS name such as vault.example.com')
    .transform((v) => v.toLowerCase())
    .optional().meta({ description: '`<name>.<this domain>` selects a tenant by Host; unset, no Host does' }),
  STRONGROOM_LOGIN_RATE_PER_ADDRESS: z.coerce.number().int().min(0).default(30).meta({ description: 'CaptchaCreate, UserPrelogin and UserLogin per client address per minute, each operation its own; `0` off' }),
  STRONGROOM_LOGIN_RATE_PER_TENANT: z.coerce.number().int().min(0).default(600).meta({ description: 'The same calls per tenant name (known or not) per minute, from anyone; `0` off' }),
  STRONGROOM_AUTH_FAILURES_PER_ADDRESS: z.coerce.number().int().min(0).default(60).meta({ description: 'Refusals (failed authentications, SharedRecordGet misses) per client address per minute before they get 429; `0` off' }),
  STRONGROOM_AUTH_FAILURES_PER_PREFIX: z.coerce.number().int().min(0).default(60).meta({ description: 'Failed authentications per token prefix (8 characters) per minute, from any address; `0` off' }),
  STRONGROOM_AUTH_FAILURES_PER_TENANT: z.coerce.number().int().min(0).default(600).meta({ description: 'Failed authentications naming a tenant per minute, from any address; `0` off' }),
  STRONGROOM_AUTH_BLOCK_SECONDS: z.coerce.number().int().min(1).default(300).meta({ description: 'The longest back-off of a key past its budget (1 s, doubling at each further failure)' }),
  STRONGROOM_SHARED_RATE_PER_ADDRESS: z.coerce.number().int().min(0).default(60).meta({ description: 'SharedRecordGet calls per client address per minute; `0` off' }),
  STRONGROOM_CALLS_PER_CREDENTIAL: z.coerce.number().int().min(0).default(6000).meta({ description: 'Calls per tenant-admin or role xtoken per minute, in each replica (root is not limited); `0` off' }),
  STRONGROOM_CALLS_PER_LOGIN_XTOKEN: z.coerce.number().int().min(0).default(300).meta({ description: 'Calls per login xtoken per minute, in each replica; `0` off' }),
  STRONGROOM_CHALLENGE_MAX_NUMBER: z.coerce.number().int().min(100).max(10_000_000).default(100_000).meta({ description: 'The login challenge\'s difficulty: a solver tries half this many hashes on average' }),
  STRONGROOM_LOGIN_MAX_FAILURES: z.coerce.number().int().min(1).default(10).meta({ description: 'Wrong login codes a person may have in the window before being locked out' }),
  STRONGROOM_LOGIN_WINDOW_SECONDS: z.coerce.number().int().min(60).default(86_400).meta({ description: 'That window, sliding' }),
  STRONGROOM_SMS_WEBHOOK_URL: z.url('must be a URL').optional().meta({ description: 'Where login codes for phones are POSTed (`{"to","text"}`); without it, `mode: phone` is refused' }),
  STRONGROOM_LIST_USERS: bool.default(true).meta({ description: '`false` turns BulkListUsers and BulkListAllUsers off (403)' }),
  STRONGROOM_VERSIONING: bool.default(true).meta({ description: 'Keep earlier profile versions' }),
  STRONGROOM_MAX_VERSIONS: z.coerce.number().int().min(1).max(1000).default(10).meta({ description: 'Versions kept per user' }),
  STRONGROOM_LIMIT_CAP: z.coerce.number().int().min(1).max(10_000).default(100).meta({ description: 'Largest page size' }),
  STRONGROOM_UNLOCK_SECONDS: z.coerce.number().int().min(1).default(60).meta({ description: 'Lifetime of a bulk unlock UUID' }),
  STRONGROOM_BULK_MAX_RECORDS: z.coerce.number().int().min(1).default(10_000).meta({ description: 'Most records in one UserCreateBulk or TokenCreateBulk' }),
  STRONGROOM_SWEEP_SECONDS: z.coerce.number().int().min(0).default(60).meta({ description: 'How often expired records are deleted; `0` turns the sweeper off (reads hide them anyway)' }),
  STRONGROOM_AUDIT_VERIFY_SECONDS: z.coerce.number().int().min(0).default(3600).meta({ description: 'How often one replica (PostgreSQL advisory lock) verifies every tenant\'s whole audit chain, as AuditVerify does; `0`: only when asked' }),
  STRONGROOM_AUDIT_CHECKPOINT_SECONDS: z.coerce.number().int().min(0).default(60).meta({ description: 'How often each tenant\'s audit head, when it moved, is signed by the tokenizer and written as a checkpoint; `0`: not on a timer' }),
  STRONGROOM_AUDIT_CHECKPOINT_EVENTS: z.coerce.number().int().min(0).default(10_000).meta({ description: 'A checkpoint also once a tenant\'s committed head is this many events past its last checkpoint, whichever replicas wrote them; `0`: not by count' }),
  STRONGROOM_AUDIT_CHECKPOINT_DIR: z.string().min(1).optional().meta({ description: 'A directory where each checkpoint is also appended, one JSON line, to `tenant-<id>.jsonl` (put it on storage the database\'s writers cannot change; with replicas, shared by them); unset: no directory' }),
  STRONGROOM_AUDIT_CHECKPOINTS_S3_BUCKET: z.string().min(1).optional().meta({ description: 'A bucket where each checkpoint is also written as one object, `<prefix>tenant-<id>/<seq, 20 digits>.json`; unset: no bucket. Credentials: the two below, else as for files (`AWS_ACCESS_KEY_ID`/`AWS_SECRET_ACCESS_KEY`), else the AWS SDK\'s provider chain' }),
  STRONGROOM_AUDIT_CHECKPOINTS_S3_PREFIX: z.string().regex(/^[A-Za-z0-9!_.*'()/-]*$/, 'letters, digits, / and !_.*\'()-').default('').meta({ description: 'Key prefix in the bucket (`strongroom/` and `strongroom` are the same)', shown: 'empty' }),
  STRONGROOM_AUDIT_CHECKPOINTS_S3_REGION: z.string().min(1).optional().meta({ description: 'The bucket\'s region', shown: '`AWS_REGION`, else `us-east-1`' }),
  STRONGROOM_AUDIT_CHECKPOINTS_S3_ENDPOINT: z.url('must be a URL').optional().meta({ description: 'For S3-compatible stores (MinIO, Ceph)' }),
  STRONGROOM_AUDIT_CHECKPOINTS_S3_FORCE_PATH_STYLE: bool.default(false).meta({ description: 'The bucket in the path instead of the host name' }),
  STRONGROOM_AUDIT_CHECKPOINTS_S3_OBJECT_LOCK: z.enum(['auto', 'on', 'off']).default('auto').meta({ description: '`auto`: retention where the bucket has Object Lock on, else a warning in the log and none; `on`: always (a refusal fails the write, retried); `off`: never' }),
  STRONGROOM_AUDIT_CHECKPOINTS_S3_LOCK_MODE: z.enum(['COMPLIANCE', 'GOVERNANCE']).default('COMPLIANCE').meta({ description: 'Object Lock mode of each checkpoint: `COMPLIANCE` or `GOVERNANCE`' }),
  STRONGROOM_AUDIT_CHECKPOINTS_S3_RETENTION_DAYS: z.coerce.number().int().min(1).max(36_500).default(365).meta({ description: 'How long each checkpoint object is retained under Object Lock' }),
  // Keys for the checkpoint bucket alone (often another account, write-only); unset: AWS_ACCESS_KEY_ID's, else the chain.
  STRONGROOM_AUDIT_CHECKPOINTS_S3_ACCESS_KEY_ID: z.string().min(1).optional().meta({ description: 'Key id for the checkpoint bucket alone (another account, write-only, than the file store\'s); with the secret below, both or neither' }),
  STRONGROOM_AUDIT_CHECKPOINTS_S3_SECRET_ACCESS_KEY: z.string().min(1).optional().meta({ description: 'Secret key for the checkpoint bucket alone; with the key id above, both or neither' }),
  STRONGROOM_REWRAP_SECONDS: z.coerce.number().int().min(0).default(30).meta({ description: 'How often the background rewrap looks for person keys under an older master key version (after a rotation, or one the tokenizer made by itself); `0`: only at start and when SystemRotateMasterKey asks' }),
  STRONGROOM_REWRAP_BATCH: z.coerce.number().int().min(1).max(10_000).default(500).meta({ description: 'Person keys rewrapped per transaction' }),
  STRONGROOM_REWRAP_PAUSE_MS: z.coerce.number().int().min(0).default(50).meta({ description: 'Pause between two rewrap batches, so a rotation does not crowd out requests' }),
  // Persons per transaction of the upgrade from a legacy database (docs/operations.md, "Upgrading a legacy database").
  STRONGROOM_LEGACY_BATCH: z.coerce.number().int().min(1).max(1_000).default(50).meta({ description: 'Persons per transaction when upgrading a database sealed before per-person keys (on the rewrap\'s interval and pause)' }),
  STRONGROOM_XTOKEN_MAX_SECONDS: z.coerce.number().int().min(60).default(86_400).meta({ description: 'Longest life of a role or login xtoken (`finaltime` is capped to it)' }),
  STRONGROOM_SESSION_MAX_SECONDS: z.coerce.number().int().min(60).default(3600).meta({ description: 'Longest life of a session, and the life of one that sets no time' }),
  /** The largest profile, app record or other sealed document, as JSON. */
  STRONGROOM_PROFILE_MAX_BYTES: z.coerce.number().int().min(1024).max(16 * 1024 * 1024).default(1024 * 1024).meta({ description: 'Largest profile, app record, session or request payload, as JSON, on every write path (create, bulk, update, patch, requests and their approval, restore, v1); larger is a 400 naming the field. Every JSON value a request carries is also refused past 64 levels of nesting, and a JSON Patch past 100 operations or whose running size total (the profile plus every value it adds, copies or moves) passes this bound' }),
  STRONGROOM_SHARE_MAX_SECONDS: z.coerce.number().int().min(60).default(31 * 86_400).meta({ description: 'Longest life of a shared record (31 days), and its default' }),
  STRONGROOM_SMTP_URL: z.string().regex(/^smtps?:\/\//, 'must be an smtp:// or smtps:// URL').optional().meta({ description: '`smtp://` or `smtps://` URL for login codes; without it they go to the log (development)' }),
  STRONGROOM_SMTP_FROM: z.string().default('Strongroom <no-reply@localhost>').meta({ description: 'Sender of login code emails' }),
  STRONGROOM_LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info').meta({ description: 'pino level; logs are JSON lines (or readable ones: `STRONGROOM_LOG_FORMAT`) in one shape for every process, the supervisor\'s too (`level` a word, `time` in ms, `component`), and never carry PII, tokens or keys' }),
  STRONGROOM_LOG_FORMAT: z.enum(['json', 'pretty']).optional().meta({ description: '`json`: one JSON line per record (what log collectors read); `pretty`: one readable line, `20:58:01 INFO  api        message key=value …`, with the same fields, control characters escaped and levels coloured on a terminal (not with `NO_COLOR`). For the api, the tokenizer and the supervisor (`npm start` tells its children the format it chose)', shown: '`pretty` when stdout is a terminal, else `json`' }),
  STRONGROOM_FILE_STORE: z.enum(['local', 's3']).default('local').meta({ description: '`local` (a directory) or `s3` (an S3-compatible bucket)' }),
  STRONGROOM_FILE_DIR: z.string().optional().meta({ description: 'The directory of the local store; objects are written to a temporary name, synced, then renamed', shown: '`<data dir>/files`' }),
  STRONGROOM_FILE_MAX_BYTES: size.default(32 * 1024 * 1024).meta({ description: 'Largest file (at most `200mb`). FileCreate (and the bulk creations) accept a body that large (as base64, about 4/3 of it, plus 1 MiB); every other operation keeps `STRONGROOM_BODY_LIMIT`', shown: '`32mb`' }),
  STRONGROOM_FILE_ORPHAN_SECONDS: z.coerce.number().int().min(0).default(86_400).meta({ description: 'How often the sweeper looks for objects no file names (older than an hour: a crash mid-upload, a removed tenant) and deletes them; `0` never. Keys the vault did not make are left alone' }),
  STRONGROOM_S3_BUCKET: z.string().min(1).optional().meta({ description: 'The bucket (required with `s3`)' }),
  STRONGROOM_S3_REGION: z.string().min(1).optional().meta({ description: 'The bucket\'s region', shown: '`AWS_REGION`, else `us-east-1`' }),
  STRONGROOM_S3_ENDPOINT: z.url('must be a URL').optional().meta({ description: 'URL of an S3-compatible service (MinIO, Ceph, …)', shown: '– (AWS)' }),
  STRONGROOM_S3_FORCE_PATH_STYLE: bool.default(false).meta({ description: '`true` puts the bucket in the path instead of the host name (MinIO, Ceph)' }),
  ...OIDC_SETTINGS,
  ...EVENTS_SETTINGS,
  ...AUDIT_SINK_SETTINGS,
});

export type Config = ReturnType<typeof loadConfig>;

export function loadConfig(env: NodeJS.ProcessEnv = process.env) {
  const e = parseSettings(env);
  const dataDir = resolve(e.STRONGROOM_DATA_DIR);
  const fileBodyLimit = fileBodyLimitOf(e);
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
    limits: limitsOf(e),
    server: serverOf(e),
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
    audit: auditOf(e, env),
    events: eventsOf(e),
    auditSinks: auditSinksOf(e),
    /**
     * Master-key rotation: how often the background rewrap looks for person keys under an older master version (0:
     * only when SystemRotateMasterKey asks), how many it moves per transaction, and the pause between batches.
     */
    rewrap: { seconds: e.STRONGROOM_REWRAP_SECONDS, batch: e.STRONGROOM_REWRAP_BATCH, pauseMs: e.STRONGROOM_REWRAP_PAUSE_MS },
    /** Persons per transaction of the legacy upgrade (api/vault/jobs/legacy.ts); it runs on the rewrap's schedule and pace. */
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
    /** Undefined: chosen by whether stdout is a terminal (proto/log.ts). */
    logFormat: e.STRONGROOM_LOG_FORMAT,
    files: filesOf(e, env, dataDir, fileBodyLimit),
    /** The console's OpenID Connect sign-in (api/http/oidc.ts); undefined: tokens only. */
    oidc: oidcOf(e),
  };
}

type Settings = z.output<typeof API_SETTINGS>;

/** The settings parsed and checked against each other; an invalid one is an error naming it. */
function parseSettings(env: NodeJS.ProcessEnv): Settings {
  const parsed = API_SETTINGS.safeParse(env);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`);
    throw new Error(`invalid configuration:\n  ${lines.join('\n  ')}`);
  }
  const e = parsed.data;
  if (e.STRONGROOM_FILE_STORE === 's3' && !e.STRONGROOM_S3_BUCKET) {
    throw new Error('invalid configuration:\n  STRONGROOM_S3_BUCKET: required when STRONGROOM_FILE_STORE is s3');
  }
  if (!e.STRONGROOM_AUDIT_CHECKPOINTS_S3_ACCESS_KEY_ID !== !e.STRONGROOM_AUDIT_CHECKPOINTS_S3_SECRET_ACCESS_KEY) {
    throw new Error(
      'invalid configuration:\n  STRONGROOM_AUDIT_CHECKPOINTS_S3_ACCESS_KEY_ID and STRONGROOM_AUDIT_CHECKPOINTS_S3_SECRET_ACCESS_KEY: set both or neither',
    );
  }
  // A file is sealed and opened in one tokenizer message, and those may be 256 MiB (tokenizer/proto.ts); an event's
  // details (a profile, twice at most) are linked in one too, and a queued event's over 160 MiB refused (store/audit.ts).
  if (e.STRONGROOM_FILE_MAX_BYTES > 200 * 1024 * 1024) throw new Error('invalid configuration:\n  STRONGROOM_FILE_MAX_BYTES: at most 200mb');
  if (e.STRONGROOM_BODY_LIMIT > 64 * 1024 * 1024) throw new Error('invalid configuration:\n  STRONGROOM_BODY_LIMIT: at most 64mb');
  // A body larger than the budget for bodies in memory could never be taken in.
  const fileBodyLimit = fileBodyLimitOf(e);
  if (e.STRONGROOM_BODY_MEMORY < fileBodyLimit) {
    throw new Error(`invalid configuration:\n  STRONGROOM_BODY_MEMORY: at least the largest body, ${fileBodyLimit} bytes (a file of STRONGROOM_FILE_MAX_BYTES)`);
  }
  return e;
}

/** FileCreate's body: a file of STRONGROOM_FILE_MAX_BYTES as base64, plus room for the rest of the request. */
function fileBodyLimitOf(e: Settings): number {
  return Math.max(e.STRONGROOM_BODY_LIMIT, Math.ceil(e.STRONGROOM_FILE_MAX_BYTES / 3) * 4 + 1024 * 1024);
}

function limitsOf(e: Settings) {
  return {
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
  
  };
}

function serverOf(e: Settings) {
  return {
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
  
  };
}

function auditOf(e: Settings, env: NodeJS.ProcessEnv) {
  return {
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
  
  };
}

function filesOf(e: Settings, env: NodeJS.ProcessEnv, dataDir: string, fileBodyLimit: number) {
  return {
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
