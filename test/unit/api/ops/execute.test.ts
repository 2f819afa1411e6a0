// How request bodies are normalised and how validation failures become the contract's 400 messages.
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { normaliseBody, validationMessage } from '../../api/ops/execute.js';
import { Mode, UserRef, Uuid, pageOf, Limit, Offset } from '../../api/ops/schemas.js';
import { subdomainOf } from '../../api/vault/tenants.js';
import { toEnvelope } from '../../api/http/envelope.js';
import { conflict } from '../../api/errors.js';

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

describe('pagination', () => {
  const Page = z.object({ offset: Offset, limit: Limit });
  it.each([
    [{}, { offset: 0, limit: 10 }],
    [{ limit: 0 }, { offset: 0, limit: 100 }],
    [{ limit: 101 }, { offset: 0, limit: 100 }],
    [{ limit: '25', offset: '50' }, { offset: 50, limit: 25 }],
  ])('%j pages as %j', (input, expected) => {
    expect(pageOf(Page.parse(input), 100)).toEqual(expected);
  });
});

describe('subdomainOf', () => {
  it.each([
    ['acme.vault.example.com', 'acme'],
    ['acme.localhost:3000', 'acme'],
    ['localhost:3000', undefined],
    ['127.0.0.1:3000', undefined],
    ['[::1]:3000', undefined],
    [undefined, undefined],
  ])('%s gives %s', (host, sub) => {
    expect(subdomainOf(host)).toBe(sub);
  });
});

describe('toEnvelope', () => {
  it('keeps vault errors, maps parser errors, and hides everything else', () => {
    expect(toEnvelope(conflict('Duplicate index: email'))).toEqual({ status: 409, message: 'Duplicate index: email' });
    expect(toEnvelope(Object.assign(new SyntaxError('Unexpected token } in {"ssn":"123"'), { status: 400 }))).toEqual({
      status: 400,
      message: 'Failed to decode the request body',
    });
    expect(toEnvelope(Object.assign(new Error('too big'), { status: 413, type: 'entity.too.large' })).status).toBe(413);
    expect(toEnvelope(new Error('connection to 10.0.0.5 refused'))).toEqual({ status: 500, message: 'Internal error' });
  });
});
