// Input pieces shared by the app data operations.
import { z } from 'zod';
import { Profile } from '../schemas.js';

/** Lowercased; SEED's `^[a-z0-9-]+$` plus OSS's underscore, at most 64 characters (CONTRACT §5 #27). */
export const AppName = z
  .string()
  .transform((s) => s.trim().toLowerCase())
  .pipe(z.string().regex(/^[a-z0-9_-]{1,64}$/, { error: 'Invalid API request parameter: appname: letters, digits, - and _ only, at most 64' }));

/** App data is a JSON object, like a profile. */
export const AppDataInput = Profile;
