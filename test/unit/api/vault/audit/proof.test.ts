// A person's audit proof against generated trails: the chain is computed here by an oracle written from the format's
// definition (sha256 over the digest before, the sequence number and the hash of the ten fields as JSON, the sealed
// details as their hash), not by the vault's functions. Any single alteration of a proof breaks it; no field of
// anyone else's event is in it; and the digest chain accepts an event in either of its forms, and nothing else.
import { createHash, generateKeyPairSync, sign } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { auditLeaf, checkpointLine, checkpointMessage, detailsDigest, followingDigest, leafOfDigest } from '../../../../../proto/audit-checkpoint.js';
import { canonical, canonicalHead } from '../../../../../api/vault/audit/note.js';
import { verifyProof, PROOF_TYPE, type AuditProof, type ProofEvent, type ProofSegment } from '../../../../../api/vault/audit/proof.js';

const { publicKey, privateKey } = generateKeyPairSync('ed25519');
const pub = publicKey.export({ type: 'spki', format: 'pem' }).toString();
const { publicKey: otherPublic } = generateKeyPairSync('ed25519');
const otherPub = otherPublic.export({ type: 'spki', format: 'pem' }).toString();

const sha = (...parts: (Buffer | string)[]) => parts.reduce((h, p) => h.update(p), createHash('sha256')).digest();
const int8 = (n: number) => {
  const b = Buffer.alloc(8);
  b.writeBigInt64BE(BigInt(n));
  return b;
};
/** An event as stored: its sealed details in base64. */
type Stored = Omit<ProofEvent, 'detailsdigest'> & { details: string | null };
const text = (e: Stored) => JSON.stringify([e.uuid, e.when, e.title, e.status, e.msg, e.actor, e.record, e.mode, e.app, e.details]);
const hashOf = (details: string | null) => (details === null ? null : sha(Buffer.from(details, 'base64')).toString('hex'));
/** A leaf, by the format's definition: the ten fields as JSON, the sealed details as their SHA-256 in hex. */
const leaf = (e: Stored) => sha(JSON.stringify([e.uuid, e.when, e.title, e.status, e.msg, e.actor, e.record, e.mode, e.app, hashOf(e.details)]));
const given = ({ details, ...e }: Stored): ProofEvent => ({ ...e, detailsdigest: hashOf(details) });

const people = ['tok-ada', 'tok-bob', 'tok-cy'];
const eventArb = fc.record({
  uuid: fc.uuid(),
  when: fc.integer({ min: 1_600_000_000, max: 1_900_000_000 }),
  title: fc.constantFrom('UserGet', 'UserUpdate', 'AuditListUserEvents', 'UserDelete'),
  status: fc.constantFrom('ok' as const, 'error' as const),
  msg: fc.option(fc.string({ maxLength: 12 }), { nil: null }),
  actor: fc.string({ minLength: 1, maxLength: 16 }),
  record: fc.constantFrom(...people),
  mode: fc.option(fc.constantFrom('token', 'email'), { nil: null }),
  app: fc.option(fc.string({ maxLength: 8 }), { nil: null }),
  details: fc.option(fc.uint8Array({ minLength: 1, maxLength: 40 }).map((b) => Buffer.from(b).toString('base64')), { nil: null }),
});

/** A trail: events 1..n, a checkpoint signed at the last; and the proof of `tok-ada`'s events from her first. */
const trailArb = fc
  .array(eventArb, { minLength: 1, maxLength: 30 })
  .map((raw) => {
    const events: Stored[] = raw.map((e, i) => ({ ...e, seq: i + 1 }));
    // Ada has at least one event.
    events[Math.floor(events.length / 2)]!.record = 'tok-ada';
    const digests: Buffer[] = [];
    let d = Buffer.alloc(0);
    for (const e of events) digests.push((d = sha(d, int8(e.seq), leaf(e))));
    const head = events.at(-1)!;
    const fields = { tenant: 3, seq: head.seq, link: sha('link'), digest: digests.at(-1)!, time: 1_800_000_000 };
    const line = checkpointLine(fields, sign(null, checkpointMessage(fields), privateKey));
    const mine = events.filter((e) => e.record === 'tok-ada');
    const first = mine[0]!.seq;
    const segment: ProofSegment = {
      previous: first === 1 ? '' : digests[first - 2]!.toString('hex'),
      first,
      leaves: Buffer.concat(events.slice(first - 1).map(leaf)).toString('base64'),
      events: mine.map(given),
      checkpoint: line,
    };
    const proof: AuditProof = { type: PROOF_TYPE, v: 1, tenant: 3, record: 'tok-ada', segments: [segment] };
    return { events, proof };
  });

type Alteration = (p: AuditProof, pick: number) => void;
const seg = (p: AuditProof) => p.segments[0]!;
const alterations: Record<string, Alteration> = {
  'an event field': (p, n) => {
    const e = seg(p).events[n % seg(p).events.length]!;
    const keys = ['uuid', 'when', 'title', 'status', 'msg', 'actor', 'mode', 'app', 'detailsdigest'] as const;
    const k = keys[n % keys.length]!;
    if (k === 'when') e.when += 1;
    else if (k === 'status') e.status = e.status === 'ok' ? 'error' : 'ok';
    else if (k === 'detailsdigest') e.detailsdigest = e.detailsdigest === null ? sha('x').toString('hex') : null;
    else (e as unknown as Record<string, unknown>)[k] = `${String(e[k] ?? '')}x`;
  },
  'a leaf byte': (p, n) => {
    const b = Buffer.from(seg(p).leaves, 'base64');
    b[n % b.length]! ^= 1 << n % 8;
    seg(p).leaves = b.toString('base64');
  },
  'a leaf dropped': (p) => (seg(p).leaves = Buffer.from(seg(p).leaves, 'base64').subarray(32).toString('base64')),
  'the digest before': (p) => (seg(p).previous = seg(p).previous ? `${seg(p).previous.slice(0, -1)}${seg(p).previous.endsWith('0') ? '1' : '0'}` : 'ab'.repeat(32)),
  'the start moved': (p) => (seg(p).first += 1),
  'the checkpoint digest': (p) => (seg(p).checkpoint.digest = sha('other').toString('hex')),
  'the checkpoint time': (p) => (seg(p).checkpoint.time += 1),
  'the tenant': (p) => (p.tenant += 1),
  'someone else named': (p) => (seg(p).events[0]!.record = 'tok-bob'),
  'an event moved': (p, n) => {
    const e = seg(p).events.at(-1)!;
    e.seq = e.seq === seg(p).checkpoint.seq ? e.seq - 1 : e.seq + 1 + (n % 2);
  },
};

describe('a person’s audit proof', () => {
  it('holds for every generated trail, and names only the person’s events', async () => {
    await fc.assert(
      fc.asyncProperty(trailArb, async ({ events, proof }) => {
        const report = await verifyProof(structuredClone(proof), pub);
        expect(report).toMatchObject({ result: 'intact', proven: proof.segments[0]!.events.length });
        // The report says what was proven, and with which key.
        expect(report.events.map((e) => e.uuid)).toEqual(proof.segments[0]!.events.map((e) => e.uuid));
        expect(report.key).toBe(createHash('sha256').update(publicKey.export({ type: 'spki', format: 'der' })).digest('hex'));
        const json = JSON.stringify(proof);
        for (const e of events.filter((x) => x.record !== 'tok-ada')) {
          expect(json).not.toContain(e.uuid);
          expect(json).not.toContain(e.record);
        }
        expect((await verifyProof(proof, otherPub)).result).toBe('broken');
      }),
      { numRuns: 60 },
    );
  });

  it('breaks under any single alteration', async () => {
    await fc.assert(
      fc.asyncProperty(trailArb, fc.constantFrom(...Object.keys(alterations)), fc.nat(1000), async ({ proof }, what, n) => {
        const altered = structuredClone(proof);
        alterations[what]!(altered, n);
        // An alteration that happens to change nothing (a moved event that cannot move) is no alteration.
        fc.pre(JSON.stringify(altered) !== JSON.stringify(proof));
        const report = await verifyProof(altered, pub);
        expect(report.result, what).toBe('broken');
      }),
      { numRuns: 300 },
    );
  });

  it('takes no field it does not check, and refuses what the stranger sent, quickly and without throwing', async () => {
    const { proof } = fc.sample(trailArb, { numRuns: 1, seed: 7 })[0]!;
    const cases: Record<string, (p: any) => void> = {
      'a field added to an event': (p) => (p.segments[0].events[0].who = 'police: officer 12 read your file'),
      'a field added to a segment': (p) => (p.segments[0].note = 'x'),
      'a field added to the proof': (p) => (p.unproven = []),
      'the checkpoint wrapped': (p) => (p.segments[0].checkpoint = { checkpoint: p.segments[0].checkpoint, seq: 99_999, time: 1 }),
      'a field added to the checkpoint': (p) => (p.segments[0].checkpoint.note = 'x'),
      'a timestamp that is an object with a length': (p) => (p.segments[0].timestamp = { length: 200_000_000 }),
      'a timestamp too long': (p) => (p.segments[0].timestamp = 'A'.repeat(200_000)),
      'a checkpoint nested 20,000 deep': (p) => (p.segments[0].checkpoint = JSON.parse('['.repeat(20_000) + ']'.repeat(20_000))),
      'leaves that are not canonical base64': (p) => (p.segments[0].leaves = `${p.segments[0].leaves}\n`),
      'no segment at all': (p) => (p.segments = []),
      'a detailsdigest that is not a hash': (p) => (p.segments[0].events[0].detailsdigest = 'ab'),
    };
    for (const [what, change] of Object.entries(cases)) {
      const altered = structuredClone(proof) as any;
      change(altered);
      const report = await verifyProof(altered, pub, { tsaPem: 'not a certificate' });
      expect(report.result, what).toBe('broken');
      expect(report.events, what).toEqual([]);
    }
  });

  it('refuses what is not a proof, naming nothing as proven', async () => {
    for (const v of [null, 1, 'x', [], {}, { type: PROOF_TYPE, v: 2 }, { type: PROOF_TYPE, v: 1, tenant: 1, record: 'r', segments: [{}] }]) {
      const r = await verifyProof(v, pub);
      expect(r).toMatchObject({ result: 'broken', proven: 0 });
    }
  });
});

describe('the digest chain’s two forms', () => {
  it('takes the same leaf from an event’s canonical text as from its fields and details’ hash (what the chainer does)', () => {
    fc.assert(
      fc.property(eventArb, (e) => {
        const details = e.details === null ? null : Buffer.from(e.details, 'base64');
        const fields = { ...e, details };
        expect(leafOfDigest(canonicalHead(fields), detailsDigest(details))).toEqual(auditLeaf(canonical(fields)));
        expect(auditLeaf(canonical(fields))).toEqual(leaf({ ...e, seq: 1 }));
      }),
    );
  });

  it('follows an event in the leaf form or the first form, and refuses any other digest', () => {
    fc.assert(
      fc.property(fc.uint8Array({ minLength: 32, maxLength: 32 }), fc.integer({ min: 1, max: 1e9 }), eventArb, fc.uint8Array({ minLength: 32, maxLength: 32 }), (prev, seq, e, junk) => {
        const previous = Buffer.from(prev);
        const canonical = text({ ...e, seq });
        const leafForm = sha(previous, int8(seq), leaf({ ...e, seq }));
        const firstForm = sha(previous, int8(seq), canonical);
        expect(followingDigest(previous, seq, canonical, leafForm)).toEqual(leafForm);
        expect(followingDigest(previous, seq, canonical, firstForm)).toEqual(firstForm);
        expect(followingDigest(previous, seq, canonical, null)).toEqual(leafForm);
        expect(followingDigest(previous, seq, canonical, Buffer.from(junk)).equals(Buffer.from(junk))).toBe(false);
      }),
    );
  });
});
