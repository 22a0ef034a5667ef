/**
 * An A2A task is a chain of runs in one conversation (docs/protocols.md#a2a): the run its first
 * message started (the task id is that run's id), then one run per message that answered the task
 * while it waited for input (`<task id>-c1`, `-c2`, …). Every run id is made here, so the chain is
 * read from the runs alone: the latest run that exists is the task's state, and nothing about a
 * task is kept anywhere but in its runs.
 */

/** A task id as the api issues them: a run id `run_<uuid>`. */
const TASK_ID = /^run_[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const CONTINUATION = /^(run_[0-9a-f-]{36})-c([1-9][0-9]*)$/;

/** How many answers one task takes (its chain is read run by run). */
export const MAX_TASK_ANSWERS = 50;

export function isTaskId(value: string): boolean {
  return TASK_ID.test(value);
}

/** The run of the task's `n`th answer (n ≥ 1); the task's first run is the task id itself. */
export function answerRunId(taskId: string, n: number): string {
  return `${taskId}-c${n}`;
}

/** The task a run belongs to and its place in the chain (0: the task's first run), or undefined for another run. */
export function taskOfRun(runId: string): { taskId: string; answer: number } | undefined {
  if (TASK_ID.test(runId)) return { taskId: runId, answer: 0 };
  const match = CONTINUATION.exec(runId);
  if (!match || !TASK_ID.test(match[1]!)) return undefined;
  const answer = Number(match[2]);
  return answer <= MAX_TASK_ANSWERS ? { taskId: match[1]!, answer } : undefined;
}
