import type { ApiClient } from '../api-client.js';
import { fields } from '../format.js';

interface Replay {
  runId: string;
  conversationId: string;
  replayOf: string;
  replayFromStep: number;
  status: string;
  response?: string;
}

export interface ReplayOptions {
  fromStep: number;
  agentVersion?: number | undefined;
  model?: string | undefined;
}

/** `runs replay <runId> --from-step n [--agent-version k] [--model m]`: a new run replaying it from step n. */
export async function replayRun(
  api: ApiClient,
  runId: string,
  options: ReplayOptions,
): Promise<{ json: unknown; text: string }> {
  const replay = await api.send<Replay>('POST', `v1/runs/${encodeURIComponent(runId)}/replays`, {
    fromStep: options.fromStep,
    ...(options.agentVersion !== undefined ? { agentVersion: options.agentVersion } : {}),
    ...(options.model ? { model: options.model } : {}),
  });
  const text = fields([
    ['run', replay.runId],
    ['conversation', replay.conversationId],
    ['replay of', replay.replayOf],
    ['from step', replay.replayFromStep],
    ['status', replay.status],
    ['response', replay.response],
  ]);
  return { json: replay, text };
}
