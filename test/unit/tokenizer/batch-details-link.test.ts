// A read's link made in the message that seals its details (ChainItem.details_sealed_as): the tokenizer links the
// text it makes of the event's head and the details it sealed, which must be exactly the link of the whole text sent
// as it is (the oracle: a second batch linking that text, from the same head, on a tokenizer of the same keys). An
// item naming details the batch did not seal, or joining details to a queued event, is refused before anything runs.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes, randomUUID } from 'node:crypto';
import fc from 'fast-check';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { loadKeyring } from '../../../tokenizer/keyring-start.js';
import { Subkeys } from '../../../tokenizer/subkeys.js';
import { runBatch, BadItemError, type BatchHooks } from '../../../tokenizer/batch.js';
import { AuditKeys } from '../../../tokenizer/audit-keys.js';
import { AuditHeads } from '../../../tokenizer/audit-heads.js';
import { linkChainItem } from '../../../tokenizer/audit-chain.js';
import type { Batch__Output as BatchRequest } from '../../../proto/loader.js';
import type { ChainItem__Output } from '../../../proto/generated/strongroom/tokenizer/v1/ChainItem.js';
import { canonicalText } from '../../../proto/audit-checkpoint.js';

const { keyring } = loadKeyring({ dataDir: mkdtempSync(join(tmpdir(), 'sr-')), wrappingKey: randomBytes(32) }, () => {});
const keys = new Subkeys(keyring);
const audit = new AuditKeys(keyring, keys);
const log = pino({ level: 'silent' });
const salt = Buffer.alloc(0);
const empty: BatchRequest = { tenant_id: 3, hash: [], seal: [], open: [], tokenize: [], detokenize: [], new_key_subjects: [], rewrap_keys: [],
  chain: [], queue_mac: [], tenant_salt: salt, kek_label: '', kek_wrapped: Buffer.alloc(0) };
const noKey = { wrapped_key: Buffer.alloc(0), subject: '' };

/** A tokenizer's hooks with heads of its own (a fresh one knows no committed head: it links from the trail's start). */
function hooks(): BatchHooks {
  const heads = new AuditHeads(join(mkdtempSync(join(tmpdir(), 'sr-heads-')), 'keyring.json'), log);
  return { chain: (tenantId, s, item) => linkChainItem(audit, heads, tenantId, s, item) };
}

const head = (uuid: string, when: number, msg: string | null) => JSON.stringify([uuid, when, 'UserGet', 'ok', msg, 'root:x', randomUUID(), 'email', null]);
const item = (canonical: string[], over: Partial<ChainItem__Output> = {}): ChainItem__Output => ({
  previous: Buffer.alloc(0), first_seq: '1', canonical, queue_mac: [], committed_seq: '0', committed_link: Buffer.alloc(0),
  proof_canonical: '', proof_previous: Buffer.alloc(0), proof_legacy: false, details_sealed_as: [], ...over,
});

describe('a chain item joined to the details its batch sealed', () => {
  it('links the head and the sealed details as the whole text would be linked', async () => {
    await fc.assert(
      fc.asyncProperty(fc.uuid(), fc.integer({ min: 0, max: 2 ** 40 }), fc.option(fc.string(), { nil: null }), fc.jsonValue(), fc.integer({ min: 0, max: 3 }), async (uuid, when, msg, details, others) => {
        const eventHead = head(uuid, when, msg);
        // Other texts around it in the same run (whole ones), and other seal items around its own.
        const before = Array.from({ length: others }, () => canonicalText(head(randomUUID(), when, null), null));
        const seals = [
          ...before.map((_, i) => ({ table: 'users', row_id: `u${i}`, plaintext: Buffer.from(`p${i}`), ...noKey })),
          { table: 'audit_events', row_id: uuid, plaintext: Buffer.from(JSON.stringify(details)), ...noKey },
        ];
        const res = await runBatch(keys, keyring.active, { ...empty, seal: seals, chain: [item([...before, eventHead], { details_sealed_as: [...before.map(() => ''), uuid] })] }, {}, hooks());
        const sealed = res.sealed.at(-1)!;
        expect(res.chained[0]!.details_joined).toBe(true);
        const whole = await runBatch(keys, keyring.active, { ...empty, chain: [item([...before, canonicalText(eventHead, sealed)])] }, {}, hooks());
        expect(res.chained[0]!.links.map((l) => l.toString('hex'))).toEqual(whole.chained[0]!.links.map((l) => l.toString('hex')));
        expect(whole.chained[0]!.details_joined).toBe(false);
      }),
      { numRuns: 40 },
    );
  });

  it.each<[string, Partial<ChainItem__Output>, string]>([
    ['details no seal item of the batch made', { details_sealed_as: ['00000000-0000-4000-8000-000000000000'] }, 'chain[0]: details_sealed_as[0] names no audit_events seal item of this batch'],
    ['more entries than texts', { details_sealed_as: ['a', 'b'] }, 'chain[0]: more details_sealed_as than canonical texts'],
    ['details joined to a queued event', { queue_mac: [Buffer.alloc(32)], details_sealed_as: ['a'] }, "chain[0]: a queued event's details are not sealed in its link's batch"],
  ])('refuses %s', async (_, over, message) => {
    const uuid = randomUUID();
    const err = await runBatch(keys, keyring.active, { ...empty, chain: [item([head(uuid, 1, null)], over)] }, {}, hooks()).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(BadItemError);
    expect((err as Error).message).toBe(message);
  });

  it('refuses details sealed for another table', async () => {
    const uuid = randomUUID();
    const seal = [{ table: 'users', row_id: uuid, plaintext: Buffer.from('{}'), ...noKey }];
    const err = await runBatch(keys, keyring.active, { ...empty, seal, chain: [item([head(uuid, 1, null)], { details_sealed_as: [uuid] })] }, {}, hooks()).catch((e: unknown) => e);
    expect((err as Error).message).toBe('chain[0]: details_sealed_as[0] names no audit_events seal item of this batch');
  });
});
