import { z } from 'zod';
import { FAULT_KINDS, type FaultSpec } from './scenario-schema.js';

/**
 * A fault armed for the next embeddings requests (`POST /_sim/embeddings/faults`): the same kinds
 * as a scenario step's fault (`stream_cut` drops the connection), plus `delayMs` to simulate a
 * slow provider. `times` counts requests, whatever their input.
 */
export const ArmedEmbeddingFaultSchema = z
  .strictObject({
    kind: z.enum(FAULT_KINDS).optional(),
    times: z.union([z.number().int().positive(), z.literal('always')]).default(1),
    retryAfterSeconds: z.number().nonnegative().optional(),
    message: z.string().min(1).optional(),
    delayMs: z.number().int().nonnegative().optional(),
  })
  .refine((f) => f.kind !== undefined || f.delayMs !== undefined, { message: 'needs "kind", "delayMs" or both' });

/** A validated armed fault. */
export type ArmedEmbeddingFault = z.infer<typeof ArmedEmbeddingFaultSchema>;

/** What one embeddings request must suffer: a wait, then possibly an error. */
export interface EmbeddingMishap {
  delayMs: number;
  fault: FaultSpec | undefined;
}

/** Faults armed at run time for `/v1/embeddings`; there is no per-step script for embeddings. */
export class EmbeddingFaults {
  private armed: { spec: ArmedEmbeddingFault; remaining: number | 'always' } | undefined;

  /** Arms `spec` (replacing what was armed before). */
  arm(spec: ArmedEmbeddingFault): void {
    this.armed = { spec, remaining: spec.times };
  }

  /** Takes the mishap for one arriving request (counting it against `times`). */
  take(): EmbeddingMishap {
    const armed = this.armed;
    if (!armed) return { delayMs: 0, fault: undefined };
    if (armed.remaining !== 'always') {
      armed.remaining -= 1;
      if (armed.remaining <= 0) this.armed = undefined;
    }
    const { delayMs, kind, times, retryAfterSeconds, message } = armed.spec;
    const fault = kind === undefined ? undefined : { kind, times, retryAfterSeconds, message };
    return { delayMs: delayMs ?? 0, fault };
  }

  /** Disarms. */
  clear(): void {
    this.armed = undefined;
  }
}
