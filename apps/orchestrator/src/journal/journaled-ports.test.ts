// Replaying a journal: what a crashed attempt finished is not done again; the rest is.
import {
  RunControl,
  runAgentLoop,
  systemClock,
  type ModelResponse,
  type ToolOutcome,
  type ToolPort,
} from '@platform/agent-loop';
import { FakeTools, reply, ScriptedModel } from '@platform/agent-loop/testing';
import { describe, expect, it } from 'vitest';
import { RunReplay, type StepWriter } from './journaled-ports.js';
import type { JournaledSteps } from './run-steps.js';

class MemoryJournal implements StepWriter {
  readonly models: ModelResponse[] = [];
  readonly tools = new Map<string, ToolOutcome>();
  /** Each write, in order: what it contained. */
  readonly writes: string[] = [];
  recordModels(
    models: ReadonlyArray<readonly [number, ModelResponse]>,
    heldTools: ReadonlyArray<readonly [string, ToolOutcome]>,
  ): Promise<void> {
    for (const [ordinal, response] of models) this.models[ordinal - 1] = response;
    for (const [id, outcome] of heldTools) this.tools.set(id, outcome);
    this.writes.push(
      [...models.map(([ordinal]) => `model ${ordinal}`), ...heldTools.map(([id]) => `tool ${id}`)].join(' + '),
    );
    return Promise.resolve();
  }
  recordTool(callId: string, outcome: ToolOutcome): Promise<void> {
    this.tools.set(callId, outcome);
    this.writes.push(`tool ${callId}`);
    return Promise.resolve();
  }
  snapshot(models = this.models.length, toolIds = [...this.tools.keys()]): JournaledSteps {
    return { models: this.models.slice(0, models), tools: new Map(toolIds.map((id) => [id, this.tools.get(id)!])) };
  }
}

const script = () => [
  reply.calls(['c1', 'add', { a: 1 }], ['c2', 'send', { to: 'x' }]),
  reply.calls(['c3', 'add', { a: 2 }]),
  reply.text('all done'),
];

function tools() {
  return new FakeTools(
    {
      add: { run: (args) => ({ status: 'success', content: `added ${JSON.stringify(args)}` }) },
      send: { run: () => ({ status: 'success', content: 'sent' }) },
    },
    systemClock,
  );
}

async function run(journal: JournaledSteps, writer: StepWriter, model: ScriptedModel, port: FakeTools) {
  const replay = new RunReplay(journal, writer);
  const result = await runAgentLoop(
    { runId: 'run_1', messages: [{ role: 'user', content: 'go' }] },
    { model: replay.model(model), tools: replay.tools(port) },
  );
  return { result, replay };
}

/** The same tools, described as side-effect free where named. */
function withSideEffects(port: FakeTools, pure: readonly string[]): ToolPort {
  return {
    list: () =>
      port.list().map((t) => ({ ...t, sideEffect: pure.includes(t.name) ? ('none' as const) : ('external' as const) })),
    execute: (call, context) => port.execute(call, context),
  };
}

describe('RunReplay', () => {
  it('journals side-effect outcomes at once and side-effect-free ones with the next model response', async () => {
    const journal = new MemoryJournal();
    const replay = new RunReplay({ models: [], tools: new Map() }, journal);
    await runAgentLoop(
      { runId: 'run_1', messages: [{ role: 'user', content: 'go' }] },
      { model: replay.model(new ScriptedModel(script())), tools: replay.tools(withSideEffects(tools(), ['add'])) },
    );
    // Response 1 asks for c2 (send, external): it is written before the calls run, and c2's outcome
    // alone as soon as it ends. c1 and c3 (add) ride with the next write, and so does response 2,
    // which asks for c3 only.
    expect(journal.writes).toEqual(['model 1', 'tool c2', 'model 2 + model 3 + tool c1 + tool c3']);
  });

  it('never holds back a response asking for an agent-tool, even one without side effects', async () => {
    const journal = new MemoryJournal();
    const replay = new RunReplay({ models: [], tools: new Map() }, journal);
    const port = tools();
    const agentLike: ToolPort = {
      list: () =>
        port.list().map((t) => ({
          ...t,
          sideEffect: 'none' as const,
          ...(t.name === 'send' ? { kind: 'agent' as const } : {}),
        })),
      execute: (call, context) => port.execute(call, context),
    };
    await runAgentLoop(
      { runId: 'run_1', messages: [{ role: 'user', content: 'go' }] },
      { model: replay.model(new ScriptedModel(script())), tools: replay.tools(agentLike) },
    );
    expect(journal.writes).toEqual(['model 1', 'model 2 + model 3 + tool c1 + tool c2 + tool c3']);
  });

  it('holds back a response that asks only for side-effect-free calls; a crash before the next write repeats only such work', async () => {
    const pureScript = () => [reply.calls(['c1', 'add', { a: 1 }]), reply.text('one added')];
    const first = new MemoryJournal();
    const firstModel = new ScriptedModel(pureScript());
    const replay = new RunReplay({ models: [], tools: new Map() }, first);
    const firstRun = await runAgentLoop(
      { runId: 'run_1', messages: [{ role: 'user', content: 'go' }] },
      { model: replay.model(firstModel), tools: replay.tools(withSideEffects(tools(), ['add'])) },
    );
    expect(first.writes).toEqual(['model 1 + model 2 + tool c1']);

    // A crash before that write left nothing: the resume asks the model again and re-runs c1 (pure).
    const model = new ScriptedModel(pureScript());
    const port = tools();
    const again = new RunReplay({ models: [], tools: new Map() }, new MemoryJournal());
    const result = await runAgentLoop(
      { runId: 'run_1', messages: [{ role: 'user', content: 'go' }] },
      { model: again.model(model), tools: again.tools(withSideEffects(port, ['add'])) },
    );
    expect(model.requests).toHaveLength(2);
    expect(port.calls.map((c) => c.id)).toEqual(['c1']);
    expect(result.messages).toEqual(firstRun.messages);
  });

  it('journals every model response and tool outcome of a fresh run', async () => {
    const journal = new MemoryJournal();
    const { result } = await run({ models: [], tools: new Map() }, journal, new ScriptedModel(script()), tools());
    expect(result.response).toBe('all done');
    expect(journal.models).toHaveLength(3);
    expect([...journal.tools.keys()].sort()).toEqual(['c1', 'c2', 'c3']);
  });

  it('resumes after a crash between a model response and its tool outcomes without repeating finished work', async () => {
    const first = new MemoryJournal();
    const firstModel = new ScriptedModel(script());
    const firstRun = await run({ models: [], tools: new Map() }, first, firstModel, tools());

    // The crash: the first response and c1's outcome were journaled; c2 was in flight.
    const journal = first.snapshot(1, ['c1']);
    const resumedJournal = new MemoryJournal();
    const model = new ScriptedModel(script().slice(1));
    const port = tools();
    const { result, replay } = await run(journal, resumedJournal, model, port);

    expect(port.calls.map((c) => c.id)).toEqual(['c2', 'c3']); // c1 not run again; c2 re-sent with its id
    expect(model.requests).toHaveLength(2); // the journaled first response was not asked again
    expect(replay.replaying).toBe(false);
    expect(result.response).toBe('all done');
    expect(result.messages).toEqual(firstRun.result.messages);
    expect([...resumedJournal.tools.keys()]).toEqual(['c2', 'c3']);
    expect(resumedJournal.models.filter(Boolean)).toHaveLength(2);
  });

  it('replays a fully journaled run without calling the model or any tool', async () => {
    const first = new MemoryJournal();
    const firstRun = await run({ models: [], tools: new Map() }, first, new ScriptedModel(script()), tools());
    const model = new ScriptedModel([reply.text('must not be asked')]);
    const port = tools();
    let wentLive = false;
    const replay = new RunReplay(first.snapshot(), new MemoryJournal());
    replay.onLive(() => (wentLive = true));
    const result = await runAgentLoop(
      { runId: 'run_1', messages: [{ role: 'user', content: 'go' }] },
      { model: replay.model(model), tools: replay.tools(port) },
    );
    expect(model.requests).toHaveLength(0);
    expect(port.calls).toHaveLength(0);
    expect(result.messages).toEqual(firstRun.result.messages);
    expect(wentLive).toBe(true); // the last journaled answer has no open calls: nothing is replayed after it
  });

  it('stays in replay while journaled calls are answered, and goes live at the first new step', async () => {
    const first = new MemoryJournal();
    await run({ models: [], tools: new Map() }, first, new ScriptedModel(script()), tools());
    const replay = new RunReplay(first.snapshot(2, ['c1', 'c2']), new MemoryJournal());
    expect(replay.replaying).toBe(true);
    const seen: boolean[] = [];
    const model = new ScriptedModel([reply.text('all done')]);
    const port = tools();
    const wrapped = replay.tools(port);
    await runAgentLoop(
      { runId: 'run_1', messages: [{ role: 'user', content: 'go' }] },
      {
        model: replay.model(model),
        tools: {
          list: () => wrapped.list(),
          execute: async (call, ctx) => (seen.push(replay.replaying), wrapped.execute(call, ctx)),
        },
      },
    );
    // Seen as each call starts: c1 and c2 come from the journal; c3 (asked by the 2nd journaled
    // response) is the first live work, and the run leaves replay when it runs.
    expect(seen).toEqual([true, true, true]);
    expect(port.calls.map((c) => c.id)).toEqual(['c3']);
    expect(replay.replaying).toBe(false);
  });

  it('stops the attempt when a journal write fails, instead of telling the model the tool failed', async () => {
    const journal = new MemoryJournal();
    // The tool's outcome cannot be written (Postgres went away just after the tool ran).
    const failing: StepWriter = {
      recordModels: (models, held) => journal.recordModels(models, held),
      recordTool: () => Promise.reject(new Error('connection terminated unexpectedly')),
    };
    const model = new ScriptedModel(script());
    const port = tools();
    const replay = new RunReplay({ models: [], tools: new Map() }, failing);
    const control = new RunControl();
    const failures: string[] = [];
    replay.onWriteFailure((err) => {
      failures.push((err as Error).message);
      control.cancel('journal write failed');
    });
    const result = await runAgentLoop(
      { runId: 'run_1', messages: [{ role: 'user', content: 'go' }] },
      { model: replay.model(model), tools: replay.tools(port), control },
    );
    expect(failures).toEqual(['connection terminated unexpectedly']);
    expect(result.stopReason).toBe('cancelled');
    // The model was asked once: it never read the unwritten outcome as a failure (and could not act on it).
    expect(model.requests).toHaveLength(1);
    expect(
      result.messages.some(
        (m) => m.role === 'tool' && m.errorCode === 'TOOL_PORT_FAILED' && m.content.includes('connection terminated'),
      ),
    ).toBe(false);
    // Nothing more goes through the replay once a write failed.
    await expect(replay.model(model).complete({ messages: [], tools: [], toolChoice: 'auto' })).rejects.toThrow(
      'connection terminated',
    );
    expect(model.requests).toHaveLength(1);
  });
});
