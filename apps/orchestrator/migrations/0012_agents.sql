-- Tenant agents (issue 36, docs/agents.md): named, versioned configurations a tenant writes
-- through the api (the orchestrator's AgentService). Every row carries its tenant and every
-- statement filters by it. An agent's versions are immutable once written; the agent row points
-- at the active one (null while only drafts exist) and counts every write in `revision` (the
-- ETag a writer sends back as If-Match).
CREATE TABLE IF NOT EXISTS agents (
  tenant_id      text        NOT NULL,
  agent_id       text        NOT NULL,
  name           text        NOT NULL,
  revision       bigint      NOT NULL DEFAULT 1,
  active_version integer,
  latest_version integer     NOT NULL,
  created_at     timestamptz NOT NULL DEFAULT now(),
  updated_at     timestamptz NOT NULL DEFAULT now(),
  deleted_at     timestamptz,
  created_by     text        NOT NULL,
  PRIMARY KEY (tenant_id, agent_id)
);
-- A name names one live agent of a tenant; a deleted agent's name may be taken again.
CREATE UNIQUE INDEX IF NOT EXISTS agents_live_name ON agents (tenant_id, name) WHERE deleted_at IS NULL;

-- What each version holds (libs/contracts AgentSpec, as parsed: defaults filled in).
CREATE TABLE IF NOT EXISTS agent_versions (
  tenant_id    text        NOT NULL,
  agent_id     text        NOT NULL,
  version      integer     NOT NULL,
  spec         jsonb       NOT NULL,
  created_at   timestamptz NOT NULL DEFAULT now(),
  created_by   text        NOT NULL,
  -- When it was last made active; null for a draft never published.
  published_at timestamptz,
  PRIMARY KEY (tenant_id, agent_id, version),
  FOREIGN KEY (tenant_id, agent_id) REFERENCES agents (tenant_id, agent_id)
);

-- Publications, newest last: a rollback undoes the newest one not undone yet and makes the
-- version of the one before it active again (so rolling back twice goes back two publications).
CREATE TABLE IF NOT EXISTS agent_publications (
  tenant_id    text        NOT NULL,
  agent_id     text        NOT NULL,
  seq          bigint      NOT NULL,
  version      integer     NOT NULL,
  published_at timestamptz NOT NULL DEFAULT now(),
  published_by text        NOT NULL,
  rolled_back  boolean     NOT NULL DEFAULT false,
  PRIMARY KEY (tenant_id, agent_id, seq),
  FOREIGN KEY (tenant_id, agent_id) REFERENCES agents (tenant_id, agent_id)
);

-- A conversation pinned to an agent: to one version, or (version 0) to the agent's active one.
CREATE TABLE IF NOT EXISTS conversation_agent_pins (
  tenant_id       text        NOT NULL,
  conversation_id text        NOT NULL,
  agent_id        text        NOT NULL,
  version         integer     NOT NULL DEFAULT 0,
  pinned_at       timestamptz NOT NULL DEFAULT now(),
  pinned_by       text        NOT NULL,
  PRIMARY KEY (tenant_id, conversation_id),
  FOREIGN KEY (tenant_id, agent_id) REFERENCES agents (tenant_id, agent_id)
);

-- A run records the agent and version it runs under (`builtin:<name>` and 0 for a built-in
-- agent; null for runs older than this migration), the per-run overrides it was given and the
-- end user (`sub`) who sent its message: a resumed run, on any replica, runs under the same.
ALTER TABLE runs ADD COLUMN IF NOT EXISTS agent_id text;
ALTER TABLE runs ADD COLUMN IF NOT EXISTS agent_version integer;
ALTER TABLE runs ADD COLUMN IF NOT EXISTS overrides jsonb;
ALTER TABLE runs ADD COLUMN IF NOT EXISTS subject text;
