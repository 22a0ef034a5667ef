// Our platform end to end: the calculator turn through the HTTP API of every service running as
// its own process (bench/turn's set-up from bench/kit, PostgreSQL durable by default). Its CPU
// is that of every service and shared server but llm-sim (the model, which every peer shares and
// which is counted apart); the bench process's own CPU (the HTTP client) is reported apart too.
import type { BenchPlatform } from '@platform/bench-kit';
import type { Peer } from '../peer.js';

export function ourPlatformPeer(bench: BenchPlatform): Peer {
  return {
    key: 'our-platform',
    name: `our platform (HTTP API, end to end, PostgreSQL ${bench.durability})`,
    turn: () => bench.turn(),
    async cpuMs() {
      const samples = await bench.sample();
      samples.delete('llm-sim');
      return new Map([...samples].map(([process, sample]) => [process, sample.cpuMs]));
    },
    async settle() {
      await bench.drainIngestion();
    },
    duties: () => bench.duties(),
  };
}
