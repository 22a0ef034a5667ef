import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { binaries, locateBinary } from './binaries.js';
import { ManagedProcess } from './managed-process.js';
import { freePort, waitForPort } from './ports.js';

const START_TIMEOUT_MS = 15_000;
const START_ATTEMPTS = 3;

/** A private `nats-server -js` on a free loopback port, with its own JetStream store. */
export interface NatsServerHandle {
  readonly url: string;
  readonly port: number;
  /** The HTTP monitoring endpoint (`/varz`, `/jsz`, …) when started with `monitor: true`. */
  readonly monitorUrl: string | undefined;
  /** The server's process id; undefined while stopped. */
  readonly pid: number | undefined;
  /** Stops the server (keeping its store) and starts it again on the same port. */
  restart(): Promise<void>;
  /** Stops the server as an outage would (its JetStream store is kept), until {@link start}. */
  halt(): Promise<void>;
  /** Starts a halted server again on the same port and store. */
  start(): Promise<void>;
  stop(): Promise<void>;
}

export interface NatsServerOptions {
  /**
   * A nats-server configuration file (e.g. the users and permissions deploy/nats generates). The
   * launcher's own flags still choose the address, port and JetStream store.
   */
  configFile?: string;
  /** Serve nats-server's HTTP monitoring endpoint on a free port (benchmarks read message counts there). */
  monitor?: boolean;
}

export async function startNatsServer(options: NatsServerOptions = {}): Promise<NatsServerHandle> {
  const command = await locateBinary(binaries.natsServer);
  const storeDir = await mkdtemp(path.join(os.tmpdir(), 'platform-nats-'));
  let port = 0;
  let monitorPort = 0;
  let proc: ManagedProcess | undefined;

  const launch = async (): Promise<void> => {
    const args = [
      ...(options.configFile ? ['-c', options.configFile] : []),
      '-a',
      '127.0.0.1',
      '-p',
      String(port),
      '-js',
      '-sd',
      storeDir,
      ...(options.monitor ? ['-m', String(monitorPort)] : []),
    ];
    proc = ManagedProcess.start('nats-server', command, args);
    const running = proc;
    await waitForPort(port, START_TIMEOUT_MS, () => running.isAlive);
  };

  let lastError: Error | undefined;
  for (let attempt = 0; attempt < START_ATTEMPTS; attempt++) {
    port = await freePort();
    if (options.monitor) monitorPort = await freePort();
    try {
      await launch();
      lastError = undefined;
      break;
    } catch (err) {
      lastError = new Error(`nats-server failed to start: ${(err as Error).message}\n${proc?.recentOutput ?? ''}`);
      await proc?.kill();
    }
  }
  if (lastError) {
    await rm(storeDir, { recursive: true, force: true });
    throw lastError;
  }

  return {
    url: `nats://127.0.0.1:${port}`,
    port,
    monitorUrl: options.monitor ? `http://127.0.0.1:${monitorPort}` : undefined,
    get pid() {
      return proc?.isAlive ? proc.pid : undefined;
    },
    async halt() {
      await proc?.stop();
    },
    async start() {
      if (proc?.isAlive) return;
      await launch();
    },
    async restart() {
      await proc?.stop();
      await launch();
    },
    async stop() {
      await proc?.stop();
      await rm(storeDir, { recursive: true, force: true });
    },
  };
}
