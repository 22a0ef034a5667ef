import type { Clock } from './clock.js';
import type { LoopConfig } from './loop-config.js';
import { classifyModelFailure, type StepFailure } from './failures.js';
import { isModelError, ModelError } from './model-errors.js';
import type { ModelPort, ModelRequest, ModelResponse } from './model-port.js';
import type { RetryStrategy } from './model-retry.js';
import { ViewStages, type RequestView, type ViewStage, type ViewTarget } from './request-view.js';

export interface ModelCallParams {
  /** The primary model first, then the fallbacks in order. */
  models: readonly ModelPort[];
  buildView: (stage: ViewStage, target: ViewTarget) => RequestView;
  buildRequest: (view: RequestView, model: ModelPort) => ModelRequest;
  strategies: Readonly<Record<ModelError['kind'], RetryStrategy>>;
  config: LoopConfig;
  clock: Clock;
  signal: AbortSignal;
  /** Called after each failed call with what is done about it (`failure`: its classification), e.g. to emit a state change. */
  onRecovery?: (what: { error: ModelError; decision: string; model: string; failure?: StepFailure }) => void;
}

export type ModelCallOutcome =
  | {
      ok: true;
      response: ModelResponse;
      model: ModelPort;
      view: RequestView;
      retries: number;
      fallbackUsed: boolean;
      failures: StepFailure[];
    }
  | { ok: false; error: ModelError; view: RequestView | undefined; retries: number; failures: StepFailure[] };

function asModelError(error: unknown, model: ModelPort, signal: AbortSignal): ModelError {
  if (isModelError(error)) return error;
  if (signal.aborted)
    return new ModelError('cancelled', 'the model call was cancelled', {
      cause: error,
      provider: model.provider,
      model: model.model,
    });
  // An adapter that throws something unclassified has a bug; treat it as a provider failure.
  return new ModelError('server', `the model call failed: ${(error as Error)?.message ?? String(error)}`, {
    cause: error,
    provider: model.provider,
    model: model.model,
  });
}

/**
 * Calls the model, recovering by the registered strategy for each error kind: retry with
 * backoff, shrink the request view (context overflow: trim, then truncate tool results, then
 * force trim, then the next model), or move to the next model of the fallback list.
 */
export async function callModelWithRecovery(params: ModelCallParams): Promise<ModelCallOutcome> {
  let lastError: ModelError | undefined;
  let lastView: RequestView | undefined;
  let totalRetries = 0;
  const failures: StepFailure[] = [];
  for (const [index, model] of params.models.entries()) {
    let retries = 0;
    let stageIndex = 0;
    for (;;) {
      const view = params.buildView(ViewStages[stageIndex]!, { provider: model.provider, model: model.model });
      lastView = view;
      try {
        const response = await model.complete(params.buildRequest(view, model));
        return { ok: true, response, model, view, retries: totalRetries, fallbackUsed: index > 0, failures };
      } catch (thrown) {
        const error = asModelError(thrown, model, params.signal);
        lastError = error;
        if (params.signal.aborted) return { ok: false, error, view, retries: totalRetries, failures };
        const decision = params.strategies[error.kind](error, retries, params.config);
        const hasNextModel = index < params.models.length - 1;
        // Past the smallest view the overflow chain moves on like `next_model`.
        const movesOn =
          decision.action === 'shrink_view' && stageIndex === ViewStages.length - 1 ? 'next_model' : decision.action;
        const failure = classifyModelFailure(error.kind, movesOn, hasNextModel);
        if (failure) failures.push(failure);
        params.onRecovery?.({
          error,
          decision: decision.action,
          model: `${model.provider}/${model.model}`,
          ...(failure ? { failure } : {}),
        });
        if (decision.action === 'give_up') return { ok: false, error, view, retries: totalRetries, failures };
        if (decision.action === 'next_model') break;
        if (decision.action === 'shrink_view') {
          // Past the smallest view, a fallback model (perhaps with a larger context) may still fit it.
          if (stageIndex === ViewStages.length - 1) break;
          stageIndex += 1;
        } else {
          try {
            await params.clock.sleep(decision.delayMs, params.signal);
          } catch {
            return {
              ok: false,
              error: new ModelError('cancelled', 'cancelled while waiting to retry the model', { cause: error }),
              view,
              retries: totalRetries,
              failures,
            };
          }
          retries += 1;
        }
        totalRetries += 1;
      }
    }
  }
  return {
    ok: false,
    error: lastError ?? new ModelError('bad_request', 'no model is configured'),
    view: lastView,
    retries: totalRetries,
    failures,
  };
}
