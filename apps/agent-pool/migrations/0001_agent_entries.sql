-- One row per agent-tool call (tenant, model call id): its lifecycle from the first step to a
-- final status. Live rows (waiting_*, paused) have an expiry; finished rows are kept for dedupe
-- of repeated starts and for audit, and purged after the retention period.
CREATE TABLE entries (
  entry_id        text        PRIMARY KEY,
  tenant_id       text        NOT NULL,
  conversation_id text        NOT NULL,
  run_id          text,
  -- The model's tool call id that started the agent.
  call_id         text        NOT NULL,
  agent_name      text        NOT NULL,
  status          text        NOT NULL CHECK (status IN ('waiting_for_input', 'waiting_for_approval', 'paused', 'completed', 'cancelled', 'expired', 'error')),
  paused_from     text        CHECK (paused_from IN ('waiting_for_input', 'waiting_for_approval')),
  -- The agent's field schema version the state below was produced under.
  schema_version  text        NOT NULL,
  -- The model's arguments of the first step, sent again with every later step.
  arguments       jsonb       NOT NULL,
  collected       jsonb       NOT NULL DEFAULT '{}'::jsonb,
  prompt          text,
  -- MissingField[] of the last waiting_for_input step.
  missing         jsonb,
  -- The current (or, once finished, the last) ApprovalRequest and the pool's id for it.
  approval_id     text,
  approval        jsonb,
  source_kind     text        NOT NULL CHECK (source_kind IN ('user', 'trigger')),
  source_task_id  text,
  result          jsonb,
  error_code      text,
  error_message   text,
  -- Agent steps run so far; step n's runner call id is derived from (entry_id, n).
  step            integer     NOT NULL DEFAULT 0,
  created_at      timestamptz NOT NULL DEFAULT now(),
  updated_at      timestamptz NOT NULL DEFAULT now(),
  expires_at      timestamptz,
  -- Outbox flag: the entry expired and its event is not yet acknowledged by JetStream.
  event_pending   boolean     NOT NULL DEFAULT false,
  UNIQUE (tenant_id, call_id),
  CHECK (status NOT IN ('waiting_for_input', 'waiting_for_approval', 'paused') OR expires_at IS NOT NULL),
  CHECK ((status = 'paused') = (paused_from IS NOT NULL))
);

CREATE UNIQUE INDEX entries_approval_id ON entries (tenant_id, approval_id) WHERE approval_id IS NOT NULL;
-- Live entries per tenant and conversation (ListPending, the per-tenant limit).
CREATE INDEX entries_live ON entries (tenant_id, conversation_id, created_at)
  WHERE status IN ('waiting_for_input', 'waiting_for_approval', 'paused');
-- The sweeper's work lists.
CREATE INDEX entries_due ON entries (expires_at)
  WHERE status IN ('waiting_for_input', 'waiting_for_approval', 'paused');
CREATE INDEX entries_event_pending ON entries (updated_at) WHERE event_pending;
CREATE INDEX entries_finished ON entries (updated_at)
  WHERE status IN ('completed', 'cancelled', 'expired', 'error');
