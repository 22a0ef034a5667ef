import type { Logger } from '@platform/service-kit';
import type { EntryRow } from './entry-store.js';

/** One line per change of an entry, with the fields an operator looks for. */
export function logEntry(logger: Logger, row: EntryRow, msg: string): void {
  logger.info(
    {
      entryId: row.entry_id,
      tenantId: row.tenant_id,
      agent: row.agent_name,
      status: row.status,
      step: row.step,
      errorCode: row.error_code ?? undefined,
    },
    msg,
  );
}
