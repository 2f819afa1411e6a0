// The pure parts of checkpoint timestamps: the request's DER, read back by an independent ASN.1 stack
// (@peculiar/asn1-tsp, not the pkijs that wrote it), and the imprint that binds a checkpoint and its signature.
import { createHash } from 'node:crypto';
import { AsnConvert } from '@peculiar/asn1-schema';
import { TimeStampReq } from '@peculiar/asn1-tsp';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { checkpointImprint, timestampRequest, verifyTimestamp } from '../../../../../api/vault/audit/tsa.js';
import { checkpointMessage, type CheckpointLine } from '../../../../../proto/audit-checkpoint.js';

const SHA256 = '2.16.840.1.101.3.4.2.1';

const imprintArb = fc.uint8Array({ minLength: 32, maxLength: 32 }).map((b) => Buffer.from(b));
const nonceArb = fc.bigInt({ min: 1n, max: 2n ** 64n - 1n });

const hex32 = fc.uint8Array({ minLength: 32, maxLength: 32 }).map((b) => Buffer.from(b).toString('hex'));
const lineArb: fc.Arbitrary<CheckpointLine> = fc.record({
  type: fc.constant('strongroom.audit.checkpoint' as const),
  v: fc.constant(1 as const),
  tenant: fc.integer({ min: 1, max: 2 ** 31 - 1 }),
  seq: fc.integer({ min: 1, max: Number.MAX_SAFE_INTEGER }),
  link: hex32,
  digest: hex32,
  time: fc.integer({ min: 0, max: 2 ** 40 }),
  signature: fc.uint8Array({ minLength: 64, maxLength: 64 }).map((b) => Buffer.from(b).toString('base64')),
});

/** The line with one field changed to another value of its kind. */
function changed(line: CheckpointLine, field: 'tenant' | 'seq' | 'link' | 'digest' | 'time' | 'signature', byte: number): CheckpointLine {
  const flip = (b: Buffer) => {
    const copy = Buffer.from(b);
    copy[byte % copy.length]! ^= 1;
    return copy;
  };
  switch (field) {
    case 'tenant':
    case 'seq':
    case 'time':
      return { ...line, [field]: line[field] + 1 };
    case 'link':
    case 'digest':
      return { ...line, [field]: flip(Buffer.from(line[field], 'hex')).toString('hex') };
    case 'signature':
      return { ...line, signature: flip(Buffer.from(line.signature, 'base64')).toString('base64') };
  }
}

describe('timestampRequest', () => {
  it('reads back, with another ASN.1 library, as version 1 asking for its SHA-256 imprint, nonce and certificate', () => {
    fc.assert(
      fc.property(imprintArb, nonceArb, (imprint, nonce) => {
        const der = timestampRequest(imprint, nonce);
        const req = AsnConvert.parse(der, TimeStampReq);
        expect(req.version).toBe(1);
        expect(req.messageImprint.hashAlgorithm.algorithm).toBe(SHA256);
        expect(Buffer.from(req.messageImprint.hashedMessage.buffer)).toEqual(imprint);
        const nonceBytes = Buffer.from(req.nonce!);
        expect(nonceBytes[0]! & 0x80).toBe(0); // a positive INTEGER
        expect(BigInt(`0x${nonceBytes.toString('hex')}`)).toBe(nonce);
        expect(req.certReq).toBe(true);
        // DER: the other library writes the same bytes back.
        expect(Buffer.from(AsnConvert.serialize(req))).toEqual(der);
      }),
    );
  });

  it('refuses an imprint that is not a SHA-256 digest, and a nonce that is not positive', () => {
    expect(() => timestampRequest(Buffer.alloc(31), 1n)).toThrow(/32 bytes/);
    expect(() => timestampRequest(Buffer.alloc(33), 1n)).toThrow(/32 bytes/);
    expect(() => timestampRequest(Buffer.alloc(32), 0n)).toThrow(/positive/);
  });
});

describe('checkpointImprint', () => {
  it('is SHA-256 of the signed message followed by the signature bytes', () => {
    fc.assert(
      fc.property(lineArb, (line) => {
        const message = checkpointMessage({ tenant: line.tenant, seq: line.seq, link: Buffer.from(line.link, 'hex'), digest: Buffer.from(line.digest, 'hex'), time: line.time });
        const expected = createHash('sha256').update(Buffer.concat([message, Buffer.from(line.signature, 'base64')])).digest();
        expect(checkpointImprint(line)).toEqual(expected);
      }),
    );
  });

  it('changes when any signed field or the signature changes', () => {
    const fields = ['tenant', 'seq', 'link', 'digest', 'time', 'signature'] as const;
    fc.assert(
      fc.property(lineArb, fc.constantFrom(...fields), fc.nat(), (line, field, byte) => {
        expect(checkpointImprint(changed(line, field, byte))).not.toEqual(checkpointImprint(line));
      }),
    );
  });
});

describe('verifyTimestamp', () => {
  it('refuses an imprint that is not a SHA-256 digest, and a trusted PEM without a certificate', async () => {
    await expect(verifyTimestamp(Buffer.alloc(40), Buffer.alloc(31), '')).rejects.toThrow(/32 bytes/);
    await expect(verifyTimestamp(Buffer.alloc(40), Buffer.alloc(32), 'not a certificate')).rejects.toThrow(/trusted PEM holds no certificate/);
  });
});
