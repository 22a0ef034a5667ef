/**
 * The shape of the NATS permission model: who connects (a platform service, a tool runner, an
 * outside client) and which subjects it may publish to and subscribe on. Everything not listed is
 * refused by the server (a permissions violation for the client).
 */
export interface Principal {
  /** The NATS user name; also the name of the Kubernetes Secret `<name>-nats` holding its password. */
  readonly name: string;
  readonly kind: 'service' | 'runner' | 'client';
  /** Why this principal exists, written into the generated configuration. */
  readonly description: string;
  /** Subjects it may publish to (NATS wildcards allowed). Empty: none but replies (see allowResponses). */
  readonly publish: readonly string[];
  /** Subjects it may subscribe on. */
  readonly subscribe: readonly string[];
  /**
   * It may answer the requests it receives (publish once to each received message's reply
   * subject) without a publish permission on `_INBOX.>`: how runners answer tool calls and
   * `$SRV` discovery.
   */
  readonly allowResponses: boolean;
}

/** A tool runner as the platform team registers it: its discovery name and the tools it serves. */
export interface RunnerDeclaration {
  /** The runner's service name in `$SRV` discovery (its `RUNNER_NAME`). */
  readonly name: string;
  /** The NATS user it connects as (default: the runner's name). */
  readonly user?: string;
  /** Every tool and agent-tool name it serves; it may answer nothing else. */
  readonly tools: readonly string[];
  readonly description?: string;
}
