import type {
  HistoryEntry,
  IterationRecord,
  PlanStepRecord,
  StepFailure,
  TranscriptEntry,
  ViewDiagnostic,
} from '../api/types.js';

/** A tool call of a run's step: what it was asked, what it answered, how it went. */
export interface ToolStep {
  callId: string;
  name: string;
  status: string;
  durationMs: number;
  synthetic: boolean;
  failures: StepFailure[];
  /** The arguments as the model wrote them (JSON text). */
  arguments: string;
  /** The stored result (from the conversation's history), when it is there. */
  result?: string;
  errorCode?: string;
  /** The runner serving the tool (from the live catalog). */
  runner?: string;
}

/** One step of a run's transcript, ready to show. */
export type TranscriptStep =
  | {
      kind: 'model';
      iteration: number;
      model: IterationRecord['model'];
      view: { messages: number; estimatedTokens: number; stage: string; diagnostics: ViewDiagnostic[] };
      text: string | null;
      usage: IterationRecord['usage'];
      durationMs: number;
      tools: ToolStep[];
      planCall?: string;
    }
  | ({ kind: 'plan' } & PlanStepRecord);

function isIteration(entry: TranscriptEntry): entry is IterationRecord {
  return !('step' in entry);
}

/**
 * The steps of a run: each model call with its request view and its tool calls (arguments from
 * the model's message, results from the stored history, runner from the catalog), and the
 * subtasks and replans of a plan.
 */
export function transcriptSteps(
  transcript: readonly TranscriptEntry[],
  history: readonly HistoryEntry[],
  runners: ReadonlyMap<string, string>,
): TranscriptStep[] {
  const results = new Map<string, { content: string; errorCode?: string }>();
  for (const { message } of history) {
    if (message.role === 'tool')
      results.set(message.toolCallId, {
        content: message.content,
        ...(message.errorCode ? { errorCode: message.errorCode } : {}),
      });
  }
  return transcript.map((entry): TranscriptStep => {
    if (!isIteration(entry)) return { kind: 'plan', ...entry };
    const asked = new Map((entry.output.toolCalls ?? []).map((c) => [c.id, c.arguments]));
    const tools = entry.tools.map((tool): ToolStep => {
      const result = results.get(tool.callId);
      const runner = runners.get(tool.name);
      return {
        callId: tool.callId,
        name: tool.name,
        status: tool.status,
        durationMs: tool.durationMs,
        synthetic: tool.synthetic,
        failures: tool.failures ?? [],
        arguments: asked.get(tool.callId) ?? '',
        ...(result ? { result: result.content } : {}),
        ...(result?.errorCode ? { errorCode: result.errorCode } : {}),
        ...(runner ? { runner } : {}),
      };
    });
    return {
      kind: 'model',
      iteration: entry.iteration,
      model: entry.model,
      view: entry.view,
      text: entry.output.content,
      usage: entry.usage,
      durationMs: entry.durationMs,
      tools,
      ...(entry.plan ? { planCall: entry.plan.call } : {}),
    };
  });
}
