import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { createLogger, type Logger } from '@platform/service-kit';
import OpenAI from 'openai';
import { createLlmSim, type LlmSim, type LlmSimOptions } from '../server.js';

/** A simulator listening on a free port, plus handy ways to talk to it. */
export interface RunningSim {
  sim: LlmSim;
  port: number;
  /** `http://127.0.0.1:<port>` */
  url: string;
  /** An official OpenAI client pointed at the simulator, with retries off unless asked for. */
  client(options?: { apiKey?: string; maxRetries?: number }): OpenAI;
  /** Parsed log lines, when started with `captureLogs`. */
  logs: Array<Record<string, unknown>>;
  close(): Promise<void>;
}

/** Starts a simulator in-process on port 0. */
export async function startSim(options: LlmSimOptions & { captureLogs?: boolean } = {}): Promise<RunningSim> {
  const logs: Array<Record<string, unknown>> = [];
  let logger: Logger | undefined;
  if (options.captureLogs) {
    const destination = new Writable({
      write(chunk: Buffer, _encoding, done) {
        for (const line of chunk.toString('utf8').split('\n').filter(Boolean)) {
          logs.push(JSON.parse(line) as Record<string, unknown>);
        }
        done();
      },
    });
    logger = createLogger({ service: 'llm-sim-test', level: 'debug', destination });
  }
  const sim = createLlmSim({ ...options, port: 0, ...(logger ? { logger } : {}) });
  const { port, url } = await sim.listen();
  return {
    sim,
    port,
    url,
    client: ({ apiKey = 'sk-test-key', maxRetries = 0 } = {}) =>
      new OpenAI({ baseURL: `${url}/v1`, apiKey, maxRetries }),
    logs,
    close: () => sim.close(),
  };
}

const createdDirs: string[] = [];

/** Writes scenario files into a fresh temporary directory and returns it. */
export function scenarioDir(files: Record<string, string | object>): string {
  const dir = mkdtempSync(join(tmpdir(), 'llm-sim-scenarios-'));
  createdDirs.push(dir);
  for (const [name, content] of Object.entries(files)) {
    writeFileSync(join(dir, name), typeof content === 'string' ? content : JSON.stringify(content, null, 2));
  }
  return dir;
}

/** Deletes every directory made by {@link scenarioDir}. */
export function removeScenarioDirs(): void {
  for (const dir of createdDirs.splice(0)) rmSync(dir, { recursive: true, force: true });
}

/** A calculator tool definition as the platform would send it. */
export const calculatorTool = {
  type: 'function',
  function: {
    name: 'calculator',
    description: 'Evaluates an arithmetic expression.',
    parameters: { type: 'object', properties: { expression: { type: 'string' } }, required: ['expression'] },
  },
} as const;

/** A current_time tool definition as the platform would send it. */
const currentTimeTool = {
  type: 'function',
  function: {
    name: 'current_time',
    description: 'Returns the current time in a time zone.',
    parameters: { type: 'object', properties: { timezone: { type: 'string' } }, required: ['timezone'] },
  },
} as const;

/** Both platform tools. */
export const platformTools = [calculatorTool, currentTimeTool];
