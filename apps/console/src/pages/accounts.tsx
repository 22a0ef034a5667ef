import { useState } from 'react';
import { Link } from 'wouter';
import type { CredentialAuditEvent } from '../api/types.js';
import { StatusBadge } from '../components/badges.js';
import { EmptyState, LoadState } from '../components/states.js';
import { useLoad } from '../components/use-load.js';
import { useConsole } from '../console-context.js';
import { formatTime } from '../lib/format.js';
import { DataTable } from '../components/table.js';
import { PagedTable } from '../components/paged-table.js';

function Actor({ actor }: { actor: CredentialAuditEvent['actor'] }) {
  if (actor.kind === 'user') return <>user {actor.subject}</>;
  return (
    <>
      tool {actor.tool} in run <Link href={`/runs/${actor.runId}`}>{actor.runId}</Link>
    </>
  );
}

function AuditTrail() {
  const { api } = useConsole();
  const [before, setBefore] = useState<number[]>([]);
  const loaded = useLoad(['credential-audit', before], () => api.credentialAudit(before[before.length - 1]));
  return (
    <section aria-labelledby="audit-title">
      <h2 id="audit-title">Audit trail</h2>
      <LoadState loaded={loaded} what="the audit trail">
        {({ events, nextBefore }) => (
          <PagedTable
            rows={events}
            empty={
              <EmptyState title="No credential was read or written yet.">
                Every save, read, list and delete shows here, newest first.
              </EmptyState>
            }
            caption="Credential reads and writes, newest first"
            columns={['When', 'Account', 'Action', 'Outcome', 'By']}
            row={(event) => (
              <tr key={event.id}>
                <td>{formatTime(event.at)}</td>
                <td>
                  {event.service}/{event.account}
                </td>
                <td>{event.action}</td>
                <td>
                  <StatusBadge status={event.outcome} />
                </td>
                <td>
                  <Actor actor={event.actor} />
                </td>
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

/** Connected accounts (metadata only: the api never returns a secret) and who used them. */
export function AccountsPage() {
  const { api } = useConsole();
  const loaded = useLoad(['credentials'], () => api.listCredentials());
  return (
    <section aria-labelledby="accounts-title">
      <h1 id="accounts-title">Connected accounts</h1>
      <LoadState loaded={loaded} what="connected accounts">
        {({ credentials }) =>
          credentials.length === 0 ? (
            <EmptyState title="No account is connected.">
              Applications store a user&apos;s third-party tokens with PUT /v1/credentials/{'{service}'}/{'{account}'}{' '}
              after their OAuth flow (docs/credentials.md).
            </EmptyState>
          ) : (
            <DataTable
              caption="Connected accounts"
              captionHidden
              columns={['Service', 'Account', 'Version', 'Encryption key', 'Updated']}
            >
              {credentials.map((c) => (
                <tr key={`${c.service}/${c.account}`}>
                  <td>{c.service}</td>
                  <td>{c.account}</td>
                  <td>{c.version}</td>
                  <td>
                    <code>{c.keyId}</code>
                  </td>
                  <td>{formatTime(c.updatedAt)}</td>
                </tr>
              ))}
            </DataTable>
          )
        }
      </LoadState>
      <AuditTrail />
    </section>
  );
}
