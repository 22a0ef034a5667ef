import ipaddr from 'ipaddr.js';
import { z } from 'zod';

const list = (check: (entry: string) => boolean, what: string) =>
  z
    .string()
    .default('')
    .transform((value) =>
      value
        .split(',')
        .map((entry) => entry.trim().toLowerCase())
        .filter(Boolean),
    )
    .refine((entries) => entries.every(check), { message: `every entry must be ${what}` });

const isHostPattern = (entry: string): boolean => /^(\*\.)?[a-z0-9_-]+(\.[a-z0-9_-]+)*$/.test(entry);
const isCidr = (entry: string): boolean => {
  try {
    ipaddr.parseCIDR(entry);
    return true;
  } catch {
    return false;
  }
};

/**
 * The egress settings a service spreads into its config schema (`z.object({ ...egressEnv, ... })`).
 * Both lists are empty by default: only public unicast addresses are reached. They exist for
 * deliberate internal targets (a webhook receiver inside the cluster, the tests' receiver on
 * 127.0.0.1) and each entry opens every port of what it names, so keep them narrow.
 */
export const egressEnv = {
  /** Host names reached whatever they resolve to: `hooks.internal`, or `*.hooks.internal` for its subdomains. */
  EGRESS_ALLOW_HOSTS: list(isHostPattern, 'a host name or *.suffix'),
  /** Address ranges reached although refused otherwise, e.g. `10.20.0.0/16,127.0.0.1/32`. */
  EGRESS_ALLOW_CIDRS: list(isCidr, 'an address range like 10.0.0.0/8 or fd00::/8'),
};
export const EgressEnv = z.object(egressEnv);
export type EgressEnv = z.infer<typeof EgressEnv>;

/** The operator's allowlist, compiled once at boot. */
export interface EgressAllowlist {
  allowsHost(hostname: string): boolean;
  allowsAddress(address: string): boolean;
}

/** Compiles the settings into the allowlist the guard consults. */
export function compileEgressAllowlist(
  settings: Pick<EgressEnv, 'EGRESS_ALLOW_HOSTS' | 'EGRESS_ALLOW_CIDRS'>,
): EgressAllowlist {
  const exact = new Set(settings.EGRESS_ALLOW_HOSTS.filter((h) => !h.startsWith('*.')));
  const suffixes = settings.EGRESS_ALLOW_HOSTS.filter((h) => h.startsWith('*.')).map((h) => h.slice(1));
  const ranges = settings.EGRESS_ALLOW_CIDRS.map((cidr) => ipaddr.parseCIDR(cidr));
  return {
    allowsHost(hostname) {
      const name = hostname.toLowerCase().replace(/\.$/, '');
      return exact.has(name) || suffixes.some((suffix) => name.endsWith(suffix));
    },
    allowsAddress(address) {
      const bare = address.startsWith('[') && address.endsWith(']') ? address.slice(1, -1) : address;
      if (!ipaddr.isValid(bare)) return false;
      let parsed = ipaddr.parse(bare);
      // ::ffff:127.0.0.1 is 127.0.0.1 for a range written in IPv4.
      if (parsed.kind() === 'ipv6' && (parsed as ipaddr.IPv6).isIPv4MappedAddress())
        parsed = (parsed as ipaddr.IPv6).toIPv4Address();
      return ranges.some(([range, bits]) => range.kind() === parsed.kind() && parsed.match(range, bits));
    },
  };
}
