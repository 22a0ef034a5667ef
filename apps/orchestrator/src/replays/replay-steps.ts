import type { JournaledSteps } from '../journal/run-steps.js';

/**
 * The steps of a run, as a replay counts them: step `i` (from 0) is the run's `i`-th model response
 * with the tool calls it asked for and their results. A replay from step `n` answers steps 0 to
 * n - 1 from the original's journal and asks the model live from step `n` on, so a replay never
 * starts between a tool call and its result.
 */

/** Why a replay from `fromStep` is refused, naming the furthest step it may start from; undefined when it may. */
export function replayRefusal(journal: JournaledSteps, fromStep: number): string | undefined {
  const steps = journal.models.length;
  if (!Number.isInteger(fromStep) || fromStep < 0) return 'fromStep must be an integer of at least 0';
  for (let step = 0; step < Math.min(fromStep, steps); step++) {
    const unanswered = (journal.models[step]!.message.toolCalls ?? []).find((call) => !journal.tools.has(call.id));
    if (unanswered)
      return `fromStep ${fromStep} lies between step ${step}'s call of '${unanswered.name}' and its result, which the run never recorded: replay from step ${step} at most`;
  }
  if (fromStep > steps) return `the run has ${steps} steps: fromStep is at most ${steps}`;
  const last = journal.models[steps - 1];
  if (fromStep === steps && (!last || (last.message.toolCalls ?? []).length === 0))
    return `step ${steps - 1} is the run's answer, so a replay from step ${steps} would ask nothing live: fromStep is at most ${Math.max(0, steps - 1)}`;
  return undefined;
}

/** What a replay from `fromStep` answers from the original's journal: its first `fromStep` responses and their calls' results. */
export function replayedSteps(journal: JournaledSteps, fromStep: number): JournaledSteps {
  const models = journal.models.slice(0, fromStep);
  const calls = new Set(models.flatMap((m) => (m.message.toolCalls ?? []).map((c) => c.id)));
  return { models, tools: new Map([...journal.tools].filter(([callId]) => calls.has(callId))) };
}

/** A replay's journal: the original's replayed steps, then what the replay itself journaled (its later steps). */
export function replayJournal(replayed: JournaledSteps, own: JournaledSteps): JournaledSteps {
  return { models: [...replayed.models, ...own.models], tools: new Map([...replayed.tools, ...own.tools]) };
}
