// The privacy events' vocabulary: changed field names against an independent oracle, never a value; their CloudEvent
// form; the dispatcher's back-off bounds.
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { CloudEvent } from 'cloudevents';
import { changedFields, cloudEventBody, MAX_FIELDS } from '../../../../../api/vault/privacy/events.js';
import { nextTry } from '../../../../../api/vault/privacy/dispatcher.js';

/** Every leaf of a document by its path (as a JSON array of keys), the oracle's own way: JSON text of each non-object value. */
function flat(doc: unknown, prefix: string[] = []): Map<string, string> {
  const out = new Map<string, string>();
  if (typeof doc === 'object' && doc !== null && !Array.isArray(doc) && Object.keys(doc).length) {
    for (const [k, v] of Object.entries(doc)) for (const [p, t] of flat(v, [...prefix, k])) out.set(p, t);
  } else if (prefix.length && doc !== undefined) out.set(JSON.stringify(prefix), JSON.stringify(doc));
  return out;
}

/** Keys a tenant might use: identifiers, and keys that are personal values themselves (a map of contacts). */
const PERSONAL_KEYS = ['alice@example.com', '+44 7700 900123', 'Ada Lovelace', '447700900123', 'a.b', 'x/y~z', ''];
const key = fc.constantFrom('name', 'email', 'phone', 'address', 'city', 'tags', 'x', ...PERSONAL_KEYS);
const leaf = fc.oneof(fc.string(), fc.integer(), fc.boolean(), fc.constant(null), fc.array(fc.integer(), { maxLength: 3 }));
const doc = fc.letrec((tie) => ({ node: fc.dictionary(key, fc.oneof({ depthSize: 'small' }, leaf, tie('node')), { maxKeys: 4 }) })).node;

describe('changedFields', () => {
  it('names exactly the leaves whose value differs, sorted, and never a value', () => {
    fc.assert(
      fc.property(doc, doc, fc.string({ minLength: 8 }), (a, b, canary) => {
        const before = { ...a, secret: `${canary}-old` };
        const after = { ...b, secret: `${canary}-new` };
        const x = flat(before);
        const y = flat(after);
        const changed = [...new Set([...x.keys(), ...y.keys()])].filter((k) => x.get(k) !== y.get(k)).map((k) => JSON.parse(k) as string[]);
        const personal = changed.filter((path) => path.some((k) => PERSONAL_KEYS.includes(k)));
        const oracle = changed.filter((path) => !personal.includes(path)).map((path) => path.join('.')).sort();
        const { fields, count, unnamed } = changedFields(before, after);
        expect(fields).toEqual(oracle.slice(0, MAX_FIELDS));
        if (oracle.length > MAX_FIELDS) expect(count).toBe(oracle.length);
        expect(unnamed ?? 0).toBe(personal.length);
        expect(JSON.stringify(fields)).not.toContain(canary);
        for (const k of PERSONAL_KEYS.filter(Boolean)) expect(fields.some((f) => f.split('.').includes(k) || f.includes(k + '.') )).toBe(false);
      }),
    );
  });

  // Real updates change a few fields of a large profile: the walk over both documents must skip what is the same and
  // still name every leaf that differs, against the same oracle.
  it('names exactly the leaves a patch changed in a larger document (generated)', () => {
    const patch = fc.dictionary(key, fc.oneof(leaf, doc, fc.constant(undefined)), { maxKeys: 3 });
    fc.assert(
      fc.property(doc, doc, patch, fc.array(key, { maxLength: 2 }), (a, inner, p, at) => {
        const before: Record<string, unknown> = { ...a, nested: { ...inner, deep: { ...a } } };
        const after = structuredClone(before);
        let target: Record<string, unknown> = after;
        for (const k of at) target = (target[k] = typeof target[k] === 'object' && target[k] !== null && !Array.isArray(target[k]) ? target[k] : {}) as Record<string, unknown>;
        for (const [k, v] of Object.entries(p)) {
          if (v === undefined) delete target[k];
          else target[k] = v;
        }
        const x = flat(before);
        const y = flat(after);
        const changed = [...new Set([...x.keys(), ...y.keys()])].filter((k) => x.get(k) !== y.get(k)).map((k) => JSON.parse(k) as string[]);
        const named = changed.filter((path) => !path.some((k) => PERSONAL_KEYS.includes(k))).map((path) => path.join('.')).sort();
        const { fields, count, unnamed } = changedFields(before, after);
        expect(fields).toEqual(named.slice(0, MAX_FIELDS));
        expect(count).toBe(named.length > MAX_FIELDS ? named.length : undefined);
        expect(unnamed ?? 0).toBe(changed.length - named.length);
      }),
      { numRuns: 2_000 },
    );
  });

  it('names nothing when nothing changed, and caps a huge change at 100 names with its count', () => {
    expect(changedFields({ a: { b: 1 } }, { a: { b: 1 } })).toEqual({ fields: [] });
    const big = Object.fromEntries(Array.from({ length: 250 }, (_, i) => [`f${i}`, i]));
    const r = changedFields({}, big);
    expect(r.fields).toHaveLength(100);
    expect(r.count).toBe(250);
  });
});

describe('cloudEventBody', () => {
  it('is a CloudEvents 1.0 document: id, source, type, subject, sequence, data with tenant and person', () => {
    const body = JSON.parse(cloudEventBody(7, { id: 42, uuid: '3f0c1e0a-9d51-4a3c-8a34-0f6d0c1b2a77', type: 'person.updated', time: 1_800_000_000_000, person: '6d7e3d1a-63a6-4a3f-8f6b-0d4b3c0b1d11', data: { fields: ['name'] } }));
    expect(body).toMatchObject({
      specversion: '1.0',
      id: '3f0c1e0a-9d51-4a3c-8a34-0f6d0c1b2a77',
      source: '/strongroom/tenants/7',
      type: 'person.updated',
      subject: '6d7e3d1a-63a6-4a3f-8f6b-0d4b3c0b1d11',
      sequence: '42',
      datacontenttype: 'application/json',
      data: { tenant: 7, person: '6d7e3d1a-63a6-4a3f-8f6b-0d4b3c0b1d11', fields: ['name'] },
    });
    expect(new Date(body.time as string).getTime()).toBe(1_800_000_000_000);
  });

  it('makes only events the CloudEvents schema accepts (it is not validated when made)', () => {
    const types = ['person.created', 'person.updated', 'person.erased', 'consent.withdrawn', 'token.detokenized', 'audit.checkpoint', 'erasure.overdue'];
    fc.assert(
      fc.property(fc.nat(), fc.constantFrom(...types), fc.option(fc.uuid(), { nil: null }), fc.uuid(), fc.integer({ min: 1, max: Number.MAX_SAFE_INTEGER }), fc.integer({ min: 0, max: 4_102_444_800_000 }), fc.dictionary(fc.string({ minLength: 1 }), fc.jsonValue()), (tenant, type, person, uuid, id, time, data) => {
        const made = JSON.parse(cloudEventBody(tenant, { id, uuid, type, time, person, data })) as Record<string, unknown>;
        // Strict: the package's own schema validation throws on anything CloudEvents 1.0 does not allow.
        expect(() => new CloudEvent(made as ConstructorParameters<typeof CloudEvent>[0], true)).not.toThrow();
        expect(made).toMatchObject({ id: uuid, type, sequence: String(id), specversion: '1.0' });
      }),
      { numRuns: 500 },
    );
  });
});

describe('nextTry', () => {
  it('waits between half and one and a half times a doubling delay, at most 15 min, and gives up past the retry window', () => {
    fc.assert(
      fc.property(fc.nat(40), fc.nat(10 * 86_400_000), fc.double({ min: 0, max: 0.999999, noNaN: true }), fc.integer({ min: 10, max: 600_000 }), (attempts, age, r, firstMs) => {
        const now = 1_800_000_000_000;
        const forMs = 86_400_000;
        const at = nextTry(attempts, age, now, { forMs, firstMs }, () => r);
        const base = Math.min(600_000, firstMs * 2 ** Math.min(attempts, 20));
        if (at === null) {
          expect(age + Math.round(base * (0.5 + r))).toBeGreaterThan(forMs);
        } else {
          expect(at - now).toBeGreaterThanOrEqual(Math.floor(base * 0.5));
          expect(at - now).toBeLessThanOrEqual(Math.ceil(base * 1.5));
          expect(at - now).toBeLessThanOrEqual(900_000);
          expect(age + (at - now)).toBeLessThanOrEqual(forMs);
        }
      }),
    );
  });
});
