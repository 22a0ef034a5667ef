import {
  allowsStrictMode,
  buildRequestView,
  callModelWithRecovery,
  ContextManager,
  DEFAULT_RETRY_STRATEGIES,
  ResponseFormatRejectedError,
  systemClock,
  type IterationRecord,
  type JsonSchemaResponseFormat,
  type ModelPort,
  type PlanCallNote,
  type PlanOutputMode,
  type TokenUsage,
} from '@platform/agent-loop';
import { NamedError, type ChatMessage } from '@platform/contracts';
import type { Logger } from '@platform/service-kit';
import type { RunnableAgent } from '../../profiles.js';
import { PLAN_JSON_SCHEMA } from './plan-schema.js';

/** The plan as asked for with structured output: the schema generated from the zod plan schema. */
const PLAN_RESPONSE_FORMAT: JsonSchemaResponseFormat = {
  type: 'json_schema',
  name: 'plan',
  schema: PLAN_JSON_SCHEMA,
  strict: allowsStrictMode(PLAN_JSON_SCHEMA),
};

/** The planner (or synthesis) model call failed on every model: the run fails with the message. */
export class PlanModelError extends NamedError {}

export interface PlanModelReply {
  text: string;
  usage: TokenUsage;
  /** The call's transcript entry: request view, model, output, usage, and what the call was for. */
  entry: IterationRecord;
}

export interface PlanModelCall {
  profile: RunnableAgent;
  messages: ChatMessage[];
  note: PlanCallNote;
  signal: AbortSignal;
  runId: string;
  logger: Logger;
}

/**
 * One model call of a plan-and-execute run, made like a ReAct step (request view, retries by error
 * kind, the profile's fallback models). The planner's call asks for the plan with structured
 * output when the profile's models have it (`structuredOutput`, default true); a provider that
 * refuses it is asked again in text (JSON-in-text), logged.
 */
export async function callPlanModel(call: PlanModelCall): Promise<PlanModelReply> {
  const started = Date.now();
  const structured = call.note.call === 'planner' && call.profile.structuredOutput;
  const first = await attempt(call, structured ? PLAN_RESPONSE_FORMAT : undefined);
  if (first.ok || !(first.error instanceof ResponseFormatRejectedError) || call.signal.aborted)
    return settle(call, first, structured ? 'json_schema' : 'text', started);
  call.logger.warn(
    { runId: call.runId, planVersion: call.note.planVersion, err: first.error.message },
    'the provider refused structured output for the plan; asking for JSON in text',
  );
  return settle(call, await attempt(call, undefined), 'text_fallback', started);
}

async function attempt(call: PlanModelCall, responseFormat: JsonSchemaResponseFormat | undefined) {
  const { profile } = call;
  const contextManager = new ContextManager(profile.loopConfig);
  return callModelWithRecovery({
    models: [profile.model, ...profile.fallbackModels] as readonly ModelPort[],
    buildView: (stage, target) => buildRequestView(call.messages, target, stage, contextManager, profile.loopConfig),
    buildRequest: (view) => ({
      messages: view.messages,
      tools: [],
      toolChoice: 'none',
      signal: call.signal,
      ...(responseFormat ? { responseFormat } : {}),
    }),
    strategies: DEFAULT_RETRY_STRATEGIES,
    config: profile.loopConfig,
    clock: systemClock,
    signal: call.signal,
  });
}

function settle(
  call: PlanModelCall,
  outcome: Awaited<ReturnType<typeof attempt>>,
  mode: PlanOutputMode,
  started: number,
): PlanModelReply {
  if (!outcome.ok)
    throw new PlanModelError(
      `the ${call.note.call === 'planner' ? 'planner' : 'synthesis'} model failed: ${outcome.error.message}`,
      { cause: outcome.error },
    );
  const { response, view, model, retries, fallbackUsed } = outcome;
  const text = typeof response.message.content === 'string' ? response.message.content : '';
  const entry: IterationRecord = {
    iteration: call.note.planVersion,
    view: {
      messages: view.messages.length,
      estimatedTokens: view.estimatedTokens,
      stage: view.stage,
      diagnostics: view.diagnostics,
    },
    model: { provider: model.provider, model: model.model, finishReason: response.finishReason, retries, fallbackUsed },
    output: response.message,
    tools: [],
    usage: response.usage,
    durationMs: Date.now() - started,
    plan: call.note.call === 'planner' ? { ...call.note, outputMode: mode } : call.note,
  };
  return { text, usage: response.usage, entry };
}
