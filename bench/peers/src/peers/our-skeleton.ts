// The floor of our platform's design: the same processes and the same exchanges per turn as the
// platform end to end, with none of the platform's code between them (bench/kit's
// skeleton/; README, "The floor of the design"). Whatever the platform costs beyond this row is its
// code; what this row costs is what the design's process boundaries and durable writes cost here.
// With duties, the floor also does (some of) the product's duties besides the exchanges, each in its
// cheapest form (README, "The floor with the product's duties").
import {
  SKELETON_DUTIES,
  startSkeleton,
  type BenchPlatform,
  type Skeleton,
  type SkeletonDuty,
} from '@platform/bench-kit';
import type { Peer } from '../peer.js';

export function ourSkeletonPeer(bench: BenchPlatform, duties: readonly SkeletonDuty[]): Peer {
  const all = SKELETON_DUTIES.every((duty) => duties.includes(duty));
  let skeleton: Skeleton | undefined;
  const started = (): Skeleton => {
    if (!skeleton) throw new Error('the skeleton was not started (prepare)');
    return skeleton;
  };
  return {
    key: duties.length ? 'our-skeleton-duties' : 'our-skeleton',
    name: duties.length
      ? `our design's floor with ${all ? "the product's duties" : 'the duties'} (${duties.join(', ')}; PostgreSQL ${bench.durability})`
      : `our design's floor (the platform's processes and exchanges, no platform code; PostgreSQL ${bench.durability})`,
    async prepare() {
      skeleton = await startSkeleton(bench, { duties });
    },
    turn: () => started().turn(),
    async cpuMs() {
      const cpu = await started().cpuMs();
      // The same servers as the platform's (their idle polling is counted in both rows); Redis holds the duties' leases.
      const servers = await bench.sample();
      for (const server of duties.includes('lease')
        ? (['postgres', 'nats-server', 'redis-server'] as const)
        : (['postgres', 'nats-server'] as const))
        cpu.set(server, servers.get(server)!.cpuMs);
      return cpu;
    },
    settle: () => started().drainLearning(),
    async stop() {
      await skeleton?.stop();
    },
  };
}
