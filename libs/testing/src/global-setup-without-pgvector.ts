// Vitest global setup: a second private PostgreSQL cluster on which the pgvector extension is not
// installed (hidden even when the machine has it), so suites can run their no-extension path.
// Enable it with platformTestConfig({ sharedInfra: true, postgresWithoutPgvector: true }).
import type { TestProject } from 'vitest/node';
import { startPostgresServer } from './postgres-server.js';
import './provided-context.js';

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const postgres = await startPostgresServer({ hideExtensions: ['vector'] });
  project.provide('postgresWithoutPgvectorUrl', postgres.url());
  return () => postgres.stop();
}
