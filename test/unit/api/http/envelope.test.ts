// How errors become the contract's envelope: the vault's own kept, parsers' mapped, everything else hidden.
import { describe, expect, it } from 'vitest';
import { Writable } from 'node:stream';
import type { Context } from 'koa';
import { pino } from 'pino';
import { envelope, toEnvelope } from '../../../../api/http/envelope.js';
import { conflict, Messages, UnavailableError } from '../../../../api/errors.js';

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

describe('envelope', () => {
  /** Runs the middleware over a handler that throws `err`; the answer and the lines logged. */
  async function answer(err: Error): Promise<{ status: number; lines: { level: number; msg: string; err?: unknown }[] }> {
    const lines: { level: number; msg: string; err?: unknown }[] = [];
    const log = pino(new Writable({ write: (chunk: Buffer, _enc, done) => done(void lines.push(JSON.parse(chunk.toString()))) }));
    const headers: Record<string, string> = {};
    const ctx = { state: { reqId: 'r1' }, status: 200, body: undefined, set: (k: string, v: string) => void (headers[k] = v) } as unknown as Context;
    await envelope(log)(ctx, async () => {
      throw err;
    });
    return { status: ctx.status, lines };
  }

  it('logs a busy refusal as a warning without a stack, and other failures as errors with one', async () => {
    const busy = await answer(new UnavailableError(Messages.busy));
    expect(busy.status).toBe(503);
    expect(busy.lines).toEqual([expect.objectContaining({ level: 40, msg: 'request refused: busy' })]);
    expect(JSON.stringify(busy.lines)).not.toContain('stack');
    const failed = await answer(new Error('boom'));
    expect(failed.status).toBe(500);
    expect(failed.lines).toEqual([expect.objectContaining({ level: 50, msg: 'request failed', err: expect.objectContaining({ stack: expect.any(String) }) })]);
  });
});
