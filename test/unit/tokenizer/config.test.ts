// Tokenizer settings: defaults, wrapping key sources, and the clear refusals for bad values.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadTokenizerConfig, ConfigError } from '../../../tokenizer/config.js';

const KEY = 'ab'.repeat(32);

describe('tokenizer config', () => {
  it('defaults to ./data with the socket under run/ and no TCP, metrics or wrapping key', () => {
    const c = loadTokenizerConfig({});
    expect(c.dataDir).toBe(resolve('data'));
    expect(c.socketPath).toBe(resolve('data/run/tokenizer.sock'));
    expect(c).toMatchObject({ tcpAddress: undefined, metricsPort: undefined, wrappingKey: undefined, logLevel: 'info' });
  });

  it('reads the wrapping key inline or from a file', () => {
    expect(loadTokenizerConfig({ STRONGROOM_WRAPPING_KEY: KEY.toUpperCase() }).wrappingKey).toEqual(Buffer.from(KEY, 'hex'));
    const file = join(mkdtempSync(join(tmpdir(), 'sr-')), 'key');
    writeFileSync(file, `${KEY}\n`);
    expect(loadTokenizerConfig({ STRONGROOM_WRAPPING_KEY_FILE: file }).wrappingKey).toEqual(Buffer.from(KEY, 'hex'));
  });

  it('refuses a malformed key without echoing it', () => {
    const bad = 'cd'.repeat(31);
    const err = (() => {
      try {
        loadTokenizerConfig({ STRONGROOM_WRAPPING_KEY: bad });
      } catch (e) {
        return e as Error;
      }
    })();
    expect(err).toBeInstanceOf(ConfigError);
    expect(err?.message).toMatch(/STRONGROOM_WRAPPING_KEY must hold 64 hex characters/);
    expect(err?.message).not.toContain(bad);
    expect(() => loadTokenizerConfig({ STRONGROOM_WRAPPING_KEY: 'zz'.repeat(32) })).toThrow(ConfigError);
  });

  it('refuses two key sources and an unreadable key file', () => {
    expect(() => loadTokenizerConfig({ STRONGROOM_WRAPPING_KEY: KEY, STRONGROOM_WRAPPING_KEY_FILE: '/x' })).toThrow(/not both/);
    expect(() => loadTokenizerConfig({ STRONGROOM_WRAPPING_KEY_FILE: '/nonexistent/key' })).toThrow(/cannot be read: ENOENT/);
  });

  it.each([
    [{ STRONGROOM_TOKENIZER_ADDRESS: '8080' }, /STRONGROOM_TOKENIZER_ADDRESS must be host:port/],
    [{ STRONGROOM_TOKENIZER_ADDRESS: 'localhost:70000' }, /host:port/],
    [{ STRONGROOM_LOG_LEVEL: 'loud' }, /STRONGROOM_LOG_LEVEL must be one of/],
    [{ STRONGROOM_LOG_FORMAT: 'text' }, /STRONGROOM_LOG_FORMAT must be one of json, pretty/],
    [{ STRONGROOM_TOKENIZER_METRICS_PORT: 'abc' }, /STRONGROOM_TOKENIZER_METRICS_PORT must be a port/],
    [{ STRONGROOM_TOKENIZER_SOCKET: `/tmp/${'s'.repeat(120)}.sock` }, /socket path is longer than/],
  ])('refuses %j', (env, message) => {
    expect(() => loadTokenizerConfig(env)).toThrow(message);
  });

  it('takes the log format asked for, and leaves it to the terminal when none is', () => {
    expect(loadTokenizerConfig({ STRONGROOM_LOG_FORMAT: 'pretty' }).logFormat).toBe('pretty');
    expect(loadTokenizerConfig({ STRONGROOM_LOG_FORMAT: 'json' }).logFormat).toBe('json');
    expect(loadTokenizerConfig({}).logFormat).toBeUndefined();
  });

  it('accepts TCP addresses with a host, including IPv6', () => {
    expect(loadTokenizerConfig({ STRONGROOM_TOKENIZER_ADDRESS: '0.0.0.0:50051' }).tcpAddress).toBe('0.0.0.0:50051');
    expect(loadTokenizerConfig({ STRONGROOM_TOKENIZER_ADDRESS: '[::1]:50051' }).tcpAddress).toBe('[::1]:50051');
    expect(loadTokenizerConfig({ STRONGROOM_TOKENIZER_METRICS_PORT: '9464' }).metricsPort).toBe(9464);
  });
});
