import type { CatalogTool } from '../api/types.js';
import { formatCount, formatDuration, formatTime } from '../lib/format.js';
import { StatusBadge } from './badges.js';
import { DataTable } from './table.js';

/** The tool's circuit breaker, in words. */
export function BreakerState({ breaker }: { breaker: CatalogTool['breaker'] }) {
  return (
    <>
      <StatusBadge status={`breaker ${breaker.state.replace('_', ' ')}`} />
      {breaker.consecutiveFailures > 0 && (
        <span className="muted"> {breaker.consecutiveFailures} failures in a row</span>
      )}
      {breaker.state === 'open' && (
        <span className="muted"> · calls refused for {formatDuration(breaker.retryInMs)}</span>
      )}
    </>
  );
}

/** The runner replicas serving a tool, with their `$SRV.STATS` figures. */
export function RunnerInstances({ tool }: { tool: CatalogTool }) {
  if (tool.runnerInstances.length === 0) return <p className="muted">No replica answered discovery.</p>;
  return (
    <DataTable
      caption={`Replicas of runner ${tool.runner} ($SRV.STATS)`}
      columns={['Instance', 'Version', 'Started', 'Requests', 'Errors', 'Average time', 'Last error']}
    >
      {tool.runnerInstances.map((instance) => (
        <tr key={instance.instanceId}>
          <td>
            <code>{instance.instanceId}</code>
          </td>
          <td>{instance.version}</td>
          <td>{formatTime(instance.started)}</td>
          {instance.statsAvailable ? (
            <>
              <td>{formatCount(instance.requests)}</td>
              <td>{formatCount(instance.errors)}</td>
              <td>{formatDuration(instance.averageProcessingMs)}</td>
              <td>{instance.lastError ?? '—'}</td>
            </>
          ) : (
            <td colSpan={4} className="muted">
              did not answer $SRV.STATS in time
            </td>
          )}
        </tr>
      ))}
    </DataTable>
  );
}
