import type { FailureClass, Recovery as AgentLoopRecovery, Severity } from '@platform/agent-loop';
import type { Subtask } from './plan-schema.js';

type SubtaskStatus = 'pending' | 'blocked' | 'executing' | 'completed' | 'failed' | 'skipped';

/** The failure classes of seed 003 §7 (one taxonomy for every run: @platform/agent-loop failures.ts). */
export type { FailureClass, Severity } from '@platform/agent-loop';
/** The recoveries a plan applies to its failures. */
export type Recovery = Extract<AgentLoopRecovery, 'retry' | 'replan' | 'escalate' | 'none'>;

/** One failure of a plan's execution: what failed, its class and severity, and the recovery applied. */
export interface PlanFailure {
  planVersion: number;
  subtaskId?: string;
  class: FailureClass;
  kind: string;
  severity: Severity;
  message: string;
  recovery: Recovery;
  at: number;
}

export interface SubtaskView extends Subtask {
  status: SubtaskStatus;
  attempts: number;
  /** The child run of each attempt, oldest first (the transcript's link to what did the work). */
  childRunIds: string[];
  error?: string;
}

/** The plan of a plan-and-execute run as callers see it (`GET /v1/runs/{id}` → `plan`, and `plan_updated` events). */
export interface PlanView {
  goal: string;
  status: 'planning' | 'executing' | 'completed' | 'failed';
  version: number;
  replans: number;
  executionOrder: string[];
  subtasks: SubtaskView[];
  /** The shared context: `original_query` and each finished subtask's result under its key. */
  context: Record<string, string>;
  failures: PlanFailure[];
  mermaid: string;
}

const MERMAID_CLASS: Record<SubtaskStatus, string> = {
  pending: 'pending',
  blocked: 'blocked',
  executing: 'executing',
  completed: 'completed',
  failed: 'failed',
  skipped: 'skipped',
};

/** A label Mermaid shows as is: quotes and brackets would end it. */
function mermaidLabel(text: string): string {
  const flat = text
    .replace(/\[scenario:[^\]]*\]/g, '')
    .replace(/["[\]{}()<>|#]/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
  return flat.length > 60 ? `${flat.slice(0, 59)}…` : flat;
}

/** The plan's DAG as a Mermaid flowchart, each node coloured by its status. */
export function mermaidOf(subtasks: readonly SubtaskView[]): string {
  const lines = ['flowchart TD'];
  for (const s of subtasks)
    lines.push(`  ${s.id}["${s.id}: ${mermaidLabel(s.description)}"]:::${MERMAID_CLASS[s.status]}`);
  for (const s of subtasks) for (const dep of s.dependencies) lines.push(`  ${dep} --> ${s.id}`);
  lines.push(
    '  classDef pending fill:#eee,stroke:#999',
    '  classDef blocked fill:#fff3cd,stroke:#d4a017',
    '  classDef executing fill:#cfe2ff,stroke:#0d6efd',
    '  classDef completed fill:#d1e7dd,stroke:#198754',
    '  classDef failed fill:#f8d7da,stroke:#dc3545',
    '  classDef skipped fill:#eee,stroke:#999,stroke-dasharray: 3 3',
  );
  return lines.join('\n');
}
