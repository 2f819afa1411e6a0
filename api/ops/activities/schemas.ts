// Input pieces shared by the processing activity operations.
import { z } from 'zod';
import { Brief, Text } from '../consent/schemas.js';
import { Done } from '../outputs.js';

/** A processing activity id: lowercased letters, digits, - and _, at most 64. */
export const Activity = z
  .string()
  .transform((s) => s.trim().toLowerCase())
  .pipe(z.string().regex(/^[a-z0-9_-]{1,64}$/, { error: 'Invalid API request parameter: activity: letters, digits, - and _ only, at most 64' }));

export const ActivityFields = {
  title: Text(256).optional(),
  script: Text(16 * 1024).optional(),
  fulldesc: Text(16 * 1024).optional(),
  applicableto: Text(1024).optional(),
};

/** What ProcessingActivityLinkLegalBasis and ProcessingActivityUnlinkLegalBasis take: an activity and a basis. */
export const ActivityBasisLink = {
  input: z.object({ activity: Activity, brief: Brief }),
  output: Done,
  example: { activity: 'newsletter', brief: 'marketing-email' },
};
