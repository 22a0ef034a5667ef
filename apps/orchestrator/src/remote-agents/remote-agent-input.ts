import { CredentialAccount, CredentialService, RemoteAgentName } from '@platform/contracts';
import { invalidRemoteAgent } from './remote-agent-errors.js';

/** The bounds of a remote agent's fields (docs/remote-agents.md). */
const REMOTE_AGENT_LIMITS = { maxUrlChars: 2_048, maxDescriptionChars: 2_048 } as const;

// eslint-disable-next-line no-control-regex -- control characters are exactly what this refuses
const CONTROL = /[\u0000-\u001f\u007f]/;

export function remoteAgentName(value: string): string {
  const parsed = RemoteAgentName.safeParse(value);
  if (!parsed.success) throw invalidRemoteAgent('name', parsed.error.issues[0]?.message ?? 'is not valid');
  return parsed.data;
}

/** The card URL's form (the egress guard judges where it reaches). */
export function remoteAgentUrl(value: string): string {
  if (!value) throw invalidRemoteAgent('url', 'must not be empty');
  if (value.length > REMOTE_AGENT_LIMITS.maxUrlChars)
    throw invalidRemoteAgent('url', `must be at most ${REMOTE_AGENT_LIMITS.maxUrlChars} characters`);
  if (!URL.canParse(value) || !/^https?:$/.test(new URL(value).protocol))
    throw invalidRemoteAgent('url', 'must be an http or https URL');
  return value;
}

export function remoteAgentDescription(value: string): string {
  if (value.length > REMOTE_AGENT_LIMITS.maxDescriptionChars)
    throw invalidRemoteAgent('description', `must be at most ${REMOTE_AGENT_LIMITS.maxDescriptionChars} characters`);
  if (CONTROL.test(value.replace(/[\n\t]/g, '')))
    throw invalidRemoteAgent('description', 'must not hold control characters');
  return value;
}

/** The credential calls carry: both empty for none; an account needs a service. */
export function remoteAgentCredential(
  service: string,
  account: string,
): { credentialService?: string; credentialAccount?: string } {
  if (!service) {
    if (account) throw invalidRemoteAgent('credentialAccount', 'needs a credentialService');
    return {};
  }
  if (!CredentialService.safeParse(service).success)
    throw invalidRemoteAgent('credentialService', 'must be 1-64 lowercase letters, digits, ".", "_" or "-"');
  if (account && !CredentialAccount.safeParse(account).success)
    throw invalidRemoteAgent('credentialAccount', 'must be 1-128 letters, digits, ".", "_", "@", "+" or "-"');
  return { credentialService: service, ...(account ? { credentialAccount: account } : {}) };
}
