import { platformTestConfig } from '../../vitest.shared.js';

// The integration suites start real MCP servers (Node child processes) and a private NATS.
export default platformTestConfig({ testTimeoutMs: 30_000 });
