// The client's address behind proxies, against an independent oracle: chains are built the way proxies build
// them (the client writes what it likes, each of our proxies appends the address it was reached from), so the
// right answer is known by construction, whatever the client forged.
import fc from 'fast-check';
import { isIP } from 'node:net';
import { describe, expect, it } from 'vitest';
import { clientAddressOf } from '../../../../api/http/client-address.js';

const ipv4 = fc.tuple(fc.nat(255), fc.nat(255), fc.nat(255), fc.nat(255)).map((o) => o.join('.'));
const ipv6 = fc.array(fc.nat(0xffff), { minLength: 8, maxLength: 8 }).map((g) => g.map((n) => n.toString(16)).join(':'));
const outside = fc.oneof(ipv4, ipv6).filter((a) => !a.startsWith('10.') && !a.startsWith('fd'));
const proxy = fc.tuple(fc.nat(255), fc.nat(255), fc.nat(255)).map(([a, b, c]) => `10.${a}.${b}.${c}`);
/** Whatever a client may write in X-Forwarded-For: addresses (ours among them), names, junk, no commas. */
const forged = fc.array(fc.oneof(ipv4, ipv6, proxy, fc.string({ maxLength: 20 }).map((s) => s.replace(/,/g, ''))), { maxLength: 5 });

/**
 * A request from `client` through `hops` proxies: the first proxy appends the client's address to what the client
 * sent, each next one the previous proxy's; the vault's peer is the last proxy.
 */
function through(client: string, clientWrote: string[], proxies: string[]): { peer: string; header: string | undefined } {
  const chain = [...clientWrote];
  let from = client;
  for (const p of proxies) {
    chain.push(from);
    from = p;
  }
  return { peer: from, header: chain.length ? chain.join(', ') : undefined };
}

describe('clientAddressOf', () => {
  it('takes the entry the configured number of hops from the right, whatever the client forged', () => {
    fc.assert(
      fc.property(outside, forged, fc.array(proxy, { minLength: 1, maxLength: 4 }), (client, clientWrote, proxies) => {
        const of = clientAddressOf({ trustProxy: true, proxyHops: proxies.length, trustedProxies: [] });
        const { peer, header } = through(client, clientWrote, proxies);
        expect(of(peer, header)).toBe(client);
      }),
    );
  });

  it('takes the rightmost entry outside the trusted networks, whatever the client forged', () => {
    fc.assert(
      fc.property(outside, forged, fc.array(proxy, { minLength: 1, maxLength: 4 }), (client, clientWrote, proxies) => {
        const of = clientAddressOf({ trustProxy: true, proxyHops: 1, trustedProxies: ['10.0.0.0/8', 'fd00::/8'] });
        const { peer, header } = through(client, clientWrote, proxies);
        expect(of(peer, header)).toBe(client);
      }),
    );
  });

  it('ignores the header from a peer outside the trusted networks, and without trust at all', () => {
    fc.assert(
      fc.property(outside, forged, (peer, clientWrote) => {
        const header = clientWrote.join(', ') || undefined;
        expect(clientAddressOf({ trustProxy: true, proxyHops: 1, trustedProxies: ['10.0.0.0/8'] })(peer, header)).toBe(peer);
        expect(clientAddressOf({ trustProxy: false, proxyHops: 2, trustedProxies: [] })(peer, header)).toBe(peer);
      }),
    );
  });

  it('reads a chain shorter than the hops from its left, and a dual-stack peer as IPv4', () => {
    const of = clientAddressOf({ trustProxy: true, proxyHops: 3, trustedProxies: [] });
    expect(of('10.0.0.2', '203.0.113.7, 10.0.0.1')).toBe('203.0.113.7');
    expect(of('::ffff:10.0.0.2', undefined)).toBe('10.0.0.2');
    expect(clientAddressOf({ trustProxy: true, proxyHops: 1, trustedProxies: ['10.0.0.0/8'] })('::ffff:10.0.0.2', '198.51.100.4')).toBe('198.51.100.4');
  });
});

// What proxies (and clients posing as them) may write besides a bare address: a port after it, brackets around an
// IPv6 address, names and junk. The port never makes a new client; an entry that is no address is never believed.
describe('clientAddressOf, entries that are not bare addresses', () => {
  const port = fc.integer({ min: 1, max: 65535 });
  const junk = fc.string({ maxLength: 20 }).map((s) => s.replace(/,/g, '').trim()).filter((s) => s !== '' && isIP(s) === 0 && !/^[\d.]+:\d+$/.test(s) && !s.startsWith('['));

  it('drops the port of the client’s entry, IPv4 or bracketed IPv6', () => {
    fc.assert(
      fc.property(outside, port, forged, fc.array(proxy, { minLength: 1, maxLength: 3 }), (client, p, clientWrote, proxies) => {
        const written = isIP(client) === 6 ? `[${client}]:${p}` : `${client}:${p}`;
        const { peer, header } = through(written, clientWrote, proxies);
        expect(clientAddressOf({ trustProxy: true, proxyHops: proxies.length, trustedProxies: [] })(peer, header)).toBe(client);
        expect(clientAddressOf({ trustProxy: true, proxyHops: 1, trustedProxies: ['10.0.0.0/8'] })(peer, header)).toBe(client);
      }),
    );
  });

  it('takes the peer when the entry it would take is no address', () => {
    fc.assert(
      fc.property(junk, forged, fc.array(proxy, { minLength: 1, maxLength: 3 }), (name, clientWrote, proxies) => {
        const { peer, header } = through(name, clientWrote, proxies);
        expect(clientAddressOf({ trustProxy: true, proxyHops: proxies.length, trustedProxies: [] })(peer, header)).toBe(peer);
        expect(clientAddressOf({ trustProxy: true, proxyHops: 1, trustedProxies: ['10.0.0.0/8'] })(peer, header)).toBe(peer);
      }),
    );
  });

  it('never answers anything but an IP address', () => {
    fc.assert(
      fc.property(fc.oneof(outside, proxy), forged, fc.integer({ min: 1, max: 4 }), fc.boolean(), (peer, clientWrote, hops, byNetwork) => {
        const of = clientAddressOf({ trustProxy: true, proxyHops: hops, trustedProxies: byNetwork ? ['10.0.0.0/8'] : [] });
        expect(isIP(of(peer, clientWrote.join(', ') || undefined))).not.toBe(0);
      }),
    );
  });
});
