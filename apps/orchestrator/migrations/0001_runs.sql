-- Finished runs with their result and per-iteration transcript, per tenant.
CREATE TABLE runs (
  run_id          text        PRIMARY KEY,
  tenant_id       text        NOT NULL,
  conversation_id text        NOT NULL,
  status          text        NOT NULL,
  stop_reason     text        NOT NULL,
  result          jsonb       NOT NULL,
  transcript      jsonb       NOT NULL,
  created_at      timestamptz NOT NULL,
  finished_at     timestamptz NOT NULL DEFAULT now()
);

CREATE INDEX runs_by_conversation ON runs (tenant_id, conversation_id, created_at);
