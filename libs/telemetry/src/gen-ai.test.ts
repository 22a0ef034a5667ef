import { SpanKind, SpanStatusCode } from '@opentelemetry/api';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { withChatSpan, withToolExecutionSpan } from './gen-ai.js';
import { installTestTracing, type TestTracing } from './test-support/tracing-harness.js';

let tracing: TestTracing;
beforeAll(() => {
  tracing = installTestTracing();
});
afterAll(() => tracing.uninstall());
beforeEach(() => tracing.reset());

describe('withChatSpan', () => {
  it('creates a CLIENT span `chat <model>` with request and response metadata only', async () => {
    const answer = await withChatSpan(
      { provider: 'openai', model: 'gpt-4o-mini', serverAddress: 'llm.internal', serverPort: 8080, maxTokens: 256 },
      (chat) => {
        chat.recordResponse({
          model: 'gpt-4o-mini-2024-07-18',
          id: 'chatcmpl-1',
          inputTokens: 31,
          outputTokens: 7,
          finishReasons: ['tool_calls'],
        });
        return 'the model said something private';
      },
    );

    expect(answer).toBe('the model said something private');
    const span = tracing.span('chat gpt-4o-mini');
    expect(span.kind).toBe(SpanKind.CLIENT);
    expect(span.attributes).toEqual({
      'gen_ai.operation.name': 'chat',
      'gen_ai.provider.name': 'openai',
      'gen_ai.system': 'openai',
      'gen_ai.request.model': 'gpt-4o-mini',
      'gen_ai.request.max_tokens': 256,
      'server.address': 'llm.internal',
      'server.port': 8080,
      'gen_ai.response.model': 'gpt-4o-mini-2024-07-18',
      'gen_ai.response.id': 'chatcmpl-1',
      'gen_ai.usage.input_tokens': 31,
      'gen_ai.usage.output_tokens': 7,
      'gen_ai.response.finish_reasons': ['tool_calls'],
    });
    // Content never reaches the span.
    expect(JSON.stringify(span.attributes)).not.toContain('private');
  });

  it('omits metadata that was not reported', async () => {
    await withChatSpan({ provider: 'openai', model: 'm' }, () => undefined);
    expect(Object.keys(tracing.span('chat m').attributes).sort()).toEqual([
      'gen_ai.operation.name',
      'gen_ai.provider.name',
      'gen_ai.request.model',
      'gen_ai.system',
    ]);
  });

  it('marks a failed call with error.type', async () => {
    class RateLimitError extends Error {
      override name = 'RateLimitError';
    }
    await expect(
      withChatSpan({ provider: 'openai', model: 'm' }, () => Promise.reject(new RateLimitError('429'))),
    ).rejects.toThrow('429');
    const span = tracing.span('chat m');
    expect(span.status.code).toBe(SpanStatusCode.ERROR);
    expect(span.attributes['error.type']).toBe('RateLimitError');
  });
});

describe('withToolExecutionSpan', () => {
  it('creates an INTERNAL span `execute_tool <name>` with the tool attributes', async () => {
    await withToolExecutionSpan({ toolName: 'calculator', toolCallId: 'call_abc', toolType: 'extension' }, () => 4);
    const span = tracing.span('execute_tool calculator');
    expect(span.kind).toBe(SpanKind.INTERNAL);
    expect(span.attributes).toEqual({
      'gen_ai.operation.name': 'execute_tool',
      'gen_ai.tool.name': 'calculator',
      'gen_ai.tool.call.id': 'call_abc',
      'gen_ai.tool.type': 'extension',
    });
  });

  it('parents the tool span under the chat turn that is active', async () => {
    await withChatSpan({ provider: 'openai', model: 'm' }, () =>
      withToolExecutionSpan({ toolName: 'search' }, () => undefined),
    );
    expect(tracing.span('execute_tool search').parentSpanContext?.spanId).toBe(
      tracing.span('chat m').spanContext().spanId,
    );
  });
});
