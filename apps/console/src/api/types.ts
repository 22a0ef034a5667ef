// The API's answers as the console reads them: generated from the api's OpenAPI document
// (src/gen/platform-api.ts, written by `nx run console:generate`, never by hand). Where the document
// leaves a field open (a run's transcript, result and plan, documented in docs/api.md), the shapes
// the console reads are written here.
import type { components, paths } from '../gen/platform-api.js';

type Schemas = components['schemas'];
/** The JSON body of a path's GET answer (200). */
type GetAnswer<P extends keyof paths> = paths[P] extends {
  get: { responses: { 200: { content: { 'application/json': infer T } } } };
}
  ? T
  : never;

export type RunStatus = Schemas['RunSummary']['status'];
export const RUN_STATUSES: readonly RunStatus[] = ['queued', 'running', 'completed', 'waiting', 'failed', 'cancelled'];
export const STOP_REASONS = [
  'final_answer',
  'max_turns',
  'deadline',
  'repeat_guard',
  'agent_waiting',
  'cancelled',
  'context_overflow',
  'model_error',
  'stop_condition',
  'invalid_output',
  'plan_failed',
  'interrupted',
  'rolled_back',
  'steered',
] as const;
export const RUN_SOURCES = ['user', 'trigger', 'child', 'notice'] as const;
export const RUN_PROTOCOLS = ['rest', 'chat_completions', 'responses', 'mcp', 'a2a', 'ag_ui'] as const;
export type RunProtocol = (typeof RUN_PROTOCOLS)[number];

type TokenUsage = Schemas['TokenUsage'];
export type RunSummary = Schemas['RunSummary'];
type HistoryPage = GetAnswer<'/v1/conversations/{conversationId}/messages'>;
export type HistoryEntry = HistoryPage['messages'][number];
export type ChatMessage = HistoryEntry['message'];
export type Approval = Schemas['Approval'];
export type TurnAnswer = Schemas['TurnResponse'];
export type CatalogTool = Schemas['CatalogTool'];
export type ToolTrial = Schemas['ToolCall'];
export type Task = Schemas['Task'];
export type MemoryFact = Schemas['Fact'];
export type CredentialAuditEvent = GetAnswer<'/v1/credentials/audit'>['events'][number];
export type ModelConnection = GetAnswer<'/v1/model-connections'>['connections'][number];
export type RemoteAgent = GetAnswer<'/v1/remote-agents'>['remoteAgents'][number];
export type UsageReport = GetAnswer<'/v1/usage'>;
export type Agent = Schemas['Agent'];
export type AgentVersion = Schemas['AgentVersion'];
export type AgentVersionDiff = Schemas['AgentVersionDiff'];
export type UsageDay = UsageReport['days'][number];

export interface StepFailure {
  class: string;
  kind: string;
  severity: string;
  recovery: string;
}

interface ToolCall {
  id: string;
  name: string;
  arguments: string;
}

export interface ViewDiagnostic {
  kind: string;
  detail: string;
  originalChars?: number;
  keptChars?: number;
}

export interface IterationRecord {
  iteration: number;
  view: { messages: number; estimatedTokens: number; stage: string; diagnostics: ViewDiagnostic[] };
  model: {
    provider: string;
    model: string;
    finishReason: string;
    retries: number;
    fallbackUsed: boolean;
    failures?: StepFailure[];
  };
  output: { role: 'assistant'; content: string | null; toolCalls?: ToolCall[] };
  tools: Array<{
    callId: string;
    name: string;
    status: string;
    durationMs: number;
    synthetic: boolean;
    failures?: StepFailure[];
  }>;
  usage: TokenUsage;
  durationMs: number;
  plan?: { call: string; planVersion: number; outputMode?: string };
}

export type PlanStepRecord =
  | {
      step: 'subtask';
      planVersion: number;
      subtaskId: string;
      role: string;
      status: string;
      attempts: number;
      childRunIds: string[];
      resultKey: string;
      error?: string;
    }
  | { step: 'replan'; planVersion: number; reason: string; failureKind?: string };

export type TranscriptEntry = IterationRecord | PlanStepRecord;

interface ToolCallOutcome {
  callId: string;
  name: string;
  status: string;
  success: boolean;
  durationMs: number;
  errorCode?: string;
  argumentsSummary?: Record<string, unknown>;
}

interface RunResult {
  response?: string;
  stopReason?: string;
  turns?: number;
  usage?: TokenUsage;
  durationMs?: number;
  toolCalls?: ToolCallOutcome[];
  error?: { kind: string; message: string; failure?: StepFailure };
}

interface PlanSubtask {
  id: string;
  role?: string;
  description?: string;
  dependencies?: string[];
  error?: string;
  status: string;
  attempts: number;
  childRunIds: string[];
}

interface RunPlan {
  goal?: string;
  status: string;
  version: number;
  replans: number;
  subtasks: PlanSubtask[];
  mermaid?: string;
}

/** One webhook delivery of a run's end. */
export type RunWebhookDelivery = Schemas['RunWebhookDelivery'];

/** A run as its page reads it: the document's RunDetail, with its open fields given their documented shapes. */
export type RunDetail = Omit<Schemas['RunDetail'], 'result' | 'transcript' | 'plan'> & {
  result: RunResult | null;
  transcript: TranscriptEntry[] | null;
  plan?: RunPlan;
};

/** What the api tells the console about itself (GET /console/config.json). */
export interface ConsoleConfig {
  traceUrlTemplate: string;
  operatorRole: string;
}
