import type { ApiClient } from '../api-client.js';
import { table } from '../format.js';

interface Deletion {
  deletionId: string;
  conversationId: string;
  status: string;
  reason: string;
  step: string;
  counts: Record<string, number>;
  lastError: string | null;
}

const rows = (deletions: Deletion[]): string =>
  table(
    ['DELETION', 'CONVERSATION', 'STATUS', 'REASON', 'STEP', 'LAST ERROR'],
    deletions.map((d) => [d.deletionId, d.conversationId, d.status, d.reason, d.step, d.lastError]),
  );

/** `conversations delete <id>`: starts (or finds) the conversation's deletion job. */
export async function deleteConversation(
  api: ApiClient,
  conversationId: string,
): Promise<{ json: unknown; text: string }> {
  const deletion = await api.send<Deletion>('DELETE', `v1/conversations/${encodeURIComponent(conversationId)}`);
  return { json: deletion, text: rows([deletion]) };
}

/** `conversations deletion <deletionId>`: a deletion job and what it removed so far. */
export async function showDeletion(api: ApiClient, deletionId: string): Promise<{ json: unknown; text: string }> {
  const deletion = await api.get<Deletion>(`v1/conversation-deletions/${encodeURIComponent(deletionId)}`);
  const counts = Object.entries(deletion.counts)
    .map(([k, v]) => `${k}=${v}`)
    .join(' ');
  return { json: deletion, text: `${rows([deletion])}\n${counts ? `removed: ${counts}` : ''}`.trimEnd() };
}

/** `users erase <subject>`: deletes every conversation of an end user and their memory (admins). */
export async function eraseUser(api: ApiClient, subject: string): Promise<{ json: unknown; text: string }> {
  const erased = await api.send<{ deletions: Deletion[]; factsDeleted: number; episodesDeleted: number }>(
    'POST',
    `v1/end-users/${encodeURIComponent(subject)}/erasure`,
  );
  return {
    json: erased,
    text: `${rows(erased.deletions)}\nmemory: ${erased.factsDeleted} facts, ${erased.episodesDeleted} episodes deleted`,
  };
}
