-- The notification feed: a tenant's notifications (fire results, approval requests of triggered
-- runs, expiry notices) as one ordered log, written in the transaction that settles the fire and
-- read by the api's GET /v1/notifications stream, which resumes after a seq (Last-Event-ID).
-- Writers take a transaction lock on the feed before inserting, so seqs become visible in order
-- and a reader that saw seq n never finds a smaller one committed later.
CREATE TABLE notification_feed (
  seq             bigserial   PRIMARY KEY,
  notification_id text        NOT NULL UNIQUE,
  tenant_id       text        NOT NULL,
  user_id         text        NOT NULL DEFAULT '',
  task_id         text        NOT NULL,
  type            text        NOT NULL,
  body            jsonb       NOT NULL,
  created_at      timestamptz NOT NULL DEFAULT now()
);

CREATE INDEX notification_feed_by_tenant ON notification_feed (tenant_id, seq);
CREATE INDEX notification_feed_by_age ON notification_feed (created_at);
