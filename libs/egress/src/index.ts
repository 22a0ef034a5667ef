export { egressEnv, compileEgressAllowlist, type EgressAllowlist } from './egress-env.js';
export { EgressGuard } from './egress-guard.js';
export { type HostResolver, type ResolvedAddress } from './host-resolver.js';
export { redactUrl, redactUrlsIn } from './redact-url.js';
export { EGRESS_REFUSED, egressRefusalOf } from './refusal.js';
