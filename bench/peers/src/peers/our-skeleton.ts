// The floor of our platform's design: the same processes and the same exchanges per turn as the
// platform end to end, with none of the platform's code between them (libs/bench-kit's
// skeleton/; README, "The floor of the design"). Whatever the platform costs beyond this row is its
// code; what this row costs is what the design's process boundaries and durable writes cost here.
import { startSkeleton, type BenchPlatform, type Skeleton } from '@platform/bench-kit';
import type { Peer } from '../peer.js';

export function ourSkeletonPeer(bench: BenchPlatform): Peer {
  let skeleton: Skeleton | undefined;
  const started = (): Skeleton => {
    if (!skeleton) throw new Error('the skeleton was not started (prepare)');
    return skeleton;
  };
  return {
    key: 'our-skeleton',
    name: `our design's floor (the platform's processes and exchanges, no platform code; PostgreSQL ${bench.durability})`,
    async prepare() {
      skeleton = await startSkeleton(bench);
    },
    turn: () => started().turn(),
    async cpuMs() {
      const cpu = await started().cpuMs();
      // The same servers as the platform's (their idle polling is counted in both rows).
      const servers = await bench.sample();
      for (const server of ['postgres', 'nats-server'] as const) cpu.set(server, servers.get(server)!.cpuMs);
      return cpu;
    },
    async stop() {
      await skeleton?.stop();
    },
  };
}
