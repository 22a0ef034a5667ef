import { z } from 'zod';
import { answerTextOf, type StreamedResult } from '../turns/answer-stream.js';
import type { ResponseTextFormat } from './responses-format.js';

const OutputText = z.object({
  type: z.literal('output_text'),
  text: z.string(),
  annotations: z.array(z.unknown()),
});

/** The one output item of a response: the agent's final answer. */
const OutputMessage = z.object({
  id: z.string().meta({ description: '`msg_` and the run id without `run_`.' }),
  type: z.literal('message'),
  role: z.literal('assistant'),
  status: z.enum(['in_progress', 'completed', 'incomplete']),
  content: z.array(OutputText),
});

const ResponseUsage = z.object({
  input_tokens: z.number().int().min(0),
  input_tokens_details: z.object({ cached_tokens: z.number().int().min(0) }),
  output_tokens: z.number().int().min(0),
  output_tokens_details: z.object({ reasoning_tokens: z.number().int().min(0) }),
  total_tokens: z.number().int().min(0),
});

/** The statuses of a response (OpenAI's ResponseStatus). */
const ResponseStatus = z.enum(['completed', 'failed', 'in_progress', 'cancelled', 'queued', 'incomplete']);
type ResponseStatus = z.infer<typeof ResponseStatus>;

export const ResponseObject = z
  .object({
    id: z.string().meta({ description: 'The run id (`run_…`): GET /v1/runs/{runId} has the run behind it.' }),
    object: z.literal('response'),
    created_at: z.number().int(),
    status: ResponseStatus,
    model: z.string().meta({ description: 'The agent, as the request named it.' }),
    output: z.array(OutputMessage),
    error: z.object({ code: z.literal('server_error'), message: z.string() }).nullable(),
    incomplete_details: z.object({}).nullable(),
    instructions: z.string().nullable(),
    previous_response_id: z.string().nullable(),
    metadata: z.null(),
    parallel_tool_calls: z.boolean(),
    temperature: z.null(),
    top_p: z.null(),
    tool_choice: z.literal('auto'),
    tools: z.array(z.never()),
    text: z.object({ format: z.record(z.string(), z.unknown()) }),
    usage: ResponseUsage.nullable(),
  })
  .meta({ id: 'Response', description: 'An OpenAI Responses API response: a run of the agent `model` names.' });
export type ResponseObject = z.infer<typeof ResponseObject>;

/** What a response is made of: its run, as far as it has got. */
export interface ResponseFacts {
  runId: string;
  /** Seconds since the epoch. */
  createdAt: number;
  model: string;
  /** The run's status: queued, running, completed, waiting, failed or cancelled. */
  runStatus: string;
  /** The run's result, once it has one. */
  result?: StreamedResult | undefined;
  instructions: string | null;
  previousResponseId: string | null;
  format: ResponseTextFormat | undefined;
}

/** Stop reasons of a completed run whose answer was cut short. */
const CUT_SHORT = new Set(['max_turns', 'context_overflow', 'invalid_output']);

/**
 * A run's status as a response's: a run waiting for the user (an approval, an agent-tool's
 * question) or stopped at its turn limit is `incomplete` (the approvals API decides a waiting run,
 * and retrieving the response then shows how it ended).
 */
function statusOf(runStatus: string, stopReason: string | undefined): ResponseStatus {
  if (runStatus === 'queued') return 'queued';
  if (runStatus === 'running') return 'in_progress';
  // A cancelled run's last event may carry the turn's status, not the run's: its stop reason says it.
  if (runStatus === 'cancelled' || stopReason === 'cancelled') return 'cancelled';
  if (runStatus === 'failed') return 'failed';
  if (runStatus === 'waiting' || CUT_SHORT.has(stopReason ?? '')) return 'incomplete';
  return 'completed';
}

/** The id of a response's message item. */
export function messageIdOf(runId: string): string {
  return `msg_${runId.startsWith('run_') ? runId.slice('run_'.length) : runId}`;
}

/** The output message of a response holding `text`. */
export function outputMessage(runId: string, text: string, status: 'in_progress' | 'completed' | 'incomplete') {
  return {
    id: messageIdOf(runId),
    type: 'message' as const,
    role: 'assistant' as const,
    status,
    content: text || status !== 'in_progress' ? [{ type: 'output_text' as const, text, annotations: [] }] : [],
  };
}

/** The response object of a run. */
export function responseObject(facts: ResponseFacts): ResponseObject {
  const result = facts.result;
  const status = statusOf(facts.runStatus, result?.stopReason);
  const text = result ? answerTextOf(result) : '';
  const answered = result !== undefined && status !== 'failed' && text !== '';
  const usage = result?.usage;
  return {
    id: facts.runId,
    object: 'response',
    created_at: facts.createdAt,
    status,
    model: facts.model,
    output: answered ? [outputMessage(facts.runId, text, status === 'completed' ? 'completed' : 'incomplete')] : [],
    error:
      status === 'failed' ? { code: 'server_error', message: text || (result?.stopReason ?? 'the run failed') } : null,
    incomplete_details: status === 'incomplete' ? {} : null,
    instructions: facts.instructions,
    previous_response_id: facts.previousResponseId,
    metadata: null,
    parallel_tool_calls: false,
    temperature: null,
    top_p: null,
    tool_choice: 'auto',
    tools: [],
    text: { format: facts.format ?? { type: 'text' } },
    usage: result
      ? {
          input_tokens: usage?.inputTokens ?? 0,
          input_tokens_details: { cached_tokens: 0 },
          output_tokens: usage?.outputTokens ?? 0,
          output_tokens_details: { reasoning_tokens: 0 },
          total_tokens: usage?.totalTokens ?? 0,
        }
      : null,
  };
}
