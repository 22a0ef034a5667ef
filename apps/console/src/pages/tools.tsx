import { useState } from 'react';
import type { ApiError } from '../api/api-error.js';
import type { CatalogTool, ToolTrial } from '../api/types.js';
import { CodeBlock, StatusBadge } from '../components/badges.js';
import { BreakerState, RunnerInstances } from '../components/runner-instances.js';
import { EmptyState, ErrorState, LoadState } from '../components/states.js';
import { ToolForm } from '../components/tool-form.js';
import { useLoad } from '../components/use-load.js';
import { useConsole } from '../console-context.js';
import { formatDuration, plural } from '../lib/format.js';

function TryTool({ tool }: { tool: CatalogTool }) {
  const { api, readOnly } = useConsole();
  const [busy, setBusy] = useState(false);
  const [outcome, setOutcome] = useState<ToolTrial | undefined>();
  const [error, setError] = useState<ApiError | undefined>();
  const run = async (args: Record<string, unknown>) => {
    setBusy(true);
    setError(undefined);
    setOutcome(undefined);
    try {
      setOutcome(await api.tryTool(tool.name, args));
    } catch (err) {
      setError(err as ApiError);
    } finally {
      setBusy(false);
    }
  };
  return (
    <div className="try-tool">
      <h3>Try it</h3>
      {readOnly ? (
        <p className="muted">Viewing another tenant is read-only: tools run as your own tenant only.</p>
      ) : tool.requiresApproval || tool.kind === 'agent' ? (
        <p className="muted">
          {tool.kind === 'agent' ? 'An agent-tool talks with the user' : "This tool needs the user's approval"}, so it
          runs only in a conversation (the api answers a try with{' '}
          {tool.kind === 'agent' ? 'AGENT_TOOL' : 'APPROVAL_REQUIRED'} and runs nothing).
        </p>
      ) : (
        <>
          <p className="muted">
            Runs one call under your tenant, as a model&apos;s call runs: the tool&apos;s timeout, credentials and
            circuit breaker apply.
          </p>
          <ToolForm tool={tool} disabled={busy} onSubmit={(args) => void run(args)} />
        </>
      )}
      {busy && <p role="status">Running…</p>}
      {error && <ErrorState error={error} />}
      {outcome && (
        <div data-testid="tool-outcome" aria-live="polite">
          <p>
            <StatusBadge status={outcome.status} /> in {formatDuration(outcome.durationMs)} on runner {outcome.runner}{' '}
            <span className="muted">(call {outcome.callId})</span>
          </p>
          {outcome.error && (
            <p className="notice error">
              {outcome.error.code}: {outcome.error.message}
            </p>
          )}
          {outcome.output !== undefined && (
            <CodeBlock
              label={outcome.truncated ? 'Output (truncated)' : 'Output'}
              text={JSON.stringify(outcome.output, null, 2)}
            />
          )}
        </div>
      )}
    </div>
  );
}

function ToolCard({ tool }: { tool: CatalogTool }) {
  return (
    <li className="card">
      <details>
        <summary>
          <span className="tool-name">{tool.name}</span>{' '}
          <span className="muted">
            {tool.kind} · runner {tool.runner} {tool.version} · {plural(tool.instances, 'instance')}
          </span>
          {tool.requiresApproval && <span className="badge badge-waiting">needs approval</span>}{' '}
          <BreakerState breaker={tool.breaker} />
        </summary>
        <p>{tool.description}</p>
        <dl className="facts">
          <dt>Timeout</dt>
          <dd>{formatDuration(tool.timeoutMs)}</dd>
          <dt>Side effects</dt>
          <dd>{tool.sideEffect}</dd>
          <dt>Circuit breaker</dt>
          <dd>
            <BreakerState breaker={tool.breaker} />
          </dd>
        </dl>
        <RunnerInstances tool={tool} />
        <CodeBlock label="Input schema" text={JSON.stringify(tool.inputSchema, null, 2)} />
        <TryTool tool={tool} />
      </details>
    </li>
  );
}

/** The live tool catalog: every tool the agents can use now, which runner serves it, and a form to try it. */
export function ToolsPage() {
  const { api } = useConsole();
  const loaded = useLoad(['tools'], () => api.listTools());
  return (
    <section aria-labelledby="tools-title">
      <h1 id="tools-title">Tools and runners</h1>
      <LoadState loaded={loaded} what="the tool catalog">
        {({ tools }) => {
          if (tools.length === 0)
            return (
              <EmptyState title="No tool runner answers discovery.">
                Start a runner (the platform&apos;s own is apps/tool-runner); tools appear here within seconds.
              </EmptyState>
            );
          const runners = new Map<string, CatalogTool[]>();
          for (const tool of tools) runners.set(tool.runner, [...(runners.get(tool.runner) ?? []), tool]);
          return [...runners.entries()].map(([runner, served]) => (
            <section key={runner} aria-labelledby={`runner-${runner}`}>
              <h2 id={`runner-${runner}`}>
                Runner {runner}{' '}
                <span className="muted">({plural(Math.max(...served.map((t) => t.instances)), 'instance')})</span>
              </h2>
              <ul className="cards">
                {served.map((tool) => (
                  <ToolCard key={tool.name} tool={tool} />
                ))}
              </ul>
            </section>
          ));
        }}
      </LoadState>
    </section>
  );
}
