// `npm start`: runs the tokenizer and the api as two processes, restarts either if it dies once running,
// and stops both cleanly on SIGTERM or SIGINT. Each child gets only its own settings: key material reaches the
// tokenizer alone, and the database, the root token, mail and object store settings reach the api alone.
import { spawn, type ChildProcess, type SpawnOptions } from 'node:child_process';
import { chmodSync, chownSync, lstatSync, mkdirSync, readdirSync } from 'node:fs';
import { dirname, join, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { tokenizerSocketPath } from '../proto/paths.js';
import { colourFor, logFormat, prettyRecord } from '../proto/log.js';

// Started from source (tsx) the children are .ts files run with the same loader; from dist they are .js.
const ext = import.meta.url.endsWith('.ts') ? 'ts' : 'js';
const tokenizerMain = fileURLToPath(new URL(`../tokenizer/main.${ext}`, import.meta.url));
const apiMain = fileURLToPath(new URL(`./main.${ext}`, import.meta.url));

let stopping = false;
let tokenizer: ChildProcess | undefined;
let api: ChildProcess | undefined;
let restarts = 0;
let apiRestarts = 0;
/** Whether the api has ever listened (it says so over its IPC channel): from then on, an api that dies is started again. */
let apiHasRun = false;

// The api reports its time to ready from this moment.
const supervisorStartedAt = String(Date.now());

// One log format for the three processes, chosen here by whether our stdout (which the children share) is a terminal,
// unless STRONGROOM_LOG_FORMAT says: the children are told it. A value that is neither is passed on for the api's
// settings check to refuse by name.
const logFormatChosen = logFormat(process.env.STRONGROOM_LOG_FORMAT, process.stdout.isTTY);
if (!process.env.STRONGROOM_LOG_FORMAT) process.env.STRONGROOM_LOG_FORMAT = logFormatChosen;

/** Settings the tokenizer reads (tokenizer/config.ts), plus what any process needs to run. Nothing else. */
const TOKENIZER_ENV = [
  /^STRONGROOM_(DATA_DIR|LOG_LEVEL|LOG_FORMAT|WRAPPING_KEY|WRAPPING_KEY_FILE)$/,
  /^STRONGROOM_TOKENIZER_(SOCKET|ADDRESS|METRICS_PORT|ROTATE_AFTER_SEALS|KEYRING_CHECK_SECONDS|CUSTODY|KEY_CACHE_SECONDS)$/,
  /^STRONGROOM_RECOVERY_[A-Z_]+$/,
  // The HSM's settings, and SoftHSM2's configuration file (a PKCS#11 module reads its own variables).
  /^STRONGROOM_PKCS11_[A-Z_]+$/,
  /^SOFTHSM2_CONF$/,
  // Traces (OTEL_EXPORTER_OTLP_ENDPOINT, OTEL_TRACES_SAMPLER…: proto/tracing.ts).
  /^OTEL_[A-Z0-9_]+$/,
  /^(PATH|HOME|USER|LANG|LANGUAGE|LC_[A-Z]+|TZ|TMPDIR|NODE_ENV|NODE_OPTIONS|NODE_EXTRA_CA_CERTS|NO_COLOR)$/,
];
/** Key material, and the settings of the tokenizer's own uid: never in the api's environment. */
const TOKENIZER_ONLY = [
  /^STRONGROOM_WRAPPING_KEY/,
  /^STRONGROOM_RECOVERY_/,
  /^STRONGROOM_PKCS11_/,
  /^SOFTHSM2_CONF$/,
  /^STRONGROOM_TOKENIZER_(UID|GID|ROTATE_AFTER_SEALS|METRICS_PORT|KEYRING_CHECK_SECONDS|CUSTODY|KEY_CACHE_SECONDS)$/,
];

function tokenizerEnv(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  return Object.fromEntries(Object.entries(env).filter(([k]) => TOKENIZER_ENV.some((re) => re.test(k))));
}

function apiEnv(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  return Object.fromEntries(Object.entries(env).filter(([k]) => !TOKENIZER_ONLY.some((re) => re.test(k))));
}

interface Identity {
  uid: number;
  gid: number;
}

function idOf(name: string): number | undefined {
  const value = process.env[name];
  if (!value) return undefined;
  if (!/^\d+$/.test(value) || Number(value) === 0) throw new Error(`${name} must be a non-zero numeric id, got ${JSON.stringify(value)}`);
  return Number(value);
}

function identityOf(prefix: string): Identity | undefined {
  const uid = idOf(`${prefix}_UID`);
  return uid === undefined ? undefined : { uid, gid: idOf(`${prefix}_GID`) ?? uid };
}

/**
 * Who each child runs as. Only a supervisor running as root can choose: STRONGROOM_TOKENIZER_UID (and _GID) and
 * STRONGROOM_API_UID (and _GID) then give each child its own uid. Otherwise both share the supervisor's uid, and
 * what separates them is the split environment and the keyring's file modes, not the kernel.
 */
function identities(): { tokenizer?: Identity | undefined; api?: Identity | undefined } {
  const tokenizer = identityOf('STRONGROOM_TOKENIZER');
  const api = identityOf('STRONGROOM_API');
  const root = process.getuid?.() === 0;
  if (!tokenizer && !api) {
    if (root) say({ msg: 'running as root with no STRONGROOM_TOKENIZER_UID and STRONGROOM_API_UID: both processes run as root' }, 'warn');
    return {};
  }
  if (!root) {
    say({ msg: 'STRONGROOM_TOKENIZER_UID and STRONGROOM_API_UID take effect only when the supervisor runs as root: both processes share this uid', uid: process.getuid?.() });
    return {};
  }
  if (!tokenizer || !api || tokenizer.uid === api.uid) throw new Error('set STRONGROOM_TOKENIZER_UID and STRONGROOM_API_UID together, to two different uids');
  return { tokenizer, api };
}

function chownTree(path: string, uid: number, gid: number): void {
  chownSync(path, uid, gid);
  if (!lstatSync(path).isDirectory()) return;
  for (const name of readdirSync(path)) chownTree(join(path, name), uid, gid);
}

/**
 * Before the tokenizer starts: its keyring directory exists, mode 0700. With a tokenizer uid it belongs to that
 * uid alone, and the socket's directory (which the api shares for its embedded database's socket) belongs to it
 * with the api's group, mode 03770: setgid, so the socket the tokenizer creates there (0770 under its umask 007)
 * is the api group's and no other uid's to reach; sticky, so neither process can remove the other's entries.
 */
function prepareDirs(ids: ReturnType<typeof identities>): void {
  const dataDir = resolve(process.env.STRONGROOM_DATA_DIR || './data');
  const keyringDir = join(dataDir, 'tokenizer');
  const socketDir = dirname(tokenizerSocketPath(process.env));
  mkdirSync(keyringDir, { recursive: true, mode: 0o700 });
  chmodSync(keyringDir, 0o700);
  const socketDirMade = mkdirSync(socketDir, { recursive: true, mode: 0o700 }) !== undefined;
  if (ids.api) chownSync(dataDir, ids.api.uid, ids.api.gid);
  if (!ids.tokenizer) return;
  // The tokenizer passes through the data directory to its own; it cannot list it.
  const mode = lstatSync(dataDir).mode & 0o7777;
  if ((mode & 0o111) !== 0o111) chmodSync(dataDir, mode | 0o111);
  chownTree(keyringDir, ids.tokenizer.uid, ids.tokenizer.gid);
  // Only a directory of our own: a shared one named by STRONGROOM_TOKENIZER_SOCKET (/tmp, say) is left alone.
  if (socketDirMade || socketDir.startsWith(`${dataDir}${sep}`)) {
    chownSync(socketDir, ids.tokenizer.uid, ids.api!.gid);
    chmodSync(socketDir, 0o3770);
  } else {
    say({ msg: 'the socket directory is not the vault\'s own: make sure only the tokenizer and the api can reach it', socketDir }, 'warn');
  }
}

// What the children create (database, uploads, keyring) is private to its owner: see prepareDirs for the socket.
process.umask(0o077);
let ids: ReturnType<typeof identities> = {};
try {
  ids = identities();
  prepareDirs(ids);
} catch (err) {
  // Meant for a human fixing the settings: one plain line.
  process.stderr.write(`supervisor: ${(err as Error).message}\n`);
  process.exit(1);
}

// The api's ORM keeps its transaction in an AsyncLocalStorage. On Node 22 that installs promise hooks which run on
// every promise (about 5% of the api's CPU per write, measured with test/bench/profile.ts); with context frames
// (the default from Node 24) a store costs nothing until it is read.
const API_FLAGS = ['--experimental-async-context-frame'];

/** How a child runs: its environment, its uid and gid (unset: ours), umask, node flags, and an IPC channel. */
interface ChildSetup {
  env: NodeJS.ProcessEnv;
  as: Identity | undefined;
  umask: number;
  flags?: string[];
  ipc?: boolean;
}

function start(file: string, { env, as, umask, flags = [], ipc = false }: ChildSetup): ChildProcess {
  const options: SpawnOptions = { stdio: ipc ? ['inherit', 'inherit', 'inherit', 'ipc'] : 'inherit', env };
  if (as) Object.assign(options, as);
  // A child takes the umask in force when it is spawned (spawn forks synchronously).
  const previous = process.umask(umask);
  try {
    return spawn(process.execPath, [...process.execArgv, ...flags, file], options);
  } finally {
    process.umask(previous);
  }
}

/** A line in the shape of the processes' own (proto/log.ts): `level` a word, `time` in ms, `component`. */
function say(fields: Record<string, unknown>, level: 'info' | 'warn' | 'error' = 'info'): void {
  const record = { level, time: Date.now(), component: 'supervisor', ...fields };
  process.stderr.write(logFormatChosen === 'pretty' ? prettyRecord(record, colourFor(process.stderr)) : `${JSON.stringify(record)}\n`);
}

function startTokenizer(): void {
  // Under its own uid its socket must reach the api's group; the keyring's own modes (0700, 0600) are explicit.
  // An IPC channel, so that the tokenizer stops once the supervisor is gone (tokenizer/main.ts).
  const child = start(tokenizerMain, { env: tokenizerEnv(process.env), as: ids.tokenizer, umask: ids.tokenizer ? 0o007 : 0o077, ipc: true });
  tokenizer = child;
  say({ msg: 'tokenizer started', pid: child.pid });
  const startedAt = Date.now();
  child.on('exit', (code, signal) => {
    if (stopping) return;
    // A tokenizer that keeps dying at once is broken, not unlucky: back off, up to 10 s.
    restarts = Date.now() - startedAt > 30_000 ? 0 : restarts + 1;
    const delay = Math.min(10_000, 250 * 2 ** Math.min(restarts, 6));
    say({ msg: 'tokenizer exited, restarting', code, signal, delay }, 'error');
    // Not unref'd: with both children dead, this timer is all that keeps the supervisor alive to bring them back.
    setTimeout(() => !stopping && startTokenizer(), delay);
  });
}

function stop(signal: NodeJS.Signals): void {
  if (stopping) return;
  stopping = true;
  const children = [api, tokenizer].filter((c): c is ChildProcess => !!c && c.exitCode === null && c.signalCode === null);
  // Past the grace period, whatever still runs is killed.
  const force = setTimeout(() => children.forEach((c) => c.kill('SIGKILL')), 20_000);
  force.unref();
  let left = children.length;
  if (left === 0) process.exit(0);
  for (const c of children) {
    c.once('exit', () => {
      if (--left === 0) process.exit(0);
    });
    c.kill(signal);
  }
}

process.once('SIGTERM', () => stop('SIGTERM'));
process.once('SIGINT', () => stop('SIGINT'));

startTokenizer();
startApi();

/**
 * The api is the service. One that dies before it has ever listened failed to start (a bad setting, a database it
 * cannot reach): the tokenizer is stopped too and the supervisor exits with its code, for a person or an
 * orchestrator to see. One that dies after that (a crash, memory exhausted by a client) is started again, backing
 * off like the tokenizer, so one client cannot take the vault down for good.
 */
function startApi(): void {
  const env = { ...apiEnv(process.env), STRONGROOM_STARTED_AT: supervisorStartedAt };
  const child = start(apiMain, { env, as: ids.api, umask: 0o077, flags: API_FLAGS, ipc: true });
  api = child;
  const startedAt = Date.now();
  child.on('message', (m: { strongroom?: string }) => {
    if (m?.strongroom === 'listening') apiHasRun = true;
  });
  child.channel?.unref();
  say({ msg: 'api started', pid: child.pid });
  child.on('exit', (code, signal) => {
    if (stopping) return;
    if (!apiHasRun) {
      say({ msg: 'api exited', code, signal });
      stopping = true;
      tokenizer?.kill('SIGTERM');
      tokenizer?.once('exit', () => process.exit(code ?? 1));
      setTimeout(() => process.exit(code ?? 1), 10_000).unref();
      return;
    }
    apiRestarts = Date.now() - startedAt > 30_000 ? 0 : apiRestarts + 1;
    const delay = Math.min(10_000, 250 * 2 ** Math.min(apiRestarts, 6));
    say({ msg: 'api exited, restarting', code, signal, delay }, 'error');
    // Not unref'd, as the tokenizer's: a supervisor whose children are both dead must not exit with nothing to wait on.
    setTimeout(() => !stopping && startApi(), delay);
  });
}
