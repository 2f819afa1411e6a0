// POST /v2/UserPrelogin (public): a solved challenge sends an eight-digit code to the email or phone stored in the
// user's profile. The answer names this attempt (`loginid`) whether or not the identity belongs to anyone.
import { z } from 'zod';
import { defineOp } from '../define.js';
import { UuidOut } from '../outputs.js';
import { GENERATED } from '../examples.js';
import { Identity } from '../schemas.js';
import { Messages } from '../../errors.js';

export const LoginMode = z.enum(['email', 'phone'], { error: (iss) => (iss.input === undefined ? undefined : Messages.badMode) });

export const UserPrelogin = defineOp({
  name: 'UserPrelogin',
  summary: "A solved challenge sends an eight-digit code to the email or phone stored in the user's profile",
  output: z.object({ result: z.literal('done'), loginid: UuidOut.meta({ description: 'Send it to UserLogin with the code.' }) }),
  example: { mode: 'email', identity: 'ada@example.com', captchacode: GENERATED.uuid, code: '4821' },
  access: 'public',
  kinds: [],
  transaction: 'read',
  rateLimited: true,
  // `code`: the challenge's solution (a number); `captchacode`: the challenge's id from CaptchaCreate.
  input: z.object({
    mode: LoginMode,
    identity: Identity,
    code: z.union([z.string().min(1).max(32), z.number().int().nonnegative().transform(String)]),
    captchacode: z.string().min(1).max(64),
  }),
  async run({ input, ctx }) {
    const { loginid } = await ctx.services.logins.prelogin(ctx.tenantId, input.mode, input.identity, input.code, input.captchacode);
    return { result: 'done', loginid };
  },
});
