// How request bodies are normalised and how validation failures become the contract's 400 messages.
import { describe, expect, it } from 'vitest';
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

describe('validationMessage', () => {
  const Get = z.object({ ...UserRef, profile: z.record(z.string(), z.unknown()) });

  it('lists every missing field', () => {
    expect(messageFor(Get, {})).toBe('Missing API request parameters: mode, identity, profile');
    expect(messageFor(Get, { mode: 'email', identity: 'a' })).toBe('Missing API request parameters: profile');
  });

  it('names the wrong field and keeps contractual messages verbatim', () => {
    expect(messageFor(Get, { mode: 'email', identity: 'a', profile: [] })).toMatch(/^Invalid API request parameter: profile: /);
    expect(messageFor(z.object({ mode: Mode }), { mode: 'nick' })).toBe('The mode parameter has an incorrect format');
    expect(messageFor(z.object({ id: Uuid }), { id: 'x' })).toBe('Bad UUID');
  });
});
