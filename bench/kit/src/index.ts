export { closedLoop, closedLoopFor, type LoadResult, type Turn } from './closed-loop.js';
export { JsonClient } from './json-client.js';
export { cpuCount, cpuOfTree, sampleProcess, type ProcessSample } from './process-usage.js';
export { intEnv, intListEnv } from './env-settings.js';
export { waitForIngestionDrain, MEMORY_INGEST_CONSUMER } from './ingestion-queue.js';
export {
  startBenchPlatform,
  calculatorTurn,
  waitForCalculator,
  postgresDurabilityFromEnv,
  BENCH_PLATFORM_ENV,
  BENCH_SERVERS,
  type BenchPlatform,
  type BenchPlatformOptions,
  type BenchServer,
  type PlatformProcess,
} from './bench-platform.js';
export { TimeBreakdown, type TimeBreakdownOptions } from './time-breakdown.js';
export { phasesOfTrace, byTrace, ROOT_PHASE, type PhaseSample } from './turn-phases.js';
export { printPhaseReport, type PhaseWindow } from './phase-report.js';
export { TraceTags } from './trace-tags.js';
export { RuntimeWindows } from './runtime-windows.js';
export {
  readProcessTable,
  treeOf,
  cpuOfProcessTree,
  postgresCpuByDatabase,
  readMachineCpu,
  parseMachineCpu,
  type ProcessEntry,
  type MachineCpu,
} from './process-table.js';
export { setModelLatency } from './llm-sim-latency.js';
export {
  calculate,
  CALCULATOR_DESCRIPTION,
  CALCULATOR_EXPRESSION,
  CALCULATOR_INSTRUCTIONS,
  CALCULATOR_PROMPT,
  CALCULATOR_RESULT,
  SIM_MODEL,
} from './calculator.js';
export {
  startSkeleton,
  type Skeleton,
  type SkeletonOptions,
  type SkeletonRole,
  type SkeletonServers,
} from './skeleton/start-skeleton.js';
export { parseDuties, SKELETON_DUTIES, type SkeletonDuty } from './skeleton/duties.js';
export { readLlmSimStats, type LlmSimStats, type LlmSimRequestCount } from './llm-sim-stats.js';
export {
  enableStatementStats,
  resetStatementStats,
  topStatements,
  nextTransactionId,
  postgresProcessCpu,
  statementTable,
  type StatementShare,
} from './pg-statement-stats.js';
export {
  readSharedTierCounters,
  sharedTierRates,
  type SharedTierCounters,
  type SharedTierEndpoints,
} from './shared-tier-counters.js';
export { failureKind, FailureTally } from './failure-kinds.js';
export {
  readDutyCounters,
  skippedTurns,
  dutySkips,
  describeDutySkips,
  VALID_SKIP_SHARE,
  type DutyCounters,
  type DutySkips,
} from './duty-skips.js';
