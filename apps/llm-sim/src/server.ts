import { createLogger, type Logger } from '@platform/service-kit';
import Fastify, { LogController, type FastifyError } from 'fastify';
import { checkAuthorization } from './auth.js';
import { registerChatCompletions } from './chat-completions.js';
import { EmbeddingFaults } from './embedding-faults.js';
import { registerEmbeddings } from './embeddings.js';
import { FaultWindow, FaultWindowSpec } from './fault-window.js';
import { LatencySetting, NO_LATENCY, type ModelLatency } from './latency-setting.js';
import { ModelTiming } from './model-timing.js';
import { REAL_CLOCK, type StreamClock } from './stream-pacing.js';
import { FaultBook } from './faults.js';
import { modelNotFound, openAiError } from './openai-errors.js';
import { ModelTimeLedger } from './model-time-ledger.js';
import { RequestCounters } from './request-counters.js';
import { RequestLog } from './request-log.js';
import type { Scenario, ScenarioInput } from './scenario-schema.js';
import {
  DEFAULT_SCENARIOS_DIR,
  loadScenarioDirectory,
  ScenarioLoadError,
  validateScenarios,
} from './scenario-store.js';
import { sendError, type LlmSimApp, type SimState } from './sim-state.js';

/** Options of {@link createLlmSim}; every field has a default suited to tests. */
export interface LlmSimOptions {
  /** Interface to bind; default `127.0.0.1`. */
  host?: string;
  /** Port to bind; default 0 (any free port). */
  port?: number;
  /** Folder of `*.json` scenarios; default the app's shipped `scenarios/`. */
  scenariosDir?: string;
  /** Extra scenarios, validated like files; they replace directory scenarios of the same name. */
  scenarios?: readonly ScenarioInput[];
  /** Scenario used when no `[scenario:<name>]` marker is present; default `demo`. */
  defaultScenario?: string;
  /** When set, bearer tokens must equal it; otherwise any bearer token is accepted. */
  apiKey?: string;
  /** Model ids served by `/v1/models` and accepted in requests; default `sim-1`, `sim-large`. */
  models?: readonly string[];
  /** Model ids accepted by `POST /v1/embeddings` (and listed by `/v1/models`); default `sim-embed-1`. */
  embeddingModels?: readonly string[];
  /** Length of embedding vectors when a request does not ask for `dimensions`; default 256. */
  embeddingDimensions?: number;
  /** How many recent requests `GET /_sim/requests` keeps; default 200. */
  requestLogSize?: number;
  /** The model's latency at boot and after a reset (`PUT /_sim/latency` replaces it); default none. */
  latency?: ModelLatency;
  /** The clock streamed answers are paced by; default the wall clock (tests inject their own). */
  clock?: StreamClock;
  /** Logger for the server; default a silent one. */
  logger?: Logger;
}

/** A simulator instance: not listening until {@link LlmSim.listen} is called. */
export interface LlmSim {
  /** The fastify app (e.g. for `app.inject` in tests). */
  app: LlmSimApp;
  /** The loaded scenarios, by name. */
  scenarios: ReadonlyMap<string, Scenario>;
  /** Starts listening; resolves with the actual port (useful when port 0 was asked for). */
  listen(): Promise<{ host: string; port: number; url: string }>;
  /** Stops listening and waits for in-flight requests to finish. */
  close(): Promise<void>;
}

// Fixed so model listings are identical across runs.
const MODEL_CREATED = 1_700_000_000;

/**
 * Creates an OpenAI-compatible simulated model server. Scenarios load synchronously here, so an
 * invalid scenario throws {@link ScenarioLoadError} before anything listens.
 */
export function createLlmSim(options: LlmSimOptions = {}): LlmSim {
  const scenarios = loadScenarioDirectory(options.scenariosDir ?? DEFAULT_SCENARIOS_DIR);
  for (const scenario of validateScenarios(options.scenarios ?? [])) scenarios.set(scenario.name, scenario);
  const defaultScenario = options.defaultScenario ?? 'demo';
  if (!scenarios.has(defaultScenario)) {
    throw new ScenarioLoadError(`<default scenario>`, [
      `default scenario "${defaultScenario}" not found; available: ${[...scenarios.keys()].sort().join(', ') || '(none)'}`,
    ]);
  }
  const state: SimState = {
    scenarios,
    defaultScenario,
    models: options.models ?? ['sim-1', 'sim-large'],
    apiKey: options.apiKey,
    faults: new FaultBook(),
    faultWindow: new FaultWindow(),
    timing: new ModelTiming(options.latency ?? NO_LATENCY),
    clock: options.clock ?? REAL_CLOCK,
    log: new RequestLog(options.requestLogSize ?? 200),
    embedding: { models: options.embeddingModels ?? ['sim-embed-1'], dimensions: options.embeddingDimensions ?? 256 },
    embeddingFaults: new EmbeddingFaults(),
    embeddingLog: new RequestLog(options.requestLogSize ?? 200),
    counters: new RequestCounters(),
    modelTime: new ModelTimeLedger(),
  };
  const allModels = [...new Set([...state.models, ...state.embedding.models])];

  const app: LlmSimApp = Fastify({
    loggerInstance: options.logger ?? createLogger({ service: 'llm-sim', level: 'silent' }),
    // Chat completions are logged with their scenario and step instead; per-request lines are noise.
    logController: new LogController({ disableRequestLogging: true }),
    bodyLimit: 16 * 1024 * 1024,
  });
  registerJsonParser(app);
  registerErrorHandlers(app);

  app.addHook('onRequest', async (request, reply) => {
    if (!request.url.startsWith('/v1/')) return;
    const error = checkAuthorization(request.headers.authorization, state.apiKey);
    if (error) return sendError(reply, error);
  });

  app.get('/healthz', () => ({ status: 'ok' }));
  app.get('/v1/models', () => ({ object: 'list', data: allModels.map(modelObject) }));
  app.get<{ Params: { model: string } }>('/v1/models/:model', (request, reply) =>
    allModels.includes(request.params.model)
      ? reply.send(modelObject(request.params.model))
      : sendError(reply, modelNotFound(request.params.model)),
  );
  registerChatCompletions(app, state);
  registerEmbeddings(app, state);

  // Test-only inspection endpoints: no auth, not part of the OpenAI API.
  app.get('/_sim/requests', () => ({ requests: state.log.list() }));
  app.get('/_sim/stats', () => ({ requests: state.counters.snapshot() }));
  app.get('/_sim/model-time', () => ({ turns: state.modelTime.snapshot() }));
  app.post('/_sim/reset', () => {
    state.log.clear();
    state.faults.reset();
    state.embeddingLog.clear();
    state.counters.clear();
    state.modelTime.clear();
    state.embeddingFaults.clear();
    state.faultWindow.close();
    state.timing.reset();
    return { status: 'ok' };
  });
  app.post('/_sim/fault-window', (request, reply) => {
    const parsed = FaultWindowSpec.safeParse(request.body);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      return reply.code(400).send({
        error: {
          message: `${issue?.path.join('.') || 'body'}: ${issue?.message ?? 'invalid'}`,
          type: 'invalid_request_error',
        },
      });
    }
    return { status: 'open', ...state.faultWindow.open(parsed.data) };
  });
  app.put('/_sim/latency', (request, reply) => {
    const parsed = LatencySetting.safeParse(request.body);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      return reply.code(400).send({
        error: {
          message: `${issue?.path.join('.') || 'body'}: ${issue?.message ?? 'invalid'}`,
          type: 'invalid_request_error',
        },
      });
    }
    state.timing.set(parsed.data);
    return state.timing.current();
  });
  app.get('/_sim/latency', () => state.timing.current());
  app.delete('/_sim/fault-window', () => {
    state.faultWindow.close();
    return { status: 'closed' };
  });

  const host = options.host ?? '127.0.0.1';
  return {
    app,
    scenarios,
    async listen() {
      // A model provider does not refuse connections: a backlog past Node's 511 keeps bursts of
      // thousands of calls at once (bench/capacity's waiting runs) from dropping SYNs.
      await app.listen({ host, port: options.port ?? 0, backlog: 4096 });
      const address = app.server.address();
      const port = typeof address === 'object' && address ? address.port : (options.port ?? 0);
      return { host, port, url: `http://${host.includes(':') ? `[${host}]` : host}:${port}` };
    },
    close: () => app.close(),
  };
}

function modelObject(id: string) {
  return { id, object: 'model', created: MODEL_CREATED, owned_by: 'llm-sim' };
}

function registerJsonParser(app: LlmSimApp): void {
  // Replaces fastify's parser so an empty body reaches the handler (and fails validation with a
  // clear message) and malformed JSON is reported in OpenAI's words.
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (_request, body, done) => {
    const text = typeof body === 'string' ? body : body.toString('utf8');
    if (text.trim() === '') {
      done(null, undefined);
      return;
    }
    try {
      done(null, JSON.parse(text));
    } catch (error) {
      const message =
        `We could not parse the JSON body of your request: ${(error as Error).message}. ` +
        'The OpenAI API expects a JSON payload.';
      done(Object.assign(new Error(message), { statusCode: 400, code: 'INVALID_JSON_BODY' }), undefined);
    }
  });
}

function registerErrorHandlers(app: LlmSimApp): void {
  app.setNotFoundHandler((request, reply) =>
    sendError(reply, openAiError(404, `Invalid URL (${request.method} ${request.url})`, 'invalid_request_error')),
  );
  app.setErrorHandler((error: FastifyError, request, reply) => {
    const status = error.statusCode && error.statusCode >= 400 ? error.statusCode : 500;
    if (status >= 500) {
      request.log.error({ err: error }, 'unhandled error');
      return sendError(
        reply,
        openAiError(status, 'The server had an error while processing your request.', 'server_error'),
      );
    }
    return sendError(reply, openAiError(status, error.message, 'invalid_request_error'));
  });
}
