import { platformTestConfig } from '../../vitest.shared.js';

// The cross-process tests boot fixture apps against the run's private PostgreSQL and Redis.
export default platformTestConfig({ sharedInfra: true, testTimeoutMs: 60_000 });
