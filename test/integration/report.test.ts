// The data-subject report: everything held about one person in one JSON object, and the same as an HTML page
// whose every value is escaped.
import { randomUUID } from 'node:crypto';
import { describe, expect } from 'vitest';
import { it, buildProfile, type TestVault } from '../fixtures/vault.js';

const NASTY = `<script>alert("x")</script>`;
const NASTY_KEY = `"><img src=x onerror=alert(1)>`;

async function person(vault: TestVault) {
  const profile = buildProfile({ name: NASTY, [NASTY_KEY]: `it's & "quoted"` });
  const token = (await vault.call('UserCreate', { profile })).body.token as string;
  const ref = { mode: 'token', identity: token };
  await vault.call('AppdataCreate', { ...ref, appname: 'shop', appdata: { note: `</td><script>evil()</script>` } });
  const brief = `report-${Date.now() % 100000}`;
  await vault.call('LegalBasisCreate', { brief });
  await vault.call('AgreementAccept', { ...ref, brief, referencecode: '<b>ref</b>' });
  const sessionuuid = randomUUID();
  await vault.call('SessionUpsert', { sessionuuid, sessiondata: { token, step: '<i>1</i>' } });
  const shared = (await vault.call('SharedRecordCreate', { ...ref, fields: 'name', partner: '<partner>' })).body.recorduuid;
  const request = (await vault.call('UserUpdateRequest', { ...ref, profile: { city: 'Tartu' } })).body.requestuuid;
  const group = `report-group-${Date.now() % 100000}`;
  await vault.call('GroupCreate', { groupname: group });
  await vault.call('GroupAddUser', { ...ref, groupname: group });
  const file = await vault.call('FileCreate', { ...ref, filename: '<evil>.txt', filedata: Buffer.from('hello').toString('base64') });
  return { token, ref, profile, brief, sessionuuid, shared, request, group, fileuuid: file.body.fileuuid as string };
}

describe('the user report', () => {
  it('holds the profile, app data, agreements, sessions, shared records, requests, groups, files and recent events', async ({ vault }) => {
    const p = await person(vault);
    const res = await vault.call('SystemGetUserReport', { mode: 'email', identity: p.profile.email });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const r = res.body.report;
    expect(r.token).toBe(p.token);
    expect(r.profile).toEqual(p.profile);
    expect(r.appdata).toEqual([expect.objectContaining({ appname: 'shop', appdata: { note: `</td><script>evil()</script>` } })]);
    expect(r.agreements).toEqual([expect.objectContaining({ brief: p.brief, status: 'active', referencecode: '<b>ref</b>' })]);
    expect(r.sessions).toEqual([expect.objectContaining({ sessionuuid: p.sessionuuid, sessiondata: { token: p.token, step: '<i>1</i>' } })]);
    expect(r.sharedrecords).toEqual([expect.objectContaining({ recorduuid: p.shared, fields: ['name'], partner: '<partner>' })]);
    expect(r.requests).toEqual([expect.objectContaining({ requestuuid: p.request, status: 'open', change: { profile: { city: 'Tartu' } } })]);
    expect(r.groups).toEqual([expect.objectContaining({ groupname: p.group })]);
    expect(r.files).toEqual([expect.objectContaining({ fileuuid: p.fileuuid, filename: '<evil>.txt', size: 5 })]);
    expect(r.audit.total).toBeGreaterThan(5);
    expect(r.audit.rows.map((e: { title: string }) => e.title)).toEqual(expect.arrayContaining(['UserCreate', 'AgreementAccept', 'FileCreate']));
  });

  it('renders as a self-contained HTML page with every value and key escaped', async ({ vault }) => {
    const p = await person(vault);
    const res = await vault.call('SystemGetUserHTMLReport', p.ref);
    expect(res.status).toBe(200);
    const html: string = res.body.html;
    expect(html.startsWith('<!DOCTYPE html>')).toBe(true);
    expect(html).toContain(`default-src 'none'`);
    // Nothing the person's data holds becomes markup.
    expect(html).not.toMatch(/<script/i);
    expect(html).not.toMatch(/<img/i);
    expect(html).not.toContain('<evil>');
    expect(html).not.toContain('<partner>');
    expect(html).not.toContain('<b>ref</b>');
    expect(html).toContain('&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;');
    expect(html).toContain('&quot;&gt;&lt;img src=x onerror=alert(1)&gt;');
    expect(html).toContain('it&#39;s &amp; &quot;quoted&quot;');
    expect(html).toContain('&lt;/td&gt;&lt;script&gt;evil()&lt;/script&gt;');
    expect(html).toContain('&lt;evil&gt;.txt');
    expect(html).toContain(p.token);
    // The only tags are the page's own.
    const tags = new Set([...html.matchAll(/<\/?([a-zA-Z0-9!]+)/g)].map((m) => m[1]!.toLowerCase()));
    expect([...tags].sort()).toEqual(['!doctype', 'body', 'h1', 'h2', 'head', 'html', 'li', 'meta', 'ol', 'section', 'span', 'style', 'table', 'td', 'th', 'title', 'tr']);
  });

  it('answers 404 for an unknown person and 400 naming the field, and is not for login xtokens', async ({ vault }) => {
    expect((await vault.call('SystemGetUserReport', { mode: 'email', identity: 'nobody@example.invalid' })).status).toBe(404);
    expect((await vault.call('SystemGetUserHTMLReport', { mode: 'fax', identity: 'x' })).body.message).toBe('The mode parameter has an incorrect format: use login, token, email, phone or custom');
    expect((await vault.call('SystemGetUserReport', {})).body.message).toBe('Missing API request parameters: mode, identity');
    const token = (await vault.call('UserCreate', { profile: buildProfile() })).body.token;
    const login = { 'x-bunker-token': (await vault.call('XTokenCreateForUser', { mode: 'token', identity: token })).body.xtoken };
    expect((await vault.call('SystemGetUserReport', { mode: 'token', identity: token }, login)).status).toBe(403);
  });
});
