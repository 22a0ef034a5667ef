// A fresh database with the orchestrator's schema migrated, for tests of the run journal.
import { openServiceDatabase, type Logger } from '@platform/service-kit';
import { createSuiteDatabase } from '@platform/testing/vitest';
import { fileURLToPath } from 'node:url';
import type pg from 'pg';

export async function openJournalDatabase(label: string, logger: Logger, maxConnections = 5): Promise<pg.Pool> {
  return openServiceDatabase({
    url: await createSuiteDatabase(`orchestrator_${label}`),
    schema: 'orchestrator',
    migrationsDir: fileURLToPath(new URL('../../migrations', import.meta.url)),
    applicationName: `${label}-test`,
    maxConnections,
    logger,
  });
}
