// The tool under test and the call shape of one orchestrator turn, shared by the runner process,
// the bench (main.ts) and the in-process breakdown.
import { defineTool } from '@platform/tool-sdk';
import { z } from 'zod';
import { NOOP_TOOL } from './protocol.js';

/** Answers an empty object at once: every microsecond of a call to it is the platform's or NATS's. */
export const noopTool = defineTool({
  name: NOOP_TOOL,
  description: 'Does nothing and answers an empty object at once (benchmark).',
  input: z.object({ text: z.string().max(1_000).optional() }),
  handler: async () => ({}),
});

/** What one turn of the orchestrator carries into every tool call it makes (RunnerToolPort.run). */
export const turnScope = {
  tenantId: 'acme-corp',
  conversationId: 'conv-7f3c2a9e-5b1d-4c8e-9a2f-1e6d8b4c3a21',
  runId: 'run-0b9e4d2c-8a7f-4e61-b3c5-9d2a7e1f6c48',
} as const;

/** The model's arguments for the no-op tool. */
export const noopArguments: Record<string, unknown> = { text: 'benchmark' };

/** A call id shaped like the ones models produce (`call_` + 24 characters). */
export function callIdFor(seq: number): string {
  return `call_${seq.toString(36).padStart(24, '0')}`;
}
