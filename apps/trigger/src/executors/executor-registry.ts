import { ORCHESTRATOR_EXECUTOR } from '../task-spec.js';
import type { ExecutionOutcome, FireContext, FireExecutor } from './fire-executor.js';

/** Routes a fire to the orchestrator executor or to the custom executor its task names. */
export class ExecutorRegistry implements FireExecutor {
  constructor(
    private readonly orchestrator: FireExecutor,
    private readonly custom: FireExecutor,
  ) {}

  execute(fire: FireContext, signal: AbortSignal): Promise<ExecutionOutcome> {
    return fire.spec.executor === ORCHESTRATOR_EXECUTOR
      ? this.orchestrator.execute(fire, signal)
      : this.custom.execute(fire, signal);
  }
}
