import { RunProtocol } from '@platform/contracts';
import { z } from 'zod';

/** An instant as the api writes it (ISO 8601, UTC). */
export const Timestamp = z.iso.datetime().meta({ example: '2026-06-01T09:30:00.000Z' });

/** An instant that may be unknown or not reached yet. */
export const OptionalTimestamp = Timestamp.nullable();

/** Tokens a run (or a day) used. */
export const TokenUsage = z
  .object({
    inputTokens: z.number().int().min(0),
    outputTokens: z.number().int().min(0),
    totalTokens: z.number().int().min(0),
  })
  .meta({ id: 'TokenUsage' });

/** A page token to pass back for the next page; null on the last page. */
export const NextPageToken = z
  .string()
  .nullable()
  .meta({ description: 'Pass as `pageToken` for the next page; null on the last one.' });

/** A JSON object whose shape belongs to another service (or to the client). */
export const JsonObject = z.record(z.string(), z.unknown());

/** The edge protocol a run's message came in by; null for a message the platform sent itself. */
export const RunProtocolField = RunProtocol.nullable().meta({
  description:
    "The protocol the run's message came in by (docs/protocols.md): rest, chat_completions, responses, mcp, a2a or ag_ui; null for a message the platform sent itself (a trigger's fire, a child run).",
});

/** A protocol the orchestrator sent, as the API shows it: one it does not know (a newer build's) reads as null. */
export function runProtocolOf(protocol: string | undefined): RunProtocol | null {
  const parsed = RunProtocol.safeParse(protocol);
  return parsed.success ? parsed.data : null;
}
