// The person's own data export, gathered from the reads a login xtoken may make (SystemGetUserReport is for
// administrators), as JSON or as a self-contained HTML page with every value escaped.
import { rowsOf, text } from '../api/client';
import type { Me } from './session';

export async function gatherExport({ call, me }: Me): Promise<Record<string, unknown>> {
  const [user, versions, agreements, apps, sessions, requests, files, audit] = await Promise.all([
    call('UserGet', me),
    call('UserListVersions', me),
    call('AgreementListUserAgreements', me),
    call('AppdataListUserAppNames', me),
    call('SessionListUserSessions', me),
    call('UserRequestListUserRequests', me),
    call('FileListUserFiles', me),
    call('AuditListUserEvents', { ...me, limit: 100 }),
  ]);
  const names = Array.isArray(apps.apps) ? (apps.apps as unknown[]).map(text) : [];
  const appdata: Record<string, unknown> = {};
  for (const [i, answer] of (await Promise.all(names.map((appname) => call('AppdataGet', { ...me, appname })))).entries()) appdata[names[i]!] = answer.appdata;
  return {
    exported: new Date().toISOString(),
    token: user.token,
    profile: user.profile,
    version: user.version,
    versions: versions.versions,
    agreements: rowsOf(agreements),
    appdata,
    sessions: rowsOf(sessions),
    requests: rowsOf(requests),
    files: rowsOf(files, 'files'),
    auditevents: rowsOf(audit),
  };
}

function escape(s: string): string {
  return s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

function render(value: unknown): string {
  if (Array.isArray(value)) return value.length ? `<ol>${value.map((v) => `<li>${render(v)}</li>`).join('')}</ol>` : '<p><em>none</em></p>';
  if (typeof value === 'object' && value !== null)
    return `<dl>${Object.entries(value)
      .map(([k, v]) => `<dt>${escape(k)}</dt><dd>${render(v)}</dd>`)
      .join('')}</dl>`;
  return escape(text(value));
}

export function exportHtml(data: Record<string, unknown>): string {
  const sections = Object.entries(data)
    .map(([k, v]) => `<section><h2>${escape(k)}</h2>${render(v)}</section>`)
    .join('\n');
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>My data</title></head><body><h1>My data</h1>\n${sections}\n</body></html>\n`;
}
