import { EventType, type BaseEvent, type RunFinishedOutcome } from '@ag-ui/core';
import type { RunEventEnvelope } from '@platform/contracts';

/** Stop reasons of a run that failed: its end is RUN_ERROR, with the stop reason as the code. */
const FAILED_STOPS = new Set(['model_error', 'plan_failed', 'invalid_output']);
/** Stop reasons of a run that ended before answering: RUN_FINISHED with the `cancelled` outcome. */
const CANCELLED_STOPS = new Set(['cancelled', 'rolled_back']);

interface AssistantMessageData {
  content?: string | null;
  toolCalls?: Array<{ id: string }>;
}

interface RunResultData {
  response?: string;
  output?: unknown;
  stopReason?: string;
  usage?: { inputTokens?: number; outputTokens?: number; totalTokens?: number };
}

export interface AgUiRun {
  threadId: string;
  /** The client's run id (RunAgentInput.runId), which AG-UI's run events carry. */
  runId: string;
  /** The shared state the client sent, sent back as the run's STATE_SNAPSHOT. */
  state?: unknown;
}

/**
 * Translates one run's platform events (docs/api.md, "Run events"), in order, into AG-UI events:
 * each model message is a text message (streamed as its deltas arrive), each tool call its
 * START/ARGS/END and its RESULT, and `execution_end` the RUN_FINISHED (or RUN_ERROR) that ends it.
 * A tool call whose arguments stream (`tool_call_args_delta`) starts when it first appears, has
 * one ARGS per piece and ends with its message; one that did not stream (a run that does not
 * stream, a model that sends arguments whole, a resumed run's replay) gets its arguments whole
 * when it starts to run.
 */
export class AgUiEventTranslator {
  private started = false;
  private messages = 0;
  /** The model message being written: its id, and whether its text message is open. */
  private messageId = '';
  private textOpen = false;
  private textSent = false;
  /** The message each tool call came with (its parentMessageId). */
  private readonly callMessage = new Map<string, string>();
  /** Tool calls started from their argument deltas; those still open end with their message. */
  private readonly streamedCalls = new Set<string>();
  private readonly openCalls = new Set<string>();

  constructor(
    private readonly run: AgUiRun,
    /** The platform's run id, told in RUN_STARTED's and RUN_FINISHED's metadata. */
    private platformRunId: string,
  ) {}

  /** The run that answers, once known (a keyed repeat is answered by an earlier run). */
  answeredBy(platformRunId: string): void {
    this.platformRunId = platformRunId;
  }

  translate(event: RunEventEnvelope): BaseEvent[] {
    const out = this.start();
    switch (event.type) {
      case 'message_start':
        this.nextMessage();
        break;
      case 'message_chunk':
        if (typeof event.data['delta'] === 'string' && event.data['delta']) out.push(...this.text(event.data['delta']));
        break;
      case 'state_change':
        // A retried model call writes its message again from the start: the partial one ends here.
        if (event.data['state'] === 'retrying_model') {
          out.push(...this.closeText(), ...this.closeCalls());
          this.nextMessage();
        }
        break;
      case 'message_end':
        out.push(...this.messageEnd(event.data['message'] as AssistantMessageData | undefined));
        break;
      case 'tool_call_args_delta':
        out.push(...this.argsDelta(String(event.data['callId']), String(event.data['name']), event.data['delta']));
        break;
      case 'tool_call_start':
        out.push(...this.toolCall(String(event.data['callId']), String(event.data['name']), event.data['arguments']));
        break;
      case 'tool_result':
        out.push({
          type: EventType.TOOL_CALL_RESULT,
          messageId: `${String(event.data['callId'])}-result`,
          toolCallId: String(event.data['callId']),
          content: typeof event.data['content'] === 'string' ? event.data['content'] : '',
          role: 'tool',
        });
        break;
      case 'execution_end':
        out.push(...this.end(event.data['result'] ?? {}));
        break;
      default:
        break;
    }
    return out;
  }

  /** A run that failed after its stream opened (e.g. the api's wait deadline passed): RUN_ERROR. */
  failed(error: { code?: string; message?: string }): BaseEvent[] {
    return [
      ...this.start(),
      ...this.closeText(),
      ...this.closeCalls(),
      {
        type: EventType.RUN_ERROR,
        message: error.message ?? 'the run failed',
        ...(error.code ? { code: error.code } : {}),
      },
    ];
  }

  private start(): BaseEvent[] {
    if (this.started) return [];
    this.started = true;
    const { threadId, runId, state } = this.run;
    return [
      { type: EventType.RUN_STARTED, threadId, runId, metadata: { platformRunId: this.platformRunId } },
      ...(state !== undefined && state !== null ? [{ type: EventType.STATE_SNAPSHOT, snapshot: state }] : []),
    ];
  }

  private nextMessage(): void {
    this.messages += 1;
    this.messageId = `${this.platformRunId}-m${this.messages}`;
  }

  private text(delta: string): BaseEvent[] {
    if (!this.messageId) this.nextMessage();
    const out: BaseEvent[] = [];
    if (!this.textOpen) {
      this.textOpen = true;
      out.push({ type: EventType.TEXT_MESSAGE_START, messageId: this.messageId, role: 'assistant' });
    }
    this.textSent = true;
    out.push({ type: EventType.TEXT_MESSAGE_CONTENT, messageId: this.messageId, delta });
    return out;
  }

  private closeText(): BaseEvent[] {
    if (!this.textOpen) return [];
    this.textOpen = false;
    return [{ type: EventType.TEXT_MESSAGE_END, messageId: this.messageId }];
  }

  private messageEnd(message: AssistantMessageData | undefined): BaseEvent[] {
    // Not streamed (the run does not stream, or resumed): the message's text whole.
    const out = !this.textOpen && message?.content ? this.text(message.content) : [];
    out.push(...this.closeText(), ...this.closeCalls());
    for (const call of message?.toolCalls ?? []) this.callMessage.set(call.id, this.messageId);
    return out;
  }

  /** A piece of a call's arguments as the model writes them: the call starts with its first. */
  private argsDelta(callId: string, name: string, delta: unknown): BaseEvent[] {
    if (!this.messageId) this.nextMessage();
    const out: BaseEvent[] = [];
    if (!this.streamedCalls.has(callId)) {
      this.streamedCalls.add(callId);
      this.openCalls.add(callId);
      out.push({
        type: EventType.TOOL_CALL_START,
        toolCallId: callId,
        toolCallName: name,
        parentMessageId: this.messageId,
      });
    }
    // A call whose message ended (or whose model call was retried) takes no more pieces.
    if (typeof delta === 'string' && delta && this.openCalls.has(callId))
      out.push({ type: EventType.TOOL_CALL_ARGS, toolCallId: callId, delta });
    return out;
  }

  /** The streamed calls still open: their arguments are complete (their message ended, or the run did). */
  private closeCalls(): BaseEvent[] {
    const out: BaseEvent[] = [...this.openCalls].map((toolCallId) => ({ type: EventType.TOOL_CALL_END, toolCallId }));
    this.openCalls.clear();
    return out;
  }

  private toolCall(callId: string, name: string, args: unknown): BaseEvent[] {
    // Its arguments streamed: the call started, and ended with its message.
    if (this.streamedCalls.has(callId)) return [];
    const parent = this.callMessage.get(callId);
    const delta = typeof args === 'string' ? args : '';
    return [
      {
        type: EventType.TOOL_CALL_START,
        toolCallId: callId,
        toolCallName: name,
        ...(parent ? { parentMessageId: parent } : {}),
      },
      ...(delta ? [{ type: EventType.TOOL_CALL_ARGS, toolCallId: callId, delta }] : []),
      { type: EventType.TOOL_CALL_END, toolCallId: callId },
    ];
  }

  private end(result: RunResultData): BaseEvent[] {
    const out = [...this.closeText(), ...this.closeCalls()];
    const stopReason = result.stopReason ?? '';
    if (FAILED_STOPS.has(stopReason))
      return [
        ...out,
        { type: EventType.RUN_ERROR, code: stopReason, message: result.response || `the run failed (${stopReason})` },
      ];
    // A run answered without message events (a resumed run's replay, a stop message): its answer whole.
    if (!this.textSent && result.response) {
      this.nextMessage();
      out.push(...this.text(result.response), ...this.closeText());
    }
    const outcome: RunFinishedOutcome = CANCELLED_STOPS.has(stopReason) ? { type: 'cancelled' } : { type: 'success' };
    const { inputTokens, outputTokens, totalTokens } = result.usage ?? {};
    out.push({
      type: EventType.RUN_FINISHED,
      threadId: this.run.threadId,
      runId: this.run.runId,
      outcome,
      result: {
        response: result.response ?? '',
        stopReason,
        ...(result.output !== undefined ? { output: result.output } : {}),
      },
      ...(result.usage ? { usage: [{ inputTokens, outputTokens, totalTokens }] } : {}),
      metadata: { platformRunId: this.platformRunId },
    });
    return out;
  }
}
