import { TENANT_ROLES } from '@platform/contracts';
import type { DocTable } from '@platform/testing';
import { allOperations } from '../api-operations.js';
import type { OperationSpec } from '../openapi/operation.js';

/** What the table says an operation needs: a tenant role, the operator role, or nothing. */
function needs(operation: OperationSpec): string {
  if (operation.access === 'tenant') return `\`${operation.role}\``;
  return operation.access === 'operator' ? 'operator (`AUTH_OPERATOR_ROLE`)' : 'none (public)';
}

/**
 * docs/access.md's role table: every operation of the OpenAPI document with the least role it
 * needs, tenant operations first by role (viewer … admin), then the operators' and the public ones.
 */
export function roleDocTable(operations: readonly OperationSpec[] = allOperations): DocTable {
  const rank = (operation: OperationSpec): number =>
    operation.access === 'tenant' ? TENANT_ROLES.indexOf(operation.role) : operation.access === 'operator' ? 10 : 11;
  return {
    file: 'docs/access.md',
    name: 'access-roles',
    header: ['Least role', 'Operation', 'Method and path'],
    rows: () =>
      [...operations]
        .map((operation, index) => ({ operation, index }))
        .sort((a, b) => rank(a.operation) - rank(b.operation) || a.index - b.index)
        .map(({ operation }) => [
          needs(operation),
          `\`${operation.operationId}\``,
          `\`${operation.method} ${operation.path}\``,
        ]),
  };
}

export const roleDocTables: readonly DocTable[] = [roleDocTable()];
