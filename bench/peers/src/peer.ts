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
  /** Starts what the peer runs on besides the shared platform (its own processes), before its warm-up. */
  prepare?(): Promise<void>;
  /** Stops what `prepare` started. */
  stop?(): Promise<void>;
}

/** CPU of this process (user + system), for peers that run in it. */
export function ownCpuMs(): Map<string, number> {
  const usage = process.cpuUsage();
  return new Map([['bench process', (usage.user + usage.system) / 1000]]);
}
