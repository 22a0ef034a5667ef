import { useState } from 'react';
import { Link, useLocation, useParams } from 'wouter';
import type { Agent } from '../api/types.js';
import { AgentEditor } from '../components/agent-editor.js';
import { AgentVersions } from '../components/agent-versions.js';
import { StatusBadge } from '../components/badges.js';
import { LoadState } from '../components/states.js';
import { TryAgent } from '../components/try-agent.js';
import { useLoad } from '../components/use-load.js';
import { useConsole } from '../console-context.js';
import { agentSpecSchema } from '../lib/agent-form.js';

/** The AgentSpec schema of the api's OpenAPI document, once per session. */
function useAgentSchema() {
  const { api } = useConsole();
  return useLoad(['openapi', 'AgentSpec'], async () => agentSpecSchema(await api.openApiDocument()));
}

/** A new agent: the editor with the schema's defaults; saving creates it and opens its page. */
export function NewAgentPage() {
  const { api, readOnly } = useConsole();
  const [, navigate] = useLocation();
  const schema = useAgentSchema();
  return (
    <section aria-labelledby="agent-title">
      <h1 id="agent-title">New agent</h1>
      <p>
        <Link href="/agents">All agents</Link>
      </p>
      <LoadState loaded={schema} what="the agent form">
        {(spec) => (
          <AgentEditor
            schema={spec}
            spec={null}
            disabled={readOnly}
            onSave={async (body, draft) => {
              const { body: created } = await api.createAgent(body, draft);
              navigate(`/agents/${encodeURIComponent(created.id)}`);
            }}
          />
        )}
      </LoadState>
    </section>
  );
}

function AgentFacts({ agent, etag }: { agent: Agent; etag: string }) {
  return (
    <dl className="facts">
      <dt>Id</dt>
      <dd>
        <code>{agent.id}</code>
      </dd>
      <dt>Active version</dt>
      <dd data-testid="active-version">{agent.activeVersion === null ? 'none' : `v${agent.activeVersion}`}</dd>
      <dt>Latest version</dt>
      <dd>{agent.latestVersion === null ? '—' : `v${agent.latestVersion}`}</dd>
      <dt>ETag</dt>
      <dd>
        <code>{etag}</code>
      </dd>
    </dl>
  );
}

/** One agent: its facts, its spec as an editable form, its versions (publish, roll back, diff) and a box to try one. */
export function AgentPage() {
  const { agent: ref = '' } = useParams<{ agent: string }>();
  const id = decodeURIComponent(ref);
  const { api, readOnly } = useConsole();
  const schema = useAgentSchema();
  const loaded = useLoad(['agent', id], async () => {
    const [agent, versions] = await Promise.all([api.getAgent(id), api.agentVersions(id)]);
    return { ...agent, versions: versions.versions };
  });
  // The ETag of the latest write here wins over the one loaded (the reload follows).
  const [written, setWritten] = useState<{ etag: string; revision: number } | undefined>();
  const act = async (write: (etag: string) => Promise<{ body: Agent; etag: string }>): Promise<void> => {
    const current = written && written.revision >= (loaded.data?.body.revision ?? 0) ? written.etag : loaded.data?.etag;
    const { body, etag } = await write(current ?? '');
    setWritten({ etag, revision: body.revision });
    loaded.reload();
  };
  return (
    <LoadState loaded={loaded} what="the agent">
      {({ body: agent, etag, versions }) => (
        <section aria-labelledby="agent-title">
          <h1 id="agent-title">
            Agent {agent.name} {agent.builtIn && <StatusBadge status="built-in" />}
            {agent.deletedAt && <StatusBadge status="deleted" />}
          </h1>
          <p>
            <Link href="/agents">All agents</Link>
          </p>
          <AgentFacts agent={agent} etag={etag} />
          <section aria-labelledby="spec-title">
            <h2 id="spec-title">
              Spec {versions[0] && <span className="muted">(v{versions[0].version}, the latest)</span>}
            </h2>
            <LoadState loaded={schema} what="the agent form">
              {(spec) => (
                <AgentEditor
                  key={agent.id}
                  schema={spec}
                  spec={versions[0]?.spec ?? agent.spec}
                  disabled={readOnly || agent.builtIn}
                  onSave={(body, draft) => act((e) => api.updateAgent(agent.id, body, e, draft))}
                />
              )}
            </LoadState>
          </section>
          {versions.length > 0 && (
            <AgentVersions
              key={`${agent.id}-${agent.revision}`}
              agentId={agent.id}
              versions={versions}
              builtIn={agent.builtIn}
              act={act}
            />
          )}
          {!readOnly && !agent.deletedAt && versions.length > 0 && (
            <TryAgent key={`try-${agent.revision}`} agentId={agent.id} versions={versions} />
          )}
        </section>
      )}
    </LoadState>
  );
}
