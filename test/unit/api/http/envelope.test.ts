// How errors become the contract's envelope: the vault's own kept, parsers' mapped, everything else hidden.
import { describe, expect, it } from 'vitest';
import { toEnvelope } from '../../../../api/http/envelope.js';
import { conflict } from '../../../../api/errors.js';

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
