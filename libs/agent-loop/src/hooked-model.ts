import type { EventEmitter } from './events.js';
import type { LoopHooks } from './hooks.js';
import type { ModelPort, ModelRequest, ModelResponse } from './model-port.js';

/** Wraps a model so every call of one iteration passes through the before/after model hooks. */
export function hookedModel(model: ModelPort, hooks: LoopHooks, iteration: number, events: EventEmitter): ModelPort {
  if (!hooks.beforeModelCall && !hooks.afterModelCall) return model;
  return {
    provider: model.provider,
    model: model.model,
    async complete(request: ModelRequest): Promise<ModelResponse> {
      let effective = request;
      if (hooks.beforeModelCall) {
        try {
          effective = (await hooks.beforeModelCall({ iteration, request })) ?? request;
        } catch (err) {
          events.emit({ type: 'hook_error', hook: 'beforeModelCall', message: (err as Error)?.message ?? String(err) });
        }
      }
      const response = await model.complete(effective);
      if (!hooks.afterModelCall) return response;
      try {
        return (await hooks.afterModelCall({ iteration, request: effective, response })) ?? response;
      } catch (err) {
        events.emit({ type: 'hook_error', hook: 'afterModelCall', message: (err as Error)?.message ?? String(err) });
        return response;
      }
    },
  };
}
