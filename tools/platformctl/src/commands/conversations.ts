import type { ApiClient } from '../api-client.js';
import { fields, oneLine, table } from '../format.js';
import { UsageError } from '../usage-error.js';

/** A conversation as the api answers it (docs/conversations.md). */
interface ConversationView {
  conversationId: string;
  title: string | null;
  labels: string[];
  metadata: Record<string, unknown>;
  owner: string | null;
  shared: boolean;
  agentId: string | null;
  agentName: string | null;
  waitingForUser: boolean;
  runCount: number;
  createdAt: string;
  lastActivityAt: string;
  updatedAt: string | null;
  webhookUrl: string | null;
}

interface ConversationPage {
  conversations: ConversationView[];
  nextPageToken: string | null;
}

/** The filters and paging of `conversations list`, as GET /v1/conversations takes them. */
export interface ConversationListOptions {
  agent?: string | undefined;
  user?: string | undefined;
  label?: string | undefined;
  metadata?: string[] | undefined;
  waiting?: boolean | undefined;
  search?: string | undefined;
  pageSize?: number | undefined;
  pageToken?: string | undefined;
  all?: boolean;
}

/** What `conversations update` writes (the fields given). */
export interface ConversationUpdateOptions {
  title?: string | undefined;
  labels?: string[] | undefined;
  metadata?: string[] | undefined;
  shared?: boolean | undefined;
  /** null clears it. */
  webhookUrl?: string | null | undefined;
}

const path = (id: string) => `v1/conversations/${encodeURIComponent(id)}`;

function details(c: ConversationView): string {
  return fields([
    ['conversation', c.conversationId],
    ['title', c.title],
    ['labels', c.labels.join(', ') || undefined],
    ['metadata', Object.keys(c.metadata).length ? JSON.stringify(c.metadata) : undefined],
    ['owner', c.owner],
    ['shared', c.shared ? 'yes' : 'no'],
    ['agent', c.agentName ?? c.agentId],
    ['waiting for the user', c.waitingForUser ? 'yes' : 'no'],
    ['runs', c.runCount],
    ['created', c.createdAt],
    ['last activity', c.lastActivityAt],
    ['updated', c.updatedAt],
    ['webhook', c.webhookUrl],
  ]);
}

/** `conversations list [filters]`: most recent activity first, one page (or every page with `all`). */
export async function listConversations(
  api: ApiClient,
  options: ConversationListOptions,
): Promise<{ json: unknown; text: string }> {
  const { all = false, pageToken, waiting, ...filters } = options;
  const conversations: ConversationView[] = [];
  let next: string | null = pageToken ?? null;
  do {
    const page: ConversationPage = await api.get<ConversationPage>('v1/conversations', {
      ...filters,
      waitingForUser: waiting === undefined ? undefined : String(waiting),
      pageToken: next ?? undefined,
    });
    conversations.push(...page.conversations);
    next = page.nextPageToken;
  } while (all && next);
  let text = table(
    ['CONVERSATION', 'TITLE', 'LABELS', 'OWNER', 'AGENT', 'WAITING', 'RUNS', 'LAST ACTIVITY'],
    conversations.map((c) => [
      c.conversationId,
      c.title === null ? null : oneLine(c.title, 40),
      c.labels.join(','),
      c.owner,
      c.agentName,
      c.waitingForUser ? 'yes' : '',
      c.runCount,
      c.lastActivityAt,
    ]),
  );
  if (next) text += `more: --page-token ${next} (or --all)\n`;
  return { json: { conversations, nextPageToken: next }, text };
}

/** `conversations get <id>`. */
export async function getConversation(api: ApiClient, id: string): Promise<{ json: unknown; text: string }> {
  const conversation = await api.get<ConversationView>(path(id));
  return { json: conversation, text: details(conversation) };
}

/** `--metadata k=v` pairs as the object they set. */
function metadataOf(pairs: string[]): Record<string, string> {
  const metadata: Record<string, string> = {};
  for (const pair of pairs) {
    const at = pair.indexOf('=');
    if (at < 1) throw new UsageError(`--metadata '${pair}' is not key=value`);
    metadata[pair.slice(0, at)] = pair.slice(at + 1);
  }
  return metadata;
}

/** `conversations update <id> [--title t] [--label l ...] [--metadata k=v ...] [--share|--unshare] [--webhook-url u|--no-webhook-url]`. */
export async function updateConversation(
  api: ApiClient,
  id: string,
  options: ConversationUpdateOptions,
): Promise<{ json: unknown; text: string }> {
  const body = {
    ...(options.title !== undefined ? { title: options.title } : {}),
    ...(options.labels !== undefined ? { labels: options.labels } : {}),
    ...(options.metadata !== undefined ? { metadata: metadataOf(options.metadata) } : {}),
    ...(options.shared !== undefined ? { shared: options.shared } : {}),
    ...(options.webhookUrl !== undefined ? { webhookUrl: options.webhookUrl } : {}),
  };
  if (Object.keys(body).length === 0)
    throw new UsageError(
      'conversations update needs --title, --label, --no-labels, --metadata, --share, --unshare, --webhook-url or --no-webhook-url',
    );
  const conversation = await api.send<ConversationView>('PATCH', path(id), body);
  return { json: conversation, text: details(conversation) };
}
