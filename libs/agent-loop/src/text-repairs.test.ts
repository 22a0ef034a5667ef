// Text a model or a tool produced that cannot be kept as it is (an unpaired surrogate, bytes that
// were not UTF-8) is repaired only with a record of it on the step, never silently.
import { describe, expect, it } from 'vitest';
import { runAgentLoop } from './agent-loop.js';
import { compileLoopConfig } from './loop-config.js';
import { FakeClock, FakeTools, reply, ScriptedModel } from './testing/index.js';

async function run(
  script: ConstructorParameters<typeof ScriptedModel>[0],
  tools: ConstructorParameters<typeof FakeTools>[0],
) {
  const clock = new FakeClock();
  return clock.settle(
    runAgentLoop(
      { runId: 'run-1', messages: [{ role: 'user', content: 'go' }] },
      { model: new ScriptedModel(script), tools: new FakeTools(tools, clock), clock, config: compileLoopConfig({}) },
    ),
  );
}

describe('text repairs', () => {
  it('repairs a model answer with an unpaired surrogate and records it on the step', async () => {
    const result = await run([reply.text('caf\ud800é')], {});
    expect(result.response).toBe('caf\ufffdé');
    expect(result.messages[0]).toMatchObject({ content: 'caf\ufffdé' });
    expect(result.transcript[0]!.textRepairs).toEqual([
      { source: 'model', field: 'content', detail: '1 unpaired UTF-16 surrogate replaced by U+FFFD' },
    ]);
  });

  it('repairs tool arguments and results, naming the call, and keeps the pairs intact', async () => {
    // Arguments whose JSON text holds a raw unpaired surrogate (an escaped one, `\\udc00`, is faithful JSON and stays).
    const call = {
      role: 'assistant' as const,
      content: null,
      toolCalls: [{ id: 'c1', name: 'lookup', arguments: '{"q":"x\udc00","r":"\\udc00"}' }],
    };
    const result = await run([call, reply.text('done')], {
      lookup: {
        run: () => ({
          status: 'success',
          content: 'bad \ud800 text',
          diagnostics: ['the runner answered with bytes that were not UTF-8'],
        }),
      },
    });
    const [stored, toolResult] = result.messages;
    expect(stored).toMatchObject({ toolCalls: [{ id: 'c1', arguments: '{"q":"x\ufffd","r":"\\udc00"}' }] });
    expect(toolResult).toMatchObject({ role: 'tool', toolCallId: 'c1', content: 'bad \ufffd text' });
    expect(result.transcript[0]!.textRepairs).toEqual([
      { source: 'model', callId: 'c1', field: 'arguments', detail: '1 unpaired UTF-16 surrogate replaced by U+FFFD' },
      { source: 'tool', callId: 'c1', field: 'content', detail: 'the runner answered with bytes that were not UTF-8' },
      { source: 'tool', callId: 'c1', field: 'content', detail: '1 unpaired UTF-16 surrogate replaced by U+FFFD' },
    ]);
    expect(result.transcript[1]!.textRepairs).toBeUndefined();
  });

  it('records what the model adapter repaired (a reply that was not UTF-8)', async () => {
    const result = await run(
      [
        () => ({
          message: { role: 'assistant', content: 'caf\ufffd' },
          usage: { inputTokens: 1, outputTokens: 1, totalTokens: 2 },
          finishReason: 'stop',
          diagnostics: ['the reply was not valid UTF-8'],
        }),
      ],
      {},
    );
    expect(result.response).toBe('caf\ufffd');
    expect(result.transcript[0]!.textRepairs).toEqual([
      { source: 'model', field: 'content', detail: 'the reply was not valid UTF-8' },
    ]);
  });

  it('records nothing when the text is well-formed', async () => {
    const result = await run([reply.text('emoji 😀 fine')], {});
    expect(result.transcript[0]!.textRepairs).toBeUndefined();
  });
});
