import { startServiceProcess } from '@platform/testing';

export const SIM_API_KEY = 'sk-sim-memory-test-0123456789';

/** llm-sim as its own process (apps never import apps): chat, structured memory answers and embeddings. */
export async function startLlmSim(): Promise<{
  baseURL: string;
  url: string;
  armEmbeddingFault(fault: object): Promise<void>;
  clearEmbeddingFaults(): Promise<void>;
  stop(): Promise<void>;
}> {
  const sim = await startServiceProcess({
    app: 'llm-sim',
    mode: 'source',
    telemetry: false,
    env: { LLM_SIM_PORT: '0', LLM_SIM_API_KEY: SIM_API_KEY, LOG_LEVEL: 'warn' },
  });
  const url = `http://127.0.0.1:${String(sim.ready['port'])}`;
  return {
    baseURL: `${url}/v1`,
    url,
    armEmbeddingFault: async (fault) => {
      const response = await fetch(`${url}/_sim/embeddings/faults`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(fault),
      });
      if (!response.ok) throw new Error(`llm-sim refused the fault: ${response.status} ${await response.text()}`);
    },
    clearEmbeddingFaults: async () => void (await fetch(`${url}/_sim/embeddings/faults`, { method: 'DELETE' })),
    stop: () => sim.stop(1_000),
  };
}
