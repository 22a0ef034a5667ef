import { errors, PlatformError } from '@platform/service-kit';
import type { ProfileRegistry } from '../profiles.js';
import { GateRefusalCode, type GateQuestion, type GateRefusal } from './gate-rules.js';
import { ErrorCodes } from '../error-codes.js';

/** A gate refusal as the gRPC edge answers it (the api maps the kind to 403, 409 or 503). */
export function gateError(refusal: GateRefusal, suffix = ''): PlatformError {
  const message = `${refusal.message}${suffix}`;
  switch (refusal.code) {
    case GateRefusalCode.notAllowed:
      return new PlatformError('permission_denied', refusal.code, message);
    case GateRefusalCode.runnerUnavailable:
      return errors.unavailable(refusal.code, message);
    default:
      return new PlatformError('failed_precondition', refusal.code, message);
  }
}

/** Who calls from outside a conversation, as CallTool names them. */
export interface OutsideCaller {
  tenantId: string;
  tier: string;
  profile: string;
}

/**
 * The allowlist of a caller outside a conversation: that of the profile it names (else the
 * default), among those its tenant and tier may use, as for a message under that profile. A
 * profile it may not use is 404 `PROFILE_NOT_FOUND` (the message lists its profiles).
 */
export function allowlistOf(
  profiles: Pick<ProfileRegistry, 'resolve' | 'namesFor'>,
  caller: OutsideCaller,
  defaultTier: string,
): Pick<GateQuestion, 'allowsTool' | 'allowlist'> {
  const who = { tenantId: caller.tenantId, tier: caller.tier || defaultTier };
  const profile = profiles.resolve(caller.profile, who);
  if (!profile)
    throw errors.notFound(
      ErrorCodes.PROFILE_NOT_FOUND,
      `no agent profile '${caller.profile}' for you; yours: ${profiles.namesFor(who).join(', ')}`,
    );
  return { allowsTool: profile.allowsTool, allowlist: `the agent profile '${profile.name}'` };
}
