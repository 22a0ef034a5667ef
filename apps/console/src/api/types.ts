// The API's answers as the console reads them, from docs/api.md.
// (To be generated from the api's OpenAPI document once it exists; see endpoints.ts.)

export type RunStatus = 'queued' | 'running' | 'completed' | 'waiting' | 'failed' | 'cancelled';
export const RUN_STATUSES: readonly RunStatus[] = ['queued', 'running', 'completed', 'waiting', 'failed', 'cancelled'];
export const STOP_REASONS = ['final_answer', 'max_turns', 'deadline', 'repeat_guard', 'agent_waiting', 'cancelled', 'context_overflow', 'model_error', 'stop_condition', 'plan_failed'] as const;
export const RUN_SOURCES = ['user', 'trigger', 'child', 'notice'] as const;

export interface TokenUsage {
  inputTokens: number;
  outputTokens: number;
  totalTokens: number;
}

export interface RunSummary {
  runId: string;
  conversationId: string;
  status: RunStatus;
  stopReason: string | null;
  source: string;
  parentRunId: string | null;
  profile: string | null;
  createdAt: string;
  startedAt: string | null;
  finishedAt: string | null;
  traceId: string | null;
  turns: number;
  toolCalls: number;
  usage: TokenUsage;
}

export interface RunPage {
  runs: RunSummary[];
  nextPageToken: string | null;
}

export interface StepFailure {
  class: string;
  kind: string;
  severity: string;
  recovery: string;
}

export interface ToolCall {
  id: string;
  name: string;
  arguments: string;
}

export type ChatMessage =
  | { role: 'system'; content: string }
  | { role: 'user'; content: string; synthetic?: boolean }
  | { role: 'assistant'; content: string | null; toolCalls?: ToolCall[]; provider?: string; model?: string }
  | { role: 'tool'; toolCallId: string; toolName: string; content: string; status: string; isError: boolean; synthetic?: boolean; errorCode?: string };

export interface ViewDiagnostic {
  kind: string;
  detail: string;
  originalChars?: number;
  keptChars?: number;
}

export interface IterationRecord {
  iteration: number;
  view: { messages: number; estimatedTokens: number; stage: string; diagnostics: ViewDiagnostic[] };
  model: { provider: string; model: string; finishReason: string; retries: number; fallbackUsed: boolean; failures?: StepFailure[] };
  output: { role: 'assistant'; content: string | null; toolCalls?: ToolCall[] };
  tools: Array<{ callId: string; name: string; status: string; durationMs: number; synthetic: boolean; failures?: StepFailure[] }>;
  usage: TokenUsage;
  durationMs: number;
  plan?: { call: string; planVersion: number; outputMode?: string };
}

export type PlanStepRecord =
  | { step: 'subtask'; planVersion: number; subtaskId: string; role: string; status: string; attempts: number; childRunIds: string[]; resultKey: string; error?: string }
  | { step: 'replan'; planVersion: number; reason: string; failureKind?: string };

export type TranscriptEntry = IterationRecord | PlanStepRecord;

export interface ToolCallOutcome {
  callId: string;
  name: string;
  status: string;
  success: boolean;
  durationMs: number;
  errorCode?: string;
  argumentsSummary?: Record<string, unknown>;
}

export interface RunResult {
  response?: string;
  stopReason?: string;
  turns?: number;
  usage?: TokenUsage;
  durationMs?: number;
  toolCalls?: ToolCallOutcome[];
  error?: { kind: string; message: string; failure?: StepFailure };
}

export interface PlanSubtask {
  id: string;
  role?: string;
  description?: string;
  status: string;
  attempts: number;
  childRunIds: string[];
}

export interface RunPlan {
  status: string;
  version: number;
  replans: number;
  subtasks: PlanSubtask[];
  mermaid?: string;
}

export interface RunChild {
  runId: string;
  conversationId: string;
  role: string;
  callId: string;
  status: string;
  stopReason: string | null;
  createdAt: string;
  finishedAt: string | null;
}

export interface RunDetail {
  runId: string;
  conversationId: string;
  status: RunStatus;
  stopReason: string | null;
  createdAt: string | null;
  finishedAt: string | null;
  traceId: string | null;
  result: RunResult | null;
  transcript: TranscriptEntry[] | null;
  parentRunId?: string | null;
  children?: RunChild[];
  plan?: RunPlan;
}

export interface RunEvent {
  id: number;
  runId: string;
  type: string;
  at: number;
  data: Record<string, unknown>;
}

export interface HistoryEntry {
  seq: number;
  runId: string | null;
  createdAt: string | null;
  message: ChatMessage;
}

export interface HistoryPage {
  conversationId: string;
  messages: HistoryEntry[];
  hasMore: boolean;
}

export interface Approval {
  approvalId: string;
  agentName: string;
  actionSummary: string;
  details: Record<string, unknown>;
  options: string[];
  allowModification: boolean;
  timeoutMinutes: number;
  expiresAt: string;
  status: string;
  prompt: string;
  conversationId: string;
  runId: string;
  source: { kind: 'user' } | { kind: 'trigger'; taskId: string };
  createdAt: string;
}

export interface TurnAnswer {
  runId: string;
  conversationId: string;
  status: RunStatus;
  stopReason: string;
  response: string;
  toolCalls: ToolCallOutcome[];
  usage: TokenUsage;
  pending: Array<{ callId: string; agentName: string; waitingFor: string; prompt: string }>;
}

export interface CatalogTool {
  name: string;
  description: string;
  inputSchema: unknown;
  kind: string;
  runner: string;
  version: string;
  requiresApproval: boolean;
  timeoutMs: number;
  sideEffect: string;
  instances: number;
}

export interface Task {
  taskId: string;
  name: string;
  status: string;
  spec: { trigger: Record<string, unknown> & { type: string }; action?: { instruction?: string; profile?: string } };
  nextFireAt: string | null;
  lastFireAt: string | null;
  lastOutcome: string | null;
  createdAt: string;
}

export interface TaskFire {
  fireId: string;
  taskId: string;
  kind: string;
  scheduledAt: string;
  status: string;
  attempts: number;
  runId: string | null;
  result: { status?: string; response?: string } | null;
  error: string | null;
  startedAt: string | null;
  finishedAt: string | null;
}

export interface MemoryFact {
  factId: string;
  collection: string;
  subject: string;
  predicate: string;
  object: string;
  kind: string;
  confidence: number;
  current: boolean;
  validFrom: string | null;
  validTo: string | null;
  supersededBy: string | null;
  source: { origin: string; conversationId?: string; runId?: string; messageSeq?: number };
  createdAt: string;
}

export interface Credential {
  service: string;
  account: string;
  version: number;
  keyId: string;
  createdAt: string;
  updatedAt: string;
}

export interface CredentialAuditEvent {
  id: string;
  service: string;
  account: string;
  action: string;
  outcome: string;
  actor: { kind: 'user'; subject: string } | { kind: 'tool'; tool: string; runId: string; callId: string };
  at: string;
}

export interface UsageDay {
  day: string;
  turns: number;
  inputTokens: number;
  outputTokens: number;
}

export interface UsageReport {
  days: UsageDay[];
  total: { turns: number; inputTokens: number; outputTokens: number };
}

/** What the api tells the console about itself (GET /console/config.json). */
export interface ConsoleConfig {
  traceUrlTemplate: string;
  operatorRole: string;
}
