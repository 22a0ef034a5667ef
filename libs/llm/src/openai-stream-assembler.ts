import type { ToolCallDelta } from '@platform/agent-loop';
import type OpenAI from 'openai';

type Chunk = OpenAI.Chat.Completions.ChatCompletionChunk;
type DeltaToolCall = OpenAI.Chat.Completions.ChatCompletionChunk.Choice.Delta.ToolCall;
type WireMessage = OpenAI.Chat.Completions.ChatCompletionMessage;
type WireToolCall = OpenAI.Chat.Completions.ChatCompletionMessageToolCall;

/** A streamed completion put back together, in the non-streaming wire shapes. */
export interface AssembledCompletion {
  /** The message as `chat.completions.create` without `stream` would have returned it. */
  message: WireMessage;
  finishReason: string | null;
  usage: OpenAI.CompletionUsage | undefined;
  /** The model the provider says answered (from the chunks), if any chunk named one. */
  model: string | undefined;
}

// Fields the assembler itself consumes; anything else on a delta is provider-specific and kept.
const MESSAGE_DELTA_KEYS = new Set(['role', 'content', 'tool_calls', 'refusal', 'function_call']);
const TOOL_CALL_DELTA_KEYS = new Set(['index', 'id', 'type', 'function']);

interface PartialToolCall {
  id: string;
  type: string;
  name: string;
  arguments: string;
  extra: Record<string, unknown>;
}

/**
 * Merges provider-specific delta fields. Strings are streamed as pieces (e.g. `reasoning_content`
 * of DeepSeek/vLLM), so they concatenate like `content`; other values (objects such as Gemini's
 * `extra_content`) are sent whole, so the latest one wins.
 */
function mergeExtra(into: Record<string, unknown>, delta: object, known: Set<string>): void {
  for (const [key, value] of Object.entries(delta)) {
    if (known.has(key) || value === undefined || value === null) continue;
    const previous = into[key];
    into[key] = typeof value === 'string' && typeof previous === 'string' ? previous + value : value;
  }
}

/**
 * Rebuilds a Chat Completions answer from its stream chunks (first choice only; we never ask for
 * `n > 1`). Tool calls are keyed by their `index`: id, type and name come from the first delta of
 * an index, `arguments` is concatenated across all of them, because providers split it anywhere.
 * `onToolCallDelta` hears each call when it first appears and each piece of its arguments after.
 */
export class ChatStreamAssembler {
  private content = '';
  private sawContent = false;
  /** A refusal streams in pieces like content; it becomes the message's text (see fromOpenAIMessage). */
  private refusal = '';
  private readonly extra: Record<string, unknown> = {};
  private readonly toolCalls = new Map<number, PartialToolCall>();
  private lastIndex = -1;
  private finishReason: string | null = null;
  private usage: OpenAI.CompletionUsage | undefined;
  private model: string | undefined;

  constructor(private readonly onToolCallDelta?: (delta: ToolCallDelta) => void) {}

  /** Adds one chunk; returns the text it carried (empty string if none), for `onTextDelta`. */
  add(chunk: Chunk): string {
    if (chunk.model) this.model = chunk.model;
    // With include_usage the totals come in a last chunk with no choices; earlier chunks say null.
    if (chunk.usage) this.usage = chunk.usage;
    const choice = chunk.choices.find((c) => c.index === 0) ?? chunk.choices[0];
    if (!choice) return '';
    if (choice.finish_reason) this.finishReason = choice.finish_reason;
    const delta = choice.delta ?? {};
    mergeExtra(this.extra, delta, MESSAGE_DELTA_KEYS);
    for (const call of delta.tool_calls ?? []) this.addToolCall(call);
    if (typeof delta.refusal === 'string' && delta.refusal !== '') {
      this.refusal += delta.refusal;
      return delta.refusal;
    }
    if (typeof delta.content !== 'string' || delta.content === '') return '';
    this.sawContent = true;
    this.content += delta.content;
    return delta.content;
  }

  private addToolCall(delta: DeltaToolCall): void {
    // Some OpenAI-compatible servers omit `index`: a delta with an id starts a call, one without continues the last.
    const index =
      typeof delta.index === 'number' ? delta.index : delta.id ? this.lastIndex + 1 : Math.max(this.lastIndex, 0);
    this.lastIndex = Math.max(this.lastIndex, index);
    let call = this.toolCalls.get(index);
    const appears = !call;
    if (!call) {
      call = {
        id: delta.id ?? '',
        type: delta.type ?? 'function',
        name: delta.function?.name ?? '',
        arguments: '',
        extra: {},
      };
      this.toolCalls.set(index, call);
    } else {
      // Only the first delta is meant to carry these; fill them if it did not.
      call.id ||= delta.id ?? '';
      call.name ||= delta.function?.name ?? '';
    }
    const piece = delta.function?.arguments ?? '';
    call.arguments += piece;
    mergeExtra(call.extra, delta, TOOL_CALL_DELTA_KEYS);
    if (this.onToolCallDelta && (appears || piece))
      this.onToolCallDelta({ index, id: call.id, name: call.name, arguments: piece });
  }

  /** Whether the provider finished the answer (a stream cut short has no finish reason). */
  get finished(): boolean {
    return this.finishReason !== null;
  }

  /** The assembled answer so far. */
  result(): AssembledCompletion {
    const toolCalls = [...this.toolCalls.entries()]
      .sort(([a], [b]) => a - b)
      .map(
        ([, call]): WireToolCall =>
          ({
            ...call.extra,
            id: call.id,
            type: call.type,
            function: { name: call.name, arguments: call.arguments },
          }) as WireToolCall,
      );
    // Same shape as the non-streaming message: content is null when no text came (pure tool calls).
    const message = {
      ...this.extra,
      role: 'assistant',
      content: this.sawContent ? this.content : null,
      refusal: this.refusal || null,
      ...(toolCalls.length ? { tool_calls: toolCalls } : {}),
    } as WireMessage;
    return { message, finishReason: this.finishReason, usage: this.usage, model: this.model };
  }
}
