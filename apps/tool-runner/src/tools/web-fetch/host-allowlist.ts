import { NamedError } from '@platform/contracts';
/**
 * The hosts `web_fetch` may reach. Entries are `host`, `host:port`, `*.domain` or `*.domain:port`;
 * every host is normalized by the WHATWG URL parser (lowercase, punycode, IPv4 forms such as
 * `2130706433` → `127.0.0.1`), so a request cannot dodge an entry by spelling its host differently.
 */

/** One parsed allowlist entry. */
export interface HostRule {
  /** The entry as configured, shown to the model and in errors. */
  readonly source: string;
  /** `exact`: this host only; `subdomains`: any host below `host` (not `host` itself). */
  readonly kind: 'exact' | 'subdomains';
  /** Normalized host name, IPv4 address or bracketed IPv6 address, without a trailing dot. */
  readonly host: string;
  /** Only this port; absent: only the scheme's default port (80 for http, 443 for https). */
  readonly port: number | undefined;
}

/** Raised for an allowlist entry that cannot be understood; config validation shows its message. */
export class HostPatternError extends NamedError {}

const DEFAULT_PORTS: Readonly<Record<string, number>> = { 'http:': 80, 'https:': 443 };

function withoutTrailingDot(host: string): string {
  return host.endsWith('.') ? host.slice(0, -1) : host;
}

/** True for IPv4 and IPv6 literals: those must be listed exactly, never reached through a wildcard. */
function isIpLiteral(host: string): boolean {
  return host.startsWith('[') || /^\d+$/.test(host.slice(host.lastIndexOf('.') + 1));
}

/** True for names that resolve to the local machine: a wildcard must not open them up by accident. */
function isLoopbackName(host: string): boolean {
  return host === 'localhost' || host.endsWith('.localhost');
}

/** Splits `host[:port]` (IPv6 in brackets) and normalizes the host; refuses anything but a bare host. */
function parseHostPort(entry: string, original: string): { host: string; port: number | undefined } {
  const match = /^(\[[^\]]*\]|[^:]*)(?::(\d{1,5}))?$/.exec(entry);
  if (!match?.[1]) throw new HostPatternError(`'${original}' is not a host name, 'host:port', or '*.domain'`);
  const port = match[2] === undefined ? undefined : Number(match[2]);
  if (port !== undefined && (port < 1 || port > 65_535))
    throw new HostPatternError(`'${original}' has an invalid port`);
  let url: URL;
  try {
    url = new URL(`http://${match[1]}/`);
  } catch {
    throw new HostPatternError(`'${original}' is not a valid host name`);
  }
  // A path, query or user part means the entry was a URL or had an '@' in it: refuse, do not guess.
  if (url.pathname !== '/' || url.search || url.hash || url.username || url.password) {
    throw new HostPatternError(`'${original}' must be a bare host (no scheme, path or user)`);
  }
  return { host: withoutTrailingDot(url.hostname), port };
}

/** Parses one entry; throws HostPatternError with a message naming it when it is not usable. */
export function parseHostPattern(entry: string): HostRule {
  const source = entry.trim();
  if (!source.startsWith('*')) return { source, kind: 'exact', ...parseHostPort(source, source) };
  if (!source.startsWith('*.')) throw new HostPatternError(`'${source}': a wildcard must be written '*.domain'`);
  const { host, port } = parseHostPort(source.slice(2), source);
  if (isIpLiteral(host)) throw new HostPatternError(`'${source}': wildcards apply to domain names, not IP addresses`);
  if (isLoopbackName(host))
    throw new HostPatternError(`'${source}': list loopback names exactly (e.g. 'localhost:8080'), not by wildcard`);
  if (!host.includes('.'))
    throw new HostPatternError(`'${source}': a wildcard needs a domain with at least two labels, e.g. '*.example.com'`);
  return { source, kind: 'subdomains', host, port };
}

/** Parses a whole allowlist; throws on the first unusable entry. */
export function parseAllowlist(entries: readonly string[]): HostRule[] {
  return entries.map(parseHostPattern);
}

function ruleMatches(rule: HostRule, host: string, port: number, defaultPort: number): boolean {
  if (port !== (rule.port ?? defaultPort)) return false;
  if (rule.kind === 'exact') return host === rule.host;
  // Subdomains only: `*.example.com` matches `a.example.com`, never `example.com` or `badexample.com`.
  return (
    host.length > rule.host.length + 1 && host.endsWith(`.${rule.host}`) && !isIpLiteral(host) && !isLoopbackName(host)
  );
}

/** The rule that lets `url` through, or undefined. Only http(s) URLs can match. */
export function findAllowingRule(rules: readonly HostRule[], url: URL): HostRule | undefined {
  const defaultPort = DEFAULT_PORTS[url.protocol];
  if (defaultPort === undefined) return undefined;
  const host = withoutTrailingDot(url.hostname);
  const port = url.port ? Number(url.port) : defaultPort;
  return rules.find((rule) => ruleMatches(rule, host, port, defaultPort));
}

/** Human-readable list for the tool description and refusals: `example.com, *.example.org (subdomains)`. */
export function describeAllowlist(rules: readonly HostRule[]): string {
  return rules.map((r) => (r.kind === 'subdomains' ? `${r.source} (any subdomain of ${r.host})` : r.source)).join(', ');
}
