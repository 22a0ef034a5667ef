import { useState } from 'react';
import { EmptyState, LoadState } from '../components/states.js';
import { DataTable } from '../components/table.js';
import { useLoad } from '../components/use-load.js';
import { useConsole } from '../console-context.js';
import { formatTime } from '../lib/format.js';
import { NewerOlderPager } from '../components/newer-older-pager.js';

/** The audit of administrative actions (docs/access.md#audit), newest first, page by page. Admins only. */
export function AuditPage() {
  const { api } = useConsole();
  const [before, setBefore] = useState<number[]>([]);
  const loaded = useLoad(['admin-audit', before], () => api.adminAudit(before[before.length - 1]));
  return (
    <section aria-labelledby="admin-audit-title">
      <h1 id="admin-audit-title">Audit</h1>
      <LoadState loaded={loaded} what="the audit">
        {({ actions, nextBefore }) =>
          actions.length === 0 ? (
            <EmptyState title="No administrative action yet.">
              Every change to keys, agents, model connections and other admin settings shows here.
            </EmptyState>
          ) : (
            <>
              <DataTable
                caption="Administrative actions, newest first"
                captionHidden
                columns={['When', 'Operation', 'Resource', 'Who', 'Role']}
              >
                {actions.map((action) => (
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
                ))}
              </DataTable>
              <NewerOlderPager before={before} nextBefore={nextBefore} setBefore={setBefore} />
            </>
          )
        }
      </LoadState>
    </section>
  );
}
