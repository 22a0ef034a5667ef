import { Role, type Message, type Task } from '@a2a-js/sdk';
import type { Client } from '@a2a-js/sdk/client';
import { isSettled, stateName } from './remote-task-state.js';

/** What is sent: the task's text, its message id (stable per run), and the task it answers, if any. */
export interface RemoteSend {
  text: string;
  messageId: string;
  continues?: { taskId: string; contextId: string };
}

export interface FollowOptions {
  /** How long between two polls (REMOTE_AGENT_POLL_MS). */
  pollMs: number;
  /** One call's limit (REMOTE_AGENT_CALL_TIMEOUT_MS). */
  callTimeoutMs: number;
  /** Aborts the wait (the run cancelled, its deadline, or a hand-over). */
  signal: AbortSignal;
  /** Called with each new state seen (recorded, so a resume knows it). */
  onState?: (state: string) => Promise<void>;
  /**
   * The status the task had before this message was sent (`statusMark`): a task answering a
   * message while it waited may still show that status for a moment, which is not yet its answer.
   */
  before?: string;
}

/** A task's status as a mark: its state, when it was set and the message it said. */
export function statusMark(task: Task): string {
  return `${task.status?.state ?? ''}|${task.status?.timestamp ?? ''}|${task.status?.message?.messageId ?? ''}`;
}

const callSignal = (signal: AbortSignal, timeoutMs: number): AbortSignal =>
  AbortSignal.any([signal, AbortSignal.timeout(timeoutMs)]);

/** `message/send` (SendMessage), non-blocking: the agent answers with a task at once (or a plain message). */
export function sendTask(
  client: Client,
  send: RemoteSend,
  signal: AbortSignal,
  timeoutMs: number,
): Promise<Task | Message> {
  const message: Message = {
    messageId: send.messageId,
    contextId: send.continues?.contextId ?? '',
    taskId: send.continues?.taskId ?? '',
    role: Role.ROLE_USER,
    parts: [
      { content: { $case: 'text', value: send.text }, metadata: undefined, filename: '', mediaType: 'text/plain' },
    ],
    metadata: undefined,
    extensions: [],
    referenceTaskIds: [],
  };
  return client.sendMessage(
    {
      tenant: '',
      message,
      configuration: {
        acceptedOutputModes: ['text/plain', 'text/markdown', 'application/json'],
        taskPushNotificationConfig: undefined,
        returnImmediately: true,
      },
      metadata: undefined,
    },
    { signal: callSignal(signal, timeoutMs) },
  );
}

export function isTask(result: Task | Message): result is Task {
  return !('messageId' in result);
}

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason as Error);
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = (): void => {
      clearTimeout(timer);
      reject(signal.reason as Error);
    };
    signal.addEventListener('abort', onAbort, { once: true });
  });
}

/**
 * Follows a task to a state it keeps without the client (completed, failed, canceled, rejected,
 * input-required, auth-required) by polling `tasks/get` (GetTask). Rejects when `signal` aborts.
 */
export async function followTask(client: Client, task: Task, options: FollowOptions): Promise<Task> {
  let current = task;
  let seen = stateName(current.status?.state);
  while (!isSettled(current) || (options.before !== undefined && statusMark(current) === options.before)) {
    await sleep(options.pollMs, options.signal);
    current = await client.getTask(
      { tenant: '', id: task.id, historyLength: 1 },
      { signal: callSignal(options.signal, options.callTimeoutMs) },
    );
    const state = stateName(current.status?.state);
    if (state !== seen) {
      seen = state;
      await options.onState?.(state);
    }
  }
  return current;
}

/** `tasks/cancel` (CancelTask), best effort: whether the remote accepted it. */
export async function cancelTask(client: Client, taskId: string, timeoutMs: number): Promise<boolean> {
  try {
    await client.cancelTask(
      { tenant: '', id: taskId, metadata: undefined },
      { signal: AbortSignal.timeout(timeoutMs) },
    );
    return true;
  } catch {
    return false;
  }
}
