-- Webhooks when a run ends (docs/conversations.md): a message, or the tenant's settings, names an
-- endpoint; when the run ends its result is written to an outbox in the statement that ends it,
-- and any replica delivers it signed and retried (libs/webhooks).

-- A tenant's run webhook settings: its default URL (checked by the egress guard when it is set)
-- and the secret every delivery is signed with (made on first use, rotated on request).
CREATE TABLE tenant_webhook_settings (
  tenant_id  text        PRIMARY KEY,
  url        text,
  secret     text        NOT NULL,
  updated_at timestamptz NOT NULL DEFAULT now()
);

-- Where a run's end goes, written before the run is (so a run that exists has its target).
CREATE TABLE run_webhook_targets (
  run_id     text        PRIMARY KEY,
  tenant_id  text        NOT NULL,
  url        text        NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);

CREATE INDEX run_webhook_targets_by_age ON run_webhook_targets (created_at);

-- The outbox: one row per run end with a target, its id the webhook-id (stable across retries).
CREATE TABLE run_webhook_deliveries (
  delivery_id      text        PRIMARY KEY,
  tenant_id        text        NOT NULL,
  run_id           text        NOT NULL,
  run_status       text        NOT NULL,
  url              text        NOT NULL,
  -- The exact bytes delivered (and signed), so every retry sends the same body.
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

CREATE INDEX run_webhook_deliveries_due ON run_webhook_deliveries (due_at) WHERE status IN ('pending', 'sending');
CREATE INDEX run_webhook_deliveries_by_run ON run_webhook_deliveries (tenant_id, run_id, created_at);
CREATE INDEX run_webhook_deliveries_by_age ON run_webhook_deliveries (created_at);

-- Every way a run ends (finished by its holder, a queued run cancelled, ...) changes its status:
-- the delivery is recorded by that same statement, so a crash between the end and the delivery
-- loses nothing, and ending twice records one delivery (the id is the run and its final status).
CREATE FUNCTION record_run_webhook() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO run_webhook_deliveries (delivery_id, tenant_id, run_id, run_status, url, body, status, due_at)
  SELECT 'msg_' || md5(NEW.run_id || ':' || NEW.status), NEW.tenant_id, NEW.run_id, NEW.status, t.url,
    jsonb_build_object(
      'type', 'run.' || NEW.status,
      'timestamp', to_char(coalesce(NEW.finished_at, now()) AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
      'data', jsonb_strip_nulls(jsonb_build_object(
        'runId', NEW.run_id,
        'conversationId', NEW.conversation_id,
        'status', NEW.status,
        'stopReason', NEW.stop_reason,
        'response', NEW.result->'response',
        'output', NEW.result->'output',
        'error', NEW.result->'error',
        'usage', NEW.result->'usage',
        'turns', NEW.result->'turns',
        'agentId', NEW.agent_id,
        'agentVersion', NEW.agent_version))
    )::text,
    'pending', now()
  FROM run_webhook_targets t
  WHERE t.run_id = NEW.run_id AND t.tenant_id = NEW.tenant_id
  ON CONFLICT (delivery_id) DO NOTHING;
  RETURN NULL;
END
$$;

CREATE TRIGGER runs_webhook_on_end AFTER UPDATE OF status ON runs FOR EACH ROW
  WHEN (OLD.status IS DISTINCT FROM NEW.status AND NEW.status IN ('completed', 'waiting', 'failed', 'cancelled'))
  EXECUTE FUNCTION record_run_webhook();
