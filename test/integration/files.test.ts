// Per-user files over HTTP on the local store: create, read (JSON and raw), list, tags, duplicates, expiry,
// deletion (with the user's too), big bodies, orphans, and the error cases.
import { existsSync, mkdirSync, readFileSync, readdirSync, utimesSync, writeFileSync } from 'node:fs';
import { randomBytes, randomUUID } from 'node:crypto';
import { dirname, join } from 'node:path';
import { describe, expect } from 'vitest';
import { it, vaultTest, buildProfile, type TestVault } from '../fixtures/vault.js';
import { nowSeconds } from '../../api/vault/durations.js';

/** A second vault, with small limits, for the tests of the limits. */
const itWithSmallLimits = vaultTest({ env: { STRONGROOM_FILE_MAX_BYTES: '1mb', STRONGROOM_BODY_LIMIT: '64kb' } });

// A real 1×1 PNG, then arbitrary bytes after its end (so each run's file is new content).
const PNG = Buffer.concat([
  Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAQAAAC1HAwCAAAAC0lEQVR42mNkYAAAAAYAAjCB0C8AAAAASUVORK5CYII=', 'base64'),
  randomBytes(200),
]);
const b64 = (b: Buffer) => b.toString('base64');
const sql = (vault: TestVault, text: string, params: unknown[] = []) => vault.api.services.db.orm.em.getConnection().execute(text, params);

async function user(vault: TestVault): Promise<{ token: string; ref: { mode: string; identity: string } }> {
  const token = (await vault.call('UserCreate', { profile: buildProfile() })).body.token as string;
  return { token, ref: { mode: 'token', identity: token } };
}

function objectPath(vault: TestVault, key: string): string {
  return join(vault.dataDir, 'files', ...key.split('/'));
}

async function objectKey(vault: TestVault, fileuuid: string): Promise<string> {
  const [row] = await sql(vault, 'select object_key from tenant_1.files where fileuuid = ?', [fileuuid]);
  return row!.object_key as string;
}

/** Every object in the local store, as keys. */
function storedKeys(vault: TestVault, dir = join(vault.dataDir, 'files'), prefix = ''): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? storedKeys(vault, join(dir, e.name), `${prefix}${e.name}/`) : [`${prefix}${e.name}`],
  );
}

describe('FileCreate and FileGet', () => {
  it('stores the content sealed under a key that names nobody, and gives it back by uuid or newest name', async ({ vault }) => {
    const { token, ref } = await user(vault);
    const text = Buffer.from(`Passport of ${token}: the plaintext that must never reach the disk`);
    const created = await vault.call('FileCreate', { ...ref, filename: 'passport-ada.txt', filedata: b64(text), tags: ['Passport', 'ID', 'passport'] });
    expect(created.status).toBe(200);
    expect(created.body).toEqual({ status: 'ok', token, fileuuid: expect.stringMatching(/^[0-9a-f-]{36}$/), duplicate: false, tags: ['id', 'passport'] });
    const { fileuuid } = created.body;

    const key = await objectKey(vault, fileuuid);
    expect(key).toMatch(/^t1\/[0-9a-f]{2}\/[0-9a-f-]{36}$/);
    expect(key).not.toContain(token);
    expect(key).not.toContain(fileuuid);
    expect(key).not.toContain('passport');
    const stored = readFileSync(objectPath(vault, key));
    expect(stored.includes(text)).toBe(false);
    expect(stored.includes(Buffer.from('plaintext'))).toBe(false);
    expect(stored.length).toBeGreaterThan(text.length);
    // The name is sealed in the database too.
    const [meta] = await sql(vault, 'select name_sealed from tenant_1.files where fileuuid = ?', [fileuuid]);
    expect(Buffer.from(meta!.name_sealed).includes(Buffer.from('passport-ada'))).toBe(false);

    const got = await vault.call('FileGet', { ...ref, fileuuid });
    expect(got.body).toEqual({
      status: 'ok',
      token,
      fileuuid,
      filename: 'passport-ada.txt',
      mimetype: 'text/plain; charset=utf-8',
      size: text.length,
      creationtime: expect.any(Number),
      tags: ['id', 'passport'],
      filedata: b64(text),
    });

    const newer = await vault.call('FileCreate', { ...ref, filename: 'passport-ada.txt', filedata: b64(Buffer.from('second scan')) });
    expect(newer.body.duplicate).toBe(false);
    // Same second: the newest by time, then by uuid, so make the older one clearly older.
    await sql(vault, 'update tenant_1.files set created = created - 10 where fileuuid = ?', [fileuuid]);
    const byName = await vault.call('FileGet', { ...ref, filename: 'passport-ada.txt' });
    expect(byName.body.fileuuid).toBe(newer.body.fileuuid);
    expect(Buffer.from(byName.body.filedata, 'base64').toString()).toBe('second scan');
    // A uuid wins over a name.
    expect((await vault.call('FileGet', { ...ref, fileuuid, filename: 'passport-ada.txt' })).body.fileuuid).toBe(fileuuid);
    expect((await vault.call('FileGet', { ...ref, fileuuid: fileuuid.toUpperCase() })).body.fileuuid).toBe(fileuuid);
  });

  it('detects the mimetype from magic bytes when none is given, and keeps a given one', async ({ vault }) => {
    const { ref } = await user(vault);
    const samples: [Buffer, string][] = [
      [PNG, 'image/png'],
      [Buffer.concat([Buffer.from([0xff, 0xd8, 0xff, 0xe0]), randomBytes(50)]), 'image/jpeg'],
      [Buffer.concat([Buffer.from('GIF89a'), randomBytes(50)]), 'image/gif'],
      [Buffer.concat([Buffer.from('RIFF'), Buffer.from([1, 2, 3, 4]), Buffer.from('WEBPVP8 '), randomBytes(40)]), 'image/webp'],
      [Buffer.concat([Buffer.from('%PDF-1.7\n'), randomBytes(50)]), 'application/pdf'],
      [Buffer.concat([Buffer.from([0x50, 0x4b, 0x03, 0x04]), randomBytes(50)]), 'application/zip'],
      [Buffer.concat([Buffer.from([0x1f, 0x8b, 0x08]), randomBytes(50)]), 'application/gzip'],
      [Buffer.from(' {"a": [1, 2]}\n'), 'application/json'],
      [Buffer.from('Grüße, 世界\n'), 'text/plain; charset=utf-8'],
      [Buffer.from([0x00, 0x01, 0x02, 0xfe, 0x80, 0x00]), 'application/octet-stream'],
    ];
    for (const [content, mimetype] of samples) {
      const created = await vault.call('FileCreate', { ...ref, filename: 'sample', filedata: b64(content) });
      expect(created.status).toBe(200);
      expect((await vault.call('FileGet', { ...ref, fileuuid: created.body.fileuuid })).body.mimetype, mimetype).toBe(mimetype);
    }
    const given = await vault.call('FileCreate', { ...ref, filename: 'x.csv', filedata: b64(Buffer.from('a,b\n1,2\n')), mimetype: 'text/csv; charset=utf-8' });
    expect((await vault.call('FileGet', { ...ref, fileuuid: given.body.fileuuid })).body.mimetype).toBe('text/csv; charset=utf-8');
  });

  it('answers raw bytes with the stored type and a safe attachment disposition', async ({ vault }) => {
    const { ref } = await user(vault);
    const created = await vault.call('FileCreate', { ...ref, filename: 'Résumé "final"/../x%.png', filedata: b64(PNG) });
    const res = await fetch(`${vault.url}/v2/FileGet`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-bunker-token': vault.rootToken },
      body: JSON.stringify({ ...ref, fileuuid: created.body.fileuuid, raw: true }),
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('image/png');
    expect(res.headers.get('content-disposition')).toBe(
      `attachment; filename="R_sum_ _final__.._x_.png"; filename*=UTF-8''R%C3%A9sum%C3%A9%20%22final%22_.._x%25.png`,
    );
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(Buffer.from(await res.arrayBuffer()).equals(PNG)).toBe(true);

    // An uploaded HTML page is served as the type it was given, but as a sandboxed attachment only.
    const html = await vault.call('FileCreate', { ...ref, filename: 'page.html', filedata: b64(Buffer.from('<script>alert(1)</script>')), mimetype: 'text/html' });
    const page = await fetch(`${vault.url}/v2/FileGet`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-bunker-token': vault.rootToken },
      body: JSON.stringify({ ...ref, fileuuid: html.body.fileuuid, raw: 'true' }),
    });
    expect(page.headers.get('content-type')).toBe('text/html');
    expect(page.headers.get('content-disposition')).toMatch(/^attachment; /);
    expect(page.headers.get('content-security-policy')).toContain('sandbox');
    // raw:false is JSON as usual.
    expect((await vault.call('FileGet', { ...ref, fileuuid: html.body.fileuuid, raw: false })).body.filedata).toBe(b64(Buffer.from('<script>alert(1)</script>')));
  });

  it('round-trips a 5 MiB file, as JSON and raw', async ({ vault }) => {
    const { ref } = await user(vault);
    const content = randomBytes(5 * 1024 * 1024);
    const created = await vault.call('FileCreate', { ...ref, filename: 'big.bin', filedata: b64(content) });
    expect(created.status).toBe(200);
    const got = await vault.call('FileGet', { ...ref, fileuuid: created.body.fileuuid });
    expect(got.body.size).toBe(content.length);
    expect(got.body.mimetype).toBe('application/octet-stream');
    expect(Buffer.from(got.body.filedata, 'base64').equals(content)).toBe(true);
    const raw = await fetch(`${vault.url}/v2/FileGet`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-bunker-token': vault.rootToken },
      body: JSON.stringify({ ...ref, fileuuid: created.body.fileuuid, raw: true }),
    });
    expect(Buffer.from(await raw.arrayBuffer()).equals(content)).toBe(true);
  });

  it('seals and opens a file of tens of MiB, just under the default limit', async ({ vault }) => {
    const { ref } = await user(vault);
    const content = randomBytes(32 * 1024 * 1024 - 1024);
    const created = await vault.call('FileCreate', { ...ref, filename: 'scan.tiff', filedata: b64(content) });
    expect(created.status).toBe(200);
    const raw = await fetch(`${vault.url}/v2/FileGet`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-bunker-token': vault.rootToken },
      body: JSON.stringify({ ...ref, fileuuid: created.body.fileuuid, raw: true }),
    });
    expect(raw.status).toBe(200);
    expect(Buffer.from(await raw.arrayBuffer()).equals(content)).toBe(true);
  });

  it('leaves an audit event for every call, failures included', async ({ vault }) => {
    const { ref } = await user(vault);
    const created = await vault.call('FileCreate', { ...ref, filename: 'a.txt', filedata: b64(Buffer.from('audited')) });
    await vault.call('FileGet', { ...ref, fileuuid: created.body.fileuuid });
    await vault.call('FileGet', { ...ref, fileuuid: randomUUID() });
    await vault.call('FileListUserFiles', ref);
    const events = (await vault.call('AuditListUserEvents', { ...ref, limit: 100 })).body.rows as { title: string; status: string }[];
    const files = events.filter((e) => e.title.startsWith('File')).map((e) => `${e.title}:${e.status}`);
    expect(files.sort()).toEqual(['FileCreate:ok', 'FileGet:error', 'FileGet:ok', 'FileListUserFiles:ok']);
  });
});

describe('duplicates', () => {
  it('answers the existing file for the same content of the same user and writes nothing', async ({ vault }) => {
    const { ref } = await user(vault);
    const content = randomBytes(1000);
    const first = await vault.call('FileCreate', { ...ref, filename: 'one.bin', filedata: b64(content), tags: 'a' });
    const objects = storedKeys(vault).length;
    const again = await vault.call('FileCreate', { ...ref, filename: 'other-name.bin', filedata: b64(content), tags: 'b' });
    expect(again.body).toEqual({ status: 'ok', token: first.body.token, fileuuid: first.body.fileuuid, duplicate: true, tags: ['a'] });
    expect(storedKeys(vault).length).toBe(objects);
    const list = await vault.call('FileListUserFiles', ref);
    expect(list.body.files).toHaveLength(1);

    // Another user's copy is their own file, and its keyed hash differs: equal content is not visible as such.
    const other = await user(vault);
    const theirs = await vault.call('FileCreate', { ...other.ref, filename: 'one.bin', filedata: b64(content) });
    expect(theirs.body.duplicate).toBe(false);
    const mine = list.body.files[0];
    const their = (await vault.call('FileListUserFiles', other.ref)).body.files[0];
    expect(mine.doublehash).toMatch(/^[0-9a-f]{64}$/);
    expect(their.doublehash).not.toBe(mine.doublehash);
  });

  it('stores the content again once the earlier copy has expired', async ({ vault }) => {
    const { ref } = await user(vault);
    const content = randomBytes(100);
    const first = await vault.call('FileCreate', { ...ref, filename: 'e.bin', filedata: b64(content), finaltime: '1h' });
    const oldKey = await objectKey(vault, first.body.fileuuid);
    await sql(vault, 'update tenant_1.files set expires_at = expires_at - 7200 where fileuuid = ?', [first.body.fileuuid]);
    const again = await vault.call('FileCreate', { ...ref, filename: 'e.bin', filedata: b64(content) });
    expect(again.body.duplicate).toBe(false);
    expect(again.body.fileuuid).not.toBe(first.body.fileuuid);
    await expect.poll(() => existsSync(objectPath(vault, oldKey))).toBe(false);
  });
});

describe('tags', () => {
  it('normalises tags, filters by one, replaces them, and lists a tenant-wide tag behind the unlock UUID', async ({ vault }) => {
    const a = await user(vault);
    const b = await user(vault);
    const many = Array.from({ length: 20 }, (_, i) => `t${String(i).padStart(2, '0')}`);
    const tagged = await vault.call('FileCreate', { ...a.ref, filename: 'many', filedata: b64(randomBytes(10)), tags: many.reverse() });
    expect(tagged.body.tags).toEqual(many.sort().slice(0, 16));
    const f1 = await vault.call('FileCreate', { ...a.ref, filename: 'f1', filedata: b64(randomBytes(10)), tags: ' Invoice ,2024,,invoice' });
    expect(f1.body.tags).toEqual(['2024', 'invoice']);
    const f2 = await vault.call('FileCreate', { ...b.ref, filename: 'f2', filedata: b64(randomBytes(10)), tags: ['invoice'] });
    await vault.call('FileCreate', { ...b.ref, filename: 'f3', filedata: b64(randomBytes(10)) });

    const filtered = await vault.call('FileListUserFiles', { ...a.ref, tag: 'INVOICE' });
    expect(filtered.body.files.map((f: { fileuuid: string }) => f.fileuuid)).toEqual([f1.body.fileuuid]);
    expect(filtered.body.files[0]).toEqual({
      fileuuid: f1.body.fileuuid,
      filename: 'f1',
      mimetype: 'application/octet-stream',
      size: 10,
      doublehash: expect.stringMatching(/^[0-9a-f]{64}$/),
      creationtime: expect.any(Number),
      tags: ['2024', 'invoice'],
    });
    expect((await vault.call('FileListUserFiles', a.ref)).body.files).toHaveLength(2);

    const replaced = await vault.call('FileReplaceTags', { ...a.ref, fileuuid: f1.body.fileuuid, tags: 'Paid, invoice' });
    expect(replaced.body).toEqual({ status: 'ok', token: a.token, fileuuid: f1.body.fileuuid, tags: ['invoice', 'paid'] });
    expect((await vault.call('FileGet', { ...a.ref, fileuuid: f1.body.fileuuid })).body.tags).toEqual(['invoice', 'paid']);
    expect((await vault.call('FileListUserFiles', { ...a.ref, tag: '2024' })).body.files).toEqual([]);
    expect((await vault.call('FileReplaceTags', { ...a.ref, fileuuid: randomUUID(), tags: [] })).status).toBe(404);
    expect((await vault.call('FileReplaceTags', { ...a.ref, fileuuid: f1.body.fileuuid })).body.message).toBe('Missing API request parameters: tags');

    const unlockuuid = (await vault.call('BulkListUnlock')).body.unlockuuid;
    const page = await vault.call('BulkListFilesByTag', { unlockuuid, tag: 'invoice', limit: 1 });
    expect(page.body.total).toBe(2);
    expect(page.body.rows).toHaveLength(1);
    const next = await vault.call('BulkListFilesByTag', { unlockuuid, tag: 'invoice', offset: 1, limit: 1 });
    const rows = [...page.body.rows, ...next.body.rows];
    expect(rows.map((r: { token: string; fileuuid: string }) => [r.token, r.fileuuid]).sort()).toEqual(
      [
        [a.token, f1.body.fileuuid],
        [b.token, f2.body.fileuuid],
      ].sort(),
    );
    expect(rows.find((r: { fileuuid: string }) => r.fileuuid === f2.body.fileuuid)).toMatchObject({ filename: 'f2', size: 10, tags: ['invoice'] });
    expect((await vault.call('BulkListFilesByTag', { tag: 'invoice' })).body.message).toBe('Missing API request parameters: unlockuuid');
    expect((await vault.call('BulkListFilesByTag', { unlockuuid: randomUUID(), tag: 'invoice' })).status).toBe(403);
    expect((await vault.call('BulkListFilesByTag', { unlockuuid })).body.message).toBe('Missing API request parameters: tag');
    expect((await vault.call('BulkListFilesByTag', { unlockuuid, tag: '-bad' })).status).toBe(400);
  });

  it('refuses tags that do not match the pattern, naming the field', async ({ vault }) => {
    const { ref } = await user(vault);
    for (const tags of [['ok', 'not ok'], '_x', ['a'.repeat(51)], 'fine,bad!', 7, [1]]) {
      const res = await vault.call('FileCreate', { ...ref, filename: 'x', filedata: b64(randomBytes(4)), tags });
      expect(res.status, JSON.stringify(tags)).toBe(400);
      expect(res.body.message).toMatch(/^Invalid API request parameter: tags/);
    }
    expect((await vault.call('FileListUserFiles', { ...ref, tag: 'no spaces' })).body.message).toMatch(/^Invalid API request parameter: tag/);
  });
});

describe('errors', () => {
  it('answers 400 naming the field for missing, mistyped and malformed input', async ({ vault }) => {
    const { ref } = await user(vault);
    const fine = { ...ref, filename: 'x', filedata: b64(Buffer.from('x')) };
    const cases: [Record<string, unknown>, string | RegExp][] = [
      [{ ...ref }, 'Missing API request parameters: filename, filedata'],
      [{ filename: 'x', filedata: 'eA==' }, 'Missing API request parameters: mode, identity'],
      [{ ...fine, filedata: 'not base64!' }, 'The filedata parameter is not valid base64'],
      [{ ...fine, filedata: 'eA=' }, 'The filedata parameter is not valid base64'],
      [{ ...fine, filedata: 'a+b-' }, 'The filedata parameter is not valid base64'],
      [{ ...fine, filedata: 12 }, /^Invalid API request parameter: filedata/],
      [{ ...fine, filename: 5 }, /^Invalid API request parameter: filename/],
      [{ ...fine, filename: '' }, /^Invalid API request parameter: filename/],
      [{ ...fine, filename: 'x'.repeat(256) }, /^Invalid API request parameter: filename/],
      [{ ...fine, filename: 'a\nb' }, /^Invalid API request parameter: filename/],
      [{ ...fine, mimetype: 'text/html\r\nSet-Cookie: a=b' }, /^Invalid API request parameter: mimetype/],
      [{ ...fine, mimetype: 'nonsense' }, /^Invalid API request parameter: mimetype/],
      [{ ...fine, finaltime: 'soon' }, 'The finaltime parameter has an incorrect format'],
      [{ ...fine, mode: 'nickname' }, 'The mode parameter has an incorrect format: use login, token, email, phone or custom'],
      [{ ...fine, identity: 'not-a-uuid' }, 'Bad UUID'],
    ];
    for (const [body, message] of cases) {
      const res = await vault.call('FileCreate', body);
      expect(res.status, JSON.stringify(body).slice(0, 80)).toBe(400);
      expect(res.body.status).toBe('error');
      expect(res.body.message).toMatch(message);
    }
    expect((await vault.call('FileCreate', { ...fine, filename: 'x'.repeat(255) })).status).toBe(200);
    expect((await vault.call('FileGet', ref)).body.message).toBe('Missing API request parameters: fileuuid or filename');
    expect((await vault.call('FileGet', { ...ref, fileuuid: 'nope' })).body.message).toBe('Bad UUID');
    expect((await vault.call('FileGet', { ...ref, filename: 'x', raw: 'maybe' })).body.message).toMatch(/^Invalid API request parameter: raw/);
    expect((await vault.call('FileDelete', ref)).body.message).toBe('Missing API request parameters: fileuuid');
  });

  it('answers 404 for an unknown user or file, and for another user’s file', async ({ vault }) => {
    const a = await user(vault);
    const b = await user(vault);
    const nobody = { mode: 'token', identity: randomUUID() };
    const created = await vault.call('FileCreate', { ...a.ref, filename: 'mine', filedata: b64(randomBytes(8)) });
    for (const [op, body] of [
      ['FileCreate', { ...nobody, filename: 'x', filedata: 'eA==' }],
      ['FileGet', { ...nobody, fileuuid: created.body.fileuuid }],
      ['FileListUserFiles', { mode: 'email', identity: 'nobody@example.com' }],
      ['FileDelete', { ...nobody, fileuuid: created.body.fileuuid }],
      ['FileReplaceTags', { ...nobody, fileuuid: created.body.fileuuid, tags: [] }],
    ] as const) {
      const res = await vault.call(op, body);
      expect(res.status, op).toBe(404);
      expect(res.body.message).toBe('The user record was not found');
    }
    for (const body of [
      { ...a.ref, fileuuid: randomUUID() },
      { ...a.ref, filename: 'never-stored' },
      { ...b.ref, fileuuid: created.body.fileuuid },
      { ...b.ref, filename: 'mine' },
    ]) {
      const res = await vault.call('FileGet', body);
      expect(res.status).toBe(404);
      expect(res.body.message).toBe('The file record was not found');
    }
    expect((await vault.call('FileDelete', { ...b.ref, fileuuid: created.body.fileuuid })).status).toBe(404);
    expect((await vault.call('FileGet', { ...a.ref, fileuuid: created.body.fileuuid })).status).toBe(200);
  });
});

describe('expiry and removal', () => {
  it('reads an expired file as missing and sweeps it with its object', async ({ vault }) => {
    const { ref } = await user(vault);
    const created = await vault.call('FileCreate', { ...ref, filename: 'brief.txt', filedata: b64(Buffer.from('short-lived')), finaltime: '1h' });
    const key = await objectKey(vault, created.body.fileuuid);
    expect((await vault.call('FileGet', { ...ref, fileuuid: created.body.fileuuid })).status).toBe(200);
    await sql(vault, 'update tenant_1.files set expires_at = expires_at - 7200 where fileuuid = ?', [created.body.fileuuid]);
    expect((await vault.call('FileGet', { ...ref, fileuuid: created.body.fileuuid })).status).toBe(404);
    expect((await vault.call('FileGet', { ...ref, filename: 'brief.txt' })).status).toBe(404);
    expect((await vault.call('FileListUserFiles', ref)).body.files).toEqual([]);
    expect((await vault.call('FileDelete', { ...ref, fileuuid: created.body.fileuuid })).status).toBe(404);
    expect(existsSync(objectPath(vault, key))).toBe(true);
    await vault.api.services.sweeper.sweepOnce();
    expect(existsSync(objectPath(vault, key))).toBe(false);
    expect(await sql(vault, 'select 1 from tenant_1.files where fileuuid = ?', [created.body.fileuuid])).toEqual([]);
    expect(await sql(vault, 'select 1 from tenant_1.file_trash where object_key = ?', [key])).toEqual([]);
  });

  it('restarts a sliding window when the file is read', async ({ vault }) => {
    const { ref } = await user(vault);
    const created = await vault.call('FileCreate', { ...ref, filename: 's', filedata: b64(randomBytes(8)), slidingtime: '1h' });
    await sql(vault, 'update tenant_1.files set expires_at = ? where fileuuid = ?', [nowSeconds() + 30, created.body.fileuuid]);
    expect((await vault.call('FileGet', { ...ref, fileuuid: created.body.fileuuid })).status).toBe(200);
    const [row] = await sql(vault, 'select expires_at from tenant_1.files where fileuuid = ?', [created.body.fileuuid]);
    expect(Number(row!.expires_at)).toBeGreaterThan(nowSeconds() + 3500);
  });

  it('FileDelete removes the metadata and then the stored object', async ({ vault }) => {
    const { token, ref } = await user(vault);
    const created = await vault.call('FileCreate', { ...ref, filename: 'gone', filedata: b64(randomBytes(64)) });
    const key = await objectKey(vault, created.body.fileuuid);
    const del = await vault.call('FileDelete', { ...ref, fileuuid: created.body.fileuuid });
    expect(del.body).toEqual({ status: 'ok', token });
    await expect.poll(() => existsSync(objectPath(vault, key))).toBe(false);
    expect((await vault.call('FileGet', { ...ref, fileuuid: created.body.fileuuid })).status).toBe(404);
    expect((await vault.call('FileDelete', { ...ref, fileuuid: created.body.fileuuid })).status).toBe(404);
    await expect.poll(async () => (await sql(vault, 'select 1 from tenant_1.file_trash where object_key = ?', [key])).length).toBe(0);
  });

  it('takes a user’s objects away with every way of removing the user', async ({ vault }) => {
    const withFiles = async (finaltime?: string) => {
      const token = (await vault.call('UserCreate', { profile: buildProfile(), ...(finaltime ? { finaltime } : {}) })).body.token as string;
      const ref = { mode: 'token', identity: token };
      const keys: string[] = [];
      for (const n of [1, 2]) {
        const created = await vault.call('FileCreate', { ...ref, filename: `f${n}`, filedata: b64(randomBytes(32)) });
        keys.push(await objectKey(vault, created.body.fileuuid));
      }
      for (const k of keys) expect(existsSync(objectPath(vault, k))).toBe(true);
      return { token, ref, keys };
    };
    const gone = async (keys: string[]) => {
      for (const k of keys) await expect.poll(() => existsSync(objectPath(vault, k))).toBe(false);
    };

    const single = await withFiles();
    expect((await vault.call('UserDelete', single.ref)).status).toBe(200);
    await gone(single.keys);

    const [b1, b2] = [await withFiles(), await withFiles()];
    expect((await vault.call('UserDeleteBulk', { users: [b1!.ref, b2!.ref] })).body.deleted_count).toBe(2);
    await gone([...b1!.keys, ...b2!.keys]);

    const sys = await withFiles();
    const unlockuuid = (await vault.call('BulkListUnlock')).body.unlockuuid;
    expect((await vault.call('SystemDeleteUserProfiles', { unlockuuid, mode: 'token', identity: sys.token, tenantid: 1 })).status).toBe(200);
    await gone(sys.keys);

    const expiring = await withFiles('1h');
    await vault.api.services.sweeper.sweepOnce(nowSeconds() + 7_200);
    // The sweeper deletes the objects in the same pass, not later.
    for (const k of expiring.keys) expect(existsSync(objectPath(vault, k))).toBe(false);
    expect(await sql(vault, 'select count(*) as n from tenant_1.file_trash')).toEqual([{ n: '0' }]);
  });

  it('deletes the object of an upload whose transaction rolls back', async ({ vault }) => {
    const { token } = await user(vault);
    const services = vault.api.services;
    const before = new Set(storedKeys(vault));
    await expect(
      services.db.write(1, true, async (tx) => {
        const scope = { stores: tx, tenantId: 1, now: nowSeconds() };
        await services.files.create(scope, token, { filename: 'doomed', content: randomBytes(64), mimetype: 'application/octet-stream', tags: [], expiry: { finaltime: null, slidingtime: null } });
        // The object is there while the transaction runs...
        expect(storedKeys(vault).filter((k) => !before.has(k))).toHaveLength(1);
        throw new Error('the audit write failed');
      }),
    ).rejects.toThrow('the audit write failed');
    // ...and goes when it rolls back.
    await expect.poll(() => storedKeys(vault).filter((k) => !before.has(k))).toEqual([]);
  });

  it('removes objects of ours that no file names once they are old enough, and nothing else', async ({ vault }) => {
    const { ref } = await user(vault);
    const kept = await vault.call('FileCreate', { ...ref, filename: 'kept', filedata: b64(randomBytes(16)) });
    const keptKey = await objectKey(vault, kept.body.fileuuid);
    const orphan = `t1/ab/ab${randomUUID().slice(2)}`;
    const ofRemovedTenant = `t999/cd/cd${randomUUID().slice(2)}`;
    const foreign = 'backups/not-ours.bin';
    const young = `t1/ef/ef${randomUUID().slice(2)}`;
    const past = new Date(Date.now() - 2 * 3600 * 1000);
    for (const key of [orphan, ofRemovedTenant, foreign, young]) {
      mkdirSync(dirname(objectPath(vault, key)), { recursive: true });
      writeFileSync(objectPath(vault, key), randomBytes(16));
      if (key !== young) utimesSync(objectPath(vault, key), past, past);
    }
    utimesSync(objectPath(vault, keptKey), past, past);
    const removed = await vault.api.services.files.removeOrphans(nowSeconds() - 3600);
    expect(removed).toBeGreaterThanOrEqual(2);
    expect(existsSync(objectPath(vault, orphan))).toBe(false);
    expect(existsSync(objectPath(vault, ofRemovedTenant))).toBe(false);
    expect(existsSync(objectPath(vault, foreign))).toBe(true);
    expect(existsSync(objectPath(vault, young))).toBe(true);
    expect(existsSync(objectPath(vault, keptKey))).toBe(true);
    expect((await vault.call('FileGet', { ...ref, fileuuid: kept.body.fileuuid })).status).toBe(200);
  });
});

describe('size limits', () => {
  itWithSmallLimits('lets FileCreate alone carry a body past the general limit, up to the file limit', async ({ vault: small }) => {
    const token = (await small.call('UserCreate', { profile: buildProfile() })).body.token as string;
    const ref = { mode: 'token', identity: token };
    const content = randomBytes(1024 * 1024);
    const ok = await small.call('FileCreate', { ...ref, filename: 'limit.bin', filedata: b64(content) });
    expect(ok.status).toBe(200);
    expect(Buffer.from((await small.call('FileGet', { ...ref, fileuuid: ok.body.fileuuid })).body.filedata, 'base64').equals(content)).toBe(true);
    const over = await small.call('FileCreate', { ...ref, filename: 'over.bin', filedata: b64(randomBytes(1024 * 1024 + 1)) });
    expect(over.status).toBe(413);
    expect(over.body).toEqual({ status: 'error', message: 'The filedata parameter is larger than 1048576 bytes' });
    const huge = await small.call('FileCreate', { ...ref, filename: 'huge.bin', filedata: b64(randomBytes(2 * 1024 * 1024)) });
    expect(huge.status).toBe(413);
    expect(huge.body.status).toBe('error');
    // Every other operation keeps the general limit.
    const big = await small.call('UserCreate', { profile: { ...buildProfile(), blob: 'x'.repeat(100 * 1024) } });
    expect(big.status).toBe(413);
  });
});

describe('login xtokens', () => {
  it('read their own person’s files, never someone else’s, and change none', async ({ vault }) => {
    const mine = await user(vault);
    const theirs = await user(vault);
    const file = (await vault.call('FileCreate', { ...mine.ref, filename: 'cv.txt', filedata: b64(Buffer.from('my cv')) })).body.fileuuid;
    const other = (await vault.call('FileCreate', { ...theirs.ref, filename: 'cv.txt', filedata: b64(Buffer.from('their cv')) })).body.fileuuid;
    const login = { 'x-bunker-token': (await vault.call('XTokenCreateForUser', mine.ref)).body.xtoken as string };
    expect((await vault.call('FileListUserFiles', mine.ref, login)).body.files.map((f: { fileuuid: string }) => f.fileuuid)).toEqual([file]);
    expect(Buffer.from((await vault.call('FileGet', { ...mine.ref, fileuuid: file }, login)).body.filedata, 'base64').toString()).toBe('my cv');
    expect((await vault.call('FileGet', { ...theirs.ref, fileuuid: other }, login)).status).toBe(403);
    expect((await vault.call('FileListUserFiles', theirs.ref, login)).status).toBe(403);
    expect((await vault.call('FileDelete', { ...mine.ref, fileuuid: file }, login)).status).toBe(403);
    expect((await vault.call('FileCreate', { ...mine.ref, filename: 'x.txt', filedata: b64(Buffer.from('x')) }, login)).status).toBe(403);
  });
});
