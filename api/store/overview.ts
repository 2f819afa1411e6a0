// SQL for SystemGetOverview: the tenant's newest audit events counted by day, its open requests, its chain's
// checkpoint. Every statement reads a bounded number of rows, whatever the tenant's size.
import { TenantTables } from './tenant-tables.js';

export const DAY_SECONDS = 86_400;

/** One day's counts: `day` is the UTC day number (Unix seconds / 86,400). */
export interface DayCounts {
  day: number;
  calls: number;
  refusals: number;
  given: number;
  withdrawn: number;
  requests: number;
}

/** Which operations count as consent given, consent withdrawn and a person's request opened. */
export interface OverviewTitles {
  given: readonly string[];
  withdrawn: readonly string[];
  requests: readonly string[];
}

export class OverviewStore extends TenantTables {
  /**
   * The newest `cap` events (a backward walk of the primary key: seq order is the order events were chained),
   * counted by UTC day. `scanned` says how many were read; when it reaches `cap` the oldest days may be partial.
   */
  async eventsByDay(cap: number, titles: OverviewTitles): Promise<{ days: DayCounts[]; scanned: number }> {
    const rows = await this.sql<DayCounts>(
      `select floor(e."when" / ${DAY_SECONDS})::int as day, count(*)::int as calls,
         count(*) filter (where e.status = 'error')::int as refusals,
         count(*) filter (where e.status = 'ok' and e.title = any($2::text[]))::int as given,
         count(*) filter (where e.status = 'ok' and e.title = any($3::text[]))::int as withdrawn,
         count(*) filter (where e.status = 'ok' and e.title = any($4::text[]))::int as requests
       from (select "when", title, status from ${this.t}.audit_events order by seq desc limit $1) e
       group by 1 order by 1`,
      [cap, titles.given, titles.withdrawn, titles.requests],
    );
    const days = rows.map((r) => ({ day: Number(r.day), calls: r.calls, refusals: r.refusals, given: r.given, withdrawn: r.withdrawn, requests: r.requests }));
    return { days, scanned: days.reduce((n, d) => n + d.calls, 0) };
  }

  /**
   * Open requests, and how many of them are past their deadline at `now` (Unix seconds), each counted up to `cap`:
   * the oldest open ones first along the (status, creationtime) index, so the overdue count is exact below the cap.
   * The deadline is one calendar month later in UTC; PostgreSQL's month arithmetic ends on the month's last day
   * when it has no such day (31 January + 1 month = 28 February), as the console's own deadline does.
   */
  async openRequests(now: number, cap: number): Promise<{ pending: number; overdue: number }> {
    const [r] = await this.sql<{ pending: number; overdue: number }>(
      `select count(*)::int as pending,
         count(*) filter (where (to_timestamp(creationtime) at time zone 'UTC') + interval '1 month' < (to_timestamp($1) at time zone 'UTC'))::int as overdue
       from (select creationtime from ${this.t}.user_requests where status = 'open' order by creationtime limit $2) o`,
      [now, cap],
    );
    return { pending: r?.pending ?? 0, overdue: r?.overdue ?? 0 };
  }
}
