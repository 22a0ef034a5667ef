-- Remote agents (docs/remote-agents.md): A2A agents elsewhere that a tenant registers by the URL of
-- their agent card and delegates to. Every row carries its tenant and every statement filters by
-- it. Auth is the name of a stored credential (the credential service holds the token, read at
-- call time): no secret is ever written here. `card` is what the agent card said when it was last
-- fetched (name, description, skills, the interface used).
CREATE TABLE IF NOT EXISTS remote_agents (
  tenant_id          text        NOT NULL,
  name               text        NOT NULL,
  url                text        NOT NULL,
  description        text        NOT NULL DEFAULT '',
  credential_service text,
  credential_account text,
  card               jsonb       NOT NULL,
  version            bigint      NOT NULL DEFAULT 1,
  created_at         timestamptz NOT NULL DEFAULT now(),
  updated_at         timestamptz NOT NULL DEFAULT now(),
  created_by         text        NOT NULL DEFAULT '',
  PRIMARY KEY (tenant_id, name)
);

-- The remote task a child run follows: written as soon as the remote agent answered the send, so
-- an orchestrator that dies while the task works resumes following it (tasks/get) instead of
-- sending the task again. `state` is the task's last state seen; a child run that answers a task
-- waiting for input (`input-required`) continues that task, found by its conversation.
CREATE TABLE IF NOT EXISTS remote_agent_tasks (
  tenant_id       text        NOT NULL,
  run_id          text        NOT NULL,
  conversation_id text        NOT NULL,
  remote_agent    text        NOT NULL,
  task_id         text        NOT NULL,
  context_id      text        NOT NULL DEFAULT '',
  state           text        NOT NULL,
  created_at      timestamptz NOT NULL DEFAULT now(),
  updated_at      timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (tenant_id, run_id)
);
CREATE INDEX IF NOT EXISTS remote_agent_tasks_conversation
  ON remote_agent_tasks (tenant_id, conversation_id, created_at DESC);
