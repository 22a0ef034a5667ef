import { readFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import { AGENT_USAGE, runAgentCommand } from './agent-commands.js';
import { ApiClient, ApiError } from './api-client.js';
import { credentialKeys, listDeadLetters } from './commands/admin.js';
import { listApprovals, showApproval } from './commands/approvals.js';
import { deleteConversation, eraseUser, showDeletion } from './commands/conversation-deletions.js';
import { forkConversation } from './commands/conversation-forks.js';
import { replayRun } from './commands/run-replays.js';
import { listRuns, showRun } from './commands/runs.js';
import { getConversation, listConversations, updateConversation } from './commands/conversations.js';
import { listRunDeliveries, webhookSettings } from './commands/run-webhooks.js';
import { listFires, listTasks, showTask } from './commands/tasks.js';
import { listTools } from './commands/tools.js';
import {
  addModelConnection,
  API_KEY_VARIABLE,
  deleteModelConnection,
  listModelConnections,
  showModelConnection,
  updateModelConnection,
} from './commands/model-connections.js';
import { createKey, listAudit, listKeys, revokeKey } from './commands/keys.js';
import { REMOTE_AGENT_USAGE, runRemoteAgentCommand } from './commands/remote-agents.js';
import { UsageError } from './usage-error.js';

const USAGE = `platformctl: the agent platform's command line, through the HTTP API (operators' views read-only;
agents, model connections, remote agents, keys and the audit as the token's tenant)

usage: platformctl [options] <command>

commands:
  runs show <runId>                  status, stop reason, trace id and transcript of a run
  runs list [filters] [paging]       runs, newest first: status, stop reason, source, protocol, trace id
      filters: --conversation <id>  --status <s[,s]>  --stop-reason <r>  --tool <name>
               --source user|trigger|child|notice  --since <time>  --until <time>  --parent <runId>
               --protocol rest|chat_completions|responses|mcp|a2a|ag_ui
               (statuses: queued, running, completed, waiting, failed, cancelled; times ISO 8601,
               --since inclusive, --until exclusive)
      paging:  --limit n (page size 1-200, default 50)  --page-token <t> (the next page)  --all
  conversations list [filters] [paging]
                                     conversations, most recent activity first (a member's own)
      filters: --agent <id|name>  --user <sub>  --label <l>  --metadata k=v (repeat)  --waiting
               --not-waiting  --search <text in titles>;  paging as for runs list
  conversations get <id>             title, labels, metadata, owner, agent, waiting, activity
  conversations update <id> [--title <t>] [--label <l> ... | --no-labels] [--metadata k=v ...]
                       [--share | --unshare] [--webhook-url <https url> | --no-webhook-url]
                                     set what is given (docs/conversations.md has the limits)
  runs replay <runId> --from-step n [--agent-version k] [--model m]
                                     a new run (in a fork of its conversation) replaying the run's
                                     steps before n from its journal, then live (developers)
  runs deliveries <runId>            the webhook deliveries of a run's end: status, attempts, last error
  webhook-settings [--rotate-secret] the tenant's default run webhook URL and signing secret (admins)
  conversations fork <conversationId> [--at-seq n]
                                     a new conversation with the history up to message n
                                     (default: all of it), read from the parent, not copied
  approvals                          pending approvals, soonest to expire first
  approvals show <approvalId>        one approval, waiting or decided, with who decided it
  conversations delete <id>          delete a conversation everywhere (a job; prints its id and status)
  conversations deletion <deletionId>
                                     a deletion's status and what it removed
  users erase <subject>              erase an end user (their token's sub): every conversation, their memory (admins)
  tools                              the live tool catalog: runner, version, live instances
  tasks                              tasks with their next and last fire
  tasks show <taskId>                one task
  tasks fires <taskId> [--limit n]   a task's fires, latest first
  memory dead-letters [--limit n] [--after-seq n]
                                     turns memory could not ingest (all tenants unless --tenant)
  credentials keys                   key-encryption keys, credentials per key, rewrap progress
${AGENT_USAGE}
  model-connections [list]           the token's tenant's model connections (never a key)
  model-connections show <name>      one connection
  model-connections add <name> --base-url <url> [--models a,b]
                                     register one; the API key is read from $${API_KEY_VARIABLE}
  model-connections update <name> [--base-url <url>] [--models a,b]
  model-connections rotate <name>    a new key, read from $${API_KEY_VARIABLE}
  model-connections delete <name>
${REMOTE_AGENT_USAGE}
  keys create --name <n> --role <r> [--expires <time>]
                                     a tenant admin's new API key (viewer|member|developer|admin);
                                     its secret is printed once
  keys list                          the tenant's API keys (never a secret)
  keys revoke <keyId>                revoke a key (refused on every api replica within a second)
  audit [--limit n]                  the tenant's administrative actions, newest first (admins)

options:
  --api <url>        the api's base URL (env PLATFORM_API_URL; default http://127.0.0.1:8080)
  --token <jwt>      a token (env PLATFORM_TOKEN): an operator's JWT ("roles": ["platform-operator"]),
                     or a tenant's (agents, model connections; an admin's for keys and audit)
  --key <key>        an API key (plk_…, env PLATFORM_API_KEY) instead of a token (docs/access.md)
  --tenant <id>      read this tenant's data (sent as the Platform-Tenant header)
  --json             print the api's JSON instead of a table
  -h, --help         this text

exit codes: 0 done, 1 the api refused or failed (its error code is printed), 2 bad usage`;

export interface CliIo {
  env: NodeJS.ProcessEnv;
  out: (text: string) => void;
  err: (text: string) => void;
  /** Reads a spec file (`-f`); default: the file system. */
  readFile?: (path: string) => Promise<string>;
}

/** Runs one command line; returns the exit code. */
export async function runCli(argv: readonly string[], io: CliIo): Promise<number> {
  try {
    const { values, positionals } = parseArgs({
      args: [...argv],
      allowPositionals: true,
      options: {
        api: { type: 'string' },
        token: { type: 'string' },
        key: { type: 'string' },
        name: { type: 'string' },
        role: { type: 'string' },
        expires: { type: 'string' },
        tenant: { type: 'string' },
        json: { type: 'boolean', default: false },
        conversation: { type: 'string' },
        status: { type: 'string' },
        'stop-reason': { type: 'string' },
        tool: { type: 'string' },
        source: { type: 'string' },
        protocol: { type: 'string' },
        since: { type: 'string' },
        until: { type: 'string' },
        parent: { type: 'string' },
        'page-token': { type: 'string' },
        all: { type: 'boolean', default: false },
        'rotate-secret': { type: 'boolean', default: false },
        limit: { type: 'string' },
        'after-seq': { type: 'string' },
        'at-seq': { type: 'string' },
        'from-step': { type: 'string' },
        'agent-version': { type: 'string' },
        model: { type: 'string' },
        'base-url': { type: 'string' },
        url: { type: 'string' },
        description: { type: 'string' },
        credential: { type: 'string' },
        models: { type: 'string' },
        file: { type: 'string', short: 'f' },
        draft: { type: 'boolean', default: false },
        'if-match': { type: 'string' },
        version: { type: 'string' },
        search: { type: 'string' },
        label: { type: 'string', multiple: true },
        'include-deleted': { type: 'boolean', default: false },
        agent: { type: 'string' },
        user: { type: 'string' },
        metadata: { type: 'string', multiple: true },
        waiting: { type: 'boolean' },
        'not-waiting': { type: 'boolean' },
        title: { type: 'string' },
        'no-labels': { type: 'boolean', default: false },
        share: { type: 'boolean' },
        unshare: { type: 'boolean' },
        'webhook-url': { type: 'string' },
        'no-webhook-url': { type: 'boolean', default: false },
        help: { type: 'boolean', short: 'h', default: false },
      },
    });
    if (values.help || positionals.length === 0) {
      io.out(`${USAGE}\n`);
      return values.help ? 0 : 2;
    }
    const key = values.key ?? io.env['PLATFORM_API_KEY'];
    if (values.key && values.token) throw new UsageError('give --key or --token, not both');
    const token = values.key ?? values.token ?? key ?? io.env['PLATFORM_TOKEN'];
    if (!token)
      throw new UsageError(
        'no token: pass --token or set PLATFORM_TOKEN (a JWT), or --key or set PLATFORM_API_KEY (an API key)',
      );
    const api = new ApiClient({
      baseUrl: values.api ?? io.env['PLATFORM_API_URL'] ?? 'http://127.0.0.1:8080',
      token,
      tenant: values.tenant,
    });
    const number = (name: string, raw: string | undefined, fallback: number): number => {
      if (raw === undefined) return fallback;
      const n = Number(raw);
      if (!Number.isInteger(n) || n < 0) throw new UsageError(`--${name} must be a whole number`);
      return n;
    };
    const [group, action, arg] = positionals;
    const need = (what: string): string => {
      if (!arg) throw new UsageError(`missing ${what}`);
      return arg;
    };
    const apiKey = (): string => {
      const key = io.env[API_KEY_VARIABLE];
      if (!key) throw new UsageError(`set ${API_KEY_VARIABLE} to the API key (a key never goes on the command line)`);
      return key;
    };
    const modelList = (raw: string | undefined): string[] | undefined =>
      raw === undefined
        ? undefined
        : raw
            .split(',')
            .map((m) => m.trim())
            .filter(Boolean);
    let result: { json: unknown; text: string };
    if (group === 'agents') {
      result = await runAgentCommand(
        api,
        positionals.slice(1),
        {
          file: values.file,
          draft: values.draft,
          ifMatch: values['if-match'],
          version: values.version,
          search: values.search,
          labels: values.label ?? [],
          includeDeleted: values['include-deleted'],
          limit: number('limit', values.limit, 50),
        },
        io.readFile ?? ((path) => readFile(path, 'utf8')),
      );
    } else if (group === 'remote-agents') {
      result = await runRemoteAgentCommand(api, positionals.slice(1), {
        url: values.url,
        description: values.description,
        credential: values.credential,
      });
    } else
      switch (`${group} ${action ?? ''}`.trim()) {
        case 'runs show':
          result = await showRun(api, need('<runId>'));
          break;
        case 'runs deliveries':
          result = await listRunDeliveries(api, need('<runId>'));
          break;
        case 'webhook-settings':
          result = await webhookSettings(api, values['rotate-secret']);
          break;
        case 'runs list':
          if (values.all && values['page-token']) throw new UsageError('give --all or --page-token, not both');
          result = await listRuns(api, {
            conversationId: values.conversation,
            status: values.status,
            stopReason: values['stop-reason'],
            tool: values.tool,
            source: values.source,
            protocol: values.protocol,
            createdAfter: values.since,
            createdBefore: values.until,
            parentRunId: values.parent,
            pageSize: values.limit === undefined ? undefined : number('limit', values.limit, 50),
            pageToken: values['page-token'],
            all: values.all,
          });
          break;
        case 'conversations':
        case 'conversations list':
          if (values.all && values['page-token']) throw new UsageError('give --all or --page-token, not both');
          if (values.waiting && values['not-waiting'])
            throw new UsageError('give --waiting or --not-waiting, not both');
          result = await listConversations(api, {
            agent: values.agent,
            user: values.user,
            label: values.label?.[0],
            metadata: values.metadata,
            waiting: values.waiting ? true : values['not-waiting'] ? false : undefined,
            search: values.search,
            pageSize: values.limit === undefined ? undefined : number('limit', values.limit, 50),
            pageToken: values['page-token'],
            all: values.all,
          });
          break;
        case 'conversations get':
          result = await getConversation(api, need('<conversationId>'));
          break;
        case 'conversations update':
          if (values.share && values.unshare) throw new UsageError('give --share or --unshare, not both');
          if (values['no-labels'] && values.label) throw new UsageError('give --label or --no-labels, not both');
          if (values['no-webhook-url'] && values['webhook-url'] !== undefined)
            throw new UsageError('give --webhook-url or --no-webhook-url, not both');
          result = await updateConversation(api, need('<conversationId>'), {
            title: values.title,
            labels: values['no-labels'] ? [] : values.label,
            metadata: values.metadata,
            shared: values.share ? true : values.unshare ? false : undefined,
            webhookUrl: values['no-webhook-url'] ? null : values['webhook-url'],
          });
          break;
        case 'approvals':
          result = await listApprovals(api);
          break;
        case 'approvals show':
          result = await showApproval(api, need('<approvalId>'));
          break;
        case 'conversations delete':
          result = await deleteConversation(api, need('<conversationId>'));
          break;
        case 'conversations deletion':
          result = await showDeletion(api, need('<deletionId>'));
          break;
        case 'users erase':
          result = await eraseUser(api, need('<subject>'));
          break;
        case 'tools':
          result = await listTools(api);
          break;
        case 'tasks':
        case 'tasks list':
          result = await listTasks(api);
          break;
        case 'tasks show':
          result = await showTask(api, need('<taskId>'));
          break;
        case 'tasks fires':
          result = await listFires(api, need('<taskId>'), number('limit', values.limit, 20));
          break;
        case 'memory dead-letters':
          result = await listDeadLetters(api, {
            tenant: values.tenant,
            limit: number('limit', values.limit, 50),
            afterSeq: number('after-seq', values['after-seq'], 0),
          });
          break;
        case 'credentials keys':
          result = await credentialKeys(api);
          break;
        case 'model-connections':
        case 'model-connections list':
          result = await listModelConnections(api);
          break;
        case 'model-connections show':
          result = await showModelConnection(api, need('<name>'));
          break;
        case 'model-connections add':
          if (!values['base-url']) throw new UsageError('missing --base-url');
          result = await addModelConnection(api, {
            name: need('<name>'),
            baseUrl: values['base-url'],
            apiKey: apiKey(),
            models: modelList(values.models) ?? [],
          });
          break;
        case 'model-connections update': {
          const models = modelList(values.models);
          result = await updateModelConnection(api, need('<name>'), {
            ...(values['base-url'] ? { baseUrl: values['base-url'] } : {}),
            ...(models ? { models } : {}),
          });
          break;
        }
        case 'model-connections rotate':
          result = await updateModelConnection(api, need('<name>'), { apiKey: apiKey() });
          break;
        case 'runs replay':
          if (values['from-step'] === undefined) throw new UsageError('runs replay needs --from-step');
          result = await replayRun(api, need('<runId>'), {
            fromStep: number('from-step', values['from-step'], 0),
            agentVersion:
              values['agent-version'] === undefined ? undefined : number('agent-version', values['agent-version'], 0),
            model: values.model,
          });
          break;
        case 'conversations fork':
          result = await forkConversation(
            api,
            need('<conversationId>'),
            values['at-seq'] === undefined ? undefined : number('at-seq', values['at-seq'], 0),
          );
          break;
        case 'model-connections delete':
          result = await deleteModelConnection(api, need('<name>'));
          break;
        case 'keys create':
          if (!values.name || !values.role) throw new UsageError('keys create needs --name and --role');
          result = await createKey(api, { name: values.name, role: values.role, expiresAt: values.expires });
          break;
        case 'keys':
        case 'keys list':
          result = await listKeys(api);
          break;
        case 'keys revoke':
          result = await revokeKey(api, need('<keyId>'));
          break;
        case 'audit':
          result = await listAudit(api, number('limit', values.limit, 50));
          break;
        default:
          throw new UsageError(`unknown command '${positionals.join(' ')}'`);
      }
    io.out(values.json ? `${JSON.stringify(result.json, null, 2)}\n` : result.text);
    return 0;
  } catch (err) {
    if (err instanceof ApiError) {
      io.err(`platformctl: ${err.code}${err.status ? ` (HTTP ${err.status})` : ''}: ${err.message}\n`);
      return 1;
    }
    if (err instanceof UsageError || (err as { code?: string }).code?.startsWith('ERR_PARSE_ARGS')) {
      io.err(`platformctl: ${(err as Error).message}\nrun 'platformctl --help' for the commands\n`);
      return 2;
    }
    throw err;
  }
}
