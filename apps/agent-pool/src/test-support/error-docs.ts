import { sharedErrorCatalogue, type ErrorCodeSpec } from '@platform/service-kit';
import type { DocTable } from '@platform/testing';
import { agentPoolErrorCatalogue, type ErrorCodes } from '../error-codes.js';

type Code = keyof typeof ErrorCodes;

/** The rows of docs/agent-pool.md's "Error codes" table: the codes of each, when they are raised, and what happens to the entry. */
const ROWS: ReadonlyArray<{ codes: readonly Code[]; when: string; entry: string }> = [
  {
    codes: [
      'INVALID_TENANT_ID',
      'INVALID_CONVERSATION_ID',
      'INVALID_RUN_ID',
      'INVALID_CALL_ID',
      'INVALID_AGENT_NAME',
      'INVALID_ENTRY_ID',
      'INVALID_APPROVAL_ID',
      'INVALID_ARGUMENTS_JSON',
      'INVALID_FIELDS_JSON',
      'INVALID_CHANGES_JSON',
      'INVALID_SOURCE',
      'INVALID_DECISION',
      'DECISION_REQUIRED',
      'CHANGES_NEED_EDIT',
      'DECISION_NOT_OFFERED',
      'MODIFICATION_NOT_ALLOWED',
      'INPUT_TOO_LARGE',
      'INVALID_USER_DECISION',
    ],
    when: 'Bad request',
    entry: 'unchanged',
  },
  { codes: ['AGENT_NOT_FOUND', 'APPROVAL_NOT_FOUND'], when: 'No such entry/approval for this tenant', entry: '—' },
  {
    codes: ['STEP_IN_PROGRESS'],
    when: 'Another call is running a step of (or changing) this entry; retry after it (`platform-retry-after: 1`)',
    entry: 'unchanged',
  },
  {
    codes: ['AGENT_PAUSED', 'AGENT_AWAITING_APPROVAL', 'AGENT_AWAITING_INPUT', 'AGENT_NOT_WAITING', 'AGENT_NOT_LIVE'],
    when: 'The entry is not in the status the call needs; details carry `{entryId, status}`',
    entry: 'unchanged',
  },
  {
    codes: ['NOT_AN_AGENT'],
    when: '`StartAgent` of a name the catalog lists as a plain tool (without `approval_gate`)',
    entry: 'nothing stored',
  },
  { codes: ['NOT_A_PLAIN_TOOL'], when: '`StartAgent` with `approval_gate` of an agent-tool', entry: 'nothing stored' },
  { codes: ['TOO_MANY_AGENTS'], when: 'Per-tenant live limit; details `{live, limit}`', entry: 'nothing stored' },
  {
    codes: ['AGENT_UNAVAILABLE'],
    when: 'No runner serves the agent, all replicas busy, or NATS unreachable',
    entry: 'unchanged',
  },
  {
    codes: ['AGENT_STEP_TIMEOUT'],
    when: 'The runner did not answer in time; the step may have run',
    entry: 'unchanged',
  },
];

/** The catalogue's own codes that no row of the table lists (the table must be given a row for each). */
export function codesWithoutRow(catalogue: Record<string, ErrorCodeSpec> = agentPoolErrorCatalogue): string[] {
  const listed = new Set<string>(ROWS.flatMap((row) => row.codes));
  return Object.keys(catalogue).filter((code) => !listed.has(code));
}

/** The gRPC status a row's codes are answered with, from the catalogue's kind (one kind per row). */
function grpcStatus(codes: readonly Code[]): string {
  const catalogue: Record<string, ErrorCodeSpec> = { ...sharedErrorCatalogue, ...agentPoolErrorCatalogue };
  const kinds = new Set(codes.map((code) => catalogue[code]?.kind));
  const [kind] = kinds;
  if (kinds.size !== 1 || !kind) throw new Error(`the codes ${codes.join(', ')} are raised with several kinds`);
  return kind.toUpperCase();
}

/** docs/agent-pool.md's "Error codes" table. */
export const errorDocTables: readonly DocTable[] = [
  {
    file: 'docs/agent-pool.md',
    name: 'agent-pool-error-codes',
    header: ['gRPC status', '`platform-error-code`', 'When', 'Entry'],
    rows: () =>
      ROWS.map((row) => [
        `\`${grpcStatus(row.codes)}\``,
        row.codes.map((code) => `\`${code}\``).join(', '),
        row.when,
        row.entry,
      ]),
  },
];
