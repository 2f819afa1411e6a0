// The domain services one api process shares between requests, built once by the composition root.
import type { Logger } from 'pino';
import type { Config } from '../config.js';
import type { Database } from '../store/database.js';
import type { TokenizerClient } from '../tokenizer-client.js';
import { AuditTrail, AuditReader } from './audit/trail.js';
import { AuditCheckpoints } from './audit/checkpoints.js';
import { AuditVerifier } from './audit/verification.js';
import { Credentials } from './credentials.js';
import { Tenants } from './tenants.js';
import { Unlocks } from './unlocks.js';
import { Users } from './users.js';
import { Tokens } from './tokens.js';
import { Sweeper } from './jobs/sweeper.js';
import { Roles } from './roles.js';
import { Groups } from './groups.js';
import { Logins } from './logins.js';
import { Limits } from './limits.js';
import { Appdata } from './appdata.js';
import { createNotifier } from './notifier.js';
import { Sealer } from './sealed.js';
import { SubjectKeys } from './subject-keys.js';
import { KeyringCheck } from './keyring-check.js';
import { Rewrapper } from './jobs/rewrap.js';
import { KeyCustody } from './custody.js';
import { TenantKeks } from './tenant-keks.js';
import { Events } from './events.js';
import { LegacyMigrator } from './jobs/legacy.js';
import { Consent } from './consent.js';
import { Sessions } from './sessions.js';
import { SharedRecords } from './shared.js';
import { UserRequests } from './requests.js';
import { Files } from './files.js';
import { BulkStatistics } from './statistics.js';
import { createBlobStore } from '../store/blobs/index.js';
import { Outbox } from './privacy/outbox.js';
import { Dispatcher } from './privacy/dispatcher.js';
import { SinkFactory } from './privacy/sinks.js';
import { Subscriptions } from './privacy/subscriptions.js';
import { parseAllowList } from './privacy/ssrf.js';
import { AuditExporter } from './audit/export.js';
import { CheckpointStamper } from './audit/timestamps.js';
import type { SessionLeases } from '../store/session-locks.js';

export interface Services {
  config: Config;
  log: Logger;
  db: Database;
  tokenizer: TokenizerClient;
  audit: AuditTrail;
  auditReader: AuditReader;
  auditCheckpoints: AuditCheckpoints;
  auditVerifier: AuditVerifier;
  credentials: Credentials;
  tenants: Tenants;
  unlocks: Unlocks;
  users: Users;
  keys: SubjectKeys;
  keyringCheck: KeyringCheck;
  rewrapper: Rewrapper;
  custody: KeyCustody;
  tenantKeks: TenantKeks;
  legacy: LegacyMigrator;
  tokens: Tokens;
  sweeper: Sweeper;
  roles: Roles;
  groups: Groups;
  logins: Logins;
  limits: Limits;
  appdata: Appdata;
  consent: Consent;
  sessions: Sessions;
  shared: SharedRecords;
  requests: UserRequests;
  files: Files;
  statistics: BulkStatistics;
  outbox: Outbox;
  subscriptions: Subscriptions;
  dispatcher: Dispatcher;
  auditExporter: AuditExporter;
  /** The leases of the elected jobs (one connection): closed once both jobs stopped. */
  leases: SessionLeases | undefined;
}

export function buildServices(config: Config, log: Logger, db: Database, tokenizer: TokenizerClient): Services {
  const roles = new Roles(db);
  const credentials = new Credentials(db);
  const keys = new SubjectKeys(db, tokenizer);
  const events = new Events();
  const users = new Users(tokenizer, db, { versioning: config.versioning, maxVersions: config.maxVersions, maxBytes: config.profileMaxBytes }, keys, events);
  const sealer = new Sealer(tokenizer, config.profileMaxBytes, keys);
  const appdata = new Appdata(sealer, { versioning: config.versioning, maxVersions: config.maxVersions });
  const consent = new Consent(sealer);
  const files = new Files({ tokenizer, db, blobs: createBlobStore(config.files.store), log, keys }, { orphanSeconds: config.files.orphanSeconds });
  // A user's removal takes the rows of their files (cascade) and their login xtokens with it; once that commits,
  // their objects are deleted and this process forgets their cached principals.
  events.on('personRemoved', ({ scope, token }) => {
    files.reapAfterCommit(scope);
    credentials.forgetUserAfterCommit(scope.stores, scope.tenantId, token);
  });
  const statistics = new BulkStatistics(db, log);
  events.on('peopleLoaded', ({ scope, count }) => statistics.loaded(scope, count));
  const notifier = createNotifier({ smtpUrl: config.smtp.url, smsWebhookUrl: config.smsWebhookUrl, from: config.smtp.from, log });
  const logins = new Logins(db, { users, credentials }, notifier, log, config.login);
  const audit = new AuditTrail(db, tokenizer, log, keys, events);
  const keyringCheck = new KeyringCheck(db, tokenizer, log, keys);
  // The upgrade from a legacy database: its tenants are served again as each is done; their trails are neither
  // checkpointed nor verified before they are re-chained (a checkpoint of a link about to change would not hold).
  const { checkpointSeconds: seconds, checkpointEvents, checkpointDir: dir, checkpointS3: s3 } = config.audit;
  const stamper = config.auditSinks.tsa && new CheckpointStamper(db, log, config.auditSinks.tsa);
  const auditCheckpoints = new AuditCheckpoints(db, tokenizer, log, { seconds, events: checkpointEvents, dir, s3, stamper }, keyringCheck);
  events.on('auditAppended', ({ tenantId, events: appended }) => auditCheckpoints.counted(tenantId, appended));
  const rewrapper = new Rewrapper(db, tokenizer, log, config.rewrap, keys);
  const legacy = new LegacyMigrator(db, tokenizer, log, { ...config.rewrap, batch: config.legacyBatch }, { keys, audit, blobs: files.blobs, events });
  events.on('tenantUpgraded', ({ tenantId }) => keyringCheck.migrated(tenantId));
  const { leases, auditExporter, outbox, subscriptions, dispatcher } = outbound(config, log, db, sealer, events);
  const auditVerifier = new AuditVerifier(db, tokenizer, log, auditCheckpoints, {
    seconds: config.audit.verifySeconds,
    migration: keyringCheck,
    reportCommitted: async (tenantId) => void (await audit.linker.reportNow(tenantId)),
    committedHere: (tenantId) => audit.linker.committedSeq(tenantId),
  });
  return {
    config,
    log,
    db,
    tokenizer,
    audit,
    auditReader: new AuditReader(tokenizer, keys, users),
    auditCheckpoints,
    auditVerifier,
    keys,
    keyringCheck,
    rewrapper,
    custody: new KeyCustody(tokenizer, rewrapper),
    tenantKeks: new TenantKeks(db, tokenizer, log, () => rewrapper.kick()),
    legacy,
    credentials,
    tenants: new Tenants(db, config.tenantDomain),
    unlocks: new Unlocks(db, config.unlockSeconds),
    tokens: new Tokens(tokenizer, db, keys),
    sweeper: new Sweeper(db, log, config.sweepSeconds, { files, logins, audit, eventRetentionSeconds: config.events.retentionSeconds }),
    roles,
    groups: new Groups(roles),
    users,
    logins,
    limits: new Limits(db, config.limits),
    appdata,
    consent,
    sessions: new Sessions(sealer, config.sessionMaxSeconds),
    shared: new SharedRecords(db, users, appdata, config.shareMaxSeconds),
    requests: new UserRequests(sealer, users, appdata, consent),
    files,
    statistics,
    outbox,
    subscriptions,
    dispatcher,
    auditExporter,
    leases,
  };
}

/**
 * What leaves the vault: the audit sinks' exporter and the privacy events (their outbox, subscriptions and
 * dispatcher). One replica per tenant at a time streams its trail and delivers its events (their leases).
 */
function outbound(config: Config, log: Logger, db: Database, sealer: Sealer, events: Events) {
  const leases = db.sessionLeases();
  const { sinks: sinkSettings, seconds: sinkSeconds, lagWarn, tsa } = config.auditSinks;
  const auditExporter = new AuditExporter(db, log, sinkSettings, { seconds: sinkSeconds, lagWarn, timestamped: Boolean(tsa) }, leases);
  events.on('auditAppended', ({ tenantId }) => auditExporter.appended(tenantId));
  // Privacy events: written beside each write's audit event, delivered by the tenant's elected dispatcher.
  const outbox = new Outbox(config.events.confirmSeconds, events);
  const allow = parseAllowList(config.events.allowAddresses);
  const sinks = new SinkFactory(sealer, { allow, timeoutMs: config.events.timeoutMs, maxResponseBytes: config.events.maxResponseBytes, concurrency: config.events.concurrency, natsUrl: config.events.natsUrl, natsPrefix: config.events.natsPrefix }, log);
  const dispatcher = new Dispatcher(db, log, { seconds: config.events.dispatchSeconds, retrySeconds: config.events.retrySeconds, retryFirstMs: config.events.retryFirstMs, measureSeconds: config.events.measureSeconds }, { sinks, outbox, leases });
  events.on('privacyEventsCommitted', ({ tenantId }) => dispatcher.committed(tenantId));
  const subscriptions = new Subscriptions(sealer, sinks, { allow, maxSubscriptions: config.events.maxSubscriptions, natsPrefix: config.events.natsPrefix });
  return { leases, auditExporter, outbox, subscriptions, dispatcher };
}
