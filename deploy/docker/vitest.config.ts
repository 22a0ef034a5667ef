import { platformTestConfig } from '../../vitest.shared.js';

// The build runs `npm ci` twice and an Nx build on a fresh copy of the repository: minutes on a
// loaded machine, so the deadline is generous (the test waits on the script, never on a clock).
export default platformTestConfig({ testTimeoutMs: 20 * 60_000 });
