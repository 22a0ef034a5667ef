// Duties a turn can skip under load, counted so a phase can say what share of its turns did:
// memory recall shed by the orchestrator's adaptive limit or timed out (its classified failures,
// scraped from its Prometheus endpoint), and finished turns never handed to memory's ingestion
// queue (the work queue's published count against the turns that finished).
import { jetstreamManager } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';
import { MEMORY_INGEST_STREAM } from '@platform/contracts';

/** The failure kinds (`platform_failures_total`) of a recall the turn went on without. */
const RECALL_SKIPS = ['memory_recall_shed', 'memory_timeout', 'memory_unavailable'] as const;

export interface DutyCounters {
  recallSkipped: number;
  ingestionPublished: number;
}

export async function readDutyCounters(orchestratorMetricsUrl: string, natsUrl: string): Promise<DutyCounters> {
  const metrics = await (await fetch(orchestratorMetricsUrl)).text();
  let recallSkipped = 0;
  for (const line of metrics.split('\n')) {
    if (!line.startsWith('platform_failures_total{')) continue;
    if (RECALL_SKIPS.some((kind) => line.includes(`kind="${kind}"`))) recallSkipped += Number(line.split(' ').at(-1));
  }
  const nc = await connect({ servers: natsUrl, name: 'bench-capacity-duties' });
  try {
    const jsm = await jetstreamManager(nc);
    const info = await jsm.streams.info(MEMORY_INGEST_STREAM);
    return { recallSkipped, ingestionPublished: info.state.last_seq };
  } finally {
    await nc.close();
  }
}

/**
 * Turns of a phase that skipped a duty, at most: recalls skipped plus turns not published for
 * ingestion (one turn may have skipped both, so this can count it twice: an upper bound).
 */
export function skippedTurns(
  before: DutyCounters,
  after: DutyCounters,
  turns: number,
): { turns: number; recall: number; unpublished: number } {
  const recall = after.recallSkipped - before.recallSkipped;
  const unpublished = Math.max(0, turns - (after.ingestionPublished - before.ingestionPublished));
  return { turns: Math.min(turns, recall + unpublished), recall, unpublished };
}
