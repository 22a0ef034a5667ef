// Helpers that only work inside a Vitest run (they read what the global setup provided).
export {
  sharedInfra,
  createSuiteDatabase,
  allocateSuiteRedis,
  pgvectorModes,
  type PgvectorMode,
  type SuiteDatabaseOptions,
} from './suite-resources.js';
