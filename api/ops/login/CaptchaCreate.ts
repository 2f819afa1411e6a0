// POST /v2/CaptchaCreate (public): a new proof-of-work challenge (ALTCHA); its id goes back with the solution to
// UserPrelogin.
import { z } from 'zod';
import { defineOp } from '../define.js';
import { UuidOut } from '../outputs.js';

export const CaptchaCreate = defineOp({
  name: 'CaptchaCreate',
  summary: 'A new proof-of-work challenge (ALTCHA); its id goes back with the solution to UserPrelogin',
  output: z.object({ captchacode: UuidOut.meta({ description: 'Send it back to UserPrelogin as `captchacode`, with the solution as `code`.' }), challenge: z.object({ algorithm: z.string(), challenge: z.string(), maxnumber: z.number().int(), salt: z.string(), signature: z.string() }).meta({ description: 'An ALTCHA proof-of-work challenge.' }) }),
  example: {},
  access: 'public',
  kinds: [],
  transaction: 'read',
  servedWhenKeyRevoked: true,
  rateLimited: true,
  input: z.object({}),
  async run({ ctx }) {
    return ctx.services.logins.createChallenge();
  },
});
