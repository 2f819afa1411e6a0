// A request body compressed with a Content-Encoding the vault decodes (gzip, deflate, br) is the client's to get
// right: one that does not decode, or decodes to something that is not JSON, is a 400, never a 500. A body that
// decodes to valid JSON is served as if it had been sent plain.
import { brotliCompressSync, deflateSync, gzipSync } from 'node:zlib';
import fc from 'fast-check';
import { describe, expect } from 'vitest';
import { it } from '../fixtures/vault.js';

const encoders: Record<string, (b: Buffer) => Buffer> = { gzip: gzipSync, deflate: deflateSync, br: brotliCompressSync };

async function post(url: string, token: string, encoding: string, body: Buffer) {
  const res = await fetch(`${url}/v2/UserGet`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'content-encoding': encoding, 'x-bunker-token': token },
    body,
  });
  return { status: res.status, body: (await res.json()) as { status: string; message: string } };
}

describe('compressed request bodies', () => {
  it('answers a body that does not decode with 400, and a well-encoded one as if plain (fast-check)', async ({ vault }) => {
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...Object.keys(encoders)), fc.uint8Array({ minLength: 0, maxLength: 64 }), fc.boolean(), async (encoding, bytes, encode) => {
        // Either raw bytes claiming an encoding, or those bytes properly encoded (then almost never JSON).
        const body = encode ? encoders[encoding]!(Buffer.from(bytes)) : Buffer.from(bytes);
        const res = await post(vault.url, vault.rootToken, encoding, body);
        expect(res.status, `${encoding} ${Buffer.from(bytes).toString('hex')}: ${res.body.message}`).toBeLessThan(500);
        expect(res.body.status).toBe('error');
      }),
      { numRuns: 60 },
    );
    for (const encoding of Object.keys(encoders)) {
      const garbage = await post(vault.url, vault.rootToken, encoding, Buffer.from('garbage'));
      expect(garbage.status, encoding).toBe(400);
      expect(garbage.body.message).toBe('Failed to decode the request body');
      const json = encoders[encoding]!(Buffer.from(JSON.stringify({ mode: 'login', identity: 'nobody-here' })));
      const served = await post(vault.url, vault.rootToken, encoding, json);
      expect(served.status, encoding).toBe(404);
      expect(served.body.message).toMatch(/not found/i);
    }
  });
});
