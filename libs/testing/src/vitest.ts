// Helpers that only work inside a Vitest run (they read what the global setup provided).
export { sharedInfra, createSuiteDatabase, allocateSuiteRedis, pgvectorModes } from './suite-resources.js';
