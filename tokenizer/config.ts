// Every tokenizer setting, read from the environment once and validated; bad values stop the start.
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { tokenizerSocketPath } from '../proto/paths.js';
import { LOG_FORMATS, type LogFormat } from '../proto/log.js';
import type { CustodyKind } from './custody.js';

export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

export interface TokenizerConfig {
  dataDir: string;
  /** The key that seals the keyring; undefined means "use or create the development key file". */
  wrappingKey: Buffer | undefined;
  socketPath: string;
  /** Extra TCP listener, `host:port`; the unix socket is always bound. */
  tcpAddress: string | undefined;
  metricsPort: number | undefined;
  logLevel: LogLevel;
  /** Undefined: chosen by whether stdout is a terminal (proto/log.ts). */
  logFormat: LogFormat | undefined;
  /** Seals under one master key version before the tokenizer rotates by itself (well below 2^32). */
  rotateAfterSeals: number;
  /** Seconds between checks of keyring.json for another tokenizer's change (0: only on an unknown version). */
  keyringCheckSeconds: number;
  /** STRONGROOM_RECOVERY_RECIPIENTS: age recipients that SystemResplitRecoveryKey encrypts the new shares to. */
  recoveryRecipients: string | undefined;
  /** STRONGROOM_TOKENIZER_CUSTODY: who seals the keyring. */
  custody: CustodyKind;
  /** The HSM settings when any is given (required with `pkcs11` custody; keyring:init --rewrap-to pkcs11 reads them too). */
  pkcs11: Pkcs11Settings | undefined;
  /** How long unwrapped data keys stay cached, and how long the keyring serves while its HSM is away. */
  keyCacheSeconds: number;
}

/** Where the HSM key lives; the PIN is never logged (describe() leaves it out). */
export interface Pkcs11Settings {
  module: string;
  tokenLabel: string | undefined;
  slot: number | undefined;
  pin: string;
  keyLabel: string;
}

/** A setting the operator must fix; its message names the variable and never echoes a secret. */
export class ConfigError extends Error {
  override name = 'ConfigError';
}

const HEX_KEY = /^[0-9a-f]{64}$/i;
// sockaddr_un.sun_path is 108 bytes on Linux (104 on macOS), terminator included: longer paths cannot bind.
const MAX_SOCKET_PATH_BYTES = 103;
// `host:port`, `[v6]:port`; a bare port is refused because the host decides who can reach the key holder.
const TCP_ADDRESS = /^(\[[0-9a-f:.]+\]|[a-z0-9.-]+):(\d{1,5})$/i;

export function parseWrappingKey(text: string, source: string): Buffer {
  const hex = text.trim();
  if (!HEX_KEY.test(hex)) throw new ConfigError(`${source} must hold 64 hex characters (a 256-bit key)`);
  return Buffer.from(hex, 'hex');
}

function readWrappingKey(env: NodeJS.ProcessEnv): Buffer | undefined {
  const inline = env.STRONGROOM_WRAPPING_KEY;
  const file = env.STRONGROOM_WRAPPING_KEY_FILE;
  // Two sources that could disagree would make "which key sealed this keyring?" a guess.
  if (inline && file) throw new ConfigError('set STRONGROOM_WRAPPING_KEY or STRONGROOM_WRAPPING_KEY_FILE, not both');
  if (inline) return parseWrappingKey(inline, 'STRONGROOM_WRAPPING_KEY');
  if (!file) return undefined;
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    throw new ConfigError(`STRONGROOM_WRAPPING_KEY_FILE (${file}) cannot be read: ${(err as NodeJS.ErrnoException).code ?? 'error'}`);
  }
  return parseWrappingKey(text, `STRONGROOM_WRAPPING_KEY_FILE (${file})`);
}

function parseTcpAddress(value: string | undefined): string | undefined {
  if (!value) return undefined;
  const m = TCP_ADDRESS.exec(value);
  const port = Number(m?.[2]);
  if (!m || port < 1 || port > 65535) throw new ConfigError(`STRONGROOM_TOKENIZER_ADDRESS must be host:port, got ${JSON.stringify(value)}`);
  return value;
}

function parsePort(name: string, value: string | undefined): number | undefined {
  if (!value) return undefined;
  const port = Number(value);
  if (!Number.isInteger(port) || port < 1 || port > 65535) throw new ConfigError(`${name} must be a port number (1-65535), got ${JSON.stringify(value)}`);
  return port;
}

export function loadTokenizerConfig(env: NodeJS.ProcessEnv = process.env): TokenizerConfig {
  const dataDir = resolve(env.STRONGROOM_DATA_DIR || './data');
  const socketPath = tokenizerSocketPath(env);
  if (Buffer.byteLength(socketPath) > MAX_SOCKET_PATH_BYTES) {
    throw new ConfigError(`the tokenizer socket path is longer than ${MAX_SOCKET_PATH_BYTES} bytes (${socketPath}): set a shorter STRONGROOM_TOKENIZER_SOCKET`);
  }
  const logLevel = (env.STRONGROOM_LOG_LEVEL || 'info') as LogLevel;
  if (!LOG_LEVELS.includes(logLevel)) throw new ConfigError(`STRONGROOM_LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')}`);
  const logFormat = (env.STRONGROOM_LOG_FORMAT || undefined) as LogFormat | undefined;
  if (logFormat && !LOG_FORMATS.includes(logFormat)) throw new ConfigError(`STRONGROOM_LOG_FORMAT must be one of ${LOG_FORMATS.join(', ')}`);
  return {
    dataDir,
    wrappingKey: readWrappingKey(env),
    socketPath,
    tcpAddress: parseTcpAddress(env.STRONGROOM_TOKENIZER_ADDRESS),
    metricsPort: parsePort('STRONGROOM_TOKENIZER_METRICS_PORT', env.STRONGROOM_TOKENIZER_METRICS_PORT),
    logLevel,
    logFormat,
    rotateAfterSeals: parseRotateAfter(env.STRONGROOM_TOKENIZER_ROTATE_AFTER_SEALS),
    keyringCheckSeconds: parseCheckSeconds(env.STRONGROOM_TOKENIZER_KEYRING_CHECK_SECONDS),
    recoveryRecipients: env.STRONGROOM_RECOVERY_RECIPIENTS || undefined,
    ...parseCustody(env),
    keyCacheSeconds: parseKeyCacheSeconds(env.STRONGROOM_TOKENIZER_KEY_CACHE_SECONDS),
  };
}

function parseCustody(env: NodeJS.ProcessEnv): Pick<TokenizerConfig, 'custody' | 'pkcs11'> {
  const custody = (env.STRONGROOM_TOKENIZER_CUSTODY || 'static') as CustodyKind;
  if (custody !== 'static' && custody !== 'pkcs11') {
    throw new ConfigError(`STRONGROOM_TOKENIZER_CUSTODY must be static or pkcs11, got ${JSON.stringify(custody)}`);
  }
  const given = [env.STRONGROOM_PKCS11_MODULE, env.STRONGROOM_PKCS11_KEY_LABEL].some(Boolean);
  const pkcs11 = custody === 'pkcs11' || given ? parsePkcs11(env) : undefined;
  // Two sources that could disagree would make "which key sealed this keyring?" a guess.
  if (custody === 'pkcs11' && (env.STRONGROOM_WRAPPING_KEY || env.STRONGROOM_WRAPPING_KEY_FILE)) {
    throw new ConfigError('STRONGROOM_TOKENIZER_CUSTODY is pkcs11: remove STRONGROOM_WRAPPING_KEY and STRONGROOM_WRAPPING_KEY_FILE');
  }
  return { custody, pkcs11 };
}

function parsePkcs11(env: NodeJS.ProcessEnv): Pkcs11Settings {
  const need = (name: string) => {
    const v = env[name];
    if (!v) throw new ConfigError(`${name} is required with pkcs11 custody`);
    return v;
  };
  const module = need('STRONGROOM_PKCS11_MODULE');
  const keyLabel = need('STRONGROOM_PKCS11_KEY_LABEL');
  const tokenLabel = env.STRONGROOM_PKCS11_TOKEN_LABEL || undefined;
  const slotText = env.STRONGROOM_PKCS11_SLOT || undefined;
  if ((tokenLabel === undefined) === (slotText === undefined)) throw new ConfigError('set STRONGROOM_PKCS11_TOKEN_LABEL or STRONGROOM_PKCS11_SLOT (one of them)');
  const slot = slotText === undefined ? undefined : Number(slotText);
  if (slot !== undefined && !(Number.isSafeInteger(slot) && slot >= 0)) throw new ConfigError(`STRONGROOM_PKCS11_SLOT must be a slot id (an integer), got ${JSON.stringify(slotText)}`);
  const inline = env.STRONGROOM_PKCS11_PIN;
  const file = env.STRONGROOM_PKCS11_PIN_FILE;
  if (Boolean(inline) === Boolean(file)) throw new ConfigError('set STRONGROOM_PKCS11_PIN or STRONGROOM_PKCS11_PIN_FILE (one of them)');
  let pin = inline ?? '';
  if (file) {
    try {
      pin = readFileSync(file, 'utf8').replace(/\r?\n$/, '');
    } catch (err) {
      throw new ConfigError(`STRONGROOM_PKCS11_PIN_FILE (${file}) cannot be read: ${(err as NodeJS.ErrnoException).code ?? 'error'}`);
    }
  }
  if (!pin) throw new ConfigError('the PKCS#11 PIN is empty');
  return { module, tokenLabel, slot, pin, keyLabel };
}

/** Default 600 s: the data-key cache's TTL, and how long a keyring serves from memory while its HSM is away. */
function parseKeyCacheSeconds(value: string | undefined): number {
  if (!value) return 600;
  const n = Number(value);
  if (!Number.isFinite(n) || n < 1 || n > 86_400) {
    throw new ConfigError(`STRONGROOM_TOKENIZER_KEY_CACHE_SECONDS must be a number of seconds from 1 to 86400, got ${JSON.stringify(value)}`);
  }
  return n;
}

const MAX_ROTATE_AFTER = 2 ** 31;

function parseRotateAfter(value: string | undefined): number {
  if (!value) return 2 ** 30;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1 || n > MAX_ROTATE_AFTER) {
    throw new ConfigError(`STRONGROOM_TOKENIZER_ROTATE_AFTER_SEALS must be an integer from 1 to ${MAX_ROTATE_AFTER}, got ${JSON.stringify(value)}`);
  }
  return n;
}

/** Default 2 s: far below the api's rewrap interval, so every replica takes a rotation before it is finished. */
function parseCheckSeconds(value: string | undefined): number {
  if (!value) return 2;
  const n = Number(value);
  if (!Number.isFinite(n) || n < 0 || n > 3600) {
    throw new ConfigError(`STRONGROOM_TOKENIZER_KEYRING_CHECK_SECONDS must be a number of seconds from 0 to 3600, got ${JSON.stringify(value)}`);
  }
  return n;
}
