import { NamedError } from '@platform/contracts';
/**
 * Why the guard refuses a URL or an address. Stable strings: they travel in error details
 * (`details.reason`) and in docs/security.md, so clients and operators may branch on them.
 */
const EgressRefusalReasons = {
  invalid_url: 'is not a valid URL',
  scheme: 'must be an http or https URL',
  userinfo: 'must not contain a user name or password',
  unresolved: 'names a host that does not resolve',
  loopback: 'reaches a loopback address',
  private: 'reaches a private (RFC 1918) address',
  carrier_grade_nat: 'reaches a carrier-grade NAT (100.64.0.0/10) address',
  link_local: 'reaches a link-local address',
  unique_local: 'reaches a unique-local (fc00::/7) address',
  metadata: 'reaches a cloud metadata address',
  multicast: 'reaches a multicast address',
  broadcast: 'reaches the broadcast address',
  unspecified: 'reaches the unspecified address',
  reserved: 'reaches a reserved or documentation address',
  non_unicast: 'reaches an address that is not public unicast',
} as const;
export type EgressRefusalReason = keyof typeof EgressRefusalReasons;

/** The stable error code of every refusal; the api answers it as 400 (docs/api.md). */
export const EGRESS_REFUSED = 'EGRESS_REFUSED';

/**
 * A URL or connection the guard refused. The message names the reason only: never the URL (it may
 * carry a password or a token), never the resolved address (it would map the inside for a tenant).
 */
export class EgressRefusedError extends NamedError {
  readonly code = EGRESS_REFUSED;

  constructor(
    readonly reason: EgressRefusalReason,
    options: { cause?: unknown } = {},
  ) {
    super(`the URL ${EgressRefusalReasons[reason]}; outbound calls may reach public addresses only`, options);
  }
}

/** True for an `EgressRefusedError`, also one wrapped as the cause of a fetch failure. */
export function egressRefusalOf(error: unknown): EgressRefusedError | undefined {
  let current: unknown = error;
  for (let depth = 0; depth < 5 && current instanceof Error; depth++) {
    if (current instanceof EgressRefusedError) return current;
    current = current.cause;
  }
  return undefined;
}
