import type { ChatMessage } from '@platform/contracts';
import type { RunSteers, TakenSteer } from '../journal/run-steers.js';
import type { RunFence } from '../journal/run-types.js';

/**
 * Whether a steering message may wait for an attempt's run (docs/conversations.md, `steer`): set
 * when the attempt starts (a steer recorded before anyone held the run) and by each notice (NATS,
 * or this replica's own), cleared by a look. So the loop asks Postgres only when there may be one.
 */
export class SteerNotices {
  private waiting = true;

  notice(): void {
    this.waiting = true;
  }

  /** Whether to look now; clears the flag first, so a notice that arrives during the look sets it again. */
  look(): boolean {
    const waiting = this.waiting;
    this.waiting = false;
    return waiting;
  }
}

export interface SteerIntakeOptions {
  run: RunFence;
  steers: Pick<RunSteers, 'take'>;
  notices: SteerNotices;
  /** The steers earlier attempts took (a resumed run), put back at their places. */
  earlier: readonly TakenSteer[];
  /** True while the run replays its journal: nothing new is taken before the run is past it. */
  replaying: () => boolean;
  /** A take failed (its outcome unknown): the attempt stops and the run resumes from Postgres. */
  failed: (error: unknown) => void;
}

const asMessage = (steer: TakenSteer): ChatMessage => ({ role: 'user', content: steer.content });

/**
 * The loop's incoming messages (`LoopDependencies.incoming`) for one attempt: before each model
 * call, the steers an earlier attempt took there, then, once the run is live and a notice says one
 * may wait, the steers taken now (one statement that fixes their place in Postgres before the model
 * sees them). Nothing is asked of Postgres otherwise.
 */
export class SteerIntake {
  constructor(private readonly options: SteerIntakeOptions) {}

  readonly incoming = async ({ iteration }: { iteration: number }): Promise<ChatMessage[]> => {
    const { run, steers, notices, earlier, replaying, failed } = this.options;
    const before = earlier.filter((steer) => steer.iteration === iteration);
    if (replaying() || !notices.look()) return before.map(asMessage);
    try {
      return [...before, ...(await steers.take(run, iteration))].map(asMessage);
    } catch (error) {
      failed(error);
      return before.map(asMessage);
    }
  };
}
