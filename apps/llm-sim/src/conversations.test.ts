import type OpenAI from 'openai';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { calculatorTool, startSim, type RunningSim } from './test-support/sim.js';

// Multi-turn scenarios, platform-added `:resumed` exchanges and `toolReplies`, end to end through
// the official OpenAI client against the shipped scenarios.

type Message = OpenAI.Chat.Completions.ChatCompletionMessageParam;
type ToolCall = OpenAI.Chat.Completions.ChatCompletionMessageFunctionToolCall;
type Chunk = OpenAI.Chat.Completions.ChatCompletionChunk;
type Tool = OpenAI.Chat.Completions.ChatCompletionTool;
interface LogEntry {
  scenario: string | null;
  turnIndex: number | null;
  stepIndex: number | null;
  toolReply: string | null;
  status: number | null;
}

const fn = (name: string): Tool => ({
  type: 'function',
  function: { name, parameters: { type: 'object', properties: {} } },
});
const travelTools = [fn('flight_search'), fn('get_weather'), fn('send_email')];
const FLIGHTS = '{"flights":["UA 123 08:00","DL 456 12:30"]}';
const WEATHER = 'sunny, 22°C';

let sim: RunningSim;
let client: OpenAI;

beforeAll(async () => {
  sim = await startSim({
    scenarios: [
      {
        name: 'strict-turns',
        whenExhausted: 'error',
        turns: [{ steps: [{ content: 'first turn' }] }, { steps: [{ content: 'second turn' }] }],
      },
    ],
  });
  client = sim.client();
});
afterAll(() => sim.close());

const callsOf = (completion: OpenAI.Chat.Completions.ChatCompletion) =>
  (completion.choices[0]!.message.tool_calls ?? []) as ToolCall[];
const argsOf = (call: ToolCall): unknown => JSON.parse(call.function.arguments);
const content = (completion: OpenAI.Chat.Completions.ChatCompletion) => completion.choices[0]!.message.content;

/** The assistant tool call plus result the platform inserts when a waiting agent tool completes. */
function resumedExchange(original: ToolCall, result: string): Message[] {
  const id = `${original.id}:resumed`;
  return [
    { role: 'assistant', content: null, tool_calls: [{ ...original, id }] },
    { role: 'tool', tool_call_id: id, content: result },
  ];
}

async function lastLogEntries(n: number): Promise<LogEntry[]> {
  const log = (await (await fetch(`${sim.url}/_sim/requests`)).json()) as { requests: LogEntry[] };
  return log.requests.slice(-n);
}

async function collect(stream: AsyncIterable<Chunk>): Promise<Chunk[]> {
  const chunks: Chunk[] = [];
  for await (const chunk of stream) chunks.push(chunk);
  return chunks;
}

describe('multi-turn scenarios', () => {
  it('travel-trip: plans, emails (waiting for approval), then summarises all three results in turn 1', async () => {
    const messages: Message[] = [
      { role: 'system', content: 'You are a travel agent.' },
      { role: 'user', content: '[scenario:travel-trip] Plan a trip to NYC next Friday and email the team.' },
    ];
    const first = await client.chat.completions.create({ model: 'sim-1', messages, tools: travelTools });
    const searches = callsOf(first);
    expect(searches.map((c) => [c.function.name, argsOf(c)])).toEqual([
      ['flight_search', { origin: 'SFO', destination: 'NYC', date: 'next Friday' }],
      ['get_weather', { city: 'NYC', date: 'next Friday' }],
    ]);
    messages.push(
      first.choices[0]!.message,
      { role: 'tool', tool_call_id: searches[0]!.id, content: FLIGHTS },
      { role: 'tool', tool_call_id: searches[1]!.id, content: WEATHER },
    );

    const second = await client.chat.completions.create({ model: 'sim-1', messages, tools: travelTools });
    const email = callsOf(second)[0]!;
    expect(email.function.name).toBe('send_email');
    expect(argsOf(email)).toEqual({
      recipient: 'team@example.com',
      subject: 'NYC trip',
      body: `Flights: ${FLIGHTS} Weather: ${WEATHER}`,
    });

    // Without waiting, the turn would end with step 2.
    const notWaiting: Message[] = [
      ...messages,
      second.choices[0]!.message,
      { role: 'tool', tool_call_id: email.id, content: 'sent' },
    ];
    expect(
      content(await client.chat.completions.create({ model: 'sim-1', messages: notWaiting, tools: travelTools })),
    ).toBe('Done.');

    // The email waits for approval; the user says yes; the platform adds the completed exchange.
    messages.push(
      second.choices[0]!.message,
      { role: 'tool', tool_call_id: email.id, content: 'waiting for the user to approve' },
      { role: 'assistant', content: 'May I send the email to team@example.com?' },
      { role: 'user', content: 'yes' },
      ...resumedExchange(email, 'sent, message id 42'),
    );
    const summary = await client.chat.completions.create({ model: 'sim-1', messages, tools: travelTools });
    expect(summary.choices[0]!.finish_reason).toBe('stop');
    expect(content(summary)).toBe(
      `Completed: found flights (${FLIGHTS}), the weather is ${WEATHER}, and the email to the team was sent (sent, message id 42).`,
    );
    expect((await lastLogEntries(4)).map((e) => [e.scenario, e.turnIndex, e.stepIndex])).toEqual([
      ['travel-trip', 0, 0],
      ['travel-trip', 0, 1],
      ['travel-trip', 0, 2],
      ['travel-trip', 1, 0],
    ]);
  });

  it('travel-missing-field: asks, maps the answer with provide_fields (no marker needed), then quotes the flights', async () => {
    const messages: Message[] = [
      { role: 'user', content: '[scenario:travel-missing-field] Find me a flight from SFO next Friday.' },
    ];
    const first = await client.chat.completions.create({
      model: 'sim-1',
      messages,
      tools: [fn('flight_search'), fn('get_weather')],
    });
    const search = callsOf(first)[0]!;
    expect([search.function.name, argsOf(search)]).toEqual(['flight_search', { origin: 'SFO', date: 'next Friday' }]);
    messages.push(
      first.choices[0]!.message,
      { role: 'tool', tool_call_id: search.id, content: 'waiting for the user: destination' },
      { role: 'assistant', content: 'Where do you want to fly to?' },
      { role: 'user', content: 'New York, please' },
    );

    // The side request sees only the question and the answer: no marker, so the default scenario is
    // selected, and the reply comes from the one scenario that defines provide_fields.
    const side = await client.chat.completions.create({
      model: 'sim-1',
      messages: [
        { role: 'system', content: 'Map the user reply to the missing fields.' },
        { role: 'user', content: 'Missing: destination. Reply: New York, please' },
      ],
      tools: [fn('provide_fields')],
      tool_choice: { type: 'function', function: { name: 'provide_fields' } },
    });
    expect(side.choices[0]!.finish_reason).toBe('tool_calls');
    expect(content(side)).toBeNull();
    expect(callsOf(side).map((c) => [c.function.name, argsOf(c)])).toEqual([
      ['provide_fields', { destination: 'NYC' }],
    ]);
    expect((await lastLogEntries(1))[0]).toMatchObject({
      scenario: 'travel-missing-field',
      toolReply: 'provide_fields',
      stepIndex: null,
      turnIndex: null,
      status: 200,
    });

    messages.push(...resumedExchange(search, FLIGHTS));
    const answer = await client.chat.completions.create({
      model: 'sim-1',
      messages,
      tools: [fn('flight_search'), fn('get_weather')],
    });
    expect(content(answer)).toBe(`Here are your flights: ${FLIGHTS}`);
  });

  it('applies whenExhausted to the last turn only, and uses the last turn past the end', async () => {
    const turn0: Message[] = [{ role: 'user', content: '[scenario:strict-turns] a' }];
    expect(content(await client.chat.completions.create({ model: 'sim-1', messages: turn0 }))).toBe('first turn');
    // Past turn 0's steps: replayed (not the last turn).
    turn0.push({ role: 'assistant', content: 'first turn' });
    expect(content(await client.chat.completions.create({ model: 'sim-1', messages: turn0 }))).toBe('first turn');
    const turn2: Message[] = [
      ...turn0,
      { role: 'user', content: 'b' },
      { role: 'assistant', content: 'second turn' },
      { role: 'user', content: 'c' },
    ];
    expect(content(await client.chat.completions.create({ model: 'sim-1', messages: turn2 }))).toBe('second turn');
    turn2.push({ role: 'assistant', content: 'second turn' });
    const error = await client.chat.completions.create({ model: 'sim-1', messages: turn2 }).catch((e: unknown) => e);
    expect((error as Error).message).toMatch(/"strict-turns" turn 1 has 1 step\(s\); step index 1 is past the end/);
  });
});

describe('toolReplies', () => {
  const approvalTool = fn('record_approval_decisions');

  it('approval-mixed: answers a forced record_approval_decisions, then closes the conversation', async () => {
    const reply = '[scenario:approval-mixed] Book the first one, and for the second I want a window seat.';
    const side = await client.chat.completions.create({
      model: 'sim-1',
      messages: [
        { role: 'system', content: 'Map this reply to approval decisions.' },
        { role: 'user', content: reply },
      ],
      tools: [approvalTool, fn('something_else')],
      tool_choice: 'required',
    });
    expect(callsOf(side).map((c) => [c.function.name, argsOf(c)])).toEqual([
      [
        'record_approval_decisions',
        {
          decisions: [
            { approval: 1, decision: 'approve' },
            { approval: 2, decision: 'edit', changes: { seat: 'window' } },
          ],
        },
      ],
    ]);

    // The main conversation continues after the platform ran the approved actions.
    const booking: ToolCall = {
      id: 'call_book1',
      type: 'function',
      function: { name: 'book_flight', arguments: '{}' },
    };
    const seat: ToolCall = {
      id: 'call_seat2',
      type: 'function',
      function: { name: 'book_seat', arguments: '{"seat":"window"}' },
    };
    const messages: Message[] = [
      { role: 'user', content: reply },
      {
        role: 'assistant',
        content: null,
        tool_calls: [
          { ...booking, id: 'call_book1:resumed' },
          { ...seat, id: 'call_seat2:resumed' },
        ],
      },
      { role: 'tool', tool_call_id: 'call_book1:resumed', content: 'booked' },
      { role: 'tool', tool_call_id: 'call_seat2:resumed', content: 'seat 12A' },
    ];
    const done = await client.chat.completions.create({
      model: 'sim-1',
      messages,
      tools: [fn('book_flight'), fn('book_seat')],
    });
    expect(content(done)).toBe('Done: both actions are handled.');
  });

  it('approval-cancel: a tool_choice naming the tool, streamed', async () => {
    const chunks = await collect(
      await client.chat.completions.create({
        model: 'sim-1',
        messages: [{ role: 'user', content: "[scenario:approval-cancel] No, don't send it." }],
        tools: [fn('other'), approvalTool],
        tool_choice: { type: 'function', function: { name: 'record_approval_decisions' } },
        stream: true,
      }),
    );
    const deltas = chunks.flatMap((c) => c.choices[0]?.delta.tool_calls ?? []);
    const header = deltas.filter((d) => d.id !== undefined);
    expect(header.map((d) => [d.index, d.function?.name])).toEqual([[0, 'record_approval_decisions']]);
    expect(header[0]!.id).toMatch(/^call_[0-9a-f]{24}$/);
    const args = deltas.filter((d) => d.id === undefined).map((d) => d.function?.arguments ?? '');
    expect(args.length).toBeGreaterThan(1);
    expect(JSON.parse(args.join(''))).toEqual({ decisions: [{ approval: 1, decision: 'cancel' }] });
    expect(chunks.at(-1)!.choices[0]!.finish_reason).toBe('tool_calls');

    const after = await client.chat.completions.create({
      model: 'sim-1',
      messages: [{ role: 'user', content: "[scenario:approval-cancel] No, don't send it." }],
    });
    expect(content(after)).toBe('Understood, I did not send it.');
  });

  it('behaves as before when no scenario has a reply for the forced tool, or nothing is forced', async () => {
    const forced = await client.chat.completions.create({
      model: 'sim-1',
      messages: [{ role: 'user', content: '[scenario:calculator] 12 * (3 + 4)' }],
      tools: [calculatorTool],
      tool_choice: 'required',
    });
    expect(callsOf(forced).map((c) => [c.function.name, argsOf(c)])).toEqual([
      ['calculator', { expression: '12 * (3 + 4)' }],
    ]);
    // Two tools, tool_choice auto: not a side request even though one tool has a reply.
    const auto = await client.chat.completions.create({
      model: 'sim-1',
      messages: [{ role: 'user', content: '[scenario:approval-mixed] hi' }],
      tools: [fn('record_approval_decisions'), fn('other')],
    });
    expect(content(auto)).toBe('Done: both actions are handled.');
    // tool_choice none disables tool replies too.
    const none = await client.chat.completions.create({
      model: 'sim-1',
      messages: [{ role: 'user', content: '[scenario:approval-mixed] hi' }],
      tools: [fn('record_approval_decisions')],
      tool_choice: 'none',
    });
    expect(content(none)).toBe('Done: both actions are handled.');
    expect((await lastLogEntries(3)).map((e) => [e.scenario, e.toolReply, e.stepIndex])).toEqual([
      ['calculator', null, 0],
      ['approval-mixed', null, 0],
      ['approval-mixed', null, 0],
    ]);
  });
});
