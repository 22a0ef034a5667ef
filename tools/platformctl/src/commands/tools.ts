import type { ApiClient } from '../api-client.js';
import { table } from '../format.js';

interface Tool {
  name: string;
  kind: string;
  runner: string;
  version: string;
  instances: number;
  timeoutMs: number;
  requiresApproval: boolean;
  sideEffect: string;
}

/** `tools`: the live catalog: each tool, the runner serving it and how many of its instances answer discovery. */
export async function listTools(api: ApiClient): Promise<{ json: unknown; text: string }> {
  const body = await api.get<{ tools: Tool[] }>('v1/tools');
  return {
    json: body,
    text: table(
      ['TOOL', 'KIND', 'RUNNER', 'VERSION', 'INSTANCES', 'TIMEOUT MS', 'APPROVAL', 'SIDE EFFECT'],
      body.tools.map((t) => [
        t.name,
        t.kind,
        t.runner,
        t.version,
        t.instances,
        t.timeoutMs,
        t.requiresApproval ? 'yes' : 'no',
        t.sideEffect,
      ]),
    ),
  };
}
