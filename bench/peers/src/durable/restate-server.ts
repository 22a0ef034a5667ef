// A private Restate server: the binary @restatedev/restate-server ships (its platform package,
// @restatedev/restate-server-<os>-<arch>), one node with every role, its defaults otherwise (the
// production configuration: the log and the partitions' state in RocksDB on local disk, the WAL
// synced on every write), on free loopback ports and a fresh base directory that is removed at stop.
import { cpuOfTree } from '@platform/bench-kit';
import { freePort, ManagedProcess } from '@platform/testing';
import { mkdtemp, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';

const START_TIMEOUT_MS = 60_000;

export interface RestateServer {
  readonly ingressUrl: string;
  readonly adminUrl: string;
  /** Where the server keeps its log and state (local disk). */
  readonly baseDir: string;
  /** CPU ms so far of the server's process tree. */
  cpuMs(): Promise<number>;
  /** Registers the SDK endpoint at `uri` (the Admin API's `POST /deployments`). */
  register(uri: string): Promise<void>;
  /** Runs SQL on the server's introspection tables (the Admin API's `POST /query`). */
  query<Row>(sql: string): Promise<Row[]>;
  stop(): Promise<void>;
}

function restateBinary(): string {
  const require = createRequire(import.meta.url);
  const platformPackage = `@restatedev/restate-server-${os.platform()}-${os.arch()}`;
  try {
    return require.resolve(`${platformPackage}/bin/restate-server`);
  } catch {
    throw new Error(
      `no Restate server binary for ${os.platform()}-${os.arch()}: @restatedev/restate-server ships it in ${platformPackage} (an optional dependency that npm installs for this platform only)`,
    );
  }
}

async function admin(url: string, init: RequestInit = {}): Promise<Response> {
  const response = await fetch(url, {
    ...init,
    headers: { 'content-type': 'application/json', accept: 'application/json', ...init.headers },
  });
  if (!response.ok) throw new Error(`${init.method ?? 'GET'} ${url}: HTTP ${response.status} ${await response.text()}`);
  return response;
}

async function distinctFreePorts(count: number): Promise<number[]> {
  const ports = new Set<number>();
  while (ports.size < count) ports.add(await freePort());
  return [...ports];
}

export async function startRestateServer(): Promise<RestateServer> {
  const baseDir = await mkdtemp(path.join(os.tmpdir(), 'bench-restate-'));
  const [fabric, ingress, adminPort] = await distinctFreePorts(3);
  const proc = ManagedProcess.start('restate-server', restateBinary(), ['--no-logo'], {
    env: {
      ...process.env,
      RESTATE_BASE_DIR: baseDir,
      RESTATE_LISTEN_MODE: 'tcp',
      RESTATE_BIND_ADDRESS: `127.0.0.1:${fabric}`,
      RESTATE_ADVERTISED_ADDRESS: `http://127.0.0.1:${fabric}`,
      RESTATE_INGRESS__BIND_ADDRESS: `127.0.0.1:${ingress}`,
      RESTATE_ADMIN__BIND_ADDRESS: `127.0.0.1:${adminPort}`,
      // Offline: no usage reports.
      RESTATE_DISABLE_TELEMETRY: 'true',
      RESTATE_LOG_FILTER: 'warn',
    },
  });
  const ingressUrl = `http://127.0.0.1:${ingress}`;
  const adminUrl = `http://127.0.0.1:${adminPort}`;
  const stop = async (): Promise<void> => {
    await proc.stop();
    await rm(baseDir, { recursive: true, force: true });
  };
  try {
    const deadline = Date.now() + START_TIMEOUT_MS;
    for (;;) {
      if (!proc.isAlive) throw new Error(`restate-server exited during start:\n${proc.recentOutput}`);
      const healthy = await Promise.all([
        fetch(`${adminUrl}/health`).then(
          (r) => r.ok,
          () => false,
        ),
        fetch(`${ingressUrl}/restate/health`).then(
          (r) => r.ok,
          () => false,
        ),
      ]);
      if (healthy.every(Boolean)) break;
      if (Date.now() > deadline)
        throw new Error(`restate-server was not healthy within ${START_TIMEOUT_MS} ms:\n${proc.recentOutput}`);
      await new Promise((r) => setTimeout(r, 200));
    }
  } catch (error) {
    await stop();
    throw error;
  }
  return {
    ingressUrl,
    adminUrl,
    baseDir,
    cpuMs: () => cpuOfTree(proc.pid!),
    async register(uri) {
      await admin(`${adminUrl}/deployments`, { method: 'POST', body: JSON.stringify({ uri, force: true }) });
    },
    async query<Row>(sql: string) {
      const response = await admin(`${adminUrl}/query`, { method: 'POST', body: JSON.stringify({ query: sql }) });
      return ((await response.json()) as { rows: Row[] }).rows;
    },
    stop,
  };
}
