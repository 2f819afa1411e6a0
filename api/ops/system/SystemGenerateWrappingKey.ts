// POST /v2/SystemGenerateWrappingKey: three recovery shares for a new wrapping key, shown once; main tenant only.
import { z } from 'zod';
import { defineOp, mainTenantOp } from '../define.js';
import { forbidden, Messages } from '../../errors.js';
import { TokenizerRejectedError } from '../../tokenizer-client.js';

const Share = (field: string) =>
  z.string().regex(/^(?:[0-9a-fA-F]{2})+$/, { error: (iss) => (iss.input === undefined ? undefined : `Invalid API request parameter: ${field}: expected a hex share`) });

export const SystemGenerateWrappingKey = defineOp({
  name: 'SystemGenerateWrappingKey',
  summary: 'Three recovery shares for a new wrapping key, shown once; main tenant only',
  output: z.object({ wrappingkey: z.string().meta({ description: 'The new wrapping key, hex: shown once.' }) }),
  example: { key1: '0a1b…(share 1)', key2: '2c3d…(share 2)', key3: '4e5f…(share 3)' },
  ...mainTenantOp('own'),
  input: z.object({ key1: Share('key1'), key2: Share('key2'), key3: Share('key3') }),
  async run({ input, ctx }) {
    if (ctx.principal.kind !== 'root') throw forbidden(Messages.wrappingKeyRootOnly);
    try {
      const wrappingkey = await ctx.services.custody.rewrap([input.key1, input.key2, input.key3]);
      // The event records that it happened, never the key.
      ctx.audit.after = { rewrapped: true };
      return { wrappingkey };
    } catch (err) {
      if (err instanceof TokenizerRejectedError) throw forbidden(Messages.masterKeyMismatch);
      throw err;
    }
  },
});
