import { existsSync } from 'node:fs';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { binaries, locateBinary } from './binaries.js';
import {
  extensionAvailable,
  pgvectorInstalled,
  startPostgresServer,
  type PostgresServerHandle,
} from './postgres-server.js';
import { describeInstallation } from './postgres-installation.js';
import { createSuiteDatabase, pgvectorModes, sharedInfra } from './suite-resources.js';

async function withClient<T>(url: string, work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

describe('pgvector detection', () => {
  it('reports what the installation really has', async () => {
    const postgres = await locateBinary(binaries.postgres);
    const control = `${describeInstallation(postgres).sharedir}/extension/vector.control`;
    expect(await pgvectorInstalled()).toBe(existsSync(control));
    expect(sharedInfra().pgvector).toBe(existsSync(control));
  });
});

describe.each(pgvectorModes())('a suite database $name', ({ pgvector, available }) => {
  it.skipIf(!available)('offers the vector extension exactly when the mode says so', async () => {
    const url = await createSuiteDatabase('pgvector_mode', { pgvector });
    expect(await extensionAvailable(url, 'vector')).toBe(pgvector);
    // Other extensions stay available in both modes (pg_trgm is part of every keyword recall).
    expect(await extensionAvailable(url, 'pg_trgm')).toBe(true);
    await withClient(url, async (client) => {
      await client.query('CREATE EXTENSION pg_trgm');
      if (pgvector) {
        await client.query('CREATE EXTENSION vector');
        const { rows } = await client.query<{ d: number }>(`SELECT '[1,0,0]'::vector <=> '[0,1,0]'::vector AS d`);
        expect(rows[0]?.d).toBe(1);
      } else {
        // PostgreSQL's own error for an extension that is not installed, as on a machine without it.
        await expect(client.query('CREATE EXTENSION vector')).rejects.toMatchObject({
          code: '0A000',
          message: 'extension "vector" is not available',
        });
      }
    });
  });
});

describe('startPostgresServer({ hideExtensions })', () => {
  let server: PostgresServerHandle | undefined;
  afterAll(() => server?.stop());

  it('hides only the named extensions, and runs loadable modules (PL/pgSQL) as usual', async () => {
    server = await startPostgresServer({ hideExtensions: ['pg_trgm'] });
    const url = await server.createDatabase('hidden_trgm');
    expect(await extensionAvailable(url, 'pg_trgm')).toBe(false);
    expect(await extensionAvailable(url, 'btree_gin')).toBe(true);
    await withClient(url, async (client) => {
      await expect(client.query('CREATE EXTENSION pg_trgm')).rejects.toThrow(/not available/);
      await client.query('CREATE EXTENSION btree_gin');
      await client.query('CREATE FUNCTION twice(x int) RETURNS int LANGUAGE plpgsql AS $$ BEGIN RETURN 2 * x; END $$');
      const { rows } = await client.query<{ v: number }>('SELECT twice(21) AS v');
      expect(rows[0]?.v).toBe(42);
    });
  });
});
