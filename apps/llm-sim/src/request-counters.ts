/** What `GET /_sim/stats` reports for one kind of request. */
export interface RequestCount {
  requests: number;
  /** Request body bytes (Content-Length), summed. */
  bytes: number;
  /** Embeddings only: texts embedded, summed over the requests. */
  inputs: number;
}

/**
 * Kinds of requests counted: `chat` (a scenario's completion), the memory service's structured
 * requests by schema name (`memory_extraction_batch`: one request extracting several turns), and `embeddings`.
 */
export type RequestKind =
  'chat' | 'memory_extraction' | 'memory_extraction_batch' | 'memory_answer' | 'session_summary' | 'embeddings';

/**
 * Running totals of requests by kind since start (or the last `/_sim/reset`): unlike the bounded
 * request log they never drop anything, so a benchmark can read how many model and embeddings
 * calls a phase made, and how large they were, by taking the difference of two readings.
 */
export class RequestCounters {
  private counts = new Map<RequestKind, RequestCount>();

  add(kind: RequestKind, bytes: number, inputs = 0): void {
    const count = this.counts.get(kind) ?? { requests: 0, bytes: 0, inputs: 0 };
    count.requests += 1;
    count.bytes += Number.isFinite(bytes) ? bytes : 0;
    count.inputs += inputs;
    this.counts.set(kind, count);
  }

  snapshot(): Partial<Record<RequestKind, RequestCount>> {
    return Object.fromEntries([...this.counts].map(([kind, count]) => [kind, { ...count }]));
  }

  clear(): void {
    this.counts.clear();
  }
}
