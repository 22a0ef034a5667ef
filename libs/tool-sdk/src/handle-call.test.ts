import { ToolCallHeader, ToolCallMeta } from '@platform/contracts';
import { createLogger } from '@platform/service-kit';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineTool } from './define-tool.js';
import { handleToolCall } from './handle-call.js';

const tool = defineTool({ name: 'noop', description: 'Does nothing.', input: z.object({}), handler: async () => ({}) });
const env = {
  logger: createLogger({ service: 'test', level: 'silent' }),
  maxResultBytes: 1_000,
  shutdownSignal: new AbortController().signal,
};

const headerValue = fc.oneof(
  fc.constant(undefined),
  fc.string({ maxLength: 20 }),
  fc.stringMatching(/^[A-Za-z0-9][A-Za-z0-9._:-]{0,10}$/),
);
const deadline = fc.oneof(
  fc.constant(undefined),
  fc.string({ maxLength: 5 }),
  fc.integer({ min: -5, max: 2 ** 45 }).map(String),
);

describe('handleToolCall header checks', () => {
  it('accepts exactly the headers the protocol schema accepts', async () => {
    await fc.assert(
      fc.asyncProperty(
        headerValue,
        headerValue,
        headerValue,
        headerValue,
        deadline,
        async (callId, tenant, conversation, run, deadlineAt) => {
          const headers: Record<string, string | undefined> = {
            [ToolCallHeader.callId]: callId,
            [ToolCallHeader.tenant]: tenant,
            [ToolCallHeader.conversation]: conversation,
            [ToolCallHeader.run]: run,
            [ToolCallHeader.deadline]: deadlineAt,
          };
          const expected = ToolCallMeta.safeParse({
            callId,
            tenantId: tenant,
            conversationId: conversation,
            runId: run || undefined,
            deadlineAt,
          }).success;
          const response = await handleToolCall(tool, (key) => headers[key], '{"arguments":{}}', env);
          const rejected = response.status === 'invalid' && response.error.code === 'INVALID_REQUEST';
          expect(rejected).toBe(!expected);
        },
      ),
      { numRuns: 300 },
    );
  });
});
