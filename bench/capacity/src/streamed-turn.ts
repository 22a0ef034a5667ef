// One turn as a streaming client sends it: POST a message with `Accept: text/event-stream`, read the
// run's events to the last (`execution_end`), and check that the turn answered with the tool's
// result. The turn's message carries its `[turn:<tag>]`, so llm-sim files the model time under it.

/** The prompt of the capacity scenario (llm-sim `capacity-calculator`: a calculator call, then a ~60-word answer). */
const CAPACITY_PROMPT = '[scenario:capacity-calculator] What is 12 * (3 + 4)?';

export interface StreamedTurnTarget {
  apiUrl: string;
  token: string;
}

/** Sends the turn tagged `tag` in a conversation of its own; resolves when its last event arrived, throws unless it answered. */
export async function streamedTurn(target: StreamedTurnTarget, tag: string, signal?: AbortSignal): Promise<void> {
  const response = await fetch(`${target.apiUrl}/v1/conversations/${tag}/messages`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${target.token}`,
      'content-type': 'application/json',
      accept: 'text/event-stream',
    },
    body: JSON.stringify({ content: `${CAPACITY_PROMPT} [turn:${tag}]` }),
    ...(signal ? { signal } : {}),
  });
  if (!response.ok || !response.body)
    throw new Error(`HTTP ${response.status}: ${(await response.text()).slice(0, 200)}`);
  const text = await response.text();
  const refusal = lastEvent(text, 'error');
  if (refusal) throw new Error(`the stream ended with an error: ${refusal.slice(0, 200)}`);
  const end = lastEvent(text, 'execution_end');
  if (!end) throw new Error(`the stream ended without execution_end: ${text.slice(-200)}`);
  const result = (JSON.parse(end) as { data?: { result?: { response?: string; status?: string } } }).data?.result;
  if (!result?.response?.includes('= 84')) throw new Error(`unexpected answer: ${end.slice(0, 200)}`);
}

/** The data of the last event of `type` in an SSE body. */
function lastEvent(body: string, type: string): string | undefined {
  let found: string | undefined;
  for (const block of body.split('\n\n')) {
    const lines = block.split('\n');
    if (!lines.some((l) => l === `event: ${type}`)) continue;
    found = lines
      .filter((l) => l.startsWith('data:'))
      .map((l) => l.slice(5).trimStart())
      .join('\n');
  }
  return found;
}
