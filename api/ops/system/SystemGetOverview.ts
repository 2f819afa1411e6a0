// POST /v2/SystemGetOverview (beyond the contract): what the console's overview draws for the tenant the call acts
// in: calls, refusals, consent given and withdrawn and requests opened per UTC day from the audit trail; requests
// pending and overdue against the one-month deadline; how far the audit chain is checkpointed.
// The cost is bounded whatever the tenant's size: the trail is read newest first along its primary key, at most
// OVERVIEW_MAX_EVENTS events (`scanned`; `complete: false` when older days of the window were not reached), and open
// requests are counted along the (status, creationtime) index up to OVERVIEW_MAX_REQUESTS.
import { z } from 'zod';
import { defineOp } from '../define.js';
import { UnixTime } from '../outputs.js';
import { DAY_SECONDS, type DayCounts } from '../../store/overview.js';

export const OVERVIEW_MAX_EVENTS = 100_000;
export const OVERVIEW_MAX_REQUESTS = 10_000;

const TITLES = {
  given: ['AgreementAccept'],
  withdrawn: ['AgreementCancel', 'AgreementRevokeAll'],
  requests: ['UserUpdateRequest', 'UserPatchRequest', 'UserDeleteRequest', 'AppdataUpdateRequest', 'AgreementCancelRequest'],
};

/** Every day of the window, oldest first, with zeros where nothing happened. */
function fillDays(counts: DayCounts[], first: number, last: number) {
  const byDay = new Map(counts.map((c) => [c.day, c]));
  const out = [];
  for (let day = first; day <= last; day++) {
    const c = byDay.get(day);
    out.push({
      date: new Date(day * DAY_SECONDS * 1000).toISOString().slice(0, 10),
      calls: c?.calls ?? 0,
      refusals: c?.refusals ?? 0,
      consentgiven: c?.given ?? 0,
      consentwithdrawn: c?.withdrawn ?? 0,
      requests: c?.requests ?? 0,
    });
  }
  return out;
}

export const SystemGetOverview = defineOp({
  name: 'SystemGetOverview',
  summary: 'The tenant at a glance: calls, refusals, consent and requests per day; requests pending and overdue; the chain checkpointed',
  output: z.object({
    days: z.array(z.object({ date: z.string(), calls: z.number().int(), refusals: z.number().int(), consentgiven: z.number().int(), consentwithdrawn: z.number().int(), requests: z.number().int() })),
    complete: z.boolean().meta({ description: 'False when the oldest days shown were not read whole (the walk back through the trail stopped at its cap).' }),
    scanned: z.number().int().meta({ description: 'Audit events read, newest first.' }),
    requests: z.object({ pending: z.number().int(), overdue: z.number().int(), capped: z.boolean() }),
    checkpoint: z.object({ headseq: z.number().int(), checkpointedseq: z.number().int(), checkpointedat: UnixTime.nullable() }),
  }),
  example: { days: 30 },
  access: 'admin',
  kinds: [],
  transaction: 'read',
  housekeeping: true,
  input: z.object({ days: z.coerce.number().int().min(1).max(90).default(30) }),
  async run({ input, ctx }) {
    const last = Math.floor(ctx.now / DAY_SECONDS);
    const first = last - input.days + 1;
    const { days, scanned } = await ctx.stores.overview.eventsByDay(OVERVIEW_MAX_EVENTS, TITLES);
    const oldest = days[0]?.day;
    const requests = await ctx.stores.overview.openRequests(ctx.now, OVERVIEW_MAX_REQUESTS);
    const chain = await ctx.stores.auditCheckpointed.distance();
    return {
      days: fillDays(days.filter((d) => d.day >= first), first, last),
      // The window's oldest days are whole unless the walk stopped at its cap inside the window.
      complete: scanned < OVERVIEW_MAX_EVENTS || (oldest !== undefined && oldest < first),
      scanned,
      requests: { ...requests, capped: requests.pending >= OVERVIEW_MAX_REQUESTS },
      checkpoint: { headseq: chain.head.seq, checkpointedseq: chain.checkpointed.seq, checkpointedat: chain.checkpointed.time },
    };
  },
});
