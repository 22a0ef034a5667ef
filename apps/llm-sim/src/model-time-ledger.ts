import type { ChatCompletionRequest } from './chat-request.js';

/** A turn's tag in its user message, e.g. `[turn:cap-17]`: what the ledger files the turn's model time under. */
const TURN_TAG = /\[turn:([A-Za-z0-9_.:-]{1,64})\]/;

/** The most turns the ledger keeps; past it the oldest are dropped (a bench reads and resets it per phase). */
export const MAX_LEDGER_TURNS = 200_000;

/** The model time of one tagged turn: its chat completions, and how long they took from request to last byte. */
export interface TurnModelTime {
  calls: number;
  ms: number;
}

/**
 * Model time by turn (`GET /_sim/model-time`), so a benchmark can subtract from each turn's time
 * the time the model took, call by call as this server served it (the drawn delay and, when
 * streaming, the paced chunks): what is left is the platform's overhead. A turn is found by the
 * `[turn:<id>]` tag in the last user message of the completion's conversation.
 */
export class ModelTimeLedger {
  private readonly turns = new Map<string, TurnModelTime>();

  /** The turn tag of a completion request, if its last user message has one. */
  static tagOf(body: Pick<ChatCompletionRequest, 'messages'>): string | undefined {
    for (let i = body.messages.length - 1; i >= 0; i--) {
      const message = body.messages[i]!;
      if (message.role !== 'user') continue;
      const content = typeof message.content === 'string' ? message.content : JSON.stringify(message.content);
      return TURN_TAG.exec(content)?.[1];
    }
    return undefined;
  }

  add(tag: string, ms: number): void {
    const seen = this.turns.get(tag);
    if (seen) {
      seen.calls += 1;
      seen.ms += ms;
      return;
    }
    if (this.turns.size >= MAX_LEDGER_TURNS) this.turns.delete(this.turns.keys().next().value!);
    this.turns.set(tag, { calls: 1, ms });
  }

  snapshot(): Record<string, TurnModelTime> {
    return Object.fromEntries([...this.turns].map(([tag, time]) => [tag, { ...time }]));
  }

  clear(): void {
    this.turns.clear();
  }
}
