// The audit trail's keys: each tenant's chain key (HMAC-SHA256 links), its queue key (MACs of queued events,
// tokenizer/audit-queue.ts) and the one Ed25519 key that signs checkpoints of every tenant's head. All derive from
// master version 1, which is never retired, so none changes with rotation: changing the derivation below voids every
// stored link, queued MAC and signed checkpoint.
import { createHmac, createPrivateKey, createPublicKey, hkdfSync, sign, timingSafeEqual, type KeyObject } from 'node:crypto';
import type { Keyring } from './keyring.js';
import type { Subkeys } from './subkeys.js';
import { checkpointMessage, type CheckpointFields } from '../proto/audit-checkpoint.js';

/** The key version the audit keys come from. */
export const AUDIT_KEY_VERSION = 1;
const SIGNING_SALT = Buffer.from('strongroom/audit-signing/v1');
// The fixed DER prefix of an Ed25519 private key in PKCS#8 (RFC 8410), before the 32-byte seed.
const PKCS8_ED25519 = Buffer.from('302e020100300506032b657004220420', 'hex');

/** link_n = HMAC-SHA256(key, link_{n-1} ‖ int8(seq_n) ‖ utf8(canonical_n)), for a run starting at `firstSeq`. */
export function chainLinks(key: Buffer, previous: Buffer, firstSeq: number, canonical: readonly string[]): Buffer[] {
  const seq = Buffer.alloc(8);
  const links: Buffer[] = [];
  let prev = previous;
  canonical.forEach((text, i) => {
    seq.writeBigInt64BE(BigInt(firstSeq + i));
    prev = createHmac('sha256', key).update(prev).update(seq).update(text, 'utf8').digest();
    links.push(prev);
  });
  return links;
}

export class AuditKeys {
  private signing: { privateKey: KeyObject; publicPem: string } | undefined;

  constructor(
    private readonly keyring: Pick<Keyring, 'key'>,
    private readonly subkeys: Subkeys,
  ) {}

  /** The tenant's chain key (purpose `audit`, under the tenant's salt). */
  chainKey(tenantId: number, salt: Buffer): Buffer {
    const key = this.subkeys.withSalt(salt).derive(AUDIT_KEY_VERSION, tenantId, 'audit');
    if (!key) throw new Error('master key version 1 is missing');
    return key;
  }

  /** The tenant's key for queued events' MACs (purpose `audit-queue`, under the tenant's salt). */
  queueKey(tenantId: number, salt: Buffer): Buffer {
    const key = this.subkeys.withSalt(salt).derive(AUDIT_KEY_VERSION, tenantId, 'audit-queue');
    if (!key) throw new Error('master key version 1 is missing');
    return key;
  }

  /** Whether `link` is the keyed link of (previous, seq, canonical) in this tenant. */
  isLink(tenantId: number, salt: Buffer, event: { previous: Buffer; seq: number; canonical: string; link: Buffer }): boolean {
    const { previous, seq, canonical, link } = event;
    const [expect] = chainLinks(this.chainKey(tenantId, salt), previous, seq, [canonical]);
    return link.length === expect!.length && timingSafeEqual(link, expect!);
  }

  private get signer() {
    if (!this.signing) {
      const master = this.keyring.key(AUDIT_KEY_VERSION);
      if (!master) throw new Error('master key version 1 is missing');
      const seed = Buffer.from(hkdfSync('sha256', master, SIGNING_SALT, 'ed25519', 32));
      const privateKey = createPrivateKey({ key: Buffer.concat([PKCS8_ED25519, seed]), format: 'der', type: 'pkcs8' });
      seed.fill(0);
      const publicPem = createPublicKey(privateKey).export({ type: 'spki', format: 'pem' }).toString();
      this.signing = { privateKey, publicPem };
    }
    return this.signing;
  }

  /** The checkpoint key's public half, SPKI PEM. */
  get publicKey(): string {
    return this.signer.publicPem;
  }

  sign(fields: CheckpointFields): Buffer {
    return sign(null, checkpointMessage(fields), this.signer.privateKey);
  }
}
