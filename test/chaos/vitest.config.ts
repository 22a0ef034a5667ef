import { platformTestConfig } from '../../vitest.shared.js';

// One platform (its own NATS, PostgreSQL and Redis, which the faults stop and start) serves every
// case of the suite, one case after the other.
export default platformTestConfig({ testTimeoutMs: 180_000 });
