// Bench only (`audit-keys.ts`): preloaded into a vault (`--import`), it makes the api's audit chainer link events
// with plain SHA-256 computed in the api instead of asking the tokenizer for keyed HMAC links. The trail keeps its
// shape, batches and statements; only the keying (the link items in the tokenizer's Run, the HMACs) is gone, so an
// A/B against the unpatched tree measures the cost of keying alone. A vault so patched writes a trail AuditVerify
// calls broken: it runs nowhere but on a benchmark's throw-away database.
import { createHash } from 'node:crypto';
import { TokenizerClient, type AuditRun } from '../../api/tokenizer-client.js';

if (process.argv.some((a) => /api[\\/]main\.(ts|js)$/.test(a))) {
  TokenizerClient.prototype.chainInRun = async function (_tenantId: number, { previous, firstSeq, canonical }: AuditRun): Promise<{ links: Buffer[]; refused: number[] }> {
    let prev = previous;
    const links = canonical.map((text, i) => {
      const seq = Buffer.alloc(8);
      seq.writeBigInt64BE(BigInt(firstSeq + i));
      prev = createHash('sha256').update(prev).update(seq).update(text).digest();
      return prev;
    });
    return { links, refused: [] };
  };
}
