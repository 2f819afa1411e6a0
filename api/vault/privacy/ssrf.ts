// The guard that keeps event deliveries (webhooks a tenant configures) off the vault's own network: loopback,
// private, link-local (the cloud metadata service), CGNAT, multicast and reserved addresses are refused, in their
// IPv4 forms and in every IPv6 form that reaches them, unless the operator's allow list names them.
import * as dns from 'node:dns';
import { BlockList, isIP, type LookupFunction } from 'node:net';

/** Addresses the operator lets deliveries reach although the guard would refuse them (e.g. an in-cluster receiver). */
export class AllowList {
  constructor(
    private readonly list: BlockList,
    /** The entries as configured, for logs. */
    readonly entries: readonly string[],
  ) {}

  /** Whether the list covers the address (an IPv4-mapped IPv6 address is covered by its IPv4 entry). */
  covers(address: string, family: 4 | 6): boolean {
    return this.list.check(address, family === 4 ? 'ipv4' : 'ipv6');
  }
}

/** Reads a comma-separated list of addresses and CIDRs (`127.0.0.1/32,::1/128,10.0.0.0/8`); an empty text allows nothing. */
export function parseAllowList(text: string | undefined): AllowList {
  const list = new BlockList();
  const entries = (text ?? '')
    .split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry !== '');
  for (const entry of entries) {
    const [address = '', prefixText, extra] = entry.split('/');
    const family = isIP(address);
    const bits = family === 4 ? 32 : 128;
    const prefix = prefixText === undefined ? bits : /^\d{1,3}$/.test(prefixText) ? Number(prefixText) : -1;
    if (family === 0 || address.includes('%') || extra !== undefined || prefix < 0 || prefix > bits) {
      throw new Error(`allow list entry "${entry}" is not an IPv4 or IPv6 address or CIDR`);
    }
    list.addSubnet(address, prefix, family === 4 ? 'ipv4' : 'ipv6');
  }
  return new AllowList(list, entries);
}

interface Range4 {
  net: number;
  mask: number;
}
interface Range6 {
  net: bigint;
  mask: bigint;
}

function ipv4Number(address: string): number {
  return address.split('.').reduce((n, part) => n * 256 + Number(part), 0);
}

/** The address as a 128-bit number; the WHATWG URL parser turns any valid spelling into hex words first. */
function ipv6Number(address: string): bigint {
  const canonical = new URL(`http://[${address}]/`).hostname.slice(1, -1);
  const [head = '', tail] = canonical.split('::');
  const front = head === '' ? [] : head.split(':');
  const back = tail === undefined || tail === '' ? [] : tail.split(':');
  const words = [...front, ...new Array<string>(8 - front.length - back.length).fill('0'), ...back];
  return words.reduce((n, word) => (n << 16n) | BigInt(parseInt(word, 16)), 0n);
}

function range4(cidr: string): Range4 {
  const [net = '', prefix = ''] = cidr.split('/');
  const mask = Number(prefix) === 0 ? 0 : (0xffffffff << (32 - Number(prefix))) >>> 0;
  return { net: (ipv4Number(net) & mask) >>> 0, mask };
}

function range6(cidr: string): Range6 {
  const [net = '', prefix = ''] = cidr.split('/');
  const mask = ((1n << 128n) - 1n) ^ ((1n << BigInt(128 - Number(prefix))) - 1n);
  return { net: ipv6Number(net) & mask, mask };
}

/** IPv4 ranges no delivery may reach: not the public internet. */
const FORBIDDEN_V4: readonly Range4[] = [
  '0.0.0.0/8', // "this network", unspecified
  '10.0.0.0/8', // private
  '100.64.0.0/10', // carrier-grade NAT
  '127.0.0.0/8', // loopback
  '169.254.0.0/16', // link-local, the cloud metadata service 169.254.169.254 among them
  '172.16.0.0/12', // private
  '192.0.0.0/24', // IETF protocol assignments
  '192.0.2.0/24', // documentation
  '192.88.99.0/24', // 6to4 relay anycast
  '192.168.0.0/16', // private
  '198.18.0.0/15', // benchmarking
  '198.51.100.0/24', // documentation
  '203.0.113.0/24', // documentation
  '224.0.0.0/4', // multicast
  '240.0.0.0/4', // reserved, broadcast
].map(range4);

/** IPv6 ranges no delivery may reach. The IPv4-mapped (::ffff:0:0/96) and NAT64 (64:ff9b::/96) forms are judged by their IPv4 address instead. */
const FORBIDDEN_V6: readonly Range6[] = [
  '::/96', // unspecified ::, loopback ::1, and the deprecated IPv4-compatible ::a.b.c.d
  '::ffff:0:0:0/96', // IPv4-translated
  '64:ff9b:1::/48', // local-use NAT64
  '100::/64', // discard
  '2001::/32', // Teredo (carries an IPv4 address)
  '2001:db8::/32', // documentation
  '2002::/16', // 6to4 (carries an IPv4 address)
  'fc00::/7', // unique local, the EC2 metadata service fd00:ec2::254 among them
  'fe80::/10', // link-local
  'fec0::/10', // site-local (deprecated)
  'ff00::/8', // multicast
].map(range6);

const MAPPED = range6('::ffff:0:0/96');
const NAT64 = range6('64:ff9b::/96');

function forbidden4(n: number): boolean {
  return FORBIDDEN_V4.some((r) => ((n & r.mask) >>> 0) === r.net);
}

function forbidden6(n: bigint): boolean {
  if ((n & MAPPED.mask) === MAPPED.net || (n & NAT64.mask) === NAT64.net) return forbidden4(Number(n & 0xffffffffn));
  return FORBIDDEN_V6.some((r) => (n & r.mask) === r.net);
}

/** The reason a delivery may not connect to the address, or undefined when it may. */
export function isForbiddenAddress(address: string, allow: AllowList): string | undefined {
  const bare = address.startsWith('[') && address.endsWith(']') ? address.slice(1, -1) : address;
  const family = isIP(bare);
  if (family === 0) return `address ${address} is not an IP address`;
  if (family === 4 ? !forbidden4(ipv4Number(bare)) : !forbidden6(ipv6Number(bare.split('%')[0]!))) return undefined;
  // A scoped address (fe80::1%eth0) is link-local, which no allow list entry can name.
  if (!bare.includes('%') && allow.covers(bare, family === 4 ? 4 : 6)) return undefined;
  return `address ${bare} is not allowed`;
}

/** dns.lookup asked for every address: what guardedLookup resolves with (a test passes a resolver of its own). */
export type Resolve = (
  hostname: string,
  options: dns.LookupAllOptions,
  callback: (err: NodeJS.ErrnoException | null, addresses: dns.LookupAddress[]) => void,
) => void;

/** An Error for a refused address, with a code a caller can test. */
function refused(reason: string): NodeJS.ErrnoException {
  return Object.assign(new Error(reason), { code: 'EADDRNOTALLOWED' });
}

/**
 * A `lookup` for http.request, https.request and net.connect that refuses a host when ANY of its addresses is
 * forbidden. The socket connects only to the addresses this lookup answered, so a DNS answer that changes
 * between a check and the connection (DNS rebinding) is judged again at connect time and cannot slip through.
 * Node does not call `lookup` for a host that is an IP literal: check those with isForbiddenAddress first.
 */
export function guardedLookup(allow: AllowList, resolve: Resolve = dns.lookup): LookupFunction {
  return (hostname, options, callback) => {
    resolve(hostname, { ...options, all: true }, (err, addresses) => {
      if (err) return callback(err, '');
      if (addresses.length === 0) return callback(Object.assign(new Error(`host ${hostname} has no address`), { code: 'ENOTFOUND' }), '');
      for (const { address } of addresses) {
        const reason = isForbiddenAddress(address, allow);
        if (reason) return callback(refused(reason), '');
      }
      if (options.all) return callback(null, addresses);
      return callback(null, addresses[0]!.address, addresses[0]!.family);
    });
  };
}

/** The reason a URL may not be a delivery target, judged without DNS: scheme, credentials, fragment, literal address. */
export function checkUrl(url: URL, allow: AllowList): string | undefined {
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return `scheme ${url.protocol} is not http or https`;
  if (url.username !== '' || url.password !== '') return 'credentials in the URL are not allowed';
  if (url.hash !== '' || url.href.endsWith('#')) return 'a fragment in the URL is not allowed';
  const host = url.hostname.startsWith('[') ? url.hostname.slice(1, -1) : url.hostname;
  return isIP(host) ? isForbiddenAddress(host, allow) : undefined;
}

/** A target judged: refused (why), or accepted, its host perhaps not resolving now (deliveries fail until it does). */
export interface TargetVerdict {
  refused?: string;
  unresolved?: true;
}

/**
 * A URL judged as a subscription's target: refused when it is not http or https, carries credentials or a fragment,
 * or names (or resolves to) a forbidden address. Deliveries check again at connect time (guardedLookup): this answer
 * only spares a tenant a subscription that could never deliver. A host that does not resolve now is not refused
 * (DNS may be late): the verdict says so.
 */
export async function judgeTarget(url: string, allow: AllowList, resolve: Resolve = dns.lookup): Promise<TargetVerdict> {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return { refused: 'not a URL' };
  }
  const reason = checkUrl(parsed, allow);
  if (reason) return { refused: reason };
  if (isIP(parsed.hostname.replace(/^\[|\]$/g, ''))) return {};
  const lookup = guardedLookup(allow, resolve);
  return new Promise((done) => {
    lookup(parsed.hostname, { all: true }, (err) => {
      if (!err) return done({});
      done(err.code === 'EADDRNOTALLOWED' ? { refused: err.message } : { unresolved: true });
    });
  });
}

/** The reason a URL may not be a target, or undefined; a host that does not resolve is a reason here. */
export async function checkTarget(url: string, allow: AllowList, resolve: Resolve = dns.lookup): Promise<string | undefined> {
  const verdict = await judgeTarget(url, allow, resolve);
  return verdict.unresolved ? `host ${new URL(url).hostname} does not resolve` : verdict.refused;
}
