import { randomBytes } from 'node:crypto';
import type { ModelPort, ModelRequest, ModelResponse } from '@platform/agent-loop';
import type { AssistantMessage } from '@platform/contracts';
import { finalAnswerStream } from './final-answer-stream.js';
import { parseReActReply } from './react-parser.js';
import type { ReActParseError } from './react-reply.js';
import { TEXT_PROTOCOL_FIELD, renderTextView, type TextProtocolFields } from './render-history.js';
import { renderAnswerOnlyProtocol, renderAnswerSchemaRule, renderToolProtocol } from './render-prompt.js';

/**
 * A model response under the text protocol. `protocolFeedback` is set when the reply could not be
 * parsed: it is the observation the model should get next, so the loop can let it correct itself.
 */
export interface TextProtocolResponse extends ModelResponse {
  protocolFeedback?: string;
}

/** Options of `TextProtocolModel`. */
export interface TextProtocolModelOptions {
  /** Makes the ids of parsed tool calls (default `call_tp_` and 24 random hex digits). */
  newCallId?: () => string;
}

/**
 * How a request is served: `tools` teaches the protocol and parses actions; `answer` (tools present
 * but `toolChoice: 'none'`, or a history with tool traffic) asks for a final answer only; `plain`
 * (a chat without tools) passes the reply through.
 */
type Mode = 'tools' | 'answer' | 'plain';

function modeOf(request: ModelRequest): Mode {
  if (request.tools.length && request.toolChoice !== 'none') return 'tools';
  const toolTraffic = request.messages.some(
    (m) => m.role === 'tool' || (m.role === 'assistant' && m.toolCalls?.length),
  );
  return request.tools.length || toolTraffic ? 'answer' : 'plain';
}

/** The observation that tells the model what was wrong with its reply and what shape is expected. */
function protocolFeedbackFor(error: ReActParseError): string {
  return `Observation: Error parsing your response: ${error.message}. Reply with Thought: then either Action: {"tool": "<tool name>", "arguments": {...}} or Final Answer: <your answer>.`;
}

const defaultCallId = () => `call_tp_${randomBytes(12).toString('hex')}`;

/**
 * The model port for models without native tool calling (or where it is unreliable): tools are
 * described in the system prompt, the model writes `Thought:` / `Action: {json}` / `Final Answer:`
 * text, and the reply is parsed back into native tool calls. The wrapped model is always called
 * with no tools, and sees tool history as text (see `renderTextView`), never as `tool` messages.
 */
export class TextProtocolModel implements ModelPort {
  readonly provider: string;
  readonly model: string;
  private readonly newCallId: () => string;

  constructor(
    private readonly inner: ModelPort,
    options: TextProtocolModelOptions = {},
  ) {
    this.provider = inner.provider;
    this.model = inner.model;
    this.newCallId = options.newCallId ?? defaultCallId;
  }

  async complete(request: ModelRequest): Promise<TextProtocolResponse> {
    const mode = modeOf(request);
    const protocol =
      mode === 'tools' ? renderToolProtocol(request.tools) : mode === 'answer' ? renderAnswerOnlyProtocol() : undefined;
    // Structured output cannot hold a reply that may be an action (Thought / Action / Final
    // Answer): with tools, the schema is asked for in the prompt instead. Answer-only and plain
    // replies are the answer itself, so the response format goes on to the model.
    const { responseFormat, ...rest } = request;
    const inPrompt = mode === 'tools' && responseFormat !== undefined;
    const section = inPrompt ? `${protocol ?? ''}\n\n${renderAnswerSchemaRule(responseFormat.schema)}` : protocol;
    const onTextDelta =
      request.onTextDelta && mode !== 'plain'
        ? finalAnswerStream(request.onTextDelta, mode === 'tools' ? 'final-only' : 'final-or-prose')
        : request.onTextDelta;
    const response = await this.inner.complete({
      ...(inPrompt ? rest : request),
      messages: renderTextView(request.messages, section),
      tools: [],
      toolChoice: 'none',
      onTextDelta,
    });
    // A server that still returned native tool calls is taken at its word.
    if (mode === 'plain' || response.message.toolCalls?.length) return response;
    return mode === 'tools' ? this.readProtocolReply(response) : readAnswerReply(response);
  }

  private readProtocolReply(response: ModelResponse): TextProtocolResponse {
    const raw = response.message.content ?? '';
    const reply = parseReActReply(raw);
    const base = withRaw(response.message, raw);
    switch (reply.kind) {
      case 'action': {
        const toolCalls = [{ id: this.newCallId(), name: reply.tool, arguments: JSON.stringify(reply.arguments) }];
        return { ...response, message: { ...base, content: reply.thought, toolCalls }, finishReason: 'tool_calls' };
      }
      case 'final':
        return { ...response, message: { ...base, content: reply.answer } };
      case 'error':
        return { ...response, message: { ...base, content: raw }, protocolFeedback: protocolFeedbackFor(reply.error) };
    }
  }
}

/** An answer-only reply: the text after `Final Answer:` if the model used the label, else all of it. */
function readAnswerReply(response: ModelResponse): TextProtocolResponse {
  const raw = response.message.content ?? '';
  const reply = parseReActReply(raw);
  const content = reply.kind === 'final' ? reply.answer : raw.trim();
  return { ...response, message: { ...withRaw(response.message, raw), content } };
}

/** The inner message without tool calls, its raw text kept in provider fields for history rendering. */
function withRaw(message: AssistantMessage, raw: string): AssistantMessage {
  const { toolCalls: _none, ...rest } = message;
  const fields: TextProtocolFields = { raw };
  return { ...rest, providerFields: { ...(message.providerFields ?? {}), [TEXT_PROTOCOL_FIELD]: fields } };
}
