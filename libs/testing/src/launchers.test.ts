import { connect } from '@nats-io/transport-node';
import { Redis } from 'ioredis';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { MissingBinaryError, locateBinary } from './binaries.js';
import { startNatsServer, type NatsServerHandle } from './nats-server.js';
import { startPostgresServer, type PostgresServerHandle } from './postgres-server.js';
import { startRedisServer, type RedisServerHandle } from './redis-server.js';
import { allocateSuiteRedis, createSuiteDatabase, sharedInfra } from './suite-resources.js';

describe('shared infra from the global setup', () => {
  it('gives each suite its own database on the shared PostgreSQL', async () => {
    const first = await createSuiteDatabase('launcher');
    const second = await createSuiteDatabase('launcher');
    expect(first).not.toEqual(second);
    const client = new pg.Client({ connectionString: first });
    await client.connect();
    const { rows } = await client.query<{ db: string }>('SELECT current_database() AS db');
    await client.end();
    expect(first.endsWith(`/${rows[0]!.db}`)).toBe(true);
  });

  it('gives each suite its own logical Redis database', async () => {
    const [a, b] = await Promise.all([allocateSuiteRedis(), allocateSuiteRedis()]);
    expect(a).not.toEqual(b);
    const clientA = new Redis(a);
    const clientB = new Redis(b);
    await clientA.set('k', 'from-a');
    expect(await clientB.get('k')).toBeNull();
    expect(await clientA.get('k')).toBe('from-a');
    clientA.disconnect();
    clientB.disconnect();
  });

  it('runs NATS with JetStream enabled', async () => {
    const nc = await connect({ servers: sharedInfra().natsUrl });
    const info = nc.info;
    await nc.close();
    expect(info?.jetstream).toBe(true);
  });
});

describe('a dedicated nats-server', () => {
  let server: NatsServerHandle | undefined;
  afterAll(async () => server?.stop());

  it('restarts on the same port and keeps serving', async () => {
    server = await startNatsServer();
    const before = server.url;
    await server.restart();
    expect(server.url).toBe(before);
    const nc = await connect({ servers: server.url });
    await nc.flush();
    await nc.close();
  });
});

async function settingsOf(url: string): Promise<Record<string, string>> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query<{ name: string; setting: string }>(
      "SELECT name, setting FROM pg_settings WHERE name IN ('fsync', 'synchronous_commit', 'full_page_writes')",
    );
    return Object.fromEntries(rows.map((r) => [r.name, r.setting]));
  } finally {
    await client.end();
  }
}

describe('a dedicated PostgreSQL', () => {
  let server: PostgresServerHandle | undefined;
  afterAll(async () => server?.stop());

  it('runs durable (production defaults) when asked, and keeps its data across a halt and start on the same port', async () => {
    server = await startPostgresServer({ durability: 'durable' });
    expect(server.durability).toBe('durable');
    expect(await settingsOf(server.url())).toEqual({ fsync: 'on', synchronous_commit: 'on', full_page_writes: 'on' });
    const url = await server.createDatabase('kept');
    await server.halt();
    await expect(settingsOf(url)).rejects.toThrow();
    await server.start();
    expect(await settingsOf(url)).toEqual({ fsync: 'on', synchronous_commit: 'on', full_page_writes: 'on' });
  });

  it('runs with the fast test settings by default', async () => {
    expect(await settingsOf(sharedInfra().postgresUrl)).toEqual({
      fsync: 'off',
      synchronous_commit: 'off',
      full_page_writes: 'off',
    });
  });
});

describe('a dedicated redis-server', () => {
  let server: RedisServerHandle | undefined;
  afterAll(async () => server?.stop());

  it('halts and starts again, empty, on the same port', async () => {
    server = await startRedisServer();
    const before = new Redis(server.url);
    await before.set('k', 'v');
    before.disconnect();
    await server.halt();
    await server.start();
    const after = new Redis(server.url);
    expect(await after.get('k')).toBeNull();
    after.disconnect();
  });
});

describe('locateBinary', () => {
  it('names the Debian package when a binary is missing', async () => {
    const missing = {
      command: 'definitely-not-a-server-binary',
      debianPackage: 'some-package',
      extraDirs: () => Promise.resolve([]),
    };
    const error = await locateBinary(missing).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(MissingBinaryError);
    expect((error as Error).message).toContain('apt-get install -y some-package');
  });
});
