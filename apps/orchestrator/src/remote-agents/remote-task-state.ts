import { Role, TaskState, type Message, type Part, type Task } from '@a2a-js/sdk';

/** A task state as the platform writes it (the A2A v0.3 names, which the docs use). */
export function stateName(state: TaskState | undefined): string {
  switch (state) {
    case TaskState.TASK_STATE_SUBMITTED:
      return 'submitted';
    case TaskState.TASK_STATE_WORKING:
      return 'working';
    case TaskState.TASK_STATE_COMPLETED:
      return 'completed';
    case TaskState.TASK_STATE_FAILED:
      return 'failed';
    case TaskState.TASK_STATE_CANCELED:
      return 'canceled';
    case TaskState.TASK_STATE_INPUT_REQUIRED:
      return 'input-required';
    case TaskState.TASK_STATE_REJECTED:
      return 'rejected';
    case TaskState.TASK_STATE_AUTH_REQUIRED:
      return 'auth-required';
    default:
      return 'unknown';
  }
}

/** How a remote task ended, for the child run. */
export type RemoteOutcome =
  | { kind: 'completed'; text: string }
  | { kind: 'waiting'; prompt: string; state: string }
  | { kind: 'failed'; message: string }
  | { kind: 'cancelled'; message: string };

/** The text of parts: text as it is, data as JSON, a file by its URL or name. */
export function textOfParts(parts: readonly Part[] | undefined): string {
  return (parts ?? [])
    .map((part) => {
      const content = part.content;
      switch (content?.$case) {
        case 'text':
          return content.value;
        case 'data':
          return JSON.stringify(content.value);
        case 'url':
          return part.filename ? `${part.filename}: ${content.value}` : content.value;
        case 'raw':
          return `[file ${part.filename || 'unnamed'} (${part.mediaType || 'bytes'})]`;
        default:
          return '';
      }
    })
    .filter(Boolean)
    .join('\n');
}

export const textOfMessage = (message: Message | undefined): string => textOfParts(message?.parts);

/** Whether the task will not change without the client (finished, or waiting for it). */
export function isSettled(task: Task): boolean {
  const state = task.status?.state;
  return (
    state !== undefined &&
    state !== TaskState.TASK_STATE_SUBMITTED &&
    state !== TaskState.TASK_STATE_WORKING &&
    state !== TaskState.TASK_STATE_UNSPECIFIED &&
    state !== TaskState.UNRECOGNIZED
  );
}

/** What the task's answer is: its artifacts' text, else its status message, else the agent's last message. */
function answerOf(task: Task): string {
  const artifacts = (task.artifacts ?? []).map((a) => textOfParts(a.parts)).filter(Boolean);
  if (artifacts.length) return artifacts.join('\n\n');
  const status = textOfMessage(task.status?.message);
  if (status) return status;
  const lastAgent = [...(task.history ?? [])].reverse().find((m) => m.role === Role.ROLE_AGENT);
  return textOfMessage(lastAgent);
}

/** The outcome of a settled task. */
export function outcomeOfTask(task: Task, agent: string): RemoteOutcome {
  const state = task.status?.state;
  const said = textOfMessage(task.status?.message);
  switch (state) {
    case TaskState.TASK_STATE_COMPLETED:
      return { kind: 'completed', text: answerOf(task) };
    case TaskState.TASK_STATE_INPUT_REQUIRED:
    case TaskState.TASK_STATE_AUTH_REQUIRED:
      return {
        kind: 'waiting',
        state: stateName(state),
        prompt:
          said ||
          (state === TaskState.TASK_STATE_AUTH_REQUIRED
            ? `The remote agent '${agent}' needs authentication to go on.`
            : `The remote agent '${agent}' needs more input to go on.`),
      };
    case TaskState.TASK_STATE_CANCELED:
      return { kind: 'failed', message: `the remote agent '${agent}' canceled the task${said ? `: ${said}` : ''}` };
    case TaskState.TASK_STATE_REJECTED:
      return { kind: 'failed', message: `the remote agent '${agent}' rejected the task${said ? `: ${said}` : ''}` };
    default:
      return { kind: 'failed', message: `the remote agent '${agent}' failed the task${said ? `: ${said}` : ''}` };
  }
}
