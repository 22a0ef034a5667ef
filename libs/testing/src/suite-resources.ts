import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import pg from 'pg';
import { inject } from 'vitest';
import type { InfraDescriptor } from './infra.js';
import { REDIS_DATABASES } from './redis-server.js';
import './provided-context.js';

/** The run's shared servers, as started by the global setup. */
export function sharedInfra(): InfraDescriptor {
  const infra = inject('platformInfra');
  if (!infra)
    throw new Error("no shared infra: add '@platform/testing/global-setup' to this project's vitest globalSetup");
  return infra;
}

/** Where a suite database lives: which way the suite meets the pgvector extension. */
export interface SuiteDatabaseOptions {
  /**
   * `true`: the run's shared cluster, which must have pgvector installed (check
   * {@link PgvectorMode.available} first). `false`: a cluster on which pgvector is not installed
   * (needs `postgresWithoutPgvector: true` in the project's test config). Unset: the shared cluster,
   * whatever it has.
   */
  pgvector?: boolean;
}

/** One way of meeting PostgreSQL in a suite that must work with and without pgvector. */
export interface PgvectorMode {
  /** `with pgvector` or `without pgvector`, for test titles. */
  name: string;
  pgvector: boolean;
  /** False when this machine cannot provide the mode (pgvector not installed): skip, saying so. */
  available: boolean;
}

/**
 * Both modes, for `describe.each(pgvectorModes())('recall ($name)', ...)`. The pgvector mode is
 * unavailable when the extension is not installed (scripts/ensure-pgvector.sh installs it).
 */
export function pgvectorModes(): PgvectorMode[] {
  return [
    { name: 'with pgvector', pgvector: true, available: sharedInfra().pgvector },
    { name: 'without pgvector', pgvector: false, available: true },
  ];
}

function clusterUrl(options: SuiteDatabaseOptions): string {
  if (options.pgvector === true && !sharedInfra().pgvector) {
    throw new Error(
      'pgvector is not installed on this machine (run scripts/ensure-pgvector.sh); check pgvectorModes()[n].available before asking for it',
    );
  }
  if (options.pgvector !== false) return sharedInfra().postgresUrl;
  const url = inject('postgresWithoutPgvectorUrl');
  if (!url)
    throw new Error(
      "no PostgreSQL without pgvector: set postgresWithoutPgvector: true in this project's platformTestConfig",
    );
  return url;
}

/** Creates an empty database on the run's PostgreSQL for one suite and returns its connection string. */
export async function createSuiteDatabase(label = 'suite', options: SuiteDatabaseOptions = {}): Promise<string> {
  const name = `${label
    .toLowerCase()
    .replace(/[^a-z0-9_]/g, '_')
    .slice(0, 40)}_${randomBytes(4).toString('hex')}`;
  const cluster = clusterUrl(options);
  const admin = new pg.Client({ connectionString: cluster });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE ${name}`);
  } finally {
    await admin.end();
  }
  const url = new URL(cluster);
  url.pathname = `/${name}`;
  return url.toString();
}

/**
 * Gives a suite its own logical Redis database on the run's server, so keys never collide
 * between suites running in parallel. Database 0 holds the allocation counter.
 */
export async function allocateSuiteRedis(): Promise<string> {
  const base = sharedInfra().redisUrl;
  const client = new Redis(base, { lazyConnect: true, maxRetriesPerRequest: 1 });
  await client.connect();
  try {
    const n = await client.incr('platform-testing:next-database');
    const index = 1 + ((n - 1) % (REDIS_DATABASES - 1));
    return `${base}/${index}`;
  } finally {
    client.disconnect();
  }
}
