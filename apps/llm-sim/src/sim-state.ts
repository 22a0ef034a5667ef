import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Logger } from '@platform/service-kit';
import type { FastifyInstance, FastifyReply } from 'fastify';
import type { EmbeddingFaults } from './embedding-faults.js';
import type { FaultWindow } from './fault-window.js';
import type { FaultBook } from './faults.js';
import type { ModelTimeLedger } from './model-time-ledger.js';
import type { ModelTiming } from './model-timing.js';
import type { SimError } from './openai-errors.js';
import type { RequestCounters } from './request-counters.js';
import type { RequestLog, RequestLogEntry } from './request-log.js';
import type { Scenario } from './scenario-schema.js';
import type { StreamClock } from './stream-pacing.js';

/** The fastify instance type the simulator builds (a pino logger from service-kit). */
export type LlmSimApp = FastifyInstance<Server, IncomingMessage, ServerResponse, Logger>;

/** Everything the route handlers share for one simulator instance. */
export interface SimState {
  scenarios: ReadonlyMap<string, Scenario>;
  defaultScenario: string;
  models: readonly string[];
  apiKey: string | undefined;
  faults: FaultBook;
  /** A fault applied to every completion for a while (`/_sim/fault-window`). */
  faultWindow: FaultWindow;
  /** The model's latency and streaming pace (`PUT /_sim/latency`, `LLM_SIM_LATENCY_*`, a scenario's own). */
  timing: ModelTiming;
  /** The clock streams are paced by (the wall clock but in tests). */
  clock: StreamClock;
  log: RequestLog;
  /** Embedding models served and the default vector length. */
  embedding: { models: readonly string[]; dimensions: number };
  embeddingFaults: EmbeddingFaults;
  /** Received embeddings requests (only `seq`, `receivedAt`, `status`, `fault` and `body` apply). */
  embeddingLog: RequestLog;
  /** Requests by kind since start or reset (`GET /_sim/stats`). */
  counters: RequestCounters;
  /** Model time by tagged turn (`GET /_sim/model-time`). */
  modelTime: ModelTimeLedger;
}

/** Sends an OpenAI-shaped error (and records its status in the request log entry, if any). */
export function sendError(reply: FastifyReply, error: SimError, entry?: RequestLogEntry): FastifyReply {
  if (entry) entry.status = error.status;
  return reply
    .code(error.status)
    .headers(error.headers ?? {})
    .send(error.body);
}
