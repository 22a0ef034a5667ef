-- The run journal: a run is recorded when it is accepted (queued), claimed by one orchestrator
-- at a time under a lease with an epoch (fencing), and every model response and tool outcome is
-- journaled as a step, so another orchestrator can resume it after a crash without redoing work.
ALTER TABLE runs ALTER COLUMN stop_reason DROP NOT NULL;
ALTER TABLE runs ALTER COLUMN result DROP NOT NULL;
ALTER TABLE runs ALTER COLUMN transcript DROP NOT NULL;
ALTER TABLE runs ALTER COLUMN finished_at DROP NOT NULL;
ALTER TABLE runs ALTER COLUMN finished_at DROP DEFAULT;

-- Arrival order: runs of a conversation run in (created_at, arrival) order; arrival breaks ties.
ALTER TABLE runs ADD COLUMN arrival     bigserial;
ALTER TABLE runs ADD COLUMN profile     text        NOT NULL DEFAULT '';
-- 'message': a user's message (content is its text); 'agent_expired': a waiting agent-tool expired
-- and the conversation gets a tool result saying so (content is the pool's event as JSON).
ALTER TABLE runs ADD COLUMN kind        text        NOT NULL DEFAULT 'message' CHECK (kind IN ('message', 'agent_expired'));
ALTER TABLE runs ADD COLUMN content     text        NOT NULL DEFAULT '';
ALTER TABLE runs ADD COLUMN tier        text        NOT NULL DEFAULT '';
-- Whether the model output is streamed as message_chunk events.
ALTER TABLE runs ADD COLUMN stream      boolean     NOT NULL DEFAULT false;
-- The user's IANA time zone for the framework context ('' = the orchestrator's default).
ALTER TABLE runs ADD COLUMN time_zone   text        NOT NULL DEFAULT '';
-- A decision on a waiting agent's approval request sent through the approvals API
-- ({approvalId, decision, changes}); the pending-agent step applies it before the loop.
ALTER TABLE runs ADD COLUMN approval    jsonb;
-- The assembled loop input (system prompt, history, the message), fixed at the first claim so a
-- resumed run replays exactly what the first attempt saw.
ALTER TABLE runs ADD COLUMN input       jsonb;
ALTER TABLE runs ADD COLUMN started_at  timestamptz;
ALTER TABLE runs ADD COLUMN lease_owner text;
ALTER TABLE runs ADD COLUMN lease_until timestamptz;
ALTER TABLE runs ADD COLUMN lease_epoch integer     NOT NULL DEFAULT 0;
ALTER TABLE runs ADD COLUMN attempts    integer     NOT NULL DEFAULT 0;
ALTER TABLE runs ADD COLUMN cancel_requested boolean NOT NULL DEFAULT false;

-- Runs not yet finished, for ordering and for the recovery sweeper.
CREATE INDEX runs_unfinished ON runs (tenant_id, conversation_id, created_at, arrival) WHERE status IN ('queued', 'running');
CREATE INDEX runs_expired_leases ON runs (lease_until) WHERE status IN ('queued', 'running');

CREATE TABLE run_steps (
  run_id     text        NOT NULL REFERENCES runs (run_id) ON DELETE CASCADE,
  -- 'model': a model response, step_key = its ordinal in the run; 'tool': an outcome, step_key = call id;
  -- 'pipeline': what a pipeline step decided (e.g. the pending-agent step), step_key = the step's name.
  kind       text        NOT NULL CHECK (kind IN ('model', 'tool', 'pipeline')),
  step_key   text        NOT NULL,
  payload    jsonb       NOT NULL,
  epoch      integer     NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (run_id, kind, step_key)
);

-- The highest conversation-lease fencing token that claimed a run of the conversation: a holder
-- with a lower token (its lease expired and another took over) can no longer claim.
CREATE TABLE conversation_fences (
  tenant_id       text   NOT NULL,
  conversation_id text   NOT NULL,
  token           bigint NOT NULL,
  PRIMARY KEY (tenant_id, conversation_id)
);

-- Conversations where an agent-tool may wait for the user: set before an agent-tool starts, cleared
-- when the agent pool has nothing waiting there. Saves asking the pool on every other message.
CREATE TABLE conversation_agents (
  tenant_id       text        NOT NULL,
  conversation_id text        NOT NULL,
  since           timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (tenant_id, conversation_id)
);

-- Token usage per tenant and day (post-process), for billing and the daily token budget.
CREATE TABLE tenant_usage (
  tenant_id     text   NOT NULL,
  day           date   NOT NULL,
  turns         bigint NOT NULL DEFAULT 0,
  input_tokens  bigint NOT NULL DEFAULT 0,
  output_tokens bigint NOT NULL DEFAULT 0,
  PRIMARY KEY (tenant_id, day)
);
