import { platformTestConfig } from '../../vitest.shared.js';

// The generated-app check runs tsc and a nested Vitest (with its own nats-server) on a generated
// runner; that takes far longer than a unit test.
export default platformTestConfig({ testTimeoutMs: 300_000 });
