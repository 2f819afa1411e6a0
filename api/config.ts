// Every api setting, read from the environment once, validated and typed.
import { resolve, join } from 'node:path';
import { z } from 'zod';

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
  HOST: z.string().default('0.0.0.0'),
  STRONGROOM_DATA_DIR: z.string().default('./data'),
  STRONGROOM_ROOT_TOKEN: z.uuid('must be a UUID').optional(),
  DATABASE_URL: z.string().regex(/^postgres(ql)?:\/\//, 'must be a postgres:// URL').optional(),
  STRONGROOM_DB_POOL_MAX: z.coerce.number().int().min(1).max(200).default(10),
  STRONGROOM_TOKENIZER_SOCKET: z.string().optional(),
  STRONGROOM_TOKENIZER_ADDRESS: z.string().optional(),
  STRONGROOM_TOKENIZER_DEADLINE_MS: z.coerce.number().int().min(100).default(10_000),
  STRONGROOM_BODY_LIMIT: size.default(32 * 1024 * 1024),
  STRONGROOM_LIST_USERS: bool.default(true),
  STRONGROOM_VERSIONING: bool.default(true),
  STRONGROOM_MAX_VERSIONS: z.coerce.number().int().min(1).max(1000).default(10),
  STRONGROOM_LIMIT_CAP: z.coerce.number().int().min(1).max(10_000).default(100),
  STRONGROOM_UNLOCK_SECONDS: z.coerce.number().int().min(1).default(60),
  STRONGROOM_BULK_MAX_RECORDS: z.coerce.number().int().min(1).default(10_000),
  STRONGROOM_SWEEP_SECONDS: z.coerce.number().int().min(0).default(60),
  STRONGROOM_XTOKEN_MAX_SECONDS: z.coerce.number().int().min(60).default(86_400),
  STRONGROOM_SESSION_MAX_SECONDS: z.coerce.number().int().min(60).default(3600),
  STRONGROOM_SHARE_MAX_SECONDS: z.coerce.number().int().min(60).default(31 * 86_400),
  STRONGROOM_SMTP_URL: z.string().regex(/^smtps?:\/\//, 'must be an smtp:// or smtps:// URL').optional(),
  STRONGROOM_SMTP_FROM: z.string().default('Strongroom <no-reply@localhost>'),
  STRONGROOM_LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
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
  return {
    port: e.PORT,
    host: e.HOST,
    dataDir,
    rootToken: e.STRONGROOM_ROOT_TOKEN,
    databaseUrl: e.DATABASE_URL,
    dbPoolMax: e.STRONGROOM_DB_POOL_MAX,
    tokenizer: {
      // A unix socket is the default transport; a TCP address wins when given.
      target: e.STRONGROOM_TOKENIZER_ADDRESS ?? `unix:${e.STRONGROOM_TOKENIZER_SOCKET ?? join(dataDir, 'run', 'tokenizer.sock')}`,
      deadlineMs: e.STRONGROOM_TOKENIZER_DEADLINE_MS,
    },
    bodyLimit: e.STRONGROOM_BODY_LIMIT,
    listUsers: e.STRONGROOM_LIST_USERS,
    versioning: e.STRONGROOM_VERSIONING,
    maxVersions: e.STRONGROOM_MAX_VERSIONS,
    limitCap: e.STRONGROOM_LIMIT_CAP,
    unlockSeconds: e.STRONGROOM_UNLOCK_SECONDS,
    bulkMaxRecords: e.STRONGROOM_BULK_MAX_RECORDS,
    /** How often expired records are removed; 0 turns the sweeper off (reads still hide expired records). */
    sweepSeconds: e.STRONGROOM_SWEEP_SECONDS,
    /** The longest an xtoken may live (`max_xtoken_retention_period`); 10 minutes when the call sets none. */
    xtokenMaxSeconds: e.STRONGROOM_XTOKEN_MAX_SECONDS,
    /** The longest a session lives (`max_session_retention_period`), and how long one without times lives. */
    sessionMaxSeconds: e.STRONGROOM_SESSION_MAX_SECONDS,
    /** The longest a shared record lives (`max_shareable_record_retention_period`), and its default. */
    shareMaxSeconds: e.STRONGROOM_SHARE_MAX_SECONDS,
    smtp: { url: e.STRONGROOM_SMTP_URL, from: e.STRONGROOM_SMTP_FROM },
    logLevel: e.STRONGROOM_LOG_LEVEL,
  };
}
