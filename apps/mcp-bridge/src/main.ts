import { announceReady, connectNats, createLogger, GracefulShutdown } from '@platform/service-kit';
import { McpBridge } from './bridge.js';
import { configuredServers, loadBridgeConfig } from './config.js';

const config = loadBridgeConfig();
const logger = createLogger({ service: 'mcp-bridge', level: config.LOG_LEVEL });
const shutdown = new GracefulShutdown({ logger, timeoutMs: config.SHUTDOWN_GRACE_MS + 5_000 }).listen();

const nc = await connectNats({ config, name: `mcp-bridge:${config.RUNNER_NAME}`, logger });
const bridge = new McpBridge({
  nc,
  logger,
  servers: configuredServers(config),
  runnerName: config.RUNNER_NAME,
  maxConcurrency: config.RUNNER_MAX_CONCURRENCY,
  maxResultBytes: config.TOOL_MAX_RESULT_BYTES,
  connectTimeoutMs: config.MCP_CONNECT_TIMEOUT_MS,
  reconnectMinMs: config.MCP_RECONNECT_MIN_MS,
  reconnectMaxMs: config.MCP_RECONNECT_MAX_MS,
  pingIntervalMs: config.MCP_PING_INTERVAL_MS,
});
// Registered before start: a SIGTERM during a slow first connection still closes the children.
shutdown
  .add('drain tool calls and close MCP servers', () => bridge.stop(config.SHUTDOWN_GRACE_MS))
  .add('close nats', () => nc.drain());

// Resolves after every server's first attempt; servers that failed keep retrying in the background.
await bridge.start();
const servers = bridge.status();
announceReady(logger, {
  servers: servers.map(({ name, transport, state }) => ({ name, transport, state })),
  tools: servers.flatMap((s) => s.tools),
});
