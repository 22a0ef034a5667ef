// Duties a turn can skip under load, counted so a phase can say what share of its turns did (issue
// 40: a benchmark whose turns skip part of their work measures a different product): memory recall
// shed by the orchestrator's adaptive limit or timed out (its classified failures, scraped from its
// Prometheus endpoint), and finished turns never handed to memory's ingestion queue (the work
// queue's published count against the turns that finished). Every bench of the platform reports it
// and marks a phase past VALID_SKIP_SHARE invalid.
import { jetstreamManager } from '@nats-io/jetstream';
import { connect } from '@nats-io/transport-node';
import { MEMORY_INGEST_STREAM } from '@platform/contracts';

/** The most a phase may skip of its turns' duties and still be valid (5%). */
export const VALID_SKIP_SHARE = 0.05;

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

/** What a phase skipped, and whether it is valid (at most VALID_SKIP_SHARE of its turns skipped a duty). */
export interface DutySkips {
  turns: number;
  skipped: number;
  recall: number;
  unpublished: number;
  share: number;
  valid: boolean;
}

/** {@link skippedTurns} with its share of the phase's turns and its verdict; a phase with no turns is invalid. */
export function dutySkips(before: DutyCounters, after: DutyCounters, turns: number): DutySkips {
  const skipped = skippedTurns(before, after, turns);
  const share = turns === 0 ? 1 : skipped.turns / turns;
  return {
    turns,
    skipped: skipped.turns,
    recall: skipped.recall,
    unpublished: skipped.unpublished,
    share,
    valid: share <= VALID_SKIP_SHARE,
  };
}

/** `valid: 3 of 2000 turns (0.2%) skipped a duty (…)`, or **INVALID** past the limit. */
export function describeDutySkips(s: DutySkips): string {
  return `${s.valid ? 'valid' : '**INVALID**'}: ${s.skipped} of ${s.turns} turns (${(100 * s.share).toFixed(1)}%) skipped a duty (${s.recall} recalls shed or timed out, ${s.unpublished} turns not sent to memory)`;
}
