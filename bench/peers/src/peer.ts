import type { DutyCounters } from '@platform/bench-kit';

/** Where a peer's model calls go: llm-sim's OpenAI-compatible endpoint. */
export interface ModelEndpoint {
  /** `…/v1` */
  baseURL: string;
  apiKey: string;
}

/** One way of running the calculator turn. */
export interface Peer {
  /** Short key, for PEERS=... and the tables. */
  readonly key: string;
  readonly name: string;
  /** Runs one turn; throws (TurnCheckError or the framework's error) unless it really ran. */
  turn(): Promise<void>;
  /** Cumulative CPU milliseconds of the processes doing the peer's work, by process. */
  cpuMs(): Promise<Map<string, number>>;
  /** Waits for work the peer deferred past its last answer (the platform's memory ingestion). */
  settle?(): Promise<void>;
  /** The platform only: the counters of duties its turns skip under load (recall shed, turns not sent to memory). */
  duties?(): Promise<DutyCounters>;
  /** Starts what the peer runs on besides the shared platform (its own processes), before its warm-up. */
  prepare?(): Promise<void>;
  /** Stops what `prepare` started. */
  stop?(): Promise<void>;
  /**
   * Durable peers only: reads back from the peer's storage what its turns left there and checks
   * that every turn that ran is stored, complete (README, "The durable peers").
   */
  persisted?(): Promise<PersistenceCheck>;
}

/** What a durable peer's storage holds for the turns it answered, read back after the run. */
export interface PersistenceCheck {
  /** Turns the peer answered (and `verifyTurn` passed) since it was prepared. */
  turns: number;
  /** Turns whose whole state (every step) was found in storage. */
  stored: number;
  /** Where and what, e.g. `PostgreSQL: 120 threads, 480 checkpoints (4.0 per turn)`. */
  detail: string;
}

/** A durable peer passes when every turn it answered was found complete in its storage. */
export function persistedAll(check: PersistenceCheck): boolean {
  return check.turns > 0 && check.stored >= check.turns;
}

/** CPU of this process (user + system), for peers that run in it. */
export function ownCpuMs(): Map<string, number> {
  const usage = process.cpuUsage();
  return new Map([['bench process', (usage.user + usage.system) / 1000]]);
}
