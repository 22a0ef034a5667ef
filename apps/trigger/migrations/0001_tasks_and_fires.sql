-- Tasks: what fires (trigger), how it runs (executor + action) and where results go (output).
CREATE TABLE tasks (
  task_id       text        PRIMARY KEY,
  tenant_id     text        NOT NULL,
  user_id       text        NOT NULL DEFAULT '',
  name          text        NOT NULL DEFAULT '',
  -- The task spec as validated at creation (trigger, misfire, executor, action, output).
  spec          jsonb       NOT NULL,
  trigger_type  text        NOT NULL CHECK (trigger_type IN ('schedule', 'event', 'condition')),
  executor      text        NOT NULL,
  status        text        NOT NULL CHECK (status IN ('ACTIVE', 'PAUSED', 'DISABLED', 'COMPLETED', 'PENDING_APPROVAL', 'EXPIRED')),
  -- The first scheduled time not planned as a fire yet; NULL when the task does not fire on its own.
  next_fire_at  timestamptz,
  -- The instant an interval without startAt is anchored to (its first time is one interval later).
  anchor_at     timestamptz NOT NULL,
  last_fire_at  timestamptz,
  last_outcome  text        NOT NULL DEFAULT '',
  request_id    text,
  created_at    timestamptz NOT NULL DEFAULT now(),
  updated_at    timestamptz NOT NULL DEFAULT now(),
  UNIQUE (tenant_id, request_id)
);

-- Planning reads due tasks in time order; only active tasks with a next time are indexed.
CREATE INDEX tasks_due ON tasks (next_fire_at) WHERE status = 'ACTIVE' AND next_fire_at IS NOT NULL;
CREATE INDEX tasks_by_tenant ON tasks (tenant_id, created_at DESC, task_id DESC);

-- Fires: one row per (task, fire key). The unique key is what makes a scheduled time fire once:
-- however many replicas plan it, only one row can exist, and only its claimer executes it.
CREATE TABLE fires (
  fire_id          text        PRIMARY KEY,
  task_id          text        NOT NULL REFERENCES tasks (task_id) ON DELETE CASCADE,
  tenant_id        text        NOT NULL,
  fire_key         text        NOT NULL,
  kind             text        NOT NULL CHECK (kind IN ('schedule', 'event', 'condition', 'manual')),
  scheduled_at     timestamptz NOT NULL,
  -- When the fire may next be claimed (its time, or a retry's time after back-pressure or failure).
  due_at           timestamptz NOT NULL,
  status           text        NOT NULL CHECK (status IN ('pending', 'running', 'succeeded', 'failed', 'skipped', 'cancelled', 'waiting_approval')),
  attempts         integer     NOT NULL DEFAULT 0,
  missed_count     integer     NOT NULL DEFAULT 0,
  lease_owner      text,
  lease_expires_at timestamptz,
  -- Data the trigger carries into the action (an event's data, a condition's result).
  payload          jsonb,
  run_id           text        NOT NULL DEFAULT '',
  result           jsonb,
  error_code       text        NOT NULL DEFAULT '',
  error_message    text        NOT NULL DEFAULT '',
  started_at       timestamptz,
  finished_at      timestamptz,
  created_at       timestamptz NOT NULL DEFAULT now(),
  UNIQUE (task_id, fire_key)
);

CREATE INDEX fires_claimable ON fires (due_at) WHERE status = 'pending';
CREATE INDEX fires_leased ON fires (lease_expires_at) WHERE status = 'running';
CREATE INDEX fires_by_task ON fires (task_id, scheduled_at DESC, fire_id DESC);
