// POST /v2/CaptchaCreate (public): a new proof-of-work challenge (ALTCHA); its id goes back with the solution to
// UserPrelogin.
import { z } from 'zod';
import { defineOp } from '../define.js';

export const CaptchaCreate = defineOp({
  name: 'CaptchaCreate',
  access: 'public',
  kinds: [],
  transaction: 'read',
  rateLimited: true,
  input: z.object({}),
  async run({ ctx }) {
    return ctx.services.logins.createChallenge();
  },
});
