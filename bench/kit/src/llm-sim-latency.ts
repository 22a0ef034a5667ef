/** Sets llm-sim's answer delay (`PUT /_sim/latency`) and reads it back, so a bench measures what it says. */
export async function setModelLatency(llmSimUrl: string, delayMs: number): Promise<void> {
  const response = await fetch(`${llmSimUrl}/_sim/latency`, {
    method: 'PUT',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ delayMs }),
  });
  if (!response.ok) throw new Error(`llm-sim refused latency ${delayMs} ms: HTTP ${response.status}`);
  const current = (await (await fetch(`${llmSimUrl}/_sim/latency`)).json()) as { delayMs?: number };
  if (current.delayMs !== delayMs)
    throw new Error(`llm-sim's latency is ${String(current.delayMs)} ms, not ${delayMs}`);
}
