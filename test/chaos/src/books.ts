// The books of a chaos case: what every client was told, held against what the platform kept.
import type { ChaosPlatform } from './chaos-platform.js';
import type { TurnRecord } from './load.js';

interface StoredMessage {
  seq: number;
  runId: string;
  message: { role: string; content: string | null; toolCalls?: Array<{ id: string }>; toolCallId?: string };
}

async function historyOf(chaos: ChaosPlatform, conversationId: string): Promise<StoredMessage[]> {
  const response = await fetch(`${chaos.platform.apiUrl}/v1/conversations/${conversationId}/messages?limit=1000`, {
    headers: { authorization: `Bearer ${chaos.token}` },
  });
  if (!response.ok) throw new Error(`history of ${conversationId}: HTTP ${response.status} ${await response.text()}`);
  return ((await response.json()) as { messages: StoredMessage[] }).messages;
}

/** Problems found with the answered turns: each must be in its history once, with its answer. */
async function checkAnswered(chaos: ChaosPlatform, records: readonly TurnRecord[]): Promise<string[]> {
  const problems: string[] = [];
  const conversations = [...new Set(records.map((r) => r.conversationId))];
  for (const conversationId of conversations) {
    const history = await historyOf(chaos, conversationId);
    const calls = history.flatMap((m) => m.message.toolCalls?.map((c) => c.id) ?? []);
    const results = history.flatMap((m) => (m.message.toolCallId ? [m.message.toolCallId] : []));
    if ([...calls].sort().join() !== [...results].sort().join())
      problems.push(`${conversationId}: history breaks closure (calls ${calls.length}, results ${results.length})`);
    for (const record of records.filter((r) => r.conversationId === conversationId)) {
      const stored = history.filter((m) => m.message.role === 'user' && m.message.content === record.content);
      if (record.status === 200 && record.body?.status === 'failed') {
        // A turn the platform could not complete (e.g. the model provider stayed down past its
        // retries): the message is kept once, the failure is explained, and no answer is invented.
        if (stored.length !== 1)
          problems.push(`"${record.content}" failed (200, status failed) and is in its history ${stored.length} times`);
        if (!record.body.response) problems.push(`"${record.content}" failed without saying why`);
        if (
          history.some(
            (m) => m.runId === record.body?.runId && m.message.role === 'assistant' && !m.message.toolCalls?.length,
          )
        )
          problems.push(`"${record.content}" failed yet its run stored an answer`);
      } else if (record.status === 200) {
        if (stored.length !== 1)
          problems.push(`"${record.content}" was answered 200 but is in its history ${stored.length} times`);
        const answer = history.filter(
          (m) => m.runId === record.body?.runId && m.message.role === 'assistant' && !m.message.toolCalls?.length,
        );
        if (answer.length !== 1 || answer[0]!.message.content !== record.body?.response) {
          problems.push(
            `"${record.content}" (run ${record.body?.runId}) answered "${record.body?.response}" but history holds ${JSON.stringify(answer.map((m) => m.message.content))}`,
          );
        }
      } else if (stored.length > 1) {
        problems.push(
          `"${record.content}" was refused (${record.status}) yet is in its history ${stored.length} times`,
        );
      }
    }
  }
  return problems;
}

/** Problems with the turns that were not answered 200: each must be a typed 429/503 with retry-after. */
function checkRefused(records: readonly TurnRecord[]): string[] {
  return records
    .filter((r) => r.status !== 200)
    .flatMap((r) => {
      if (r.hung) return [`"${r.content}" hung past the client's deadline`];
      if (r.status !== 429 && r.status !== 503)
        return [`"${r.content}" got ${r.status || r.failure} ${JSON.stringify(r.body ?? null)}`];
      if (!r.body?.error?.code) return [`"${r.content}" got ${r.status} without an error code`];
      if (!r.retryAfter) return [`"${r.content}" got ${r.status} ${r.body.error.code} without retry-after`];
      return [];
    });
}

/** Problems with the side effects: none may have run twice, and each answered call ran once. */
async function checkEffects(chaos: ChaosPlatform, records: readonly TurnRecord[]): Promise<string[]> {
  const problems: string[] = [];
  for (const record of records.filter((r) => r.status === 200)) {
    for (const call of record.body?.toolCalls ?? []) {
      const runs = Number((await chaos.books.get(`effect:${call.callId}`)) ?? 0);
      if (call.status === 'success' && runs !== 1)
        problems.push(`call ${call.callId} of "${record.content}" succeeded but ran ${runs} times`);
      if (runs > 1) problems.push(`call ${call.callId} ran ${runs} times`);
    }
  }
  const keys = await chaos.books.keys('effect:*');
  for (const key of keys) {
    const runs = Number(await chaos.books.get(key));
    if (runs > 1) problems.push(`${key} ran ${runs} times`);
  }
  return [...new Set(problems)];
}

/** Runs of the case still queued or running (none may be left once the platform recovered). */
async function unfinishedRuns(
  chaos: ChaosPlatform,
  label: string,
): Promise<Array<{ run_id: string; status: string; lease_until: Date | null }>> {
  const { rows } = await chaos.database.query<{ run_id: string; status: string; lease_until: Date | null }>(
    "SELECT run_id, status, lease_until FROM orchestrator.runs WHERE conversation_id LIKE $1 AND status IN ('queued', 'running')",
    [`${label}-%`],
  );
  return rows;
}

/** Every problem the books show for a case (empty when nothing was lost, doubled or left hanging). */
export async function checkBooks(
  chaos: ChaosPlatform,
  label: string,
  records: readonly TurnRecord[],
  settleMs = 60_000,
): Promise<string[]> {
  // Runs the fault interrupted are resumed by the recovery sweep: give it time to finish them.
  const until = Date.now() + settleMs;
  let left = await unfinishedRuns(chaos, label);
  while (left.length > 0 && Date.now() < until) {
    await new Promise((r) => setTimeout(r, 250));
    left = await unfinishedRuns(chaos, label);
  }
  return [
    ...checkRefused(records),
    ...(await checkAnswered(chaos, records)),
    ...(await checkEffects(chaos, records)),
    ...left.map((r) => `run ${r.run_id} is still ${r.status} (lease until ${r.lease_until?.toISOString() ?? 'none'})`),
  ];
}
