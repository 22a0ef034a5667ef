import { finishedRunStatus } from '@platform/contracts';
import type { orchestratorV1 } from '@platform/proto';
import type { PendingAgentJson, RunOutcome } from './task-mapping.js';

interface RunResultJson {
  response?: string;
  output?: unknown;
  stopReason?: string;
  pendingAgents?: PendingAgentJson[];
}

const iso = (date: Date | undefined): string => (date ?? new Date()).toISOString();

/** A run read with GetRun (its result once it finished). */
export function outcomeOfRun(run: orchestratorV1.GetRunResponse): RunOutcome {
  const result = JSON.parse(run.resultJson || 'null') as RunResultJson | null;
  return {
    runId: run.runId,
    status: run.status,
    stopReason: run.stopReason,
    ...(result?.response ? { response: result.response } : {}),
    ...(result?.output !== undefined ? { output: result.output } : {}),
    pending: result?.pendingAgents ?? [],
    at: iso(run.finishedAt ?? run.startedAt ?? run.createdAt),
  };
}

/** A run HandleMessage answered (its end). */
export function outcomeOfAnswer(answer: orchestratorV1.HandleMessageResponse): RunOutcome {
  return {
    runId: answer.runId,
    status: answer.status,
    stopReason: answer.stopReason,
    ...(answer.response ? { response: answer.response } : {}),
    ...(answer.outputJson ? { output: JSON.parse(answer.outputJson) as unknown } : {}),
    pending: JSON.parse(answer.pendingJson || '[]') as PendingAgentJson[],
    at: iso(undefined),
  };
}

/** A run's `execution_end` event: its result (the loop's), the status read from its stop reason. */
export function outcomeOfEnd(runId: string, result: unknown, atMs: number): RunOutcome {
  const data = (result ?? {}) as RunResultJson & { pending?: PendingAgentJson[]; status?: string };
  const stopReason = data.stopReason ?? '';
  return {
    runId,
    status: data.status ?? finishedRunStatus(stopReason),
    stopReason,
    ...(data.response ? { response: data.response } : {}),
    ...(data.output !== undefined ? { output: data.output } : {}),
    pending: data.pendingAgents ?? data.pending ?? [],
    at: new Date(atMs).toISOString(),
  };
}
