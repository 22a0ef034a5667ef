import type { ApiClient } from '../api-client.js';
import { fields, oneLine, table } from '../format.js';

interface Iteration {
  iteration: number;
  model: { provider: string; model: string; finishReason: string };
  output: { content?: string | null; toolCalls?: Array<{ name: string; arguments: string }> };
  tools: Array<{ callId: string; name: string; status: string; durationMs: number; synthetic: boolean }>;
  usage: { inputTokens: number; outputTokens: number };
  durationMs: number;
}

export interface RunView {
  runId: string;
  conversationId: string;
  status: string;
  stopReason: string | null;
  createdAt: string | null;
  finishedAt: string | null;
  traceId: string | null;
  result: { response?: string; turns?: number; usage?: { inputTokens: number; outputTokens: number } } | null;
  transcript: Iteration[];
}

/** `runs show <runId>`: status, stop reason, trace id, and the transcript iteration by iteration. */
export async function showRun(api: ApiClient, runId: string): Promise<{ json: unknown; text: string }> {
  const run = await api.get<RunView>(`v1/runs/${encodeURIComponent(runId)}`);
  let text = fields([
    ['run', run.runId],
    ['conversation', run.conversationId],
    ['status', run.status],
    ['stop reason', run.stopReason],
    ['trace id', run.traceId],
    ['created', run.createdAt],
    ['finished', run.finishedAt],
    ['model calls', run.result?.turns],
    ['tokens', run.result?.usage ? `${run.result.usage.inputTokens} in / ${run.result.usage.outputTokens} out` : undefined],
    ['response', run.result?.response === undefined ? undefined : oneLine(run.result.response, 200)],
  ]);
  text += '\ntranscript:\n';
  for (const step of run.transcript) {
    text += `  #${step.iteration} ${step.model.provider}/${step.model.model} finish=${step.model.finishReason} ${step.durationMs} ms, ${step.usage.inputTokens} in / ${step.usage.outputTokens} out\n`;
    for (const call of step.output.toolCalls ?? []) text += `     calls ${call.name}(${oneLine(call.arguments, 80)})\n`;
    for (const tool of step.tools) text += `     ${tool.name} -> ${tool.status}${tool.synthetic ? ' (synthetic)' : ''} ${tool.durationMs} ms\n`;
    if (step.output.content) text += `     says ${oneLine(step.output.content, 100)}\n`;
  }
  if (run.transcript.length === 0) text += '  (none yet)\n';
  return { json: run, text };
}

interface HistoryPage {
  messages: Array<{ seq: number; runId: string | null; createdAt: string }>;
  hasMore: boolean;
}

/** `runs list --conversation <id>`: the runs of a conversation (from its history), newest last, each with its status. */
export async function listRuns(api: ApiClient, conversationId: string): Promise<{ json: unknown; text: string }> {
  const runIds: string[] = [];
  let afterSeq = 0;
  for (;;) {
    const page = await api.get<HistoryPage>(`v1/conversations/${encodeURIComponent(conversationId)}/messages`, { afterSeq, limit: 500 });
    for (const message of page.messages) if (message.runId && !runIds.includes(message.runId)) runIds.push(message.runId);
    if (!page.hasMore || page.messages.length === 0) break;
    afterSeq = page.messages.at(-1)!.seq;
  }
  const runs = await Promise.all(runIds.map((id) => api.get<RunView>(`v1/runs/${encodeURIComponent(id)}`)));
  const rows = runs.map((r) => [r.runId, r.status, r.stopReason, r.createdAt, r.traceId]);
  return { json: { conversationId, runs: runs.map(({ transcript: _t, ...rest }) => rest) }, text: table(['RUN', 'STATUS', 'STOP REASON', 'CREATED', 'TRACE ID'], rows) };
}
