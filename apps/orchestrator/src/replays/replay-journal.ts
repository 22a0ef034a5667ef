import type { ClaimedRun } from '../journal/run-types.js';
import type { JournaledSteps, RunSteps } from '../journal/run-steps.js';
import { replayedSteps, replayJournal } from './replay-steps.js';

const NOTHING: JournaledSteps = { models: [], tools: new Map() };

/**
 * The journal a run's loop replays: a resumed run's own steps; for a replay (migrations/0022)
 * first the original run's steps before `fromStep` (the original is finished: its journal no
 * longer changes), then the replay's own. `replayed` counts the original's model steps in it.
 */
export async function journalFor(
  steps: Pick<RunSteps, 'load'>,
  run: Pick<ClaimedRun, 'runId' | 'attempts' | 'replay'>,
): Promise<{ journal: JournaledSteps; replayed: number }> {
  const own = run.attempts > 1 ? await steps.load(run.runId) : NOTHING;
  if (!run.replay) return { journal: own, replayed: 0 };
  const original = replayedSteps(await steps.load(run.replay.runId), run.replay.fromStep);
  return { journal: replayJournal(original, own), replayed: original.models.length };
}
