import { platformTestConfig } from '../../vitest.shared.js';

// Shared infra gives the effectively-once suite its own Redis database (allocateSuiteRedis).
export default platformTestConfig({ sharedInfra: true });
