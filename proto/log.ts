// One shape for every log line of every process (api, tokenizer, operator, and the supervisor's own): a JSON object
// with `level` as a word (`info`, `warn`, `error`…), `time` in milliseconds since the epoch, and `component`.
// Written as JSON wherever stdout is not a terminal (a container, a file, a pipe: what log collectors read), and, for
// a person at a terminal, as one readable line per record with the same fields (STRONGROOM_LOG_FORMAT chooses).
import pino, { type Logger, type LoggerOptions } from 'pino';

export const LOG_FORMATS = ['json', 'pretty'] as const;
export type LogFormat = (typeof LOG_FORMATS)[number];

export function logOptions(component: string, level: string): LoggerOptions {
  return { level, base: { component }, formatters: { level: (label) => ({ level: label }) } };
}

/** The format asked for (STRONGROOM_LOG_FORMAT), else pretty on a terminal and JSON anywhere else. */
export function logFormat(asked: string | undefined, tty: boolean | undefined): LogFormat {
  return asked === 'json' || asked === 'pretty' ? asked : tty ? 'pretty' : 'json';
}

/** Where lines go: stdout, unless a test gives its own. */
export interface LogOut {
  write(text: string): unknown;
  isTTY?: boolean;
}

/** Levels are coloured only on a terminal, and not when NO_COLOR is set (no-color.org). */
export function colourFor(out: { isTTY?: boolean }, env: NodeJS.ProcessEnv = process.env): boolean {
  return out.isTTY === true && !env.NO_COLOR;
}

/** How long a write to stdout may wait for its reader (a full pipe) before lines are kept aside, then dropped. */
const STALL_MS = 1_000;
/** What is kept aside while stdout's reader is stalled; past it, lines are dropped. */
const KEPT_ASIDE_BYTES = 1024 * 1024;

/**
 * stdout, written synchronously (a line logged before a crash is not lost). A reader that stops reading (a full pipe)
 * must not freeze the process: by default the write would retry for ever, in a sleep no signal interrupts (SIGTERM
 * included). After STALL_MS the lines are kept aside, up to KEPT_ASIDE_BYTES, then dropped, and written again once
 * the reader reads.
 */
export function stdoutDestination(fd = 1): pino.DestinationStream {
  let stalledSince: number | undefined;
  const out = pino.destination({
    fd,
    sync: true,
    maxLength: KEPT_ASIDE_BYTES,
    retryEAGAIN: () => Date.now() - (stalledSince ??= Date.now()) < STALL_MS,
  });
  // Bytes written: the reader reads again (a retry's own `write` of nothing is not one).
  out.on('write', (n: number) => {
    if (n > 0) stalledSince = undefined;
  });
  // A write given up on (the stalled reader): the line stays aside, or is dropped past the bound; nothing to throw.
  out.on('error', () => undefined);
  return out;
}

/** A logger of the one shape: JSON lines exactly as pino writes them, or readable ones (`pretty`). */
export function createLog(component: string, level: string, format: LogFormat, out?: LogOut): Logger {
  // A stdout whose write was replaced (a test capturing lines) is written to as it is, as pino itself does.
  const tampered = process.stdout.write !== (process.stdout.constructor as { prototype: { write: unknown } }).prototype.write;
  if (format === 'json') return pino(logOptions(component, level), out ?? (tampered ? process.stdout : stdoutDestination()));
  const to: LogOut = out ?? stdoutDestination();
  const colour = colourFor(out ?? process.stdout);
  return pino(logOptions(component, level), { write: (line: string) => to.write(prettyLine(line, colour)) });
}

/**
 * What could end a record's line or disguise it: control characters (ANSI escapes among them), Unicode line and
 * paragraph separators, and bidirectional overrides. A log line must never turn into two, whatever a value holds.
 */
// oxlint-disable-next-line no-control-regex -- control characters are exactly what this escapes
const UNSAFE = /[\x00-\x1f\x7f-\x9f\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;
const HAS_UNSAFE = new RegExp(UNSAFE.source);
const escapeUnsafe = (text: string) => text.replace(UNSAFE, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);

/** A string as JSON writes it, with what JSON leaves alone (C1 controls, separators, bidi) escaped too. */
function quoted(text: string): string {
  return escapeUnsafe(JSON.stringify(text));
}

/** Free text (a message, a level, a component) as it is, unless it holds something unsafe: then quoted. */
function plain(text: string): string {
  return HAS_UNSAFE.test(text) ? quoted(text) : text;
}

/** A key or a value of `key=value`: bare when it cannot be mistaken, else as JSON (strings quoted). */
function token(value: unknown): string {
  if (typeof value === 'string') return /^[\p{L}\p{N}_.:/@+-]+$/u.test(value) ? value : quoted(value);
  try {
    const json = JSON.stringify(value) as string | undefined;
    return escapeUnsafe(json ?? String(value));
  } catch {
    // A BigInt or a cycle: not from a JSON line, but never a throw from a logger.
    return quoted(Object.prototype.toString.call(value));
  }
}

const LEVEL_COLOURS: Record<string, number> = { fatal: 35, error: 31, warn: 33, info: 32, debug: 36, trace: 90 };
/** The fields the line shows in place (when of their usual type); every other one follows as `key=value`. */
const PLACED = { level: 'string', time: 'number', component: 'string', msg: 'string' } as const;

const two = (n: number) => String(n).padStart(2, '0');

/** One record as one line: `20:58:01 INFO  api        message key=value …` (local time), ending in a newline. */
export function prettyRecord(record: Record<string, unknown>, colour: boolean): string {
  const placed = (k: keyof typeof PLACED) => typeof record[k] === PLACED[k] && (k !== 'time' || Number.isFinite(record[k]));
  const at = placed('time') ? new Date(record.time as number) : undefined;
  const clock = at && !Number.isNaN(at.getTime()) ? `${two(at.getHours())}:${two(at.getMinutes())}:${two(at.getSeconds())}` : '--:--:--';
  const level = placed('level') ? (record.level as string) : '';
  const word = plain(level.toUpperCase()).padEnd(5);
  const code = LEVEL_COLOURS[level];
  const parts = [clock, colour && code ? `\x1b[${code}m${word}\x1b[0m` : word, plain(placed('component') ? (record.component as string) : '-').padEnd(10)];
  if (placed('msg')) parts.push(plain(record.msg as string));
  for (const [k, v] of Object.entries(record)) {
    if (Object.hasOwn(PLACED, k) && placed(k as keyof typeof PLACED)) continue;
    parts.push(`${token(k)}=${token(v)}`);
  }
  return `${parts.join(' ')}\n`;
}

/** A line pino wrote (JSON) as a readable one; a line that is not a JSON object is shown escaped, on one line. */
export function prettyLine(line: string, colour: boolean): string {
  let record: unknown;
  try {
    record = JSON.parse(line);
  } catch {
    record = undefined;
  }
  if (record === null || typeof record !== 'object' || Array.isArray(record)) return `${plain(line.replace(/\n$/, ''))}\n`;
  return prettyRecord(record as Record<string, unknown>, colour);
}
