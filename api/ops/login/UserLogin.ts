// POST /v2/UserLogin (public): the code from UserPrelogin for a login xtoken and the user's token. `loginid` (from
// UserPrelogin) binds the guess to that attempt's code; the SDKs send none, and then any live code is tried.
// A login and a lockout are events on the person's trail.
import { z } from 'zod';
import { defineOp } from '../define.js';
import { RecordToken } from '../outputs.js';
import { GENERATED } from '../examples.js';
import { Identity } from '../schemas.js';
import { LoginMode } from './UserPrelogin.js';
import { LockoutError } from '../../vault/logins.js';
import { onTrail } from './trail.js';

export const UserLogin = defineOp({
  name: 'UserLogin',
  summary: "The code from UserPrelogin for a login xtoken and the user's token",
  output: z.object({ xtoken: z.string().meta({ description: 'A login xtoken: the person’s own record only.' }), token: RecordToken }),
  example: { mode: 'email', identity: 'ada@example.com', smscode: '12345678', loginid: GENERATED.uuid },
  access: 'public',
  kinds: [],
  transaction: 'read',
  rateLimited: true,
  input: z.object({
    mode: LoginMode,
    identity: Identity,
    smscode: z.union([z.string().min(1).max(16), z.number().int().nonnegative().transform((n) => String(n).padStart(8, '0'))]),
    loginid: z.string().max(64).optional(),
  }),
  // A client that names its own live attempt is served through a flood of logins in its tenant.
  attemptUnderWay: async (input, services, tenantId) => input.loginid !== undefined && (await services.logins.isUnderWay(tenantId, input.loginid)),
  async run({ input, ctx }) {
    try {
      const login = await ctx.services.logins.login(ctx.tenantId, input.mode, input.identity, input.smscode, { loginid: input.loginid, address: ctx.clientAddress });
      await onTrail(ctx, 'UserLogin', { token: login.token, mode: input.mode });
      return login;
    } catch (err) {
      if (err instanceof LockoutError) await onTrail(ctx, 'UserLockout', { token: err.token, mode: input.mode });
      throw err;
    }
  },
});
