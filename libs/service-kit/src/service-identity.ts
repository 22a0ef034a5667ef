/**
 * A service's identity on the internal network: the SPIFFE ID in the URI SAN of its certificate,
 * `spiffe://<trust-domain>/<name>` (e.g. `spiffe://agent-platform/orchestrator`,
 * `spiffe://agent-platform/runner/travel`). Callers are allowed by `name` (docs/security.md).
 */
export interface ServiceIdentity {
  trustDomain: string;
  /** The path after the trust domain: `orchestrator`, `runner/travel`. */
  name: string;
}

const SPIFFE_ID = /^spiffe:\/\/([a-z0-9._-]+)\/([A-Za-z0-9._-]+(?:\/[A-Za-z0-9._-]+)*)$/;

/** Parses one SPIFFE ID; undefined when it is not one (wrong scheme, empty path, odd characters). */
function parseSpiffeId(uri: string): ServiceIdentity | undefined {
  const match = SPIFFE_ID.exec(uri);
  if (!match) return undefined;
  return { trustDomain: match[1]!, name: match[2]! };
}

export function spiffeId(identity: ServiceIdentity): string {
  return `spiffe://${identity.trustDomain}/${identity.name}`;
}

/**
 * The identity in a certificate's subject alternative names, in Node's text form
 * (`URI:spiffe://agent-platform/api, DNS:api`). A certificate carries exactly one SPIFFE ID (the
 * SPIFFE X.509 profile): none, two, or a quoted (escaped) one gives undefined.
 */
export function identityInSubjectAltName(subjectAltName: string | undefined): ServiceIdentity | undefined {
  if (!subjectAltName) return undefined;
  const uris = subjectAltName
    .split(', ')
    .filter((entry) => entry.startsWith('URI:'))
    .map((entry) => entry.slice('URI:'.length));
  const spiffe = uris.filter((uri) => uri.startsWith('spiffe:') || uri.startsWith('"spiffe:'));
  if (spiffe.length !== 1) return undefined;
  return parseSpiffeId(spiffe[0]!);
}

/** True when `name` is allowed by `pattern`: the same name, or `prefix/*` for every name under `prefix/`. */
export function identityMatches(pattern: string, name: string): boolean {
  if (pattern.endsWith('/*')) return name.startsWith(pattern.slice(0, -1)) && name.length > pattern.length - 1;
  return pattern === name;
}
