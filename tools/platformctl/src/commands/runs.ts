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

interface RunView {
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
    [
      'tokens',
      run.result?.usage ? `${run.result.usage.inputTokens} in / ${run.result.usage.outputTokens} out` : undefined,
    ],
    ['response', run.result?.response === undefined ? undefined : oneLine(run.result.response, 200)],
  ]);
  text += '\ntranscript:\n';
  for (const step of run.transcript) {
    text += `  #${step.iteration} ${step.model.provider}/${step.model.model} finish=${step.model.finishReason} ${step.durationMs} ms, ${step.usage.inputTokens} in / ${step.usage.outputTokens} out\n`;
    for (const call of step.output.toolCalls ?? []) text += `     calls ${call.name}(${oneLine(call.arguments, 80)})\n`;
    for (const tool of step.tools)
      text += `     ${tool.name} -> ${tool.status}${tool.synthetic ? ' (synthetic)' : ''} ${tool.durationMs} ms\n`;
    if (step.output.content) text += `     says ${oneLine(step.output.content, 100)}\n`;
  }
  if (run.transcript.length === 0) text += '  (none yet)\n';
  return { json: run, text };
}

/** A run as GET /v1/runs lists it. */
interface RunSummary {
  runId: string;
  conversationId: string;
  status: string;
  stopReason: string | null;
  source: string;
  protocol?: string | null;
  parentRunId: string | null;
  createdAt: string | null;
  finishedAt: string | null;
  traceId: string | null;
  turns: number;
  toolCalls: number;
}

interface RunPage {
  runs: RunSummary[];
  nextPageToken: string | null;
}

/** The filters and paging of `runs list`, as GET /v1/runs takes them. */
export interface RunListOptions {
  conversationId?: string | undefined;
  status?: string | undefined;
  stopReason?: string | undefined;
  tool?: string | undefined;
  source?: string | undefined;
  protocol?: string | undefined;
  createdAfter?: string | undefined;
  createdBefore?: string | undefined;
  parentRunId?: string | undefined;
  pageSize?: number | undefined;
  pageToken?: string | undefined;
  /** Follow the next page tokens to the end instead of printing one page. */
  all?: boolean;
}

/** `runs list [filters]`: the tenant's runs, newest first, one page (or every page with `all`). */
export async function listRuns(api: ApiClient, options: RunListOptions): Promise<{ json: unknown; text: string }> {
  const { all = false, pageToken, ...filters } = options;
  const runs: RunSummary[] = [];
  let next: string | null = pageToken ?? null;
  do {
    const page: RunPage = await api.get<RunPage>('v1/runs', { ...filters, pageToken: next ?? undefined });
    runs.push(...page.runs);
    next = page.nextPageToken;
  } while (all && next);
  const rows = runs.map((r) => [
    r.runId,
    r.conversationId,
    r.status,
    r.stopReason,
    r.source,
    r.protocol ?? '-',
    r.createdAt,
    r.toolCalls,
    r.traceId,
  ]);
  let text = table(
    ['RUN', 'CONVERSATION', 'STATUS', 'STOP REASON', 'SOURCE', 'PROTOCOL', 'CREATED', 'TOOL CALLS', 'TRACE ID'],
    rows,
  );
  if (next) text += `more: --page-token ${next} (or --all)\n`;
  return { json: { runs, nextPageToken: next }, text };
}
