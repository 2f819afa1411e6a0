// Format-preserving tokens over HTTP, against the real tokenizer process and a real database.
import { describe, expect } from 'vitest';
import { vaultTest, type TestVault } from '../fixtures/vault.js';
import { nowSeconds } from '../../api/vault/durations.js';

// The sweeper is driven by hand.
const it = vaultTest({ env: { STRONGROOM_SWEEP_SECONDS: '0' } });

function luhnValid(digits: string): boolean {
  let sum = 0;
  for (let i = 0; i < digits.length; i++) {
    let d = Number(digits[digits.length - 1 - i]);
    if (i % 2 === 1) d = d * 2 > 9 ? d * 2 - 9 : d * 2;
    sum += d;
  }
  return sum % 10 === 0;
}

async function unlock(vault: TestVault): Promise<string> {
  return (await vault.call('BulkListUnlock')).body.unlockuuid as string;
}

describe('TokenCreate and TokenGet', () => {
  it('turns a card into a Luhn-valid token of the same length, found by tokenuuid and by tokenbase', async ({ vault }) => {
    const card = '4111 1111-1111 1111';
    const created = await vault.call('TokenCreate', { tokentype: 'creditcard', record: card });
    expect(created.status).toBe(200);
    const { tokenuuid, tokenbase } = created.body;
    expect(tokenuuid).toMatch(/^[0-9a-f-]{36}$/);
    expect(tokenbase).toMatch(/^\d{16}$/);
    expect(tokenbase).not.toBe('4111111111111111');
    expect(luhnValid(tokenbase)).toBe(true);
    for (const token of [tokenuuid, tokenbase, tokenuuid.toUpperCase()]) {
      const got = await vault.call('TokenGet', { token });
      expect(got.status, token).toBe(200);
      expect(got.body).toMatchObject({ status: 'ok', record: card, tokentype: 'creditcard', tokenuuid, tokenbase });
    }
  });

  it('keeps the shape of emails and the digit count of Unix times, and gives text a UUID token', async ({ vault }) => {
    const email = await vault.call('TokenCreate', { tokentype: 'email', record: 'alice.smith@example.com' });
    expect(email.status).toBe(200);
    expect(email.body.tokenbase).toMatch(/^[a-z0-9]{5}\.[a-z0-9]{5}@[a-z0-9]{7}\.com$/);
    const time = await vault.call('TokenCreate', { tokentype: 'unixtime', record: 1767225600 });
    expect(time.status).toBe(200);
    expect(time.body.tokenbase).toMatch(/^\d{10}$/);
    expect((await vault.call('TokenGet', { token: time.body.tokenbase })).body.record).toBe('1767225600');
    const text = await vault.call('TokenCreate', { tokentype: 'text', record: 'a secret note' });
    expect(text.body.tokenbase).toBe(text.body.tokenuuid);
    expect((await vault.call('TokenGet', { token: text.body.tokenbase })).body.record).toBe('a secret note');
  });

  it('makes a new pair every time, unless unique, which returns the same pair for the same record', async ({ vault }) => {
    const a = await vault.call('TokenCreate', { tokentype: 'creditcard', record: '5500005555555559' });
    const b = await vault.call('TokenCreate', { tokentype: 'creditcard', record: '5500005555555559' });
    expect(a.body.tokenuuid).not.toBe(b.body.tokenuuid);
    expect(a.body.tokenbase).not.toBe(b.body.tokenbase);
    const u1 = await vault.call('TokenCreate', { tokentype: 'creditcard', record: '5500 0055 5555 5559', unique: true });
    const u2 = await vault.call('TokenCreate', { tokentype: 'creditcard', record: '5500-0055-5555-5559', unique: true });
    expect(u1.status).toBe(200);
    expect(u2.body).toEqual(u1.body);
    expect([a.body.tokenuuid, b.body.tokenuuid]).not.toContain(u1.body.tokenuuid);
  });

  it('tokenizes one value again and again, each pair unrelated to the others and to a deleted one (stranger)', async ({ vault }) => {
    for (const [tokentype, record] of [['creditcard', '4000056655665556'], ['email', 'victim@example.com'], ['unixtime', '1700000000']] as const) {
      const bases = new Set<string>();
      for (let n = 0; n < 24; n++) {
        const made = await vault.call('TokenCreate', { tokentype, record });
        expect(made.status, `${tokentype} #${n}: ${JSON.stringify(made.body)}`).toBe(200);
        bases.add(made.body.tokenbase);
      }
      expect(bases.size, tokentype).toBe(24);
      // Deleted and made again: not the tokenbase it had (the attempt, not the count of pairs, picks it).
      const once = await vault.call('TokenCreate', { tokentype, record: `${tokentype === 'email' ? 'x' : ''}${record}` });
      expect((await vault.call('TokenDelete', { token: once.body.tokenuuid })).status).toBe(200);
      const again = await vault.call('TokenCreate', { tokentype, record: `${tokentype === 'email' ? 'x' : ''}${record}` });
      expect(again.body.tokenbase).not.toBe(once.body.tokenbase);
    }
    const bulk = await vault.call('TokenCreateBulk', { records: Array.from({ length: 20 }, () => ({ tokentype: 'email', record: 'ada@example.com' })) });
    expect(bulk.status, JSON.stringify(bulk.body)).toBe(200);
  });

  it('restarts the life of a unique pair when it is asked for again', async ({ vault }) => {
    const first = await vault.call('TokenCreate', { tokentype: 'email', record: 'renew.me@example.org', unique: true, finaltime: '1h' });
    const again = await vault.call('TokenCreate', { tokentype: 'email', record: 'renew.me@example.org', unique: true, finaltime: '2d' });
    expect(again.body.tokenuuid).toBe(first.body.tokenuuid);
    const [row] = await vault.api.services.db.stores(1).tokens.find([first.body.tokenuuid], [], nowSeconds());
    expect(row!.expiresAt! - nowSeconds()).toBeGreaterThan(86_400);
  });

  it('never hands out a tokenbase twice in a tenant: a taken one is retried at the next FF1 attempt', async ({ vault }) => {
    const card = '4916338506082832';
    const { tokens } = await vault.api.services.tokenizer.run(1, { tokenize: [{ format: 'CREDITCARD', value: card, attempt: 0 }] });
    const first = tokens[0]!;
    // Another pair already holds the tokenbase this card gets at attempt 0.
    await vault.api.services.db.orm.em.getConnection().execute(
      `insert into tenant_1.tokens (tokenuuid, tokenbase, base_hash, tokentype, sealed, created) values (?, ?, decode(?, 'hex'), 'creditcard', '\\x00', 0)`,
      ['0f0f0f0f-0000-4000-8000-000000000001', first.token, first.index.toString('hex')],
    );
    // Attempts start at random; here at 0, where the taken tokenbase is.
    vault.api.services.tokens.firstAttempt = () => 0;
    const made = await vault.call('TokenCreate', { tokentype: 'creditcard', record: card });
    expect(made.status).toBe(200);
    expect(made.body.tokenbase).not.toBe(first.token);
    expect(made.body.tokenbase).toMatch(/^\d{16}$/);
    expect(luhnValid(made.body.tokenbase)).toBe(true);
    expect((await vault.call('TokenGet', { token: made.body.tokenbase })).body.record).toBe(card);
  });

  it('answers 404 Token not found for unknown and expired tokens, and the sweeper removes expired ones', async ({ vault }) => {
    for (const token of ['00000000-0000-4000-8000-000000000000', '4000000000000002', 'nobody@example.com']) {
      const got = await vault.call('TokenGet', { token });
      expect(got.status, token).toBe(404);
      expect(got.body).toEqual({ status: 'error', message: 'Token not found' });
    }
    // An hour's life, which a slow machine cannot use up between these calls; then the hour passes.
    const short = await vault.call('TokenCreate', { tokentype: 'creditcard', record: '4012888888881881', finaltime: '1h' });
    expect(short.status).toBe(200);
    expect((await vault.call('TokenGet', { token: short.body.tokenuuid })).status).toBe(200);
    await vault.api.services.db.orm.em.getConnection().execute('update tenant_1.tokens set expires_at = expires_at - 7200 where tokenuuid = ?', [short.body.tokenuuid]);
    expect((await vault.call('TokenGet', { token: short.body.tokenuuid })).status).toBe(404);
    expect((await vault.call('TokenGet', { token: short.body.tokenbase })).status).toBe(404);

    const later = await vault.call('TokenCreate', { tokentype: 'creditcard', record: '4012888888881881', finaltime: '1h' });
    const removed = await vault.api.services.sweeper.sweepOnce(nowSeconds() + 7_200);
    expect(removed).toBeGreaterThanOrEqual(2);
    // Gone from the table, so even the real clock no longer finds it.
    expect((await vault.call('TokenGet', { token: later.body.tokenuuid })).status).toBe(404);
  });

  it('rejects a bad type, a bad record and missing fields with a 400 naming the field', async ({ vault }) => {
    const cases: [unknown, RegExp][] = [
      [{ record: '4111111111111111' }, /^Missing API request parameters: tokentype$/],
      [{ tokentype: 'creditcard' }, /^Missing API request parameters: record$/],
      [{ tokentype: 'iban', record: 'x' }, /^Invalid API request parameter: tokentype/],
      [{ tokentype: 'creditcard', record: '4111-1111' }, /^Invalid API request parameter: record is not a card number: it needs 12 to 19 digits/],
      [{ tokentype: 'creditcard', record: '4111 1111 1111 111x' }, /^Invalid API request parameter: record/],
      [{ tokentype: 'unixtime', record: '12345' }, /^Invalid API request parameter: record/],
      [{ tokentype: 'email', record: 'not-an-address' }, /^Invalid API request parameter: record/],
      [{ tokentype: 'email', record: 'a@b.io' }, /^Invalid API request parameter: record is too short to tokenize/],
      [{ tokentype: 'text', record: '' }, /^Invalid API request parameter: record must not be empty$/],
      [{ tokentype: 'creditcard', record: { n: 1 } }, /^Invalid API request parameter: record/],
      [{ tokentype: 'creditcard', record: '4111111111111111', unique: 'yes' }, /^Invalid API request parameter: unique/],
      [{ tokentype: 'creditcard', record: '4111111111111111', finaltime: 'soon' }, /finaltime/],
    ];
    for (const [body, message] of cases) {
      const res = await vault.call('TokenCreate', body);
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.message, JSON.stringify(body)).toMatch(message);
    }
    expect((await vault.call('TokenGet', {})).body.message).toBe('Missing API request parameters: token');
  });

  it('deletes a pair by tokenbase or tokenuuid, then finds it no more', async ({ vault }) => {
    const a = await vault.call('TokenCreate', { tokentype: 'creditcard', record: '378282246310005' });
    const b = await vault.call('TokenCreate', { tokentype: 'creditcard', record: '378282246310005' });
    expect((await vault.call('TokenDelete', { token: a.body.tokenbase })).status).toBe(200);
    expect((await vault.call('TokenDelete', { token: b.body.tokenuuid })).status).toBe(200);
    for (const t of [a.body.tokenuuid, a.body.tokenbase, b.body.tokenuuid, b.body.tokenbase]) {
      expect((await vault.call('TokenGet', { token: t })).status).toBe(404);
    }
    const again = await vault.call('TokenDelete', { token: a.body.tokenuuid });
    expect(again.status).toBe(404);
    expect(again.body.message).toBe('Token not found');
  });
});

describe('TokenCreateBulk, BulkListTokens and BulkDeleteTokens', () => {
  it('creates many pairs in one call, one per record, and unique ones once per record', async ({ vault }) => {
    const records = Array.from({ length: 300 }, (_, i) => ({ tokentype: 'creditcard', record: `4${String(i).padStart(14, '0')}0` }));
    const res = await vault.call('TokenCreateBulk', { records, finaltime: '1d' });
    expect(res.status).toBe(200);
    expect(res.body.summary).toEqual({ created: 300 });
    expect(res.body.created).toHaveLength(300);
    res.body.created.forEach((c: Record<string, string>, i: number) => {
      expect(c).toMatchObject({ record: records[i]!.record, tokentype: 'creditcard' });
      expect(c.tokenbase).toHaveLength(16);
      expect(luhnValid(c.tokenbase!)).toBe(true);
    });
    expect(new Set(res.body.created.map((c: { tokenbase: string }) => c.tokenbase)).size).toBe(300);

    const mixed = [
      { tokentype: 'email', record: 'bulk.one@example.com' },
      { tokentype: 'email', record: 'bulk.one@example.com' },
      { tokentype: 'unixtime', record: '1700000000' },
      { tokentype: 'text', record: 'plain' },
    ];
    const u = await vault.call('TokenCreateBulk', { records: mixed, unique: true });
    expect(u.status).toBe(200);
    expect(u.body.created[1].tokenuuid).toBe(u.body.created[0].tokenuuid);
    const again = await vault.call('TokenCreateBulk', { records: mixed, unique: true });
    expect(again.body.created.map((c: { tokenuuid: string }) => c.tokenuuid)).toEqual(u.body.created.map((c: { tokenuuid: string }) => c.tokenuuid));
  });

  it('keeps one pair per record across the chunks of a large unique batch', async ({ vault }) => {
    // 6,000 records in three tokenizer chunks; record i and i + 3,000 are the same card, in different chunks.
    const cards = Array.from({ length: 3000 }, (_, i) => `5${String(i).padStart(14, '0')}7`);
    const records = [...cards, ...cards].map((record) => ({ tokentype: 'creditcard', record }));
    const res = await vault.call('TokenCreateBulk', { records, unique: true });
    expect(res.status).toBe(200);
    const uuids = (res.body.created as { tokenuuid: string }[]).map((c) => c.tokenuuid);
    expect(uuids).toHaveLength(6000);
    expect(new Set(uuids).size).toBe(3000);
    for (let i = 0; i < 3000; i += 250) expect(uuids[i + 3000]).toBe(uuids[i]);
    const plain = await vault.call('TokenCreateBulk', { records: records.slice(0, 5200) });
    expect(new Set((plain.body.created as { tokenbase: string }[]).map((c) => c.tokenbase)).size).toBe(5200);
  });

  it('refuses a bad record naming its position, and refuses an empty batch', async ({ vault }) => {
    const res = await vault.call('TokenCreateBulk', { records: [{ tokentype: 'creditcard', record: '4111111111111111' }, { tokentype: 'creditcard', record: '12' }] });
    expect(res.status).toBe(400);
    expect(res.body.message).toMatch(/^Invalid API request parameter: records\[1\]\.record is not a card number/);
    expect((await vault.call('TokenCreateBulk', { records: [] })).status).toBe(400);
  });

  it('lists pairs by tokenbase or tokenuuid in request order and deletes them, behind the unlock UUID', async ({ vault }) => {
    const made = await vault.call('TokenCreateBulk', {
      records: [
        { tokentype: 'creditcard', record: '6011111111111117' },
        { tokentype: 'email', record: 'list.me@example.net' },
      ],
    });
    const [card, mail] = made.body.created as Record<string, string>[];
    const list = await vault.call('BulkListTokens', { unlockuuid: await unlock(vault), tokens: [mail!.tokenuuid, card!.tokenbase, 'unknown-token'] });
    expect(list.status).toBe(200);
    expect(list.body.total).toBe(2);
    expect(list.body.rows).toEqual([
      { tokenuuid: mail!.tokenuuid, tokenbase: mail!.tokenbase, record: 'list.me@example.net', tokentype: 'email' },
      { tokenuuid: card!.tokenuuid, tokenbase: card!.tokenbase, record: '6011111111111117', tokentype: 'creditcard' },
    ]);

    expect((await vault.call('BulkListTokens', { tokens: [card!.tokenbase] })).status).toBe(400);
    expect((await vault.call('BulkDeleteTokens', { unlockuuid: '00000000-0000-4000-8000-000000000000', tokens: [card!.tokenbase] })).status).toBe(403);
    const stale = await unlock(vault);
    // Its window over, as if a minute had passed (the window is whole seconds, so a short one would be flaky).
    await vault.api.services.db.orm.em.getConnection().execute('update strongroom.unlocks set expires_at = expires_at - 3600 where uuid = ?', [stale]);
    const expired = await vault.call('BulkDeleteTokens', { unlockuuid: stale, tokens: [card!.tokenbase] });
    expect(expired.status).toBe(403);

    const del = await vault.call('BulkDeleteTokens', { unlockuuid: await unlock(vault), tokens: [card!.tokenbase, mail!.tokenuuid, mail!.tokenbase] });
    expect(del.status).toBe(200);
    expect(del.body.deleted).toBe(2);
    expect((await vault.call('TokenGet', { token: card!.tokenuuid })).status).toBe(404);
  });
});

describe('tenants', () => {
  it('never resolves a token of another tenant, and gives one card different tokens per tenant', async ({ vault }) => {
    expect((await vault.call('TenantCreate', { tenantname: 'othertokens', tenantorg: 'Other' })).status).toBe(200);
    const other = { 'x-bunker-tenant': 'othertokens' };
    const mine = await vault.call('TokenCreate', { tokentype: 'creditcard', record: '4242424242424242', unique: true });
    const theirs = await vault.call('TokenCreate', { tokentype: 'creditcard', record: '4242424242424242', unique: true }, other);
    expect(theirs.status).toBe(200);
    expect(theirs.body.tokenbase).not.toBe(mine.body.tokenbase);
    for (const token of [mine.body.tokenuuid, mine.body.tokenbase]) {
      expect((await vault.call('TokenGet', { token }, other)).status).toBe(404);
    }
    expect((await vault.call('TokenGet', { token: theirs.body.tokenuuid })).status).toBe(404);
    expect((await vault.call('TokenGet', { token: theirs.body.tokenbase }, other)).body.record).toBe('4242424242424242');
  });
});

describe('audit', () => {
  it('records an event per token call, with the token as the record', async ({ vault }) => {
    const made = await vault.call('TokenCreate', { tokentype: 'creditcard', record: '4000056655665556' });
    await vault.call('TokenGet', { token: made.body.tokenbase });
    const events = await vault.api.services.auditReader.listForRecord(vault.api.services.db.stores(1), made.body.tokenuuid, 0, 10);
    expect(events.rows.map((e: { title: string }) => e.title).sort()).toEqual(['TokenCreate', 'TokenGet']);
    // Neither the card nor its token appears in clear in the trail.
    expect(JSON.stringify(events)).not.toMatch(/4000056655665556|4000 0566/);
  });
});
