-- A2A push notifications (docs/protocols.md#a2a): a tenant's configs for its tasks, and the
-- outbox each change of a task's state writes, in the statement that changes it; any replica
-- delivers it signed with the tenant's run webhook secret and retried (libs/webhooks).
--
-- A task is a chain of runs (the api's task-ids.ts): the run its first message started, whose id
-- is the task id, then `<task id>-c<n>` for each answer to it. A run of protocol 'a2a' is a
-- task's run; its task id is its own id without the `-c<n>` suffix.

CREATE TABLE a2a_push_configs (
  tenant_id        text        NOT NULL,
  task_id          text        NOT NULL,
  config_id        text        NOT NULL,
  url              text        NOT NULL,
  -- The client's token for the receiver (sent as X-A2A-Notification-Token), and its credentials
  -- (`authentication`: sent as `Authorization: <scheme> <credentials>`); never read back.
  token            text        NOT NULL DEFAULT '',
  auth_scheme      text        NOT NULL DEFAULT '',
  auth_credentials text        NOT NULL DEFAULT '',
  created_at       timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (tenant_id, task_id, config_id)
);

CREATE INDEX a2a_push_configs_by_age ON a2a_push_configs (created_at);

-- The outbox: one row per config and state change, its id the webhook-id (stable across retries).
CREATE TABLE a2a_push_deliveries (
  delivery_id      text        PRIMARY KEY,
  tenant_id        text        NOT NULL,
  task_id          text        NOT NULL,
  config_id        text        NOT NULL,
  run_id           text        NOT NULL,
  url              text        NOT NULL,
  -- The config's own headers (content type, token, authorization), sent besides the signature.
  headers          jsonb       NOT NULL DEFAULT '{}',
  body             text        NOT NULL,
  status           text        NOT NULL CHECK (status IN ('pending', 'sending', 'delivered', 'failed')),
  attempts         integer     NOT NULL DEFAULT 0,
  due_at           timestamptz NOT NULL,
  lease_owner      text,
  lease_expires_at timestamptz,
  last_error       text        NOT NULL DEFAULT '',
  created_at       timestamptz NOT NULL DEFAULT now(),
  delivered_at     timestamptz
);

CREATE INDEX a2a_push_deliveries_due ON a2a_push_deliveries (due_at) WHERE status IN ('pending', 'sending');
CREATE INDEX a2a_push_deliveries_by_age ON a2a_push_deliveries (created_at);

-- The body is an A2A 1.0 StreamResponse (ProtoJSON): the task's status update, its state mapped
-- from the run's status as the api maps it (task-mapping.ts), with the run, its stop reason and its
-- answer in the metadata. A receiver reads the rest with GetTask.
CREATE FUNCTION record_a2a_push() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  task text := regexp_replace(NEW.run_id, '-c[0-9]+$', '');
BEGIN
  INSERT INTO a2a_push_deliveries (delivery_id, tenant_id, task_id, config_id, run_id, url, headers, body, status, due_at)
  SELECT 'msg_' || md5(c.config_id || ':' || NEW.run_id || ':' || NEW.status), NEW.tenant_id, task, c.config_id,
    NEW.run_id, c.url,
    jsonb_strip_nulls(jsonb_build_object(
      'content-type', 'application/a2a+json',
      'x-a2a-notification-token', nullif(c.token, ''),
      'authorization', CASE WHEN c.auth_scheme <> '' AND c.auth_credentials <> ''
        THEN c.auth_scheme || ' ' || c.auth_credentials END)),
    jsonb_build_object('statusUpdate', jsonb_build_object(
      'taskId', task,
      'contextId', NEW.conversation_id,
      'status', jsonb_build_object(
        'state', CASE NEW.status
          WHEN 'running' THEN 'TASK_STATE_WORKING'
          WHEN 'waiting' THEN 'TASK_STATE_INPUT_REQUIRED'
          WHEN 'completed' THEN 'TASK_STATE_COMPLETED'
          WHEN 'failed' THEN 'TASK_STATE_FAILED'
          ELSE 'TASK_STATE_CANCELED' END,
        'timestamp', to_char(coalesce(NEW.finished_at, now()) AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')),
      'metadata', jsonb_strip_nulls(jsonb_build_object(
        'runId', NEW.run_id,
        'stopReason', NEW.stop_reason,
        'response', NEW.result->'response',
        'output', NEW.result->'output'))
    ))::text,
    'pending', now()
  FROM a2a_push_configs c
  WHERE c.tenant_id = NEW.tenant_id AND c.task_id = task
  ON CONFLICT (delivery_id) DO NOTHING;
  RETURN NULL;
END
$$;

CREATE TRIGGER runs_a2a_push_on_change AFTER UPDATE OF status ON runs FOR EACH ROW
  WHEN (OLD.status IS DISTINCT FROM NEW.status AND NEW.protocol = 'a2a'
        AND NEW.status IN ('running', 'completed', 'waiting', 'failed', 'cancelled'))
  EXECUTE FUNCTION record_a2a_push();
