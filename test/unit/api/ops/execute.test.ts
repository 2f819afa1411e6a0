// How request bodies are normalised and how validation failures become the contract's 400 messages.
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { z } from 'zod';
import { normaliseBody, validationMessage } from '../../../../api/ops/execute.js';
import { Mode, UserRef, Uuid } from '../../../../api/ops/schemas.js';

function messageFor(schema: z.ZodType, body: Record<string, unknown>): string {
  const normalised = normaliseBody(body);
  const r = schema.safeParse(normalised);
  if (r.success) throw new Error('expected a failure');
  return validationMessage(r.error, normalised);
}

describe('normaliseBody', () => {
  it('drops top-level nulls and coerces numeric *id strings, leaving nested values alone', () => {
    expect(normaliseBody({ groupid: '12', tenantid: 7, unlockuuid: 'abc', groupdesc: null, profile: { a: null, roleid: '3' } })).toEqual({
      groupid: 12,
      tenantid: 7,
      unlockuuid: 'abc',
      profile: { a: null, roleid: '3' },
    });
  });
});

describe('normaliseBody and Unicode', () => {
  // A string that does not survive UTF-8 (a lone surrogate becomes U+FFFD) would hash like another identity:
  // refused at the top level, where identities are; every string that survives is taken unchanged.
  it('refuses top-level strings that UTF-8 cannot carry, keeps all others (fast-check)', () => {
    const surrogate = fc.integer({ min: 0xd800, max: 0xdfff }).map((c) => String.fromCharCode(c));
    const text = fc.array(fc.oneof(fc.string({ unit: 'binary' }), surrogate), { maxLength: 4 }).map((parts) => parts.join(''));
    fc.assert(
      fc.property(text, (identity) => {
        const survives = Buffer.from(identity, 'utf8').toString('utf8') === identity;
        if (survives && !identity.includes('\u0000')) expect(normaliseBody({ identity })).toEqual({ identity });
        else expect(() => normaliseBody({ identity })).toThrow(/identity must/);
      }),
      { numRuns: 2000 },
    );
  });
});

describe('validationMessage', () => {
  const Get = z.object({ ...UserRef, profile: z.record(z.string(), z.unknown()) });

  it('lists every missing field', () => {
    expect(messageFor(Get, {})).toBe('Missing API request parameters: mode, identity, profile');
    expect(messageFor(Get, { mode: 'email', identity: 'a' })).toBe('Missing API request parameters: profile');
  });

  it('names the wrong field and keeps contractual messages verbatim', () => {
    expect(messageFor(Get, { mode: 'email', identity: 'a', profile: [] })).toMatch(/^Invalid API request parameter: profile: /);
    expect(messageFor(z.object({ mode: Mode }), { mode: 'nick' })).toBe('The mode parameter has an incorrect format: use login, token, email, phone or custom');
    expect(messageFor(z.object({ id: Uuid }), { id: 'x' })).toBe('Bad UUID');
  });
});
