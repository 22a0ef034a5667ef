import type { PlatformError } from '@platform/service-kit';
import { codedError } from '../coded-error.js';
import { ErrorCodes } from '../error-codes.js';

/** An AgentService (or agent-resolution) error (coded-error.ts). */
export const agentError = codedError;

export const agentNotFound = (agent: string): PlatformError =>
  agentError('not_found', ErrorCodes.AGENT_NOT_FOUND, `no agent '${agent}'`);

export const versionNotFound = (agent: string, version: number): PlatformError =>
  agentError('not_found', ErrorCodes.AGENT_VERSION_NOT_FOUND, `agent '${agent}' has no version ${version}`);

export const staleRevision = (current: number, ifMatch: number): PlatformError =>
  agentError(
    'failed_precondition',
    ErrorCodes.STALE_REVISION,
    `the agent is at revision ${current}, not ${ifMatch}: read it again and retry`,
    { details: { revision: current } },
  );

export const agentDeleted = (agent: string): PlatformError =>
  agentError('failed_precondition', ErrorCodes.AGENT_DELETED, `the agent '${agent}' is deleted`);

export const notPermittedByTier = (what: string): PlatformError =>
  agentError('permission_denied', ErrorCodes.NOT_PERMITTED_BY_TIER, what);

export const builtInAgent = (agent: string): PlatformError =>
  agentError('permission_denied', ErrorCodes.BUILT_IN_AGENT, `'${agent}' is a built-in agent: read-only`);

export const nameTaken = (name: string): PlatformError =>
  agentError('already_exists', ErrorCodes.AGENT_NAME_TAKEN, `an agent named '${name}' exists already`);

/** INVALID_AGENT_SPEC with the issues (`details.issues: [{ field, message }]`). */
export function invalidSpec(issues: { field: string; message: string }[]): PlatformError {
  const summary = issues.map((i) => `${i.field || '(spec)'}: ${i.message}`).join('; ');
  return agentError('invalid_argument', ErrorCodes.INVALID_AGENT_SPEC, summary, { details: { issues } });
}
