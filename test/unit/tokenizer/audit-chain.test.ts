// H1: a database writer appends an event with a made-up link at the head of a trail (its public digest is easy to
// compute). The tokenizer must never link onto it, nor be made to remember it as committed: it links only from a head
// it vouches for (the end of a run it linked, the head it knows committed) or one it recomputes from the proof the api
// sends (the event before and its own previous link). Replicas (several tokenizers, each with its own heads file, one
// database) extend each other's genuine links through the proof.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes, randomUUID } from 'node:crypto';
import fc from 'fast-check';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { AuditKeys, chainLinks } from '../../../tokenizer/audit-keys.js';
import { AuditBrokenError, AuditHeads } from '../../../tokenizer/audit-heads.js';
import { linkChainItem } from '../../../tokenizer/audit-chain.js';
import { Subkeys } from '../../../tokenizer/subkeys.js';
import type { ChainItem__Output } from '../../../proto/generated/strongroom/tokenizer/v1/ChainItem.js';
import { auditDigestFirstForm } from '../../../proto/audit-checkpoint.js';

const log = pino({ level: 'silent' });
const TENANT = 7;
const salt = randomBytes(16);
const master = randomBytes(32);
const ring = { key: (v: number) => (v === 1 ? master : undefined) };
const keys = new AuditKeys(ring, new Subkeys(ring));
const tokenizer = () => new AuditHeads(join(mkdtempSync(join(tmpdir(), 'sr-chain-')), 'keyring.json'), log);
const text = () => JSON.stringify([randomUUID(), Math.floor(Date.now() / 1000), 'UserCreate', 'ok', null, 'root:x', null, null, null, null]);

/** A trail as the database stores it: each event's canonical text and link. */
type Trail = { text: string; link: Buffer }[];

/** The link call the api makes from the trail's head: the head's proof, and the head as committed. */
function item(trail: Trail, texts: string[], opts: { proof?: boolean; committed?: boolean } = {}): ChainItem__Output {
  const head = trail.at(-1);
  const before = trail.at(-2);
  const { proof = true, committed = true } = opts;
  return {
    previous: head?.link ?? Buffer.alloc(0),
    first_seq: String(trail.length + 1),
    canonical: texts,
    queue_mac: [],
    committed_seq: String(committed ? trail.length : 0),
    committed_link: committed ? (head?.link ?? Buffer.alloc(0)) : Buffer.alloc(0),
    proof_canonical: proof && head ? head.text : '',
    proof_previous: proof && before ? before.link : Buffer.alloc(0),
    details_sealed_as: [],
    proof_legacy: false,
  };
}

/** Whether every stored link is the key's link of its event: what no database writer can fake. */
function genuine(trail: Trail): boolean {
  const expected = chainLinks(keys.chainKey(TENANT, salt), Buffer.alloc(0), 1, trail.map((e) => e.text));
  return trail.every((e, i) => e.link.equals(expected[i]!));
}

function link(heads: AuditHeads, trail: Trail, n: number, opts?: { proof?: boolean; committed?: boolean }): void {
  const texts = Array.from({ length: n }, text);
  const { links } = linkChainItem(keys, heads, TENANT, salt, item(trail, texts, opts));
  texts.forEach((t, i) => trail.push({ text: t, link: links[i]! }));
}

describe('linking onto a head forged in the database (H1)', () => {
  it('refuses a made-up link at the head, even once the api reports it as committed', () => {
    const heads = tokenizer();
    const trail: Trail = [];
    link(heads, trail, 3);
    // The api reports its committed head: a run end this tokenizer linked, remembered.
    linkChainItem(keys, heads, TENANT, salt, item(trail, []));
    expect(heads.get(TENANT, salt).seq).toBe(3);
    trail.push({ text: text(), link: randomBytes(32) });
    expect(() => link(heads, trail, 1)).toThrow(AuditBrokenError);
    expect(() => link(heads, trail, 1)).toThrow(/audit trail is broken/);
    // The report of a committed head alone (no text) is taken, but the forged head is not remembered as vouched.
    linkChainItem(keys, heads, TENANT, salt, item(trail, [], { proof: false }));
    expect(heads.get(TENANT, salt).seq).toBe(3);
    expect(() => link(heads, trail, 1, { proof: false })).toThrow(AuditBrokenError);
    // A made-up proof does not help.
    const forgedProof = { ...item(trail, [text()]), proof_previous: randomBytes(32) };
    expect(() => linkChainItem(keys, heads, TENANT, salt, forgedProof)).toThrow(AuditBrokenError);
  });

  it('lets a replica extend another tokenizer\'s genuine head through the proof, never without it', () => {
    const [a, b] = [tokenizer(), tokenizer()];
    const trail: Trail = [];
    link(a, trail, 4, { committed: false });
    expect(() => link(b, trail, 1, { proof: false, committed: false })).toThrow(AuditBrokenError);
    link(b, trail, 2);
    link(a, trail, 1);
    expect(genuine(trail)).toBe(true);
    expect(b.get(TENANT, salt).seq).toBe(4);
  });

  it('takes a legacy head (public sha256 chain) only on a trail it knows no committed head of', () => {
    const legacy: Trail = [];
    for (let i = 0; i < 3; i++) {
      const t = text();
      legacy.push({ text: t, link: auditDigestFirstForm(legacy.at(-1)?.link ?? Buffer.alloc(0), i + 1, t) });
    }
    const heads = tokenizer();
    const asLegacy = (trail: Trail) => ({ ...item(trail, [text()]), proof_legacy: true });
    // A made-up link is no legacy link either.
    expect(() => linkChainItem(keys, heads, TENANT, salt, asLegacy([...legacy.slice(0, 2), { text: legacy[2]!.text, link: randomBytes(32) }]))).toThrow(AuditBrokenError);
    const trail = [...legacy];
    const first = asLegacy(trail);
    trail.push({ text: first.canonical[0]!, link: linkChainItem(keys, heads, TENANT, salt, first).links[0]! });
    link(heads, trail, 1);
    // Once a committed head is known, a legacy-form head (forged: anyone computes sha256) is refused.
    const forged = text();
    trail.push({ text: forged, link: auditDigestFirstForm(trail.at(-1)!.link, trail.length + 1, forged) });
    expect(() => linkChainItem(keys, heads, TENANT, salt, asLegacy(trail))).toThrow(AuditBrokenError);
  });

  it('links iff the trail holds, for every interleaving of replicas and forgeries (generated)', () => {
    const step = fc.oneof(
      fc.record({ kind: fc.constant('link' as const), by: fc.integer({ min: 0, max: 2 }), n: fc.integer({ min: 1, max: 3 }), committed: fc.boolean() }),
      fc.record({ kind: fc.constant('forge' as const), how: fc.constantFrom('random', 'copied', 'replaced') }),
    );
    fc.assert(
      fc.property(fc.array(step, { minLength: 1, maxLength: 25 }), (steps) => {
        const replicas = [tokenizer(), tokenizer(), tokenizer()];
        const trail: Trail = [];
        for (const s of steps) {
          if (s.kind === 'forge') {
            // What a database writer can do: a link made up, copied from another event, or the head's replaced.
            const made = s.how === 'random' || trail.length === 0 ? randomBytes(32) : trail[0]!.link;
            if (s.how === 'replaced' && trail.length) trail.at(-1)!.link = randomBytes(32);
            else trail.push({ text: text(), link: made });
            continue;
          }
          const holds = genuine(trail);
          const before = trail.length;
          const attempt = () => link(replicas[s.by]!, trail, s.n, { committed: s.committed });
          // The oracle: a link call succeeds iff every stored link is the key's; a refused one links nothing.
          if (holds) expect(attempt).not.toThrow();
          else {
            expect(attempt).toThrow(AuditBrokenError);
            expect(trail).toHaveLength(before);
          }
        }
      }),
      { numRuns: 60 },
    );
  });
});
