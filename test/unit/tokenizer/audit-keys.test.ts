// The audit keys: links are HMACs under the tenant's key (never plain sha256), the same from any run's start, and
// checkpoints are signed with an Ed25519 key that is stable for a keyring and verifies with its public half alone.
import { createHash, createHmac, randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { AuditKeys, chainLinks } from '../../../tokenizer/audit-keys.js';
import { Subkeys } from '../../../tokenizer/subkeys.js';
import { checkpointKey, checkpointLine, checkpointSigned, parseCheckpoint } from '../../../proto/audit-checkpoint.js';

function keyring(master = randomBytes(32)) {
  const ring = { key: (v: number) => (v === 1 ? master : v === 2 ? randomBytes(32) : undefined) };
  return new AuditKeys(ring, new Subkeys(ring));
}

describe('chainLinks', () => {
  it('gives the same links for a run as for its parts chained on', () => {
    fc.assert(
      fc.property(fc.array(fc.string(), { minLength: 2, maxLength: 20 }), fc.integer({ min: 1, max: 1e9 }), (texts, first) => {
        const key = randomBytes(32);
        const all = chainLinks(key, Buffer.alloc(0), first, texts);
        const cut = Math.floor(texts.length / 2);
        const head = chainLinks(key, Buffer.alloc(0), first, texts.slice(0, cut));
        const tail = chainLinks(key, head.at(-1) ?? Buffer.alloc(0), first + cut, texts.slice(cut));
        expect(Buffer.concat([...head, ...tail]).equals(Buffer.concat(all))).toBe(true);
      }),
    );
  });

  it('is an HMAC under the key over previous ‖ int8 seq ‖ text, not a plain hash', () => {
    const key = randomBytes(32);
    const prev = randomBytes(32);
    const seq = Buffer.alloc(8);
    seq.writeBigInt64BE(7n);
    const [link] = chainLinks(key, prev, 7, ['x']);
    expect(link).toEqual(createHmac('sha256', key).update(prev).update(seq).update('x').digest());
    expect(link).not.toEqual(createHash('sha256').update(prev).update(seq).update('x').digest());
  });
});

describe('AuditKeys', () => {
  it('keys each tenant, and each tenant salt, apart', () => {
    const keys = keyring();
    expect(keys.chainKey(1, Buffer.alloc(0))).not.toEqual(keys.chainKey(2, Buffer.alloc(0)));
    expect(keys.chainKey(1, Buffer.alloc(0))).not.toEqual(keys.chainKey(1, randomBytes(16)));
  });

  it('recognises only its own links', () => {
    const keys = keyring();
    const salt = randomBytes(16);
    const [link] = chainLinks(keys.chainKey(3, salt), Buffer.alloc(0), 1, ['event']);
    expect(keys.isLink(3, salt, { previous: Buffer.alloc(0), seq: 1, canonical: 'event', link: link! })).toBe(true);
    expect(keys.isLink(3, salt, { previous: Buffer.alloc(0), seq: 1, canonical: 'forged', link: link! })).toBe(false);
    expect(keys.isLink(4, salt, { previous: Buffer.alloc(0), seq: 1, canonical: 'event', link: link! })).toBe(false);
  });

  it('signs checkpoints that verify with the public key alone, under a key stable for the keyring', () => {
    const master = randomBytes(32);
    const keys = keyring(master);
    expect(keyring(master).publicKey).toBe(keys.publicKey);
    expect(keyring().publicKey).not.toBe(keys.publicKey);
    const fields = { tenant: 5, seq: 42, link: randomBytes(32), digest: randomBytes(32), time: 1_700_000_000 };
    const line = checkpointLine(fields, keys.sign(fields));
    const pub = checkpointKey(keys.publicKey);
    expect(checkpointSigned(pub, parseCheckpoint(JSON.stringify(line))!)).toBe(true);
    // Any field changed, or a log line carrying it, as the api writes it.
    expect(checkpointSigned(pub, { ...line, seq: 43 })).toBe(false);
    expect(checkpointSigned(pub, { ...line, tenant: 6 })).toBe(false);
    expect(checkpointSigned(pub, { ...line, time: line.time + 1 })).toBe(false);
    expect(checkpointSigned(pub, { ...line, digest: randomBytes(32).toString('hex') })).toBe(false);
    expect(checkpointSigned(checkpointKey(keyring().publicKey), line)).toBe(false);
    expect(parseCheckpoint(JSON.stringify({ level: 30, msg: 'audit checkpoint', checkpoint: line }))).toEqual(line);
    expect(parseCheckpoint('{"level":30}')).toBeNull();
  });
});
