import type { RunEventEnvelope } from '@platform/contracts';
import type { RunEvents } from '../events/run-event-reader.js';

/** The words of an MCP progress notification for a run event; undefined for events that say nothing new (chunks, ends). */
export function progressMessageOf(event: RunEventEnvelope): string | undefined {
  const data = event.data;
  const word = (key: string, fallback: string): string => {
    const value = data[key];
    return typeof value === 'string' && value ? value : fallback;
  };
  const name = word('name', 'a tool');
  switch (event.type) {
    case 'execution_start':
      return 'the run started';
    case 'message_start':
      return 'asking the model';
    case 'tool_call_start':
      return `calling ${name}`;
    case 'tool_result':
      return `${name}: ${word('status', 'done')}`;
    case 'state_change': {
      const state = word('state', 'finished');
      return state !== 'finished' ? state.replaceAll('_', ' ') : undefined;
    }
    case 'step_failed':
      return `a ${word('step', 'run')} step failed${word('message', '') && `: ${word('message', '')}`}`;
    case 'child_run_started':
      return `delegated to ${word('role', 'a role')}`;
    case 'child_run_finished':
      return `${word('role', 'a role')} finished`;
    case 'plan_updated':
      return 'the plan changed';
    default:
      return undefined;
  }
}

/** Sends one progress notification (`notifications/progress` for the call's progress token). */
export type ProgressSender = (progress: number, message: string) => Promise<void>;

/**
 * The progress of one tool call: its runs' events, told as MCP progress notifications. A call may
 * run several turns (an elicited answer continues the run), so `progress` keeps counting across them.
 */
export class CallProgress {
  private count = 0;

  constructor(
    private readonly events: RunEvents,
    private readonly send: ProgressSender | undefined,
    private readonly graceMs = 1_000,
  ) {}

  /**
   * Follows a run about to start (its id is new: the read begins before the run does) until its
   * `execution_end`. `stop(true)` (the turn came back with its result) waits for that end a little (`graceMs`: events
   * still on their way), then stops reading. Progress that cannot be read or sent is skipped: the
   * call's result is what counts.
   */
  follow(runId: string): { stop: (ran: boolean) => Promise<void> } {
    if (!this.send) return { stop: async () => undefined };
    const send = this.send;
    const reading = new AbortController();
    const events = this.events.read(runId, 0, reading.signal, { fresh: true });
    const done = (async () => {
      for await (const event of events) {
        if (event.type === 'execution_end') return;
        const message = progressMessageOf(event);
        if (message) await send(++this.count, message).catch(() => undefined);
      }
    })().catch(() => undefined);
    return {
      stop: async (ran) => {
        if (ran) {
          const grace = new Promise<void>((resolve) => setTimeout(resolve, this.graceMs).unref());
          await Promise.race([done, grace]);
        }
        reading.abort();
        await done;
      },
    };
  }
}
