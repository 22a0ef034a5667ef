// The recall step's report and query: shared by the recall, its prefetch and the run's record.

/** Why the turn got (or did not get) recalled memory. */
export type MemoryRecallStatus =
  | 'injected'
  | 'nothing_relevant'
  | 'disabled'
  | 'timed_out'
  /** Not sent: this process's recalls in flight had reached their adaptive limit (memory is overloaded). */
  | 'shed'
  | 'unavailable'
  | 'failed'
  /** A resumed run: recall ran in an earlier attempt; items are read back from the journaled input. */
  | 'recovered';

/** One injected item and why it was chosen. */
export interface InjectedMemoryItem {
  /** `unknown` only in a recovered report (the journaled prompt keeps the text, not the kind). */
  kind: 'fact' | 'episode' | 'message' | 'unknown';
  /** The fact or episode id, or `<conversation>#<seq>` for a history message. */
  id: string;
  text: string;
  score: number;
  /** The searches that found it, with ranks (`fulltext#1`, `vector#2`, ...). */
  matchedBy: string[];
  why: string;
  tokens: number;
}

/** What the run's record says about the recall step (stored with its result as `memoryRecall`). */
export interface MemoryRecallReport {
  status: MemoryRecallStatus;
  /** `hybrid`, `keyword` or `recent_history`, as the memory service reported. */
  searchMode?: string;
  /** Why vectors were configured but not used for this call. */
  vectorError?: string;
  items: InjectedMemoryItem[];
  /** Estimated tokens of the injected block (0 when nothing was injected). */
  blockTokens: number;
  budgetTokens: number;
  /** Relevant items the memory service left out for the limit or the budget. */
  droppedForBudget: number;
  durationMs: number;
  /** The failure, when status is timed_out, shed, unavailable or failed. */
  error?: string;
}

/** The recall step's outcome: the block for the system prompt (if any) and its report. */
export interface MemoryRecallOutcome {
  block: string | undefined;
  report: MemoryRecallReport;
}

export interface RecallQuery {
  /** The run the recall is for: its report is kept until `MemoryRecall.reportFor` / `MemoryRecall.release`. */
  runId?: string;
  tenantId: string;
  conversationId: string;
  /** The user's message. */
  query: string;
  /** The agent's recall budget (its `memory.budgetTokens`), at most MEMORY_CONTEXT_TOKENS; absent: that. */
  budgetTokens?: number;
}
