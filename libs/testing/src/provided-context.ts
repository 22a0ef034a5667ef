import type { InfraDescriptor } from './infra.js';

// Types what the global setup hands to suites through Vitest's provide/inject.
declare module 'vitest' {
  export interface ProvidedContext {
    platformInfra: InfraDescriptor;
    /** Superuser URL of a cluster without pgvector (only with `postgresWithoutPgvector` in the test config). */
    postgresWithoutPgvectorUrl: string;
  }
}
