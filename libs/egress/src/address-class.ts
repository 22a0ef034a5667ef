import ipaddr from 'ipaddr.js';
import type { EgressRefusalReason } from './refusal.js';

/**
 * Addresses that are public unicast by their range yet must never be reached: cloud metadata and
 * control endpoints. (169.254.169.254 and fd00:ec2::254 are link-local / unique-local anyway; they
 * are listed so the refusal names them.)
 */
const METADATA_ADDRESSES = new Set([
  '169.254.169.254',
  '169.254.170.2',
  '168.63.129.16',
  '100.100.100.200',
  'fd00:ec2::254',
]);

const V4_REASONS: Record<string, EgressRefusalReason> = {
  unspecified: 'unspecified',
  broadcast: 'broadcast',
  multicast: 'multicast',
  linkLocal: 'link_local',
  loopback: 'loopback',
  carrierGradeNat: 'carrier_grade_nat',
  private: 'private',
  reserved: 'reserved',
};

const V6_REASONS: Record<string, EgressRefusalReason> = {
  unspecified: 'unspecified',
  linkLocal: 'link_local',
  multicast: 'multicast',
  loopback: 'loopback',
  uniqueLocal: 'unique_local',
  deprecatedSiteLocal: 'private',
  reserved: 'reserved',
  benchmarking: 'reserved',
  discard: 'reserved',
};

/** Global unicast IPv6 is 2000::/3; anything outside it is not a public destination. */
const GLOBAL_UNICAST_V6 = ipaddr.parseCIDR('2000::/3');
/** IPv4-compatible addresses (::a.b.c.d, deprecated) carry an IPv4 address in their last 32 bits. */
const V4_COMPATIBLE = ipaddr.parseCIDR('::/96');
/** The NAT64 well-known prefix (RFC 6052): a translator reaches the IPv4 address in the last 32 bits. */
const NAT64_WELL_KNOWN = ipaddr.parseCIDR('64:ff9b::/96');

function classifyV4(address: ipaddr.IPv4): EgressRefusalReason | undefined {
  if (METADATA_ADDRESSES.has(address.toString())) return 'metadata';
  const range = address.range();
  if (range === 'unicast') return undefined;
  return V4_REASONS[range] ?? 'non_unicast';
}

function embeddedV4(address: ipaddr.IPv6): ipaddr.IPv4 {
  const bytes = address.toByteArray();
  return new ipaddr.IPv4([bytes[12]!, bytes[13]!, bytes[14]!, bytes[15]!]);
}

function classifyV6(address: ipaddr.IPv6): EgressRefusalReason | undefined {
  if (METADATA_ADDRESSES.has(address.toString())) return 'metadata';
  const range = address.range();
  // Forms that reach an IPv4 address get that address's verdict (a mapped public address is fine).
  if (range === 'ipv4Mapped' || range === 'rfc6145') return classifyV4(embeddedV4(address));
  if (address.match(NAT64_WELL_KNOWN)) return classifyV4(embeddedV4(address));
  if (range === 'unspecified' || range === 'loopback') return V6_REASONS[range];
  if (address.match(V4_COMPATIBLE)) return classifyV4(embeddedV4(address));
  if (range === 'unicast' && address.match(GLOBAL_UNICAST_V6)) return undefined;
  return V6_REASONS[range] ?? 'non_unicast';
}

/**
 * Why an IP address may not be reached, or undefined when it is public unicast. Takes any IPv4 or
 * IPv6 spelling ipaddr.js parses; a string that is not an address is `non_unicast` (never allowed).
 */
export function classifyAddress(address: string): EgressRefusalReason | undefined {
  const bare = address.startsWith('[') && address.endsWith(']') ? address.slice(1, -1) : address;
  if (!ipaddr.isValid(bare)) return 'non_unicast';
  const parsed = ipaddr.parse(bare);
  return parsed.kind() === 'ipv4' ? classifyV4(parsed as ipaddr.IPv4) : classifyV6(parsed as ipaddr.IPv6);
}
