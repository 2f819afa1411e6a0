// POST /v2/SystemResplitRecoveryKey: three current recovery shares in, five new ones out, after which the old ones
// are void. Beyond the contract; the root token only. The shares are in no log and no audit event: the event says
// only that a re-split happened. With STRONGROOM_RECOVERY_RECIPIENTS set for the tokenizer, the new shares come
// back only age-encrypted, share n to recipient n; otherwise in clear, once, to the caller.
import { z } from 'zod';
import { defineOp } from '../define.js';
import { badRequest, conflict, forbidden } from '../../errors.js';
import { TokenizerRejectedError } from '../../tokenizer-client.js';

const SHARE = /^(?:[0-9a-fA-F]{2}){2,64}$/;

/** 400 naming `shares`; the message never quotes a share. */
const badShares = (why: string) => badRequest(`Invalid API request parameter: shares: ${why}`);

export const SystemResplitRecoveryKey = defineOp({
  name: 'SystemResplitRecoveryKey',
  summary: 'Three current recovery shares in, five new ones out, after which the old ones are void',
  output: z.object({ keyringid: z.string(), encrypted: z.boolean(), shares: z.array(z.string()).optional().meta({ description: 'Five new shares (when no recipients are configured): shown once.' }), recipients: z.array(z.string()).optional(), encryptedshares: z.array(z.string()).optional().meta({ description: 'The shares, each encrypted to its recipient (age).' }) }),
  example: { shares: ['0a1b…(share 1)', '2c3d…(share 2)', '4e5f…(share 3)'] },
  access: 'mainTenant',
  kinds: [],
  transaction: 'own',
  // Checked here rather than by the schema, so that no validation message can echo a share.
  input: z.object({ shares: z.unknown() }),
  async run({ input, ctx }) {
    if (ctx.principal.kind !== 'root') throw forbidden('Only the root token can re-split the recovery key');
    const shares = input.shares;
    if (shares === undefined) throw badRequest('Missing API request parameters: shares');
    if (!Array.isArray(shares)) throw badShares('expected an array of three hex shares');
    if (shares.length < 3) throw badShares('three current shares are needed');
    if (shares.length > 5) throw badShares('at most five shares are taken');
    if (!shares.every((s): s is string => typeof s === 'string' && SHARE.test(s))) throw badShares('expected hex shares');
    if (new Set(shares.map((s) => s.toLowerCase())).size !== shares.length) throw badShares('a share is given twice');
    let res;
    try {
      res = await ctx.services.custody.resplit(shares);
    } catch (err) {
      if (!(err instanceof TokenizerRejectedError)) throw err;
      // No recovery key, or recipients configured wrongly: the tokenizer's own words, which name no share.
      if (err.kind === 'refused') throw conflict(err.reason);
      throw badShares(err.reason.replace(/^shares: /, ''));
    }
    const encrypted = res.encrypted_shares.length > 0;
    // The event records that it happened and for which keyring, never a share.
    ctx.audit.after = { resplit: true, encrypted, keyringid: res.keyring_id };
    return encrypted
      ? { keyringid: res.keyring_id, encrypted: true, recipients: res.recipients, encryptedshares: res.encrypted_shares }
      : { keyringid: res.keyring_id, encrypted: false, shares: res.shares };
  },
});
