// POST /v2/CaptchaCreate (public): a new image captcha; its id goes back with the answer to UserPrelogin.
import { z } from 'zod';
import { defineOp } from '../define.js';

export const CaptchaCreate = defineOp({
  name: 'CaptchaCreate',
  access: 'public',
  kinds: [],
  transaction: 'read',
  input: z.object({}),
  async run({ ctx }) {
    return ctx.services.logins.createCaptcha();
  },
});
