// The SSRF guard of event deliveries, against its own statement of the ranges: every address generated inside a
// forbidden range (IPv4, IPv6, IPv4-mapped in both spellings, NAT64) is refused, every public one allowed, and an
// allow list lets exactly its CIDR through. The resolver is injected, so no test here touches DNS or the network.
import type { LookupAddress } from 'node:dns';
import { isIP } from 'node:net';
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { checkTarget, guardedLookup, isForbiddenAddress, parseAllowList, type Resolve } from '../../../../../api/vault/privacy/ssrf.js';

const V4 = ['0.0.0.0/8', '10.0.0.0/8', '100.64.0.0/10', '127.0.0.0/8', '169.254.0.0/16', '172.16.0.0/12', '192.0.0.0/24', '192.0.2.0/24',
  '192.88.99.0/24', '192.168.0.0/16', '198.18.0.0/15', '198.51.100.0/24', '203.0.113.0/24', '224.0.0.0/4', '240.0.0.0/4'];
const V6 = ['::/96', '::ffff:0:0:0/96', '64:ff9b:1::/48', '100::/64', '2001::/32', '2001:db8::/32', '2002::/16', 'fc00::/7', 'fe80::/10',
  'fec0::/10', 'ff00::/8'];

const none = parseAllowList(undefined);

const v4Text = (n: number) => [n >>> 24, (n >>> 16) & 255, (n >>> 8) & 255, n & 255].join('.');
const v4Number = (text: string) => text.split('.').reduce((n, p) => n * 256 + Number(p), 0);
const hexWords = (n: bigint) => Array.from({ length: 8 }, (_, i) => ((n >> BigInt(112 - 16 * i)) & 0xffffn).toString(16)).join(':');
const v6Number = (text: string) => {
  const [head = '', tail = ''] = new URL(`http://[${text}]/`).hostname.slice(1, -1).split('::');
  const front = head ? head.split(':') : [];
  const back = tail ? tail.split(':') : [];
  const words = [...front, ...Array<string>(8 - front.length - back.length).fill('0'), ...back];
  return words.reduce((n, w) => (n << 16n) | BigInt(parseInt(w, 16)), 0n);
};
const inV4 = (n: number, cidr: string) => {
  const [net = '', bits = ''] = cidr.split('/');
  const size = 2 ** (32 - Number(bits));
  return Math.floor(n / size) === Math.floor(v4Number(net) / size);
};
const inV6 = (n: bigint, cidr: string) => {
  const [net = '', bits = ''] = cidr.split('/');
  const shift = BigInt(128 - Number(bits));
  return n >> shift === v6Number(net) >> shift;
};

/** An address inside an IPv4 CIDR. */
const v4In = (cidr: string) => {
  const [net = '', bits = ''] = cidr.split('/');
  const base = v4Number(net);
  return fc.integer({ min: 0, max: 2 ** (32 - Number(bits)) - 1 }).map((offset) => base - (base % 2 ** (32 - Number(bits))) + offset);
};
/** An address inside an IPv6 CIDR, in full hex words or in the URL parser's compressed spelling. */
const v6In = (cidr: string) => {
  const [net = '', bits = ''] = cidr.split('/');
  const shift = BigInt(128 - Number(bits));
  return fc
    .tuple(fc.bigInt({ min: 0n, max: (1n << shift) - 1n }), fc.boolean())
    .map(([offset, compress]) => {
      const text = hexWords(((v6Number(net) >> shift) << shift) | offset);
      return compress ? new URL(`http://[${text}]/`).hostname.slice(1, -1) : text;
    });
};
/** An IPv4 address number in the forbidden ranges, and one outside them. */
const forbiddenV4 = fc.constantFrom(...V4).chain(v4In);
const publicV4 = fc.integer({ min: 0, max: 2 ** 32 - 1 }).filter((n) => !V4.some((cidr) => inV4(n, cidr)));
/** The IPv6 spellings that reach an IPv4 address: mapped (dotted and hex) and NAT64. */
const v6Forms = (n: number) => {
  const hex = `${(n >>> 16).toString(16)}:${(n & 0xffff).toString(16)}`;
  return [`::ffff:${v4Text(n)}`, `::ffff:${hex}`, `0:0:0:0:0:ffff:${hex}`, `64:ff9b::${v4Text(n)}`, `64:ff9b::${hex}`];
};

describe('isForbiddenAddress', () => {
  it('refuses every IPv4 address in a forbidden range, and its IPv6 forms', () => {
    fc.assert(
      fc.property(forbiddenV4, (n) => {
        for (const address of [v4Text(n), ...v6Forms(n)]) expect(isForbiddenAddress(address, none), address).toBe(`address ${address} is not allowed`);
      }),
      { numRuns: 3000 },
    );
  });

  it('refuses every IPv6 address in a forbidden range', () => {
    fc.assert(
      fc.property(fc.constantFrom(...V6).chain(v6In), (address) => {
        expect(isForbiddenAddress(address, none), address).toBe(`address ${address} is not allowed`);
      }),
      { numRuns: 3000 },
    );
  });

  it('allows every public IPv4 address, and its mapped and NAT64 forms', () => {
    fc.assert(
      fc.property(publicV4, (n) => {
        for (const address of [v4Text(n), ...v6Forms(n)]) expect(isForbiddenAddress(address, none), address).toBeUndefined();
      }),
      { numRuns: 3000 },
    );
  });

  it('allows every global unicast IPv6 address outside the forbidden ranges', () => {
    const publicV6 = v6In('2000::/3').filter((a) => !V6.some((cidr) => inV6(v6Number(a), cidr)));
    fc.assert(
      fc.property(publicV6, (address) => {
        expect(isForbiddenAddress(address, none), address).toBeUndefined();
      }),
      { numRuns: 3000 },
    );
  });

  it('names the well-known dangerous addresses', () => {
    for (const address of ['127.0.0.1', '169.254.169.254', 'fd00:ec2::254', '::1', '::', '0.0.0.0', '::ffff:127.0.0.1', '::ffff:7f00:1', 'fe80::1%eth0']) {
      expect(isForbiddenAddress(address, none), address).toMatch(/is not allowed$/);
    }
    expect(isForbiddenAddress('example.com', none)).toBe('address example.com is not an IP address');
  });

  it('lets exactly an allow list CIDR through', () => {
    // A CIDR inside a forbidden IPv4 range, an address inside it and one in the same range outside it.
    const case4 = fc.constantFrom(...V4).chain((range) => {
      const bits = Number(range.split('/')[1]);
      return fc.integer({ min: bits, max: 32 }).chain((prefix) =>
        fc.tuple(v4In(range), fc.constant(prefix), v4In(range)).map(([net, p, other]) => ({ allow: `${v4Text(net)}/${p}`, inside: net - (net % 2 ** (32 - p)), other })),
      );
    });
    fc.assert(
      fc.property(case4, fc.nat(), ({ allow, inside, other }, offset) => {
        const list = parseAllowList(allow);
        const size = 2 ** (32 - Number(allow.split('/')[1]));
        const member = v4Text(inside + (offset % size));
        expect(isForbiddenAddress(member, list), `${member} in ${allow}`).toBeUndefined();
        expect(isForbiddenAddress(`::ffff:${member}`, list)).toBeUndefined();
        const outside = v4Text(other);
        expect(isForbiddenAddress(outside, list) === undefined, `${outside} against ${allow}`).toBe(inV4(other, allow));
      }),
      { numRuns: 2000 },
    );
  });

  it('lets an IPv6 allow list entry through and nothing next to it', () => {
    const list = parseAllowList('::1/128, fd00:1234::/32');
    expect(isForbiddenAddress('::1', list)).toBeUndefined();
    expect(isForbiddenAddress('fd00:1234:ffff::9', list)).toBeUndefined();
    expect(isForbiddenAddress('fd00:1235::9', list)).toBe('address fd00:1235::9 is not allowed');
    expect(isForbiddenAddress('::2', list)).toBe('address ::2 is not allowed');
  });
});

describe('parseAllowList', () => {
  it('reads addresses and CIDRs of both families, spaces and empty entries aside', () => {
    expect(parseAllowList(' 127.0.0.1/32,::1/128 ,, 10.0.0.0/8,192.168.1.7').entries).toEqual(['127.0.0.1/32', '::1/128', '10.0.0.0/8', '192.168.1.7']);
    expect(parseAllowList('').entries).toEqual([]);
  });

  it('names the entry it cannot read', () => {
    const bad = fc.oneof(
      fc.constantFrom('1.2.3', '1.2.3.4/33', '::1/129', '10.0.0.0/8/8', '10.0.0.0/', '10.0.0.0/x', 'fe80::1%eth0', 'localhost', '1.2.3.4/-1'),
      fc.string({ minLength: 1 }).filter((s) => !s.includes(',') && s.trim() !== '' && isIP(s.trim().split('/')[0] ?? '') === 0),
    );
    fc.assert(
      fc.property(bad, (entry) => {
        expect(() => parseAllowList(`127.0.0.1/32,${entry}`)).toThrow(`allow list entry "${entry.trim()}" is not`);
      }),
      { numRuns: 500 },
    );
  });
});

/** A resolver answering fixed addresses for every host. */
const answers = (...addresses: string[]): Resolve => (_host, _options, callback) =>
  callback(null, addresses.map((address): LookupAddress => ({ address, family: isIP(address) })));

describe('guardedLookup', () => {
  const lookup = (resolve: Resolve, all: boolean) =>
    new Promise<{ err: NodeJS.ErrnoException | null; address: unknown }>((done) =>
      guardedLookup(none, resolve)('receiver.example', { all }, (err, address) => done({ err, address })),
    );

  it('refuses a host when any of its addresses is forbidden', async () => {
    const { err } = await lookup(answers('93.184.216.34', '2606:2800:220:1::1', '10.1.2.3'), true);
    expect(err?.message).toBe('address 10.1.2.3 is not allowed');
    expect(err?.code).toBe('EADDRNOTALLOWED');
  });

  it('answers all addresses, or the first, as dns.lookup does', async () => {
    expect((await lookup(answers('93.184.216.34', '2606:2800:220:1::1'), true)).address).toEqual([
      { address: '93.184.216.34', family: 4 },
      { address: '2606:2800:220:1::1', family: 6 },
    ]);
    expect((await lookup(answers('93.184.216.34', '2606:2800:220:1::1'), false)).address).toBe('93.184.216.34');
  });

  it('passes a resolver failure on', async () => {
    const failing: Resolve = (host, _o, callback) => callback(Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' }), []);
    expect((await lookup(failing, true)).err?.code).toBe('ENOTFOUND');
  });
});

describe('checkTarget', () => {
  it('refuses URLs that are not plain http or https targets', async () => {
    const resolve = answers('93.184.216.34');
    expect(await checkTarget('https://receiver.example/hooks?x=1', none, resolve)).toBeUndefined();
    expect(await checkTarget('ftp://receiver.example/', none, resolve)).toBe('scheme ftp: is not http or https');
    expect(await checkTarget('https://user:pass@receiver.example/', none, resolve)).toBe('credentials in the URL are not allowed');
    expect(await checkTarget('https://receiver.example/#part', none, resolve)).toBe('a fragment in the URL is not allowed');
    expect(await checkTarget('https://receiver.example/#', none, resolve)).toBe('a fragment in the URL is not allowed');
    expect(await checkTarget('not a url', none, resolve)).toBe('not a URL');
  });

  it('refuses every spelling of a forbidden literal address, without asking DNS', async () => {
    const never: Resolve = () => {
      throw new Error('DNS was asked about a literal');
    };
    for (const url of ['http://127.0.0.1/', 'http://0x7f000001/', 'http://2130706433/', 'http://127.1/', 'http://0177.0.0.1/', 'http://[::1]/',
      'http://[::ffff:127.0.0.1]/', 'http://[::ffff:7f00:1]/', 'http://[64:ff9b::a9fe:a9fe]/', 'http://169.254.169.254/latest/meta-data/', 'http://[fd00:ec2::254]/']) {
      expect(await checkTarget(url, none, never), url).toMatch(/^address .* is not allowed$/);
    }
    expect(await checkTarget('http://93.184.216.34/', none, never)).toBeUndefined();
  });

  it('refuses a host that resolves to a forbidden address or not at all', async () => {
    expect(await checkTarget('https://inside.example/', none, answers('93.184.216.34', '192.168.0.10'))).toBe('address 192.168.0.10 is not allowed');
    expect(await checkTarget('https://inside.example/', parseAllowList('192.168.0.0/24'), answers('93.184.216.34', '192.168.0.10'))).toBeUndefined();
    const missing: Resolve = (_h, _o, callback) => callback(Object.assign(new Error('not found'), { code: 'ENOTFOUND' }), []);
    expect(await checkTarget('https://missing.example/', none, missing)).toBe('host missing.example does not resolve');
  });
});
