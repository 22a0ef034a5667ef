import { chown, mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { binaries, locateBinary } from './binaries.js';
import { ManagedProcess } from './managed-process.js';
import { freePort } from './ports.js';
import { extensionInstalled, installationWithout } from './postgres-installation.js';

const START_TIMEOUT_MS = 30_000;
const START_ATTEMPTS = 3;
const SUPERUSER = 'postgres';

/** A private PostgreSQL cluster (initdb into a temp dir) on a free loopback port, with trust auth. */
export interface PostgresServerHandle {
  readonly port: number;
  /** Connection string for a database of this cluster (default: `postgres`). */
  url(database?: string): string;
  /** Creates an empty database and returns its connection string. */
  createDatabase(name: string): Promise<string>;
  stop(): Promise<void>;
}

interface RunAs {
  uid: number;
  gid: number;
}

/** PostgreSQL refuses to run as root; when we are root, its processes run as the `postgres` user. */
async function unprivilegedUser(): Promise<RunAs | undefined> {
  if (process.getuid?.() !== 0) return undefined;
  const passwd = await readFile('/etc/passwd', 'utf8');
  const line = passwd.split('\n').find((l) => l.startsWith(`${SUPERUSER}:`));
  const [, , uid, gid] = line?.split(':') ?? [];
  if (uid === undefined || gid === undefined) {
    throw new Error(`running as root, but there is no '${SUPERUSER}' user to run PostgreSQL as; install it with: apt-get install -y postgresql`);
  }
  return { uid: Number(uid), gid: Number(gid) };
}

async function initCluster(initdb: string, dataDir: string, runAs: RunAs | undefined): Promise<void> {
  const args = ['-D', dataDir, '-U', SUPERUSER, '--auth=trust', '--encoding=UTF8', '--no-sync', '--no-instructions'];
  const proc = ManagedProcess.start('initdb', initdb, args, { ...runAs, cwd: path.dirname(dataDir) });
  const code = await proc.waitForExit();
  if (code !== 0) throw new Error(`initdb failed (exit ${code}):\n${proc.recentOutput}`);
}

async function waitUntilAccepting(url: string, proc: ManagedProcess): Promise<void> {
  const deadline = Date.now() + START_TIMEOUT_MS;
  let lastError: unknown;
  while (Date.now() < deadline) {
    if (!proc.isAlive) throw new Error(`postgres exited during start:\n${proc.recentOutput}`);
    const client = new pg.Client({ connectionString: url });
    try {
      await client.connect();
      await client.query('SELECT 1');
      return;
    } catch (err) {
      lastError = err;
      await new Promise((r) => setTimeout(r, 50));
    } finally {
      await client.end().catch(() => undefined);
    }
  }
  throw new Error(`postgres did not accept connections within ${START_TIMEOUT_MS} ms: ${String(lastError)}\n${proc.recentOutput}`);
}

/** Options of {@link startPostgresServer}. */
export interface PostgresServerOptions {
  /**
   * Extensions the cluster must behave as if they were not installed on this machine (e.g.
   * `['vector']`), so a suite can exercise its no-extension path on a machine that has them.
   */
  hideExtensions?: readonly string[];
  /**
   * Durable like production: fsync, synchronous commit and full-page writes on. Benchmarks want
   * this; tests default to off (faster, and a test never survives a power cut).
   */
  durable?: boolean;
}

/** Says whether the local PostgreSQL installation has the `vector` extension (pgvector) installed. */
export async function pgvectorInstalled(): Promise<boolean> {
  return extensionInstalled(await locateBinary(binaries.postgres), 'vector');
}

/** Says whether `CREATE EXTENSION <name>` can succeed on the server at `url` (it is installed there). */
export async function extensionAvailable(url: string, name: string): Promise<boolean> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const result = await client.query('SELECT 1 FROM pg_available_extensions WHERE name = $1', [name]);
    return result.rowCount === 1;
  } finally {
    await client.end();
  }
}

/** Starts a private PostgreSQL cluster (initdb into a temp dir) on a free loopback port. */
export async function startPostgresServer(options: PostgresServerOptions = {}): Promise<PostgresServerHandle> {
  const [realPostgres, initdb, runAs] = await Promise.all([locateBinary(binaries.postgres), locateBinary(binaries.initdb), unprivilegedUser()]);
  const root = await mkdtemp(path.join(os.tmpdir(), 'platform-pg-'));
  if (runAs) await chown(root, runAs.uid, runAs.gid);
  const dataDir = path.join(root, 'data');
  let postgres = realPostgres;
  try {
    const hidden = options.hideExtensions ?? [];
    if (hidden.length > 0) postgres = await installationWithout(realPostgres, hidden, path.join(root, 'installation'));
    await initCluster(initdb, dataDir, runAs);
  } catch (err) {
    await rm(root, { recursive: true, force: true });
    throw err;
  }

  let lastError: unknown;
  for (let attempt = 0; attempt < START_ATTEMPTS; attempt++) {
    const port = await freePort();
    const args = [
      '-D', dataDir, '-p', String(port), '-k', root, '-h', '127.0.0.1',
      ...(options.durable ? [] : ['-F', '-c', 'synchronous_commit=off', '-c', 'full_page_writes=off']),
      '-c', 'max_connections=300', '-c', 'log_min_messages=warning',
    ];
    const proc = ManagedProcess.start('postgres', postgres, args, { ...runAs, cwd: root });
    const url = (database = 'postgres'): string => `postgres://${SUPERUSER}@127.0.0.1:${port}/${database}`;
    try {
      await waitUntilAccepting(url(), proc);
      return {
        port,
        url,
        async createDatabase(name: string) {
          if (!/^[a-z_][a-z0-9_]{0,62}$/.test(name)) throw new Error(`invalid database name '${name}'`);
          const client = new pg.Client({ connectionString: url() });
          await client.connect();
          try {
            await client.query(`CREATE DATABASE ${name}`);
          } finally {
            await client.end();
          }
          return url(name);
        },
        async stop() {
          // SIGINT is PostgreSQL's "fast" shutdown: roll back open transactions and exit.
          await proc.stop('SIGINT', 10_000);
          await rm(root, { recursive: true, force: true });
        },
      };
    } catch (err) {
      lastError = err;
      await proc.kill();
    }
  }
  await rm(root, { recursive: true, force: true });
  throw lastError;
}
