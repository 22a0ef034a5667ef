-- Tool calls a client tried directly (POST /v1/tools/{name}/calls, CallTool): each one is
-- recorded before it is sent to its runner ('running') and again with its outcome, so a client can
-- read it later (GET /v1/tools/calls/{callId}, scoped by tenant like every read) and the call's
-- history survives the orchestrator that made it. A call whose orchestrator stopped mid-call stays
-- 'running': its runner may or may not have run it (runners dedupe on the call id).
CREATE TABLE IF NOT EXISTS tool_calls (
  tenant_id     text        NOT NULL,
  call_id       text        NOT NULL,
  tool_name     text        NOT NULL,
  arguments     jsonb       NOT NULL,
  subject       text        NOT NULL DEFAULT '',
  status        text        NOT NULL DEFAULT 'running'
                CHECK (status IN ('running', 'success', 'failed', 'invalid', 'timeout', 'denied', 'cancelled')),
  runner        text        NOT NULL DEFAULT '',
  output        jsonb,
  truncated     boolean     NOT NULL DEFAULT false,
  error_code    text        NOT NULL DEFAULT '',
  error_message text        NOT NULL DEFAULT '',
  duration_ms   integer     NOT NULL DEFAULT 0,
  started_at    timestamptz NOT NULL DEFAULT clock_timestamp(),
  finished_at   timestamptz,
  PRIMARY KEY (tenant_id, call_id)
);
