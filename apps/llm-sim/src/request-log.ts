import type { FaultKind } from './scenario-schema.js';

/** One received chat-completion request, as `GET /_sim/requests` reports it. */
export interface RequestLogEntry {
  /** Increases by one per request since start (or last reset). */
  seq: number;
  receivedAt: string;
  /** Null when the request failed before a scenario was chosen. */
  scenario: string | null;
  /** Turn of the scenario (0 at the marker message); null when no step was resolved. */
  turnIndex: number | null;
  /** Step within the turn; null when no step was resolved (failure first, or a tool reply). */
  stepIndex: number | null;
  /** The tool answered from a scenario's `toolReplies` (no step used), else null. */
  toolReply: string | null;
  /** The memory request answered from its prompt (`memory_extraction`, `memory_answer`, `session_summary`), else null. */
  structuredReply: string | null;
  /** HTTP status answered; null while the answer is still pending (e.g. during a delay). */
  status: number | null;
  /** Waited before the answer (a step's, the fixed and a drawn latency); null until a step was resolved. */
  delayMs: number | null;
  /** The part of `delayMs` drawn from a latency distribution; null when none applied. */
  drawnDelayMs: number | null;
  /** Spacing of the streamed answer's chunks, ms (null when not streamed or not yet answered). */
  chunkIntervalMs: number | null;
  /** The fault injected into this answer, if any. */
  fault: FaultKind | 'hang' | null;
  /** The request body exactly as parsed from JSON. */
  body: unknown;
}

/** A bounded in-memory log of recent requests; the oldest entries fall off first. */
export class RequestLog {
  private entries: RequestLogEntry[] = [];
  private nextSeq = 1;

  constructor(private readonly capacity: number) {}

  /** Appends an entry and returns it so the caller can fill in the outcome later. */
  record(body: unknown): RequestLogEntry {
    const entry: RequestLogEntry = {
      seq: this.nextSeq++,
      receivedAt: new Date().toISOString(),
      scenario: null,
      turnIndex: null,
      stepIndex: null,
      toolReply: null,
      structuredReply: null,
      status: null,
      delayMs: null,
      drawnDelayMs: null,
      chunkIntervalMs: null,
      fault: null,
      body,
    };
    if (this.capacity === 0) return entry;
    this.entries.push(entry);
    if (this.entries.length > this.capacity) this.entries.splice(0, this.entries.length - this.capacity);
    return entry;
  }

  /** Entries, oldest first. */
  list(): readonly RequestLogEntry[] {
    return this.entries;
  }

  /** Empties the log and restarts numbering. */
  clear(): void {
    this.entries = [];
    this.nextSeq = 1;
  }
}
