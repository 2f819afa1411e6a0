// POST /v2/UserRequestGet: one request with its proposed change and, while open, what it would change.
import { z } from 'zod';
import { defineOp } from '../define.js';
import { Uuid } from '../schemas.js';
import { presentRequest } from '../../vault/requests.js';

export const UserRequestGet = defineOp({
  name: 'UserRequestGet',
  access: 'tenant',
  login: 'own',
  kinds: ['request', 'profile'],
  judges: 'person',
  transaction: 'read',
  input: z.object({ requestuuid: Uuid }),
  async run({ input, ctx }) {
    const requests = ctx.services.requests;
    const row = await requests.get(ctx, input.requestuuid);
    ctx.audit.record = row.user_token;
    const change = await requests.change(ctx, row);
    const request: Record<string, unknown> = { ...presentRequest(row), change };
    // The data the change would replace, as it is now: what an approver compares the proposal with.
    if (row.status === 'open' && row.requesttype === 'change-profile') {
      request.original = (await ctx.services.users.find(ctx, 'token', row.user_token)).profile;
    } else if (row.status === 'open' && row.requesttype === 'change-app-data') {
      request.original = await ctx.services.appdata.get(ctx, row.user_token, row.appname!).then(
        (a) => a.data,
        () => null,
      );
    }
    return { request };
  },
});
