import type { RecordedTurn } from './post-process.js';
import type { TurnStep } from './turn-steps.js';

/**
 * The publish step: the run's `execution_end` goes out once the run is recorded (a client that
 * sees it can read the run), and the run's events are handed to the NATS connection now.
 */
export class PublishStep implements TurnStep<RecordedTurn, RecordedTurn> {
  readonly name = 'publish';

  async run(recorded: RecordedTurn): Promise<RecordedTurn> {
    const { attempt, result, end } = recorded.turn;
    const { events, run } = attempt;
    events.sink(end ?? { type: 'execution_end', result, runId: run.runId, seq: 0, at: Date.now() });
    // Handed to the connection ahead of the answer. Neither the answer nor anything else waits for
    // the server to confirm it read them: that round trip sat on every turn's critical path once,
    // and off it still cost every turn a ping and a pong (a write and a wake-up on each side). A
    // publish the client refuses is logged; events lost with a dropped connection are not
    // republished (the run's outcome is in Postgres).
    events.sendNow();
    return recorded;
  }
}
