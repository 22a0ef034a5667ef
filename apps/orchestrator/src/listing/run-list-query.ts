import { StopReasons } from '@platform/agent-loop';
import { ConversationId, RunId, RunProtocol, TenantId } from '@platform/contracts';
import type { orchestratorV1 } from '@platform/proto';
import { errors } from '@platform/service-kit';
import type { RunStatus } from '../journal/run-types.js';
import { ErrorCodes } from '../error-codes.js';

const RUN_STATUSES: readonly RunStatus[] = ['queued', 'running', 'completed', 'waiting', 'failed', 'cancelled'];
/** Who started a run, as listings show it (see `sourceSql` in run-listing.ts). */
const RUN_SOURCES = ['user', 'trigger', 'child', 'notice'] as const;
export type RunListSource = (typeof RUN_SOURCES)[number];

const DEFAULT_PAGE_SIZE = 50;
const MAX_PAGE_SIZE = 200;
const MAX_TOOL_NAME = 128;

/** The filters of a listing: every one optional, combined with AND. */
export interface RunListFilters {
  conversationId?: string;
  statuses?: RunStatus[];
  stopReason?: string;
  toolName?: string;
  source?: RunListSource;
  createdAfter?: Date;
  createdBefore?: Date;
  parentRunId?: string;
  protocol?: RunProtocol;
}

/** A checked ListRuns request. */
export interface RunListQuery {
  tenantId: string;
  filters: RunListFilters;
  pageSize: number;
  pageToken: string;
}

/** INVALID_ARGUMENT naming the request field, in the message and as `details.field`. */
function invalid(code: string, field: string, message: string): Error {
  return errors.invalidArgument(code, `${field} ${message}`, { details: { field } });
}

function idOf(schema: typeof RunId, value: string, code: string, field: string): string | undefined {
  if (!value) return undefined;
  if (!schema.safeParse(value).success)
    throw invalid(code, field, 'is not a valid id (1-128 letters, digits, ".", "_", ":" or "-")');
  return value;
}

function statusesOf(values: readonly string[]): RunStatus[] | undefined {
  if (values.length === 0) return undefined;
  const unknown = values.find((v) => !(RUN_STATUSES as readonly string[]).includes(v));
  if (unknown !== undefined)
    throw invalid(
      ErrorCodes.INVALID_STATUS,
      'statuses',
      `has '${unknown}'; each must be one of ${RUN_STATUSES.join(', ')}`,
    );
  return [...new Set(values as RunStatus[])].sort();
}

function pageSizeOf(value: number): number {
  if (value === 0) return DEFAULT_PAGE_SIZE;
  if (!Number.isInteger(value) || value < 1 || value > MAX_PAGE_SIZE)
    throw invalid(
      ErrorCodes.INVALID_PAGE_SIZE,
      'page_size',
      `must be 1-${MAX_PAGE_SIZE} (0 means ${DEFAULT_PAGE_SIZE}), not ${value}`,
    );
  return value;
}

/** Checks a ListRuns request: a clear INVALID_ARGUMENT naming the first bad field. */
export function runListQueryOf(request: orchestratorV1.ListRunsRequest): RunListQuery {
  if (!TenantId.safeParse(request.tenantId).success)
    throw errors.invalidArgument(ErrorCodes.INVALID_TENANT_ID, 'tenant_id is invalid');
  const filters: RunListFilters = {};
  const conversationId = idOf(
    ConversationId,
    request.conversationId,
    ErrorCodes.INVALID_CONVERSATION_ID,
    'conversation_id',
  );
  if (conversationId) filters.conversationId = conversationId;
  const statuses = statusesOf(request.statuses);
  if (statuses) filters.statuses = statuses;
  if (request.stopReason) {
    if (!(StopReasons as readonly string[]).includes(request.stopReason))
      throw invalid(ErrorCodes.INVALID_STOP_REASON, 'stop_reason', `must be one of ${StopReasons.join(', ')}`);
    filters.stopReason = request.stopReason;
  }
  if (request.toolName) {
    if (request.toolName.length > MAX_TOOL_NAME || request.toolName.includes('\u0000'))
      throw invalid(ErrorCodes.INVALID_TOOL_NAME, 'tool_name', `must be 1-${MAX_TOOL_NAME} characters without NUL`);
    filters.toolName = request.toolName;
  }
  if (request.source) {
    if (!(RUN_SOURCES as readonly string[]).includes(request.source))
      throw invalid(ErrorCodes.INVALID_SOURCE, 'source', `must be one of ${RUN_SOURCES.join(', ')}`);
    filters.source = request.source as RunListSource;
  }
  if (request.createdAfter) filters.createdAfter = request.createdAfter;
  if (request.createdBefore) filters.createdBefore = request.createdBefore;
  if (filters.createdAfter && filters.createdBefore && filters.createdAfter >= filters.createdBefore) {
    throw invalid(ErrorCodes.INVALID_TIME_RANGE, 'created_after', 'must be before created_before');
  }
  const parentRunId = idOf(RunId, request.parentRunId, ErrorCodes.INVALID_PARENT_RUN_ID, 'parent_run_id');
  if (parentRunId) filters.parentRunId = parentRunId;
  if (request.protocol) {
    const protocol = RunProtocol.safeParse(request.protocol);
    if (!protocol.success)
      throw invalid(ErrorCodes.INVALID_PROTOCOL, 'protocol', `must be one of ${RunProtocol.options.join(', ')}`);
    filters.protocol = protocol.data;
  }
  return { tenantId: request.tenantId, filters, pageSize: pageSizeOf(request.pageSize), pageToken: request.pageToken };
}
