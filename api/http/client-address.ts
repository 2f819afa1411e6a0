// The client's address, which rate limits and refusal audit events count. Every proxy appends the address it was
// reached from to X-Forwarded-For, so only the entries our own proxies wrote can be believed: anything to their
// left was written by the client. The client is the entry the configured number of hops from the right, or,
// given trusted proxy networks, the rightmost entry outside them. An entry is read as an address (a port some
// proxies add, `1.2.3.4:5678` or `[2001:db8::1]:5678`, dropped); one that is no address is not believed: the peer
// is taken instead. Rate limits count an IPv6 client by its /64 (api/vault/limits.ts, addressKey).
import { BlockList, isIP } from 'node:net';

export interface ProxySettings {
  /** Behind proxies at all; without, X-Forwarded-For is ignored. */
  trustProxy: boolean;
  /** How many proxies append to X-Forwarded-For in front of the vault. */
  proxyHops: number;
  /** CIDRs of the proxies; when any is given, it is used instead of `proxyHops`. */
  trustedProxies: readonly string[];
}

/** A function from (the socket's peer, the X-Forwarded-For header) to the client's address. */
export function clientAddressOf(settings: ProxySettings): (peer: string, forwardedFor: string | undefined) => string {
  if (!settings.trustProxy) return (peer) => plain(peer);
  if (settings.trustedProxies.length === 0) return (peer, header) => hopsFromRight(plain(peer), entries(header), settings.proxyHops);
  const trusted = new BlockList();
  for (const cidr of settings.trustedProxies) {
    const [address = '', bits = ''] = cidr.split('/');
    trusted.addSubnet(plain(address), Number(bits), isIP(plain(address)) === 6 ? 'ipv6' : 'ipv4');
  }
  const isTrusted = (address: string) => {
    const family = isIP(address);
    return family !== 0 && trusted.check(address, family === 6 ? 'ipv6' : 'ipv4');
  };
  return (peer, header) => rightmostUntrusted(plain(peer), entries(header), isTrusted);
}

/** The entry `hops` from the right; a shorter chain (a proxy skipped) gives its leftmost, which a proxy wrote. */
function hopsFromRight(peer: string, chain: string[], hops: number): string {
  if (chain.length === 0) return peer;
  return addressOr(chain[Math.max(0, chain.length - hops)]!, peer);
}

/** Walking from the peer leftwards, the first address that is not one of our proxies. */
function rightmostUntrusted(peer: string, chain: string[], isTrusted: (address: string) => boolean): string {
  if (!isTrusted(peer)) return peer;
  for (let i = chain.length - 1; i >= 0; i--) if (!isTrusted(chain[i]!)) return addressOr(chain[i]!, peer);
  return addressOr(chain[0] ?? peer, peer);
}

/** `entry` when it is an IP address, else `fallback`. */
function addressOr(entry: string, fallback: string): string {
  return isIP(entry) ? entry : fallback;
}

function entries(header: string | undefined): string[] {
  return (header ?? '')
    .split(',')
    .map((e) => plain(e.trim()))
    .filter(Boolean);
}

/**
 * An address without a port (`1.2.3.4:80`, `[2001:db8::1]:80`), and `::ffff:10.0.0.1` as `10.0.0.1`, so an IPv4
 * peer on a dual-stack socket matches IPv4 networks. Anything else is left as it is (and is no address).
 */
function plain(entry: string): string {
  const bracketed = /^\[([^\]]+)\](?::\d+)?$/.exec(entry);
  const ported = /^(\d+\.\d+\.\d+\.\d+):\d+$/.exec(entry);
  const address = bracketed?.[1] ?? ported?.[1] ?? entry;
  const lower = address.toLowerCase();
  return lower.startsWith('::ffff:') && isIP(address.slice(7)) === 4 ? address.slice(7) : address;
}
