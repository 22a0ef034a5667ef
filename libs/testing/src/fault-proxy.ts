import net from 'node:net';

/**
 * A TCP proxy on a free loopback port that forwards to `target` and can make the network between
 * them bad on demand: delay every chunk in both directions, or reset every open connection, as a
 * congested or flapping network would. Point a service at the proxy instead of the server.
 */
export interface FaultProxy {
  readonly port: number;
  /** Connections forwarded since the start (a reconnecting client shows up here). */
  readonly connectionsAccepted: number;
  /** Delay added to every chunk each way from now on (0: none). Order is kept. */
  setLatency(ms: number): void;
  /** Resets (TCP RST) every open connection, both sides; new connections are accepted as usual. */
  resetConnections(): number;
  stop(): Promise<void>;
}

export interface FaultProxyOptions {
  target: { host?: string; port: number };
}

interface Pair {
  client: net.Socket;
  upstream: net.Socket;
}

/**
 * Forwards `from` to `to`, each chunk after the current latency, in order (a chunk never
 * overtakes one sent before it, even when the latency drops meanwhile).
 */
function forward(from: net.Socket, to: net.Socket, latencyMs: () => number): void {
  let lastDueAt = 0;
  from.on('data', (chunk: Buffer) => {
    const delay = latencyMs();
    if (delay <= 0 && lastDueAt <= Date.now()) {
      if (!to.destroyed) to.write(chunk);
      return;
    }
    const dueAt = Math.max(Date.now() + delay, lastDueAt);
    lastDueAt = dueAt;
    setTimeout(() => {
      if (!to.destroyed) to.write(chunk);
    }, dueAt - Date.now());
  });
  from.on('end', () => {
    const wait = Math.max(0, lastDueAt - Date.now());
    setTimeout(() => to.end(), wait);
  });
}

export async function startFaultProxy(options: FaultProxyOptions): Promise<FaultProxy> {
  const host = options.target.host ?? '127.0.0.1';
  let latency = 0;
  let accepted = 0;
  const pairs = new Set<Pair>();
  const server = net.createServer((client) => {
    accepted += 1;
    const upstream = net.connect({ host, port: options.target.port });
    const pair = { client, upstream };
    pairs.add(pair);
    client.setNoDelay(true);
    upstream.setNoDelay(true);
    const close = (): void => {
      pairs.delete(pair);
      if (!client.destroyed) client.destroy();
      if (!upstream.destroyed) upstream.destroy();
    };
    client.on('error', close);
    upstream.on('error', close);
    client.on('close', close);
    upstream.on('close', close);
    forward(client, upstream, () => latency);
    forward(upstream, client, () => latency);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const address = server.address();
  if (typeof address !== 'object' || !address) throw new Error('the fault proxy has no address');
  return {
    port: address.port,
    get connectionsAccepted() {
      return accepted;
    },
    setLatency(ms: number) {
      if (!Number.isFinite(ms) || ms < 0) throw new Error(`latency must be a non-negative number of ms (got ${ms})`);
      latency = ms;
    },
    resetConnections() {
      const count = pairs.size;
      for (const pair of [...pairs]) {
        pairs.delete(pair);
        pair.client.resetAndDestroy();
        pair.upstream.resetAndDestroy();
      }
      return count;
    },
    async stop() {
      for (const pair of pairs) {
        pair.client.destroy();
        pair.upstream.destroy();
      }
      pairs.clear();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
