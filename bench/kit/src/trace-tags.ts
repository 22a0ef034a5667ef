// The driver starts each turn's trace itself (a W3C `traceparent` header on the request), so it
// knows which load phase every trace belongs to, and it decides which turns are traced at all: the
// services sample as their caller says (parent-based), so an untraced turn costs what it costs
// in production without an exporter.
import { randomBytes } from 'node:crypto';

export class TraceTags {
  private readonly phaseOf = new Map<string, string>();
  private current: string | undefined;
  private counter = 0;

  /** @param sampleEvery trace one turn in this many (1: every turn). */
  constructor(private readonly sampleEvery = 1) {
    if (!Number.isInteger(sampleEvery) || sampleEvery < 1)
      throw new Error(`sampleEvery must be a positive integer (got ${sampleEvery})`);
  }

  /** Turns from now on belong to `phase` (undefined: to none, and they are not traced). */
  enter(phase: string | undefined): void {
    this.current = phase;
  }

  /** The header for the next turn. */
  headers(): Record<string, string> {
    const traceId = randomBytes(16).toString('hex');
    const parent = randomBytes(8).toString('hex');
    const sampled = this.current !== undefined && this.counter++ % this.sampleEvery === 0;
    if (sampled) this.phaseOf.set(traceId, this.current!);
    return { traceparent: `00-${traceId}-${parent}-${sampled ? '01' : '00'}` };
  }

  /** The phase a traced turn was sent in. */
  phase(traceId: string): string | undefined {
    return this.phaseOf.get(traceId);
  }

  /** How many traced turns each phase sent. */
  sent(): Map<string, number> {
    const counts = new Map<string, number>();
    for (const phase of this.phaseOf.values()) counts.set(phase, (counts.get(phase) ?? 0) + 1);
    return counts;
  }
}
