import { TenantId } from '@platform/contracts';
import type { agentsV1 } from '@platform/proto';
import { PlatformError, type ErrorKind } from '@platform/service-kit';
import { ErrorCodes } from './error-codes.js';

type PlatformErrorOptions = ConstructorParameters<typeof PlatformError>[3];

/**
 * An error of the orchestrator's resource services (agents, remote agents): the stable code leads
 * the status message (`STALE_REVISION: …`), as the contract says, and travels in the trailers as
 * every code does.
 */
export function codedError(
  kind: ErrorKind,
  code: string,
  message: string,
  options?: PlatformErrorOptions,
): PlatformError {
  return new PlatformError(kind, code, `${code}: ${message}`, options);
}

/** Who calls a resource service, as its request's `caller` says. */
export interface ResourceCaller {
  tenantId: string;
  subject: string;
  /** The tier whose limits apply (the caller's own, else the default tier). */
  tier: string;
}

/** The request's caller, checked (INVALID_TENANT_ID when its tenant id is not one). */
export function resourceCallerOf(caller: agentsV1.AgentCaller | undefined, defaultTier: string): ResourceCaller {
  if (!caller || !TenantId.safeParse(caller.tenantId).success)
    throw codedError('invalid_argument', ErrorCodes.INVALID_TENANT_ID, 'caller.tenant_id is invalid');
  return { tenantId: caller.tenantId, subject: caller.subject, tier: caller.tier || defaultTier };
}
