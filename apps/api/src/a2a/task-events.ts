import { TaskState, type Artifact, type StreamResponse, type Task, type TaskStatus } from '@a2a-js/sdk';
import type { RunEventEnvelope } from '@platform/contracts';
import { answerStream } from '../turns/answer-stream.js';
import { outcomeOfEnd } from './run-outcomes.js';
import { answerArtifact, dataPart, taskStatusOf, textPart, type RunOutcome, type TaskRef } from './task-mapping.js';

export function taskResponse(task: Task): StreamResponse {
  return { payload: { $case: 'task', value: task } };
}

export function statusResponse(ref: TaskRef, status: TaskStatus): StreamResponse {
  return {
    payload: {
      $case: 'statusUpdate',
      value: { taskId: ref.taskId, contextId: ref.contextId, status, metadata: undefined },
    },
  };
}

function artifactResponse(ref: TaskRef, artifact: Artifact, append: boolean, lastChunk: boolean): StreamResponse {
  return {
    payload: {
      $case: 'artifactUpdate',
      value: { taskId: ref.taskId, contextId: ref.contextId, artifact, append, lastChunk, metadata: undefined },
    },
  };
}

/**
 * Translates one run's events (docs/api.md, "Run events"), in order, into a task's stream: a
 * `working` status when the run starts, the answer as an artifact streamed chunk by chunk (the
 * model's final message, held until it ends as the OpenAI-style streams do: answer-stream.ts),
 * and at `execution_end` the task's new status (completed, input-required with what it waits for,
 * failed, canceled).
 */
export class TaskEventRenderer {
  private readonly render: (out: StreamResponse[], event: RunEventEnvelope) => void;
  private chunks = 0;

  constructor(
    private readonly ref: TaskRef,
    private readonly runId: string,
    structured: boolean,
  ) {
    this.render = answerStream<StreamResponse[]>({
      structured,
      start: (out) =>
        out.push(
          statusResponse(ref, {
            state: TaskState.TASK_STATE_WORKING,
            message: undefined,
            timestamp: new Date().toISOString(),
          }),
        ),
      delta: (out, text) => out.push(this.chunk([textPart(text)], false)),
      end: () => undefined,
    });
  }

  /** The stream responses one run event makes (none for most). */
  responses(event: RunEventEnvelope): StreamResponse[] {
    const out: StreamResponse[] = [];
    this.render(out, event);
    if (event.type === 'execution_end')
      out.push(...this.ended(outcomeOfEnd(this.runId, event.data['result'], event.at)));
    return out;
  }

  /** The end of the task's stream: the rest of the answer, then the task's new status. */
  ended(outcome: RunOutcome): StreamResponse[] {
    const out: StreamResponse[] = [];
    if (outcome.status === 'completed') {
      // What was not streamed yet: the whole text when nothing was (a structured answer, a resumed run's replay).
      const parts = [
        ...(this.chunks === 0 && outcome.response ? [textPart(outcome.response)] : []),
        ...(outcome.output !== undefined ? [dataPart(outcome.output)] : []),
      ];
      // The last chunk closes an artifact already streamed: a part it must have, an empty text if nothing is left.
      if (parts.length || this.chunks > 0) out.push(this.chunk(parts.length ? parts : [textPart('')], true));
    }
    out.push(statusResponse(this.ref, taskStatusOf(this.ref, outcome)));
    return out;
  }

  private chunk(parts: ReturnType<typeof textPart>[], last: boolean): StreamResponse {
    const append = this.chunks > 0;
    this.chunks += 1;
    return artifactResponse(this.ref, answerArtifact({ runId: this.runId }, parts), append, last);
  }
}
