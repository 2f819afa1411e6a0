// Every tokenizer setting, read from the environment once and validated.
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

export interface TokenizerConfig {
  dataDir: string;
  /** The key that seals the keyring; undefined means "use or create the development key file". */
  wrappingKey: Buffer | undefined;
  socketPath: string;
  tcpAddress: string | undefined;
  logLevel: string;
}

const HEX_KEY = /^[0-9a-f]{64}$/i;

export function parseWrappingKey(text: string, source: string): Buffer {
  const hex = text.trim();
  if (!HEX_KEY.test(hex)) throw new Error(`${source} must hold 64 hex characters (a 256-bit key)`);
  return Buffer.from(hex, 'hex');
}

export function loadTokenizerConfig(env: NodeJS.ProcessEnv = process.env): TokenizerConfig {
  const dataDir = resolve(env.STRONGROOM_DATA_DIR || './data');
  let wrappingKey: Buffer | undefined;
  if (env.STRONGROOM_WRAPPING_KEY) wrappingKey = parseWrappingKey(env.STRONGROOM_WRAPPING_KEY, 'STRONGROOM_WRAPPING_KEY');
  else if (env.STRONGROOM_WRAPPING_KEY_FILE) {
    const file = env.STRONGROOM_WRAPPING_KEY_FILE;
    wrappingKey = parseWrappingKey(readFileSync(file, 'utf8'), `STRONGROOM_WRAPPING_KEY_FILE (${file})`);
  }
  return {
    dataDir,
    wrappingKey,
    socketPath: resolve(env.STRONGROOM_TOKENIZER_SOCKET || join(dataDir, 'run', 'tokenizer.sock')),
    tcpAddress: env.STRONGROOM_TOKENIZER_ADDRESS || undefined,
    logLevel: env.STRONGROOM_LOG_LEVEL || 'info',
  };
}
