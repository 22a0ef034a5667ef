// Metrics the platform records itself, beside those of the auto-instrumentations (HTTP, gRPC,
// Postgres, undici). Model calls follow the OpenTelemetry GenAI conventions; turns and tool calls
// are the platform's own. Attributes stay low-cardinality: no conversation or run ids; the tenant
// only on the per-tenant token counter (dashboards show tokens by tenant; tenants are a bounded,
// configured set of customers, not end users).
import { metrics, type Attributes, type Counter, type Histogram, type MeterProvider } from '@opentelemetry/api';
import { ATTR, METER_NAME, METRIC, PLATFORM, VALUE } from './semconv.js';

/** Seconds-based buckets for operations from a few milliseconds to minutes. */
const DURATION_BUCKETS_S = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 120, 300];
/** Token counts, per the GenAI conventions' advice. */
const TOKEN_BUCKETS = [1, 4, 16, 64, 256, 1024, 4096, 16384, 65536, 262144, 1048576, 4194304];

interface Instruments {
  chatDuration: Histogram;
  tokenUsage: Histogram;
  toolDuration: Histogram;
  turnDuration: Histogram;
  tenantTokens: Counter;
  fireLag: Histogram;
  quotaRefusals: Counter;
}

let cached: { provider: MeterProvider; instruments: Instruments } | undefined;

/**
 * The instruments, made from the global meter provider the register entry installed. Made again
 * when that provider changes (a test installing its own), never at import: a library has no
 * import-time side effects.
 */
function instruments(): Instruments {
  const provider = metrics.getMeterProvider();
  if (cached?.provider === provider) return cached.instruments;
  const meter = provider.getMeter(METER_NAME);
  const made: Instruments = {
    chatDuration: meter.createHistogram(METRIC.genAiClientOperationDuration, {
      unit: 's',
      description: 'Duration of GenAI client operations (model calls)',
      advice: { explicitBucketBoundaries: DURATION_BUCKETS_S },
    }),
    tokenUsage: meter.createHistogram(METRIC.genAiClientTokenUsage, {
      unit: '{token}',
      description: 'Tokens used per model call, by type (input, output)',
      advice: { explicitBucketBoundaries: TOKEN_BUCKETS },
    }),
    toolDuration: meter.createHistogram(PLATFORM.toolDurationMetric, {
      unit: 's',
      description: 'Duration of tool calls as the orchestrator saw them, by tool and outcome',
      advice: { explicitBucketBoundaries: DURATION_BUCKETS_S },
    }),
    turnDuration: meter.createHistogram(PLATFORM.turnDurationMetric, {
      unit: 's',
      description: 'Duration of turns (a message through the whole pipeline), by profile, status and stop reason',
      advice: { explicitBucketBoundaries: DURATION_BUCKETS_S },
    }),
    tenantTokens: meter.createCounter(PLATFORM.tenantTokenUsageMetric, {
      unit: '{token}',
      description: 'Tokens used by finished turns, by tenant and type (input, output)',
    }),
    fireLag: meter.createHistogram(PLATFORM.fireLagMetric, {
      unit: 's',
      description: "Delay between a fire's scheduled time and the moment a trigger replica starts it, by fire kind",
      advice: { explicitBucketBoundaries: [0.1, 0.5, 1, 2, 5, 10, 30, 60, 120, 300, 900, 3600] },
    }),
    quotaRefusals: meter.createCounter(PLATFORM.quotaRefusalsMetric, {
      unit: '{request}',
      description: 'Requests refused with QUOTA_EXCEEDED, by quota and tier',
    }),
  };
  cached = { provider, instruments: made };
  return made;
}

/** One model call, for `gen_ai.client.operation.duration` and `gen_ai.client.token.usage`. */
export interface ChatCallRecord {
  provider: string;
  requestModel: string;
  responseModel?: string | undefined;
  inputTokens?: number | undefined;
  outputTokens?: number | undefined;
  /** Set when the call failed. */
  errorType?: string | undefined;
}

export function recordChatCall(call: ChatCallRecord, durationS: number): void {
  const { chatDuration, tokenUsage } = instruments();
  const attributes: Attributes = {
    [ATTR.genAiOperationName]: VALUE.genAiOperationChat,
    [ATTR.genAiProviderName]: call.provider,
    [ATTR.genAiRequestModel]: call.requestModel,
    ...(call.responseModel ? { [ATTR.genAiResponseModel]: call.responseModel } : {}),
  };
  chatDuration.record(durationS, call.errorType ? { ...attributes, [ATTR.errorType]: call.errorType } : attributes);
  if (call.inputTokens !== undefined)
    tokenUsage.record(call.inputTokens, { ...attributes, [ATTR.genAiTokenType]: VALUE.genAiTokenTypeInput });
  if (call.outputTokens !== undefined)
    tokenUsage.record(call.outputTokens, { ...attributes, [ATTR.genAiTokenType]: VALUE.genAiTokenTypeOutput });
}

/** One tool call as the orchestrator saw it (`status` is the loop's result status, e.g. `success`, `timeout`). */
export interface ToolCallRecord {
  toolName: string;
  status: string;
  /** The result's code when it did not succeed, e.g. `DEADLINE_EXCEEDED`, `TOOL_CIRCUIT_OPEN`. */
  errorCode?: string | undefined;
}

export function recordToolCall(call: ToolCallRecord, durationS: number): void {
  instruments().toolDuration.record(durationS, {
    [ATTR.genAiToolName]: call.toolName,
    [PLATFORM.toolStatus]: call.status,
    ...(call.errorCode ? { [ATTR.errorType]: call.errorCode } : {}),
  });
}

/** One finished turn. `profile` is an agent profile name (a bounded set, from configuration). */
export interface TurnRecord {
  profile: string;
  status: string;
  stopReason: string;
}

export function recordTurn(turn: TurnRecord, durationS: number): void {
  instruments().turnDuration.record(durationS, {
    [PLATFORM.profile]: turn.profile,
    [PLATFORM.runStatus]: turn.status,
    [PLATFORM.stopReason]: turn.stopReason,
  });
}

/** Tokens a finished turn used, for the per-tenant usage counter. */
export function recordTenantTokens(tenant: string, inputTokens: number, outputTokens: number): void {
  const { tenantTokens } = instruments();
  if (inputTokens > 0)
    tenantTokens.add(inputTokens, { [PLATFORM.tenant]: tenant, [ATTR.genAiTokenType]: VALUE.genAiTokenTypeInput });
  if (outputTokens > 0)
    tenantTokens.add(outputTokens, { [PLATFORM.tenant]: tenant, [ATTR.genAiTokenType]: VALUE.genAiTokenTypeOutput });
}

/** A fire started `lagS` seconds after its scheduled time (`kind`: schedule, event, condition, manual). */
export function recordFireLag(kind: string, lagS: number): void {
  instruments().fireLag.record(Math.max(0, lagS), { [PLATFORM.fireKind]: kind });
}

/** A request refused because its tenant reached `quota` (a QUOTA_NAMES value); `tier` is a configured tier name. */
export function recordQuotaRefusal(quota: string, tier: string): void {
  instruments().quotaRefusals.add(1, { [PLATFORM.quota]: quota, [PLATFORM.tier]: tier });
}

/** One observation of a gauge: its value and the attributes that tell the series apart. */
export interface GaugeReading {
  value: number;
  attributes?: Attributes;
}

/**
 * Reports a gauge read through `read` at each metric collection (e.g. a count a service keeps
 * up to date); `read` must be cheap (no I/O). Returns a function that stops reporting.
 */
export function observeGauge(
  name: string,
  options: { description: string; unit: string },
  read: () => readonly GaugeReading[],
): () => void {
  const gauge = metrics.getMeterProvider().getMeter(METER_NAME).createObservableGauge(name, options);
  const callback = (result: { observe(value: number, attributes?: Attributes): void }) => {
    for (const reading of read()) result.observe(reading.value, reading.attributes);
  };
  gauge.addCallback(callback);
  return () => gauge.removeCallback(callback);
}

/** One finished turn taken in by the memory service (`outcome`: stored, duplicate, empty, retried, dead_lettered). */
export function recordMemoryIngestion(outcome: string, durationS: number): void {
  const meter = metrics.getMeterProvider().getMeter(METER_NAME);
  let histogram = ingestHistograms.get(meter);
  if (!histogram) {
    histogram = meter.createHistogram(PLATFORM.memoryIngestDurationMetric, {
      unit: 's',
      description: 'Duration of memory ingestion of one finished turn (extraction and storage), by outcome',
      advice: { explicitBucketBoundaries: DURATION_BUCKETS_S },
    });
    ingestHistograms.set(meter, histogram);
  }
  histogram.record(durationS, { [PLATFORM.memoryIngestOutcome]: outcome });
}
const ingestHistograms = new WeakMap<object, Histogram>();

/** One classified failure (seed 003 §7): its class (llm, tool, planning, coordination, system), kind, severity and the recovery applied. */
export interface FailureRecord {
  failureClass: string;
  kind: string;
  severity: string;
  recovery: string;
}

/** Counts a classified failure as `platform.failures{platform.failure.class, .kind, .severity, .recovery}`. */
export function recordFailure(failure: FailureRecord): void {
  const meter = metrics.getMeterProvider().getMeter(METER_NAME);
  let counter = failureCounters.get(meter);
  if (!counter) {
    counter = meter.createCounter(PLATFORM.failuresMetric, {
      unit: '{failure}',
      description:
        'Classified failures of runs (model and tool calls, delegations, plans, infrastructure), by class, kind, severity and recovery',
    });
    failureCounters.set(meter, counter);
  }
  counter.add(1, {
    [PLATFORM.failureClass]: failure.failureClass,
    [PLATFORM.failureKind]: failure.kind,
    [PLATFORM.failureSeverity]: failure.severity,
    [PLATFORM.failureRecovery]: failure.recovery,
  });
}
const failureCounters = new WeakMap<object, Counter>();

/**
 * Reports a durable consumer's lag (messages not yet delivered plus delivered but unacknowledged)
 * as the gauge `platform.consumer.lag{platform.consumer=<name>}`, read through `read` at each
 * metric collection. Returns a function that stops reporting.
 */
export function observeConsumerLag(consumer: string, read: () => number | undefined): () => void {
  const meter = metrics.getMeterProvider().getMeter(METER_NAME);
  const gauge = meter.createObservableGauge(PLATFORM.consumerLagMetric, {
    unit: '{message}',
    description: 'Messages a durable consumer has not finished (pending + unacknowledged)',
  });
  const callback = (result: { observe(value: number, attributes?: Attributes): void }) => {
    const lag = read();
    if (lag !== undefined) result.observe(lag, { [PLATFORM.consumer]: consumer });
  };
  gauge.addCallback(callback);
  return () => gauge.removeCallback(callback);
}
