import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { Logger } from '@platform/service-kit';
import type { McpServerConfig } from './server-config.js';

const STDERR_TAIL_LINES = 20;

/** A transport to one MCP server, with what the bridge needs to diagnose a stdio child. */
export interface McpTransportHandle {
  transport: Transport;
  /** The stdio child's pid while it runs. */
  readonly pid: number | undefined;
  /** The child's last stderr lines, for the log line that says it died. */
  stderrTail(): string[];
}

/**
 * Creates the transport of a configured server. A stdio child's stderr is piped rather than
 * inherited: it is logged at debug, and its tail goes into the warning when the child exits, so a
 * crash explains itself without flooding the bridge's own (JSON) output.
 */
export function createMcpTransport(server: McpServerConfig, logger: Logger): McpTransportHandle {
  if (server.transport === 'http') {
    const transport = new StreamableHTTPClientTransport(new URL(server.url), {
      requestInit: { headers: server.headers },
    });
    return { transport, pid: undefined, stderrTail: () => [] };
  }
  const transport = new StdioClientTransport({
    command: server.command,
    args: server.args,
    env: server.env,
    ...(server.cwd ? { cwd: server.cwd } : {}),
    stderr: 'pipe',
  });
  const tail: string[] = [];
  let partial = '';
  transport.stderr?.on('data', (chunk: Buffer) => {
    const lines = (partial + chunk.toString('utf8')).split('\n');
    partial = lines.pop() ?? '';
    for (const line of lines) {
      if (!line.trim()) continue;
      logger.debug({ stderr: line }, 'MCP server stderr');
      tail.push(line);
      if (tail.length > STDERR_TAIL_LINES) tail.shift();
    }
  });
  return {
    transport,
    get pid() {
      return transport.pid ?? undefined;
    },
    stderrTail: () => (partial.trim() ? [...tail, partial] : [...tail]),
  };
}
