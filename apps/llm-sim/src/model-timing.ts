import { createLatencySampler, type LatencyDistribution, type LatencySampler } from './latency-distribution.js';
import type { ModelLatency } from './latency-setting.js';
import type { Scenario, ScenarioStep } from './scenario-schema.js';
import { intervalForRate } from './stream-pacing.js';

/** When one chat completion answers, and how fast it streams. */
export interface CallTiming {
  /** Waited before the answer (before the first chunk when streaming). */
  delayMs: number;
  /** The part of `delayMs` drawn from a latency distribution; null when none applies. */
  drawnMs: number | null;
  /** Spacing of the stream's chunks (0: as fast as they can be written). */
  chunkIntervalMs: number;
}

/**
 * The model's timing: the global latency setting (from the configuration, replaced by
 * `PUT /_sim/latency`) and one seeded sampler per distribution in use, so the sequence of drawn
 * delays of each is reproducible. A scenario's `latency` draws from the scenario's own sampler.
 */
export class ModelTiming {
  private setting: ModelLatency;
  private globalSampler: LatencySampler | undefined;
  private readonly scenarioSamplers = new Map<string, LatencySampler>();

  /** @param initial the setting at boot, which a reset returns to. */
  constructor(private readonly initial: ModelLatency) {
    this.setting = initial;
    this.globalSampler = samplerOf(initial.distribution);
  }

  /** The global setting in force. */
  current(): ModelLatency {
    return this.setting;
  }

  /** Replaces the global setting; its distribution starts again from its seed. */
  set(setting: ModelLatency): void {
    this.setting = setting;
    this.globalSampler = samplerOf(setting.distribution);
  }

  /** Back to the boot setting, every sampler from its seed again. */
  reset(): void {
    this.set(this.initial);
    this.scenarioSamplers.clear();
  }

  /**
   * The timing of one call answered by `step` of `scenario`: the step's `delayMs`, the global fixed
   * `delayMs` and one draw from the scenario's distribution, else the global one; chunks spaced by
   * the step's `chunkDelayMs`, else the scenario's `tokensPerSecond`, else the global one.
   */
  timingOf(scenario: Scenario, step: ScenarioStep): CallTiming {
    const sampler = scenario.latency ? this.scenarioSampler(scenario.name, scenario.latency) : this.globalSampler;
    const drawnMs = sampler ? sampler() : null;
    const tokensPerSecond = scenario.tokensPerSecond ?? this.setting.tokensPerSecond;
    return {
      delayMs: (step.delayMs ?? 0) + this.setting.delayMs + (drawnMs ?? 0),
      drawnMs,
      chunkIntervalMs: step.chunkDelayMs ?? (tokensPerSecond ? intervalForRate(tokensPerSecond) : 0),
    };
  }

  private scenarioSampler(name: string, distribution: LatencyDistribution): LatencySampler {
    let sampler = this.scenarioSamplers.get(name);
    if (!sampler) {
      sampler = createLatencySampler(distribution);
      this.scenarioSamplers.set(name, sampler);
    }
    return sampler;
  }
}

function samplerOf(distribution: LatencyDistribution | null): LatencySampler | undefined {
  return distribution ? createLatencySampler(distribution) : undefined;
}
