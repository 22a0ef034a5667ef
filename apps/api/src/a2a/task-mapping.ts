import { Role, TaskState, type Artifact, type Message, type Part, type Task, type TaskStatus } from '@a2a-js/sdk';

/** An agent-tool or approval the run waits for (the run result's `pendingAgents`). */
export interface PendingAgentJson {
  callId: string;
  agentName: string;
  waitingFor: 'input' | 'approval';
  prompt: string;
  approval?: Record<string, unknown>;
}

/** What a run came to, as far as it has got: read with GetRun, answered by HandleMessage, or told by `execution_end`. */
export interface RunOutcome {
  /** The run (the task's first run or one of its answers, task-ids.ts). */
  runId: string;
  /** The run's status: queued, running, completed, waiting, failed or cancelled. */
  status: string;
  stopReason?: string;
  response?: string;
  /** The structured answer (the run's output schema). */
  output?: unknown;
  pending?: PendingAgentJson[];
  /** When the status was reached (ISO 8601). */
  at: string;
}

/** The task a run belongs to, in its conversation (the A2A context). */
export interface TaskRef {
  taskId: string;
  contextId: string;
}

/**
 * A run's status as an A2A task state: a queued run is submitted, a running one working, a run
 * that waits for an agent-tool or an approval needs the user's input (the next message answers
 * it), and the ends map one to one.
 */
export function taskStateOf(runStatus: string): TaskState {
  switch (runStatus) {
    case 'queued':
      return TaskState.TASK_STATE_SUBMITTED;
    case 'running':
      return TaskState.TASK_STATE_WORKING;
    case 'waiting':
      return TaskState.TASK_STATE_INPUT_REQUIRED;
    case 'completed':
      return TaskState.TASK_STATE_COMPLETED;
    case 'failed':
      return TaskState.TASK_STATE_FAILED;
    case 'cancelled':
      return TaskState.TASK_STATE_CANCELED;
    default:
      return TaskState.TASK_STATE_UNSPECIFIED;
  }
}

/** States after which the task takes no message and no cancel. */
export function isTerminal(state: TaskState): boolean {
  return (
    state === TaskState.TASK_STATE_COMPLETED ||
    state === TaskState.TASK_STATE_FAILED ||
    state === TaskState.TASK_STATE_CANCELED ||
    state === TaskState.TASK_STATE_REJECTED
  );
}

/** States a stream (and a blocking send) ends at: the terminal ones and the interrupted ones. */
export function endsStream(state: TaskState): boolean {
  return (
    isTerminal(state) || state === TaskState.TASK_STATE_INPUT_REQUIRED || state === TaskState.TASK_STATE_AUTH_REQUIRED
  );
}

export function textPart(text: string): Part {
  return { content: { $case: 'text', value: text }, metadata: undefined, filename: '', mediaType: 'text/plain' };
}

export function dataPart(data: unknown): Part {
  return { content: { $case: 'data', value: data }, metadata: undefined, filename: '', mediaType: 'application/json' };
}

/** A message from the agent in a task (a status message: what it waits for, why it failed). */
export function agentMessage(ref: TaskRef, messageId: string, parts: Part[]): Message {
  return {
    messageId,
    contextId: ref.contextId,
    taskId: ref.taskId,
    role: Role.ROLE_AGENT,
    parts,
    metadata: undefined,
    extensions: [],
    referenceTaskIds: [],
  };
}

/** The id of the artifact that holds a run's answer (one per run: a task answered twice has the latest). */
export function answerArtifactId(runId: string): string {
  return `${runId}-answer`;
}

/** A run's answer as an artifact: its text, and its structured answer as a data part when it has one. */
export function answerArtifact(outcome: Pick<RunOutcome, 'runId' | 'response' | 'output'>, parts?: Part[]): Artifact {
  return {
    artifactId: answerArtifactId(outcome.runId),
    name: 'answer',
    description: "The agent's answer.",
    parts: parts ?? [
      ...(outcome.response ? [textPart(outcome.response)] : []),
      ...(outcome.output !== undefined ? [dataPart(outcome.output)] : []),
    ],
    metadata: undefined,
    extensions: [],
  };
}

/**
 * The status message of a state: what an input-required task waits for (each prompt, and the
 * pending agent-tools and approvals as data), why a task failed or was cancelled; none while it works
 * or once it completed (the answer is the artifact).
 */
export function statusMessageOf(ref: TaskRef, outcome: RunOutcome): Message | undefined {
  const state = taskStateOf(outcome.status);
  if (state === TaskState.TASK_STATE_INPUT_REQUIRED) {
    const pending = outcome.pending ?? [];
    const prompts = pending.map((p) => p.prompt).filter(Boolean);
    const text = prompts.length ? prompts.join('\n') : (outcome.response ?? 'The agent waits for your answer.');
    return agentMessage(ref, `${outcome.runId}-status`, [
      textPart(text),
      ...(pending.length ? [dataPart({ pending })] : []),
    ]);
  }
  if (state === TaskState.TASK_STATE_FAILED || state === TaskState.TASK_STATE_CANCELED) {
    const text =
      outcome.response ||
      `The run ${state === TaskState.TASK_STATE_FAILED ? 'failed' : 'was cancelled'}${outcome.stopReason ? ` (${outcome.stopReason})` : ''}.`;
    return agentMessage(ref, `${outcome.runId}-status`, [textPart(text)]);
  }
  return undefined;
}

export function taskStatusOf(ref: TaskRef, outcome: RunOutcome): TaskStatus {
  return { state: taskStateOf(outcome.status), message: statusMessageOf(ref, outcome), timestamp: outcome.at };
}

/**
 * The task as its latest run has it: the state, a status message when it waits or failed, the
 * answer as an artifact once it completed, and which run (`metadata.runId`) and stop reason say so.
 * History is not kept here: the conversation's history is the platform's (GET /v1/conversations/{id}/messages).
 */
export function taskOf(ref: TaskRef, outcome: RunOutcome): Task {
  const completed = outcome.status === 'completed';
  return {
    id: ref.taskId,
    contextId: ref.contextId,
    status: taskStatusOf(ref, outcome),
    artifacts: completed && (outcome.response || outcome.output !== undefined) ? [answerArtifact(outcome)] : [],
    history: [],
    metadata: { runId: outcome.runId, ...(outcome.stopReason ? { stopReason: outcome.stopReason } : {}) },
  };
}
