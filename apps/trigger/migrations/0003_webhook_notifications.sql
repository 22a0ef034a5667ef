-- Webhook notifications: an outbox written in the transaction that settles a fire, delivered
-- (and retried) by any replica, each row claimed with a lease like a fire.
ALTER TABLE tasks ADD COLUMN webhook_secret text;

CREATE TABLE notifications (
  notification_id  text        PRIMARY KEY,
  tenant_id        text        NOT NULL,
  task_id          text        NOT NULL REFERENCES tasks (task_id) ON DELETE CASCADE,
  fire_id          text        NOT NULL,
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

CREATE INDEX notifications_due ON notifications (due_at) WHERE status IN ('pending', 'sending');
