import type { Tool } from '@modelcontextprotocol/sdk/types.js';
import type { Logger, NatsConnection } from '@platform/service-kit';
import { serveRunner, type ToolRunner } from '@platform/tool-sdk';
import { bridgedTool } from './bridged-tool.js';
import { McpConnection, type ConnectionState } from './mcp-connection.js';
import type { McpServerConfig } from './server-config.js';
import { planTools, unmatchedIncludes } from './tool-naming.js';

export interface BridgeOptions {
  nc: NatsConnection;
  logger: Logger;
  servers: McpServerConfig[];
  /** Service name in discovery; every server's service carries it. */
  runnerName: string;
  maxConcurrency?: number;
  maxResultBytes?: number;
  connectTimeoutMs: number;
  reconnectMinMs: number;
  reconnectMaxMs: number;
  pingIntervalMs: number;
}

/** One server's state, as reported in the ready line and by `status()`. */
export interface ServerStatus {
  name: string;
  transport: McpServerConfig['transport'];
  state: ConnectionState;
  /** Platform names of the tools served now. */
  tools: string[];
}

/** How long a server's runner lets in-flight calls finish when the server goes down (they fail anyway). */
const DOWN_GRACE_MS = 1_000;

interface Slot {
  connection: McpConnection;
  runner: ToolRunner | undefined;
  tools: string[];
  /** Platform names this server holds; kept while it is down so it gets them back. */
  claims: Set<string>;
  /** Serializes this server's up/down work, so a fast crash after a (re)connect cannot reorder them. */
  queue: Promise<void>;
}

/**
 * Serves the tools of several MCP servers on NATS. Each server gets its own tool runner (a NATS
 * micro service named `runnerName`): when a server goes down its runner stops, so its tools leave
 * discovery and callers are told at once that no runner serves them (and replicas of the bridge
 * whose server still runs keep answering); when it is back, a new runner publishes its current tools.
 */
export class McpBridge {
  private readonly slots = new Map<string, Slot>();
  /** Runners replaced after a tool-list change, still finishing their in-flight calls. */
  private readonly retiring = new Set<Promise<void>>();
  private stopping = false;

  constructor(private readonly options: BridgeOptions) {
    for (const server of options.servers) {
      const connection = new McpConnection(server, {
        logger: options.logger,
        connectTimeoutMs: options.connectTimeoutMs,
        reconnectMinMs: options.reconnectMinMs,
        reconnectMaxMs: options.reconnectMaxMs,
        pingIntervalMs: options.pingIntervalMs,
        listener: {
          up: (tools, version) => this.enqueue(server.name, () => this.publish(server, tools, version)),
          down: () => this.enqueue(server.name, () => this.withdraw(server.name)),
        },
      });
      this.slots.set(server.name, {
        connection,
        runner: undefined,
        tools: [],
        claims: new Set(),
        queue: Promise.resolve(),
      });
    }
  }

  /** Connects to every server at once and waits for each first attempt and the resulting runners; failed servers keep retrying. */
  async start(): Promise<void> {
    await Promise.all([...this.slots.values()].map((slot) => slot.connection.start()));
    await Promise.all([...this.slots.values()].map((slot) => slot.queue));
  }

  status(): ServerStatus[] {
    return [...this.slots.values()].map(({ connection, tools }) => ({
      name: connection.server.name,
      transport: connection.server.transport,
      state: connection.state,
      tools: [...tools],
    }));
  }

  /** The connection of a server (tests use it to find the stdio child). */
  connection(name: string): McpConnection | undefined {
    return this.slots.get(name)?.connection;
  }

  /** Waits until queued publish/withdraw work is done (tests use it). */
  async settled(): Promise<void> {
    await Promise.all([...this.slots.values()].map((slot) => slot.queue));
  }

  /**
   * Drains every runner (in-flight calls get `graceMs`), then closes the MCP clients, which ends
   * stdio children and fails whatever a retiring runner still has in flight.
   */
  async stop(graceMs: number): Promise<void> {
    this.stopping = true;
    const slots = [...this.slots.values()];
    await Promise.all(slots.map((slot) => slot.queue));
    await Promise.all(slots.map((slot) => (slot.runner ? slot.runner.stop(graceMs) : Promise.resolve())));
    for (const slot of slots) slot.runner = undefined;
    await Promise.all(slots.map((slot) => slot.connection.close()));
    await Promise.all([...this.retiring]);
  }

  private enqueue(name: string, work: () => Promise<void>): void {
    const slot = this.slots.get(name);
    if (!slot) return;
    slot.queue = slot.queue
      .then(work)
      .catch((err: unknown) =>
        this.options.logger.error({ err, mcpServer: name }, 'could not update the tools of an MCP server'),
      );
  }

  private claimedByOthers(server: string): Map<string, string> {
    const claimed = new Map<string, string>();
    for (const [name, slot] of this.slots) if (name !== server) for (const tool of slot.claims) claimed.set(tool, name);
    return claimed;
  }

  private async publish(server: McpServerConfig, mcpTools: Tool[], serverVersion: string | undefined): Promise<void> {
    const slot = this.slots.get(server.name);
    if (!slot || this.stopping) return;
    const logger = this.options.logger.child({ mcpServer: server.name });
    const plan = planTools(server, mcpTools, this.claimedByOthers(server.name));
    for (const skipped of plan.skipped)
      logger.warn({ mcpTool: skipped.mcpName }, `not serving MCP tool '${skipped.mcpName}': ${skipped.reason}`);
    const missing = unmatchedIncludes(server, mcpTools);
    if (missing.length) logger.warn({ include: missing }, 'include lists tools the MCP server does not offer');

    const tools = plan.tools.map((planned) => bridgedTool(server, planned, slot.connection, serverVersion, logger));
    if (tools.length === 0) logger.warn('MCP server offers no tool to serve (after include/exclude)');
    // The new runner starts before the previous one (a tool-list change) stops, so no call finds
    // nobody listening; the previous one lets its in-flight calls finish.
    const previous = slot.runner;
    const next =
      tools.length === 0
        ? undefined
        : await serveRunner({
            nc: this.options.nc,
            name: this.options.runnerName,
            version: '1.0.0',
            description: `MCP server '${server.name}' bridged by mcp-bridge`,
            tools,
            logger,
            ...(this.options.maxConcurrency ? { maxConcurrency: this.options.maxConcurrency } : {}),
            ...(this.options.maxResultBytes ? { maxResultBytes: this.options.maxResultBytes } : {}),
          });
    slot.runner = next;
    slot.claims = new Set(tools.map((t) => t.name));
    slot.tools = [...slot.claims];
    if (next) logger.info({ tools: slot.tools, skipped: plan.skipped.length }, 'serving MCP tools');
    // Not awaited: a slow in-flight call must not hold up this server's next up/down event.
    if (previous) this.retire(previous, server.timeoutMs);
  }

  private retire(runner: ToolRunner, graceMs: number): void {
    const stopped: Promise<void> = runner
      .stop(graceMs)
      .catch((err: unknown) => this.options.logger.warn({ err }, 'could not stop a replaced runner'))
      .finally(() => this.retiring.delete(stopped));
    this.retiring.add(stopped);
  }

  private async withdraw(name: string): Promise<void> {
    const slot = this.slots.get(name);
    if (!slot?.runner) return;
    const runner = slot.runner;
    slot.runner = undefined;
    slot.tools = [];
    await runner.stop(DOWN_GRACE_MS);
  }
}
