/** One kind's totals as llm-sim's `GET /_sim/stats` reports them (apps/llm-sim/README.md). */
export interface LlmSimRequestCount {
  requests: number;
  bytes: number;
  inputs: number;
}

/** Requests llm-sim answered since start, by kind (`chat`, `memory_extraction`, `embeddings`, ...). */
export type LlmSimStats = Record<string, LlmSimRequestCount>;

/** Reads llm-sim's running request totals (take the difference of two readings for a phase). */
export async function readLlmSimStats(llmSimUrl: string): Promise<LlmSimStats> {
  const response = await fetch(`${llmSimUrl}/_sim/stats`);
  if (!response.ok) throw new Error(`llm-sim /_sim/stats answered ${response.status}`);
  return ((await response.json()) as { requests: LlmSimStats }).requests;
}
