/** The API key the memory benches give llm-sim. */
export const SIM_KEY = 'sk-bench-memory-0123456789';

/** Embeds texts through llm-sim's OpenAI-compatible `/v1/embeddings` (model sim-embed-1), in input order. */
export function embedThroughSim(simUrl: string): (texts: string[]) => Promise<number[][]> {
  return async (texts) => {
    const response = await fetch(`${simUrl}/embeddings`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${SIM_KEY}` },
      body: JSON.stringify({ model: 'sim-embed-1', input: texts }),
    });
    const body = (await response.json()) as { data: { embedding: number[]; index: number }[] };
    return body.data.sort((a, b) => a.index - b.index).map((d) => d.embedding);
  };
}
