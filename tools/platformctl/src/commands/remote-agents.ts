import type { ApiClient } from '../api-client.js';
import { fields, table } from '../format.js';
import { UsageError } from '../usage-error.js';

interface RemoteAgent {
  name: string;
  url: string;
  description: string;
  auth: { credentialService: string; credentialAccount?: string } | null;
  card: {
    name: string;
    description: string;
    version: string;
    skills: Array<{ id: string; name: string }>;
    protocolVersion: string;
    transport: string;
  };
  version: number;
  updatedAt: string | null;
}

type Result = { json: unknown; text: string };

/** The options `platformctl remote-agents …` reads. */
export interface RemoteAgentOptions {
  url?: string | undefined;
  description?: string | undefined;
  /** `service` or `service/account`: the stored credential whose token calls carry; `none` clears it. */
  credential?: string | undefined;
}

export const REMOTE_AGENT_USAGE = `  remote-agents [list]               the tenant's remote A2A agents: card name, skills, interface
  remote-agents show <name>          one remote agent and what its card says
  remote-agents add <name> --url <card url> [--description d] [--credential service[/account]]
                                     register one (its card fetched now; the token is the credential's)
  remote-agents update <name> [--url <card url>] [--description d] [--credential service[/account]|none]
                                     change it (its card fetched again)
  remote-agents delete <name>`;

const path = (name: string) => `v1/remote-agents/${encodeURIComponent(name)}`;

const authText = (auth: RemoteAgent['auth']): string =>
  auth ? `${auth.credentialService}/${auth.credentialAccount ?? 'primary'}` : 'none';

function shown(agent: RemoteAgent): Result {
  return {
    json: { remoteAgent: agent },
    text: fields([
      ['name', agent.name],
      ['url', agent.url],
      ['description', agent.description],
      ['credential', authText(agent.auth)],
      ['card', `${agent.card.name} ${agent.card.version}`.trim()],
      ['skills', agent.card.skills.map((s) => s.name || s.id).join(', ') || 'none'],
      ['interface', `${agent.card.transport} ${agent.card.protocolVersion}`],
      ['version', agent.version],
      ['updated', agent.updatedAt],
    ]),
  };
}

function authOf(credential: string): RemoteAgent['auth'] {
  if (credential === 'none') return null;
  const [service, account, extra] = credential.split('/');
  if (!service || extra !== undefined) throw new UsageError('--credential is service or service/account');
  return { credentialService: service, ...(account ? { credentialAccount: account } : {}) };
}

/** Runs `platformctl remote-agents <action> …` (positionals after `remote-agents`). */
export async function runRemoteAgentCommand(
  api: ApiClient,
  args: readonly string[],
  options: RemoteAgentOptions,
): Promise<Result> {
  const [action = 'list', name] = args;
  const named = (): string => {
    if (!name) throw new UsageError('missing <name>');
    return name;
  };
  switch (action) {
    case 'list': {
      const body = await api.get<{ remoteAgents: RemoteAgent[] }>('v1/remote-agents');
      return {
        json: body,
        text: table(
          ['NAME', 'CARD', 'SKILLS', 'INTERFACE', 'CREDENTIAL', 'URL'],
          body.remoteAgents.map((a) => [
            a.name,
            a.card.name,
            a.card.skills.map((s) => s.id).join(','),
            `${a.card.transport} ${a.card.protocolVersion}`,
            authText(a.auth),
            a.url,
          ]),
        ),
      };
    }
    case 'show':
      return shown((await api.get<{ remoteAgent: RemoteAgent }>(path(named()))).remoteAgent);
    case 'add': {
      if (!options.url) throw new UsageError('missing --url');
      const body = {
        name: named(),
        url: options.url,
        description: options.description ?? '',
        auth: options.credential ? authOf(options.credential) : null,
      };
      return shown((await api.send<{ remoteAgent: RemoteAgent }>('POST', 'v1/remote-agents', body)).remoteAgent);
    }
    case 'update': {
      // The api replaces a remote agent whole (PUT): what is not changed is sent as it is now, at the version read.
      const { remoteAgent } = await api.get<{ remoteAgent: RemoteAgent }>(path(named()));
      const body = {
        url: options.url ?? remoteAgent.url,
        description: options.description ?? remoteAgent.description,
        auth: options.credential ? authOf(options.credential) : remoteAgent.auth,
        expectedVersion: remoteAgent.version,
      };
      return shown((await api.send<{ remoteAgent: RemoteAgent }>('PUT', path(named()), body)).remoteAgent);
    }
    case 'delete':
      await api.send('DELETE', path(named()));
      return { json: { deleted: named() }, text: `deleted remote agent ${named()}\n` };
    default:
      throw new UsageError(`unknown command: remote-agents ${action}`);
  }
}
