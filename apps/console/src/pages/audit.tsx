import { useState } from 'react';
import { EmptyState, LoadState } from '../components/states.js';
import { useLoad } from '../components/use-load.js';
import { useConsole } from '../console-context.js';
import { formatTime } from '../lib/format.js';
import { PagedTable } from '../components/paged-table.js';

/** The audit of administrative actions (docs/access.md#audit), newest first, page by page. Admins only. */
export function AuditPage() {
  const { api } = useConsole();
  const [before, setBefore] = useState<number[]>([]);
  const loaded = useLoad(['admin-audit', before], () => api.adminAudit(before[before.length - 1]));
  return (
    <section aria-labelledby="admin-audit-title">
      <h1 id="admin-audit-title">Audit</h1>
      <LoadState loaded={loaded} what="the audit">
        {({ actions, nextBefore }) => (
          <PagedTable
            rows={actions}
            empty={
              <EmptyState title="No administrative action yet.">
                Every change to keys, agents, model connections and other admin settings shows here.
              </EmptyState>
            }
            caption="Administrative actions, newest first"
            columns={['When', 'Operation', 'Resource', 'Who', 'Role']}
            row={(action) => (
              <tr key={action.id} data-testid="audit-row">
                <td>{formatTime(action.at)}</td>
                <td>
                  <code>{action.operation}</code>
                </td>
                <td>{action.resource}</td>
                <td>
                  {action.subject}
                  {action.actingUser && <span className="muted"> for {action.actingUser}</span>}
                </td>
                <td>{action.role}</td>
              </tr>
            )}
            before={before}
            nextBefore={nextBefore}
            setBefore={setBefore}
          />
        )}
      </LoadState>
    </section>
  );
}
