import type { ApiClient } from './api-client.js';
import {
  createAgent,
  deleteAgent,
  diffVersions,
  getAgent,
  listAgents,
  listVersions,
  pinConversation,
  publishVersion,
  rollbackAgent,
  showPin,
  showVersion,
  unpinConversation,
  updateAgent,
} from './commands/agents.js';
import { UsageError } from './usage-error.js';

/** The options `platformctl agents …` reads. */
export interface AgentOptions {
  file?: string | undefined;
  draft: boolean;
  ifMatch?: string | undefined;
  version?: string | undefined;
  search?: string | undefined;
  labels: readonly string[];
  includeDeleted: boolean;
  /** Page size of `agents versions`. */
  limit: number;
}

export const AGENT_USAGE = `  agents list [--search s] [--label k=v]... [--include-deleted]
                                     the tenant's agents and the built-in ones
  agents get <agent>                 one agent (id or name): versions, ETag, model, labels
  agents create -f spec.json [--draft]
                                     a new agent from an AgentSpec (docs/agents.md); --draft keeps v1 unpublished
  agents update <agent> -f spec.json [--if-match etag] [--draft]
                                     a new version (reads the ETag first unless --if-match)
  agents delete <agent> [--if-match etag]
  agents versions <agent> [--limit n]
  agents version <agent> <n>         one version's spec
  agents diff <agent> <a> <b>        what version b changed from version a
  agents publish <agent> <n> [--if-match etag]
  agents rollback <agent> [--if-match etag]
  agents pin <agent> <conversation> [--version n]
                                     the conversation runs under that agent (that version; else its active one)
  agents pinned <conversation>       the conversation's pin
  agents unpin <conversation>`;

function versionNumber(raw: string | undefined, what: string): number {
  if (raw === undefined) throw new UsageError(`missing ${what}`);
  const n = Number(raw.replace(/^v/, ''));
  if (!Number.isInteger(n) || n < 1) throw new UsageError(`${what} must be a version number (1, 2, …)`);
  return n;
}

/** Runs `platformctl agents <action> …` (positionals after `agents`). */
export async function runAgentCommand(
  api: ApiClient,
  args: readonly string[],
  options: AgentOptions,
  readFile: (path: string) => Promise<string>,
): Promise<{ json: unknown; text: string }> {
  const [action, first, second, third] = args;
  const need = (value: string | undefined, what: string): string => {
    if (!value) throw new UsageError(`missing ${what}`);
    return value;
  };
  const spec = async (): Promise<unknown> => {
    const file = need(options.file, '-f <spec.json>');
    const text = await readFile(file).catch((err: Error) => {
      throw new UsageError(`cannot read ${file}: ${err.message}`);
    });
    try {
      return JSON.parse(text) as unknown;
    } catch (err) {
      throw new UsageError(`${file} is not JSON: ${(err as Error).message}`);
    }
  };
  switch (action ?? 'list') {
    case 'list':
      return listAgents(api, {
        search: options.search,
        labels: options.labels,
        includeDeleted: options.includeDeleted,
      });
    case 'get':
      return getAgent(api, need(first, '<agent>'));
    case 'create':
      return createAgent(api, await spec(), options.draft);
    case 'update':
      return updateAgent(api, need(first, '<agent>'), await spec(), { ifMatch: options.ifMatch, draft: options.draft });
    case 'delete':
      return deleteAgent(api, need(first, '<agent>'), options.ifMatch);
    case 'versions':
      return listVersions(api, need(first, '<agent>'), options.limit);
    case 'version':
      return showVersion(api, need(first, '<agent>'), versionNumber(second, '<n>'));
    case 'diff':
      return diffVersions(api, need(first, '<agent>'), versionNumber(second, '<a>'), versionNumber(third, '<b>'));
    case 'publish':
      return publishVersion(api, need(first, '<agent>'), versionNumber(second, '<n>'), options.ifMatch);
    case 'rollback':
      return rollbackAgent(api, need(first, '<agent>'), options.ifMatch);
    case 'pin':
      return pinConversation(
        api,
        need(first, '<agent>'),
        need(second, '<conversation>'),
        options.version === undefined ? undefined : versionNumber(options.version, '--version'),
      );
    case 'pinned':
      return showPin(api, need(first, '<conversation>'));
    case 'unpin':
      return unpinConversation(api, need(first, '<conversation>'));
    default:
      throw new UsageError(`unknown command 'agents ${args.join(' ')}'`);
  }
}
