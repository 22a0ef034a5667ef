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
  if (!infra) throw new Error("no shared infra: add '@platform/testing/global-setup' to this project's vitest globalSetup");
  return infra;
}

/** Creates an empty database on the run's PostgreSQL for one suite and returns its connection string. */
export async function createSuiteDatabase(label = 'suite'): Promise<string> {
  const name = `${label.toLowerCase().replace(/[^a-z0-9_]/g, '_').slice(0, 40)}_${randomBytes(4).toString('hex')}`;
  const admin = new pg.Client({ connectionString: sharedInfra().postgresUrl });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE ${name}`);
  } finally {
    await admin.end();
  }
  const url = new URL(sharedInfra().postgresUrl);
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
