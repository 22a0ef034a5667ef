import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { startServiceProcess } from '@platform/testing';

/** The API key the test simulators accept. */
export const SIM_API_KEY = 'sk-sim-test-key-0123456789';

/** An llm-sim process, as tests outside apps/ must run it (module boundaries forbid importing it). */
export interface RunningLlmSim {
  /** OpenAI base URL (`…/v1`). */
  baseURL: string;
  /** Root URL, for the test-only `/_sim/*` endpoints. */
  url: string;
  /** SIGTERM, then SIGKILL after `graceMs` (default 1 s). */
  stop(graceMs?: number): Promise<void>;
}

/**
 * Starts llm-sim from source. With `scenarios`, it serves only those (written to a temporary
 * directory), the first one being the default: for stream timings no shipped scenario has.
 */
export async function startLlmSim(
  scenarios?: readonly ({ name: string } & Record<string, unknown>)[],
): Promise<RunningLlmSim> {
  const dir = scenarios ? await mkdtemp(path.join(tmpdir(), 'llm-sim-scenarios-')) : undefined;
  if (dir && scenarios) {
    for (const scenario of scenarios)
      await writeFile(path.join(dir, `${scenario.name}.json`), JSON.stringify(scenario));
  }
  const env: Record<string, string> = { LLM_SIM_PORT: '0', LLM_SIM_API_KEY: SIM_API_KEY, LOG_LEVEL: 'warn' };
  if (dir && scenarios?.[0])
    Object.assign(env, { LLM_SIM_SCENARIOS_DIR: dir, LLM_SIM_DEFAULT_SCENARIO: scenarios[0].name });
  const sim = await startServiceProcess({ app: 'llm-sim', mode: 'source', telemetry: false, env });
  const url = `http://127.0.0.1:${String(sim.ready['port'])}`;
  return {
    baseURL: `${url}/v1`,
    url,
    // A short grace: after a client aborts a stream, undici opens a spare keep-alive connection
    // that a graceful close waits for (undici's 4 s keep-alive timeout); a test sim need not wait.
    stop: async (graceMs = 1_000) => {
      await sim.stop(graceMs);
      if (dir) await rm(dir, { recursive: true, force: true });
    },
  };
}
