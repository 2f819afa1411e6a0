// `npm start`: runs the tokenizer and the api as two processes, restarts the tokenizer if it dies,
// and stops both cleanly on SIGTERM or SIGINT.
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';

// Started from source (tsx) the children are .ts files run with the same loader; from dist they are .js.
const ext = import.meta.url.endsWith('.ts') ? 'ts' : 'js';
const tokenizerMain = fileURLToPath(new URL(`../tokenizer/main.${ext}`, import.meta.url));
const apiMain = fileURLToPath(new URL(`./main.${ext}`, import.meta.url));

let stopping = false;
let tokenizer: ChildProcess | undefined;
let api: ChildProcess | undefined;
let restarts = 0;

// The api reports its time to ready from this moment.
const supervisorStartedAt = String(Date.now());

// The api's ORM keeps its transaction in an AsyncLocalStorage. On Node 22 that installs promise hooks which run on
// every promise (about 5% of the api's CPU per write, measured with test/bench/profile.ts); with context frames
// (the default from Node 24) a store costs nothing until it is read.
const API_FLAGS = ['--experimental-async-context-frame'];

function start(file: string, flags: string[] = []): ChildProcess {
  return spawn(process.execPath, [...process.execArgv, ...flags, file], { stdio: 'inherit', env: { ...process.env, STRONGROOM_STARTED_AT: supervisorStartedAt } });
}

function say(fields: Record<string, unknown>): void {
  process.stderr.write(`${JSON.stringify({ component: 'supervisor', time: Date.now(), ...fields })}\n`);
}

function startTokenizer(): void {
  const child = start(tokenizerMain);
  tokenizer = child;
  say({ msg: 'tokenizer started', pid: child.pid });
  const startedAt = Date.now();
  child.on('exit', (code, signal) => {
    if (stopping) return;
    // A tokenizer that keeps dying at once is broken, not unlucky: back off, up to 10 s.
    restarts = Date.now() - startedAt > 30_000 ? 0 : restarts + 1;
    const delay = Math.min(10_000, 250 * 2 ** Math.min(restarts, 6));
    say({ msg: 'tokenizer exited, restarting', code, signal, delay });
    setTimeout(() => !stopping && startTokenizer(), delay).unref();
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
api = start(apiMain, API_FLAGS);
api.on('exit', (code, signal) => {
  if (stopping) return;
  // The api is the service: if it dies, stop the tokenizer too and let the orchestrator restart us.
  say({ msg: 'api exited', code, signal });
  stopping = true;
  tokenizer?.kill('SIGTERM');
  tokenizer?.once('exit', () => process.exit(code ?? 1));
  setTimeout(() => process.exit(code ?? 1), 10_000).unref();
});
