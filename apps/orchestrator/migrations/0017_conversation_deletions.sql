-- Deletions of conversations (docs/conversations.md, "Deleting a conversation and erasing a user"):
-- one durable job per deletion, carried out step by step by whichever replica holds its lease
-- (erasure/deletion-worker.ts) and resumed by another when that one dies. A job holds no content:
-- the ids, who asked, why, the last step done and what each step removed (counts).
CREATE TABLE IF NOT EXISTS conversation_deletions (
  deletion_id     text        PRIMARY KEY,
  tenant_id       text        NOT NULL,
  conversation_id text        NOT NULL,
  reason          text        NOT NULL CHECK (reason IN ('request', 'end_user_erasure', 'retention')),
  actor           text        NOT NULL DEFAULT '',
  status          text        NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'running', 'completed')),
  step            text        NOT NULL DEFAULT '',
  counts          jsonb       NOT NULL DEFAULT '{}',
  attempts        integer     NOT NULL DEFAULT 0,
  last_error      text        NOT NULL DEFAULT '',
  lease_owner     text,
  lease_until     timestamptz,
  created_at      timestamptz NOT NULL DEFAULT now(),
  completed_at    timestamptz
);
-- At most one open deletion per conversation: a second request returns it (idempotent).
CREATE UNIQUE INDEX IF NOT EXISTS conversation_deletions_open ON conversation_deletions (tenant_id, conversation_id)
  WHERE status <> 'completed';
-- What the workers claim: open jobs whose lease is free or ran out.
CREATE INDEX IF NOT EXISTS conversation_deletions_due ON conversation_deletions (lease_until) WHERE status <> 'completed';
CREATE INDEX IF NOT EXISTS conversation_deletions_by_conversation ON conversation_deletions (tenant_id, conversation_id, created_at DESC);
-- The retention sweep's question (the last activity of each conversation) and the erasure of an end user's runs.
CREATE INDEX IF NOT EXISTS runs_by_subject ON runs (tenant_id, subject) WHERE subject IS NOT NULL;
