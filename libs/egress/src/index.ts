export { classifyAddress } from './address-class.js';
export { egressEnv, EgressEnv, compileEgressAllowlist, type EgressAllowlist } from './egress-env.js';
export { EgressGuard, type EgressGuardOptions, type GuardedRequestInit } from './egress-guard.js';
export { type HostResolver, type ResolvedAddress } from './host-resolver.js';
export { redactUrl, redactUrlsIn } from './redact-url.js';
export {
  EGRESS_REFUSED,
  EgressRefusalReasons,
  EgressRefusedError,
  egressRefusalOf,
  type EgressRefusalReason,
} from './refusal.js';
