// Process entry point: config from the environment, one `ready` line with the real port, and a
// graceful stop on SIGTERM/SIGINT. Everything else lives in createLlmSim.
import { announceReady, createLogger, listenFailure, type Logger } from '@platform/service-kit';
import { loadLlmSimConfig, optionsFromConfig, type LlmSimConfig } from './config.js';
import { createLlmSim, type LlmSim } from './server.js';

const SERVICE = 'llm-sim';
// A stuck client must not keep a stopping process alive forever.
const SHUTDOWN_TIMEOUT_MS = 10_000;

function exitAfterFlush(logger: Logger, code: number): void {
  // The logger writes asynchronously; exiting before it drains would lose the last lines.
  logger.flush(() => process.exit(code));
}

function installSignalHandlers(sim: LlmSim, logger: Logger): void {
  let stopping = false;
  const stop = (signal: NodeJS.Signals) => {
    if (stopping) return;
    stopping = true;
    logger.info({ signal }, 'shutting down');
    setTimeout(() => {
      logger.error({ timeoutMs: SHUTDOWN_TIMEOUT_MS }, 'shutdown timed out');
      exitAfterFlush(logger, 1);
    }, SHUTDOWN_TIMEOUT_MS).unref();
    sim.close().then(
      () => {
        logger.info('stopped');
        exitAfterFlush(logger, 0);
      },
      (error: unknown) => {
        logger.error({ err: error }, 'error while shutting down');
        exitAfterFlush(logger, 1);
      },
    );
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
}

async function main(): Promise<void> {
  let config: LlmSimConfig;
  try {
    config = loadLlmSimConfig();
  } catch (error) {
    const logger = createLogger({ service: SERVICE });
    logger.fatal({ err: error }, `startup failed: ${(error as Error).message}`);
    exitAfterFlush(logger, 1);
    return;
  }
  const logger = createLogger({ service: SERVICE, level: config.LOG_LEVEL });
  try {
    const sim = createLlmSim({ ...optionsFromConfig(config), logger });
    installSignalHandlers(sim, logger);
    const { host, port, url } = await sim.listen().catch(async (error: unknown) => {
      await sim.close().catch(() => undefined);
      throw await listenFailure(config.LLM_SIM_HOST, config.LLM_SIM_PORT, 'LLM_SIM_PORT', error);
    });
    announceReady(logger, {
      host,
      port,
      url,
      models: config.LLM_SIM_MODELS,
      embeddingModels: config.LLM_SIM_EMBEDDING_MODELS,
      embeddingDimensions: config.LLM_SIM_EMBEDDING_DIMENSIONS,
      defaultScenario: config.LLM_SIM_DEFAULT_SCENARIO,
      scenarios: [...sim.scenarios.keys()].sort(),
    });
  } catch (error) {
    logger.fatal({ err: error }, `startup failed: ${(error as Error).message}`);
    exitAfterFlush(logger, 1);
  }
}

void main();
