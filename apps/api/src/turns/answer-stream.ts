import type { RunEventEnvelope } from '@platform/contracts';
import type { SseStream } from '../events/sse.js';

/** The result of a streamed turn's `execution_end` event, as an OpenAI-style stream needs it. */
export interface StreamedResult {
  response?: string;
  output?: unknown;
  status?: string;
  stopReason?: string;
  usage?: { inputTokens?: number; outputTokens?: number; totalTokens?: number };
}

/** A finished turn's answer as text: a structured answer as its JSON, else the assistant's message. */
export function answerTextOf(result: StreamedResult): string {
  return result.output !== undefined ? JSON.stringify(result.output) : (result.response ?? '');
}

/** `S` is where the stream is written: an SSE stream, or any sink (A2A collects stream responses). */
export interface AnswerStreamHandlers<S = SseStream> {
  /** With an output schema the answer is sent whole at the end: the checked JSON, not the model's text. */
  structured: boolean;
  /** Before the run's first event. */
  start: (stream: S) => void;
  /** A piece of the answer's text. */
  delta: (stream: S, text: string) => void;
  /**
   * The run ended. `rest` is the answer not yet sent as deltas: all of it when none was (a
   * structured answer, a resumed run that replays without streaming, a stop message), else ''.
   */
  end: (stream: S, result: StreamedResult, rest: string) => void;
}

/**
 * Renders a run's events as the deltas of its final answer (the OpenAI-style streams: Chat
 * Completions, Responses). A model message's text is held until the message ends: text written
 * before tool calls is the model thinking aloud, not the answer, a retried call's partial text is
 * void, and the streamed answer must equal the final one.
 */
export function answerStream<S = SseStream>(
  handlers: AnswerStreamHandlers<S>,
): (stream: S, event: RunEventEnvelope) => void {
  let held: string[] = [];
  let streamedText = false;
  let started = false;
  return (stream, event) => {
    if (!started) {
      started = true;
      handlers.start(stream);
    }
    // A model call retried (or moved to a fallback model) streams its message again from the start.
    if (event.type === 'state_change' && event.data['state'] === 'retrying_model') held = [];
    if (event.type === 'message_chunk' && !handlers.structured && typeof event.data['delta'] === 'string')
      held.push(event.data['delta']);
    if (event.type === 'message_end') {
      const message = event.data['message'] as { toolCalls?: unknown[] } | undefined;
      if (!message?.toolCalls?.length) {
        for (const delta of held) handlers.delta(stream, delta);
        streamedText ||= held.length > 0;
      }
      held = [];
    }
    if (event.type !== 'execution_end') return;
    const result = (event.data['result'] ?? {}) as StreamedResult;
    handlers.end(stream, result, streamedText ? '' : answerTextOf(result));
  };
}
