// Entry point of the tokenizer process: load the keyring (or create a development one), serve gRPC, stop cleanly.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import pino from 'pino';
import { loadTokenizerConfig, parseWrappingKey } from './config.js';
import { Keyring } from './keyring.js';
import { startTokenizerServer } from './server.js';
import { serveMetrics } from './metrics.js';

async function main(): Promise<void> {
  const config = loadTokenizerConfig();
  const log = pino({ level: config.logLevel, base: { component: 'tokenizer' } });
  const dir = join(config.dataDir, 'tokenizer');
  const devKeyFile = join(dir, 'wrapping.key');
  let wrappingKey = config.wrappingKey;
  if (!wrappingKey && existsSync(devKeyFile)) wrappingKey = parseWrappingKey(readFileSync(devKeyFile, 'utf8'), devKeyFile);
  if (!wrappingKey) {
    if (existsSync(join(dir, 'keyring.json'))) {
      throw new Error('a keyring exists but no wrapping key was given: set STRONGROOM_WRAPPING_KEY or STRONGROOM_WRAPPING_KEY_FILE');
    }
    wrappingKey = randomBytes(32);
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    writeFileSync(devKeyFile, `${wrappingKey.toString('hex')}\n`, { mode: 0o600 });
  }
  const { keyring, created } = Keyring.openOrCreate(dir, wrappingKey);
  if (created) {
    process.stderr.write(
      `\nStrongroom tokenizer created a new keyring in ${dir}.\n` +
        (config.wrappingKey
          ? 'It is sealed with the wrapping key you supplied.\n\n'
          : `Its wrapping key is in ${devKeyFile}. For production, move it into STRONGROOM_WRAPPING_KEY ` +
            '(or a mounted file named by STRONGROOM_WRAPPING_KEY_FILE) and delete that file.\n\n'),
    );
  }
  const server = await startTokenizerServer({ keyring, socketPath: config.socketPath, tcpAddress: config.tcpAddress, log });
  const metricsPort = Number(process.env.STRONGROOM_TOKENIZER_METRICS_PORT || 0);
  const metrics = metricsPort ? serveMetrics(metricsPort) : undefined;
  log.info({ socket: config.socketPath, tcp: config.tcpAddress, keyVersions: keyring.versions.length }, 'tokenizer listening');

  let stopping = false;
  const stop = () => {
    if (stopping) return;
    stopping = true;
    metrics?.close();
    server.close().then(() => {
      log.info('tokenizer stopped');
      process.exit(0);
    });
  };
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
}

main().catch((err: unknown) => {
  process.stderr.write(`tokenizer failed to start: ${(err as Error).message}\n`);
  process.exit(1);
});
