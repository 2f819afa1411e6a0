// The data-subject access report: everything the vault holds about one person, as JSON and as a readable,
// self-contained HTML page. Every value in the page is escaped; the page loads nothing and runs nothing.
import type { Services } from './services.js';
import type { Scope } from './scope.js';
import type { UserRow } from '../store/users.js';
import { presentUser } from './users.js';
import { presentRequest } from './requests.js';

/** How many of the person's most recent audit events the report lists (it also gives the total). */
const AUDIT_EVENTS = 100;
/** How many of the person's most recent requests (with their changes) it lists; the rest page through UserRequestListUserRequests. */
export const REPORT_REQUESTS = 20;

export async function userReport(services: Services, scope: Scope, row: UserRow): Promise<Record<string, unknown>> {
  const token = row.token;
  const [profile, appnames, agreements, sessions, shared, requests, groups, files, audit] = await Promise.all([
    services.users.open(scope.tenantId, row),
    scope.stores.appdata.userAppNames(token),
    services.consent.agreementsOf(scope, token),
    services.sessions.ofUser(scope, token),
    scope.stores.shared.ofUser(token, scope.now),
    scope.stores.requests.ofUser(token, 0, REPORT_REQUESTS),
    scope.stores.groups.groupsOf(token),
    scope.stores.files.ofUser(token, undefined, scope.now).then((rows) => services.files.present(scope, rows)),
    services.auditReader.listForRecord(scope.stores, token, 0, AUDIT_EVENTS),
  ]);
  const appdata = await Promise.all(
    appnames.map(async (appname) => {
      const { row: app, data } = await services.appdata.get(scope, token, appname);
      return { appname, version: app.version, updated: app.updated, appdata: data };
    }),
  );
  const openedRequests = await Promise.all(requests.rows.map(async (r) => ({ ...presentRequest(r), change: await services.requests.change(scope, r) })));
  return {
    generated: scope.now,
    ...presentUser(row, profile),
    appdata,
    agreements,
    sessions: sessions.map((s) => ({ sessionuuid: s.row.sessionuuid, sessiondata: s.data, when: s.row.updated, expirationtime: s.row.expires })),
    sharedrecords: shared.map((s) => ({ recorduuid: s.recorduuid, fields: s.fields, appname: s.appname, partner: s.partner, creationtime: s.created, expirationtime: s.expires })),
    requests: openedRequests,
    requeststotal: requests.total,
    groups: groups.map(({ groupid, groupname, groupdesc }) => ({ groupid, groupname, groupdesc })),
    files,
    audit: { total: audit.total, rows: audit.rows },
  };
}

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;', '`': '&#96;' };

/** Text safe in HTML element content and in quoted attribute values. */
export function escapeHtml(text: string): string {
  return text.replace(/[&<>"'`]/g, (c) => ESCAPES[c]!);
}

const TIME_KEYS = /(^|_)(time|when|generated|creationtime|updated|starttime|endtime|finaltime|expirationtime|timestamp)$/;

function value(v: unknown, key = ''): string {
  if (v === null || v === undefined) return '<span class="none">none</span>';
  if (typeof v === 'number' && TIME_KEYS.test(key) && v > 0) return `${escapeHtml(new Date(v * 1000).toISOString())}`;
  if (typeof v !== 'object') return escapeHtml(String(v as string | number | boolean | bigint | symbol));
  if (Array.isArray(v)) {
    if (!v.length) return '<span class="none">none</span>';
    if (v.every((x) => x === null || typeof x !== 'object')) return escapeHtml(v.map((x) => String(x as string | number | boolean | null)).join(', '));
    return `<ol>${v.map((x) => `<li>${value(x)}</li>`).join('')}</ol>`;
  }
  const entries = Object.entries(v as Record<string, unknown>);
  if (!entries.length) return '<span class="none">none</span>';
  return `<table>${entries.map(([k, x]) => `<tr><th>${escapeHtml(k)}</th><td>${value(x, k)}</td></tr>`).join('')}</table>`;
}

const SECTIONS: [key: string, title: string][] = [
  ['profile', 'Profile'],
  ['appdata', 'Application data'],
  ['agreements', 'Consent and agreements'],
  ['sessions', 'Sessions'],
  ['sharedrecords', 'Records shared with partners'],
  ['requests', 'Requests'],
  ['groups', 'Groups'],
  ['files', 'Files'],
  ['audit', 'Recent activity on this record'],
];

/** The report as one HTML document with inline styles only, and a policy that forbids loading anything else. */
export function reportHtml(report: Record<string, unknown>): string {
  const record = { token: report.token, version: report.version, finaltime: report.finaltime, expirationtime: report.expirationtime, generated: report.generated };
  const body = SECTIONS.map(([key, title]) => `<section><h2>${escapeHtml(title)}</h2>${value(report[key], key)}</section>`).join('\n');
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Personal data report</title>
<style>
body{font:15px/1.45 system-ui,sans-serif;margin:2rem auto;max-width:60rem;padding:0 1rem;color:#1b1b1b}
h1{font-size:1.6rem}h2{font-size:1.2rem;border-bottom:1px solid #ccc;padding-bottom:.2rem;margin-top:2rem}
table{border-collapse:collapse;width:100%;margin:.3rem 0}th,td{border:1px solid #ddd;padding:.25rem .5rem;text-align:left;vertical-align:top}
th{background:#f5f5f5;width:14rem;font-weight:600}ol{margin:.2rem 0;padding-left:1.4rem}.none{color:#888}
</style>
</head>
<body>
<h1>Personal data report</h1>
${value(record)}
${body}
</body>
</html>
`;
}
