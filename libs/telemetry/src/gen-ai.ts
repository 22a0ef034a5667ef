// Spans for model calls and tool executions, following the OpenTelemetry GenAI semantic conventions.
// Only metadata goes into attributes: never prompts, completions, tool arguments/results or keys.
import { SpanKind, type Attributes, type Span } from '@opentelemetry/api';
import { recordChatCall } from './metrics.js';
import { ATTR, TRACER_NAME, VALUE } from './semconv.js';
import { errorType } from './span-status.js';
import { withSpan } from './with-span.js';

/** What is known before a chat-completion call. */
export interface ChatRequestInfo {
  /** Provider, e.g. `openai` (written to `gen_ai.provider.name` and the older `gen_ai.system`). */
  readonly provider: string;
  /** Model requested, e.g. `gpt-4o-mini`; also names the span `chat <model>`. */
  readonly model: string;
  readonly serverAddress?: string;
  readonly serverPort?: number;
  readonly maxTokens?: number;
  readonly temperature?: number;
}

/** What the provider reported back. */
interface ChatResponseInfo {
  /** Model that actually answered. */
  readonly model?: string;
  readonly id?: string;
  readonly inputTokens?: number;
  readonly outputTokens?: number;
  /** One entry per choice, e.g. `['stop']` or `['tool_calls']`. */
  readonly finishReasons?: readonly string[];
}

/** Handle passed to the body of {@link withChatSpan}. */
export interface ChatSpan {
  readonly span: Span;
  /** Records the response metadata (model, id, token usage, finish reasons) on the span. */
  recordResponse(response: ChatResponseInfo): void;
}

function defined(attributes: Record<string, string | number | readonly string[] | undefined>): Attributes {
  return Object.fromEntries(Object.entries(attributes).filter(([, value]) => value !== undefined));
}

/** Attributes of a chat span known at request time. */
function chatRequestAttributes(request: ChatRequestInfo): Attributes {
  return defined({
    [ATTR.genAiOperationName]: VALUE.genAiOperationChat,
    [ATTR.genAiProviderName]: request.provider,
    [ATTR.genAiSystem]: request.provider,
    [ATTR.genAiRequestModel]: request.model,
    [ATTR.genAiRequestMaxTokens]: request.maxTokens,
    [ATTR.genAiRequestTemperature]: request.temperature,
    [ATTR.serverAddress]: request.serverAddress,
    [ATTR.serverPort]: request.serverPort,
  });
}

/** Attributes of a chat span taken from the provider's response. */
function chatResponseAttributes(response: ChatResponseInfo): Attributes {
  return defined({
    [ATTR.genAiResponseModel]: response.model,
    [ATTR.genAiResponseId]: response.id,
    [ATTR.genAiUsageInputTokens]: response.inputTokens,
    [ATTR.genAiUsageOutputTokens]: response.outputTokens,
    [ATTR.genAiResponseFinishReasons]: response.finishReasons,
  });
}

/**
 * Runs one model call in a CLIENT span named `chat <model>` (`gen_ai.operation.name: chat`), and
 * records its `gen_ai.client.operation.duration` and `gen_ai.client.token.usage`. Call
 * `chat.recordResponse(...)` with the response metadata before returning. Errors are recorded
 * (with `error.type`) and rethrown.
 */
export function withChatSpan<T>(request: ChatRequestInfo, fn: (chat: ChatSpan) => T | Promise<T>): Promise<T> {
  const started = performance.now();
  let response: ChatResponseInfo | undefined;
  // The call's metrics (duration, token usage) are recorded whichever way it ends.
  const record = (failure?: string): void =>
    recordChatCall(
      {
        provider: request.provider,
        requestModel: request.model,
        responseModel: response?.model,
        inputTokens: response?.inputTokens,
        outputTokens: response?.outputTokens,
        errorType: failure,
      },
      (performance.now() - started) / 1000,
    );
  return withSpan(
    TRACER_NAME,
    `${VALUE.genAiOperationChat} ${request.model}`,
    { kind: SpanKind.CLIENT, attributes: chatRequestAttributes(request) },
    async (span) => {
      try {
        const result = await fn({
          span,
          recordResponse: (info) => {
            response = info;
            span.setAttributes(chatResponseAttributes(info));
          },
        });
        record();
        return result;
      } catch (error) {
        record(errorType(error));
        throw error;
      }
    },
  );
}

/** The tool call being executed. */
export interface ToolExecutionInfo {
  /** Tool name as the model called it; also names the span `execute_tool <name>`. */
  readonly toolName: string;
  /** The model's id for this call, linking the span to the tool call in the conversation. */
  readonly toolCallId?: string;
  /** `function` (client-side), `extension` (agent-side) or `datastore`. */
  readonly toolType?: 'function' | 'extension' | 'datastore';
}

/** Attributes of a tool-execution span. */
function toolExecutionAttributes(tool: ToolExecutionInfo): Attributes {
  return defined({
    [ATTR.genAiOperationName]: VALUE.genAiOperationExecuteTool,
    [ATTR.genAiToolName]: tool.toolName,
    [ATTR.genAiToolCallId]: tool.toolCallId,
    [ATTR.genAiToolType]: tool.toolType,
  });
}

/**
 * Runs one tool execution in an INTERNAL span named `execute_tool <name>`
 * (`gen_ai.operation.name: execute_tool`). Errors are recorded and rethrown.
 */
export function withToolExecutionSpan<T>(tool: ToolExecutionInfo, fn: (span: Span) => T | Promise<T>): Promise<T> {
  return withSpan(
    TRACER_NAME,
    `${VALUE.genAiOperationExecuteTool} ${tool.toolName}`,
    { kind: SpanKind.INTERNAL, attributes: toolExecutionAttributes(tool) },
    fn,
  );
}
