// The "where the time goes" instrument of bench/turn (BREAKDOWN=1): the services export the
// spans of the turns the driver marks as traced to an OTLP sink in the bench process (parsed
// only between windows, so the driver is not slowed while it measures), and serve their
// event-loop delay and GC pauses (service-kit's runtime diagnostics). Each load window is cut into
// phases per turn and printed as tables.
import { setTimeout as sleep } from 'node:timers/promises';
import type { RuntimeSnapshot } from '@platform/service-kit';
import { startOtlpCollector, type OtlpCollector } from '@platform/testing';
import { printPhaseReport, type PhaseWindow } from './phase-report.js';
import { mergeRuntime, RuntimeWindows } from './runtime-windows.js';
import { TraceTags } from './trace-tags.js';
import { byTrace, phasesOfTrace } from './turn-phases.js';

export interface TimeBreakdownOptions {
  /** Trace one turn in this many (1: all). Every traced turn's spans are exported, which costs CPU in each service. */
  sampleEvery: number;
}

export class TimeBreakdown {
  private runtime: RuntimeWindows | undefined;
  private readonly windows: PhaseWindow[] = [];

  private constructor(
    private readonly collector: OtlpCollector,
    private readonly tags: TraceTags,
  ) {}

  static async start(options: TimeBreakdownOptions): Promise<TimeBreakdown> {
    return new TimeBreakdown(await startOtlpCollector({ deferParsing: true }), new TraceTags(options.sampleEvery));
  }

  /**
   * Environment for every service: spans exported to the sink (large batches and queue, so a
   * busy window drops none; no metrics), runtime diagnostics on a free port each.
   */
  get env(): Record<string, string> {
    return {
      OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: `${this.collector.endpoint}/v1/traces`,
      OTEL_BSP_MAX_QUEUE_SIZE: '65536',
      OTEL_BSP_MAX_EXPORT_BATCH_SIZE: '4096',
      OTEL_METRICS_EXPORTER: 'none',
      RUNTIME_DIAGNOSTICS_PORT: '0',
    };
  }

  /** The services' diagnostics ports (from their ready lines), once the platform runs. */
  attach(diagnosticsPorts: ReadonlyMap<string, number>): void {
    this.runtime = new RuntimeWindows(diagnosticsPorts);
  }

  /** Headers for the next turn: its trace, sampled when a window is open. */
  headers(): Record<string, string> {
    return this.tags.headers();
  }

  /** Runs `load` as one window; `answered` says how many turns it answered. */
  async window<T>(label: string, load: () => Promise<T>, answered: (result: T) => number): Promise<T> {
    await this.runtime?.begin();
    this.tags.enter(label);
    let result: T;
    try {
      result = await load();
    } finally {
      this.tags.enter(undefined);
    }
    const runtime = (await this.runtime?.end()) ?? new Map<string, RuntimeSnapshot>();
    const spans = await this.settledSpans();
    const turns = [...byTrace(spans)]
      .flatMap(([traceId, trace]) => (this.tags.phase(traceId) === label ? [phasesOfTrace(trace)] : []))
      .filter((t) => t !== undefined);
    const earlier = this.windows.find((w) => w.label === label);
    // A label seen before (the same rate in another round) adds to that window.
    if (earlier) {
      earlier.turns.push(...turns);
      earlier.answered += answered(result);
      earlier.runtime = mergeRuntime(earlier.runtime, runtime);
    } else this.windows.push({ label, traced: 0, turns, runtime, answered: answered(result) });
    for (const w of this.windows) w.traced = this.tags.sent().get(w.label) ?? 0;
    return result;
  }

  /** Waits until the services stop exporting (their batches go out every half second) and takes the spans. */
  private async settledSpans(): Promise<ReturnType<OtlpCollector['takeSpans']>> {
    const spans: ReturnType<OtlpCollector['takeSpans']> = [];
    for (let quiet = 0, round = 0; quiet < 2 && round < 30; round++) {
      await sleep(700);
      const taken = this.collector.takeSpans();
      quiet = taken.length === 0 ? quiet + 1 : 0;
      for (const span of taken) spans.push(span);
    }
    return spans;
  }

  /** Prints the tables; `reference` is the window whose slowest turns are taken apart. */
  print(reference: string, out: (line: string) => void): void {
    printPhaseReport(this.windows, reference, out);
  }

  stop(): Promise<void> {
    return this.collector.stop();
  }
}
