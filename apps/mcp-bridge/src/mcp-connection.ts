import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { CallToolResult, CompatibilityCallToolResult, Tool } from '@modelcontextprotocol/sdk/types.js';
import type { Logger } from '@platform/service-kit';
import { createMcpTransport, type McpTransportHandle } from './mcp-transport.js';
import type { McpServerConfig } from './server-config.js';
import { NamedError } from '@platform/contracts';

/** Reported to MCP servers in `initialize`. */
const BRIDGE_CLIENT_INFO = { name: 'platform-mcp-bridge', version: '1.0.0' } as const;
/** A server paginating forever (or looping on one cursor) must not hang the bridge. */
const MAX_TOOL_PAGES = 100;

export type ConnectionState = 'connecting' | 'up' | 'down' | 'closed';

/** Told about a server's availability; calls are made in order, and the listener should serialize its work. */
interface ConnectionListener {
  /** Connected (or its tool list changed): these are all its tools now. */
  up(tools: Tool[], serverVersion: string | undefined): void;
  /** Gone: its calls fail until `up` again. */
  down(reason: string): void;
}

export interface ConnectionOptions {
  logger: Logger;
  listener: ConnectionListener;
  connectTimeoutMs: number;
  reconnectMinMs: number;
  reconnectMaxMs: number;
  /** 0 disables liveness pings. */
  pingIntervalMs: number;
}

/** A call to a server that is not connected right now. */
export class ServerNotRunningError extends NamedError {
  constructor(server: string, reconnecting: boolean) {
    super(`MCP server '${server}' is not running${reconnecting ? '; the bridge is reconnecting to it' : ''}`);
  }
}

/** Every tool of a server, following `nextCursor` pages. */
async function listAllTools(client: Client, timeoutMs: number): Promise<Tool[]> {
  const tools: Tool[] = [];
  let cursor: string | undefined;
  for (let page = 0; page < MAX_TOOL_PAGES; page++) {
    const result = await client.listTools(cursor === undefined ? undefined : { cursor }, { timeout: timeoutMs });
    tools.push(...result.tools);
    if (!result.nextCursor || result.nextCursor === cursor) return tools;
    cursor = result.nextCursor;
  }
  throw new Error(`tools/list did not end after ${MAX_TOOL_PAGES} pages`);
}

/**
 * One MCP server's client over its whole life: connects, reports its tools, notices when it goes
 * away (the stdio child exits, the connection closes, or a liveness ping fails), and reconnects
 * with exponential backoff (with jitter) until `close()`.
 */
export class McpConnection {
  private client: Client | undefined;
  private handle: McpTransportHandle | undefined;
  private current: ConnectionState = 'down';
  private failures = 0;
  private reconnectTimer: NodeJS.Timeout | undefined;
  private pingTimer: NodeJS.Timeout | undefined;
  private readonly logger: Logger;

  constructor(
    readonly server: McpServerConfig,
    private readonly options: ConnectionOptions,
  ) {
    this.logger = options.logger.child({ mcpServer: server.name, transport: server.transport });
  }

  get state(): ConnectionState {
    return this.current;
  }

  /** The stdio child's pid while connected. */
  get pid(): number | undefined {
    return this.current === 'up' ? this.handle?.pid : undefined;
  }

  /** First connection attempt. A failure is logged and retried in the background; it resolves either way. */
  start(): Promise<boolean> {
    return this.connect();
  }

  /** Calls a tool; throws ServerNotRunningError while disconnected, McpError for protocol errors. */
  callTool(
    name: string,
    args: Record<string, unknown>,
    options: { timeoutMs: number; signal: AbortSignal },
  ): Promise<CallToolResult | CompatibilityCallToolResult> {
    const client = this.client;
    if (!client || this.current !== 'up')
      return Promise.reject(new ServerNotRunningError(this.server.name, this.current !== 'closed'));
    return client.callTool({ name, arguments: args }, undefined, {
      timeout: options.timeoutMs,
      signal: options.signal,
    });
  }

  /** Stops reconnecting and closes the client (the SDK ends a stdio child: stdin closed, then SIGTERM, then SIGKILL). */
  async close(): Promise<void> {
    this.current = 'closed';
    clearTimeout(this.reconnectTimer);
    clearInterval(this.pingTimer);
    const client = this.client;
    this.client = undefined;
    await client?.close().catch((err: unknown) => this.logger.warn({ err }, 'closing the MCP client failed'));
  }

  private async connect(): Promise<boolean> {
    if (this.current === 'closed') return false;
    this.current = 'connecting';
    const handle = createMcpTransport(this.server, this.logger);
    const client = new Client(BRIDGE_CLIENT_INFO, {
      // Servers announce tool changes; relist (all pages) and republish.
      listChanged: { tools: { autoRefresh: false, debounceMs: 200, onChanged: () => void this.relist(client) } },
    });
    this.client = client;
    this.handle = handle;
    client.onclose = () => this.onClosed(client);
    client.onerror = (err) => this.logger.debug({ err: err.message }, 'MCP transport error');
    try {
      await client.connect(handle.transport, { timeout: this.options.connectTimeoutMs });
      const tools = await listAllTools(client, this.options.connectTimeoutMs);
      if (this.client !== client) return false; // closed meanwhile
      this.failures = 0;
      this.current = 'up';
      const version = client.getServerVersion();
      this.logger.info({ pid: handle.pid, serverInfo: version, tools: tools.length }, 'connected to MCP server');
      this.startPings(client);
      this.options.listener.up(tools, version?.version);
      return true;
    } catch (err) {
      if (this.client !== client) return false;
      this.client = undefined;
      this.current = 'down';
      await client.close().catch(() => undefined);
      this.logger.warn({ err: (err as Error).message, stderr: handle.stderrTail() }, 'could not connect to MCP server');
      this.scheduleReconnect();
      return false;
    }
  }

  private onClosed(client: Client): void {
    // Closes during a connection attempt are handled by connect(); stale clients are ignored.
    if (client !== this.client || this.current !== 'up') return;
    this.client = undefined;
    this.current = 'down';
    clearInterval(this.pingTimer);
    const reason = this.server.transport === 'stdio' ? 'the server process exited' : 'the connection closed';
    this.logger.warn(
      { stderr: this.handle?.stderrTail() },
      `MCP server '${this.server.name}' is down (${reason}); its tools are unavailable until it reconnects`,
    );
    this.options.listener.down(reason);
    this.scheduleReconnect();
  }

  private scheduleReconnect(): void {
    if (this.current === 'closed') return;
    const { reconnectMinMs, reconnectMaxMs } = this.options;
    const base = Math.min(reconnectMaxMs, reconnectMinMs * 2 ** Math.min(this.failures, 30));
    // Jitter spreads the reconnects of many replicas after a shared outage.
    const delayMs = Math.round(Math.min(reconnectMaxMs, base * (0.8 + Math.random() * 0.4)));
    this.failures++;
    this.logger.info({ delayMs, attempt: this.failures }, 'reconnecting to MCP server after a pause');
    this.reconnectTimer = setTimeout(() => void this.connect(), delayMs);
    this.reconnectTimer.unref();
  }

  private startPings(client: Client): void {
    clearInterval(this.pingTimer);
    if (this.options.pingIntervalMs <= 0) return;
    // An HTTP server that went away, or a hung child, never "closes": a failed ping detects both.
    this.pingTimer = setInterval(() => {
      client.ping({ timeout: Math.max(1_000, this.options.pingIntervalMs) }).catch((err: unknown) => {
        if (client !== this.client) return;
        this.logger.warn({ err: (err as Error).message }, 'MCP server did not answer a ping; reconnecting');
        this.onClosed(client);
        void client.close().catch(() => undefined);
      });
    }, this.options.pingIntervalMs);
    this.pingTimer.unref();
  }

  private async relist(client: Client): Promise<void> {
    if (client !== this.client || this.current !== 'up') return;
    try {
      const tools = await listAllTools(client, this.options.connectTimeoutMs);
      if (client !== this.client || this.current !== 'up') return;
      this.logger.info({ tools: tools.length }, 'MCP server changed its tools; republishing');
      this.options.listener.up(tools, client.getServerVersion()?.version);
    } catch (err) {
      this.logger.warn({ err: (err as Error).message }, 'could not relist tools after a change notification');
    }
  }
}
