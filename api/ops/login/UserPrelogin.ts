// POST /v2/UserPrelogin (public): a solved captcha sends a six-digit code to the user's email or phone.
import { z } from 'zod';
import { defineOp } from '../define.js';
import { Identity } from '../schemas.js';
import { Messages } from '../../errors.js';

export const LoginMode = z.enum(['email', 'phone'], { error: (iss) => (iss.input === undefined ? undefined : Messages.badMode) });

export const UserPrelogin = defineOp({
  name: 'UserPrelogin',
  access: 'public',
  kinds: [],
  transaction: 'read',
  input: z.object({ mode: LoginMode, identity: Identity, code: z.string().min(1).max(32), captchacode: z.string().min(1).max(64) }),
  async run({ input, ctx }) {
    await ctx.services.logins.prelogin(ctx.tenantId, input.mode, input.identity, input.code, input.captchacode);
    // The same answer whether or not the identity belongs to anyone.
    return { result: 'done' };
  },
});
