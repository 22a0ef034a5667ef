-- Conversations as resources (docs/conversations.md): one row per conversation of a tenant, kept by
-- the statement that records each new message's run (journal/run-records.ts) and by the one that
-- finishes a run (whether it now waits for the user). The owner is the end user (`sub`) whose
-- message started it; a member reaches only their own conversations and shared ones.
CREATE TABLE IF NOT EXISTS conversations (
  tenant_id        text        NOT NULL,
  conversation_id  text        NOT NULL,
  title            text,
  labels           text[]      NOT NULL DEFAULT '{}',
  metadata         jsonb       NOT NULL DEFAULT '{}'::jsonb,
  -- The end user who started it ('' when no user did: a trigger's message, runs from before subjects).
  owner_subject    text        NOT NULL DEFAULT '',
  shared           boolean     NOT NULL DEFAULT false,
  agent_id         text,
  agent_name       text,
  waiting_for_user boolean     NOT NULL DEFAULT false,
  run_count        bigint      NOT NULL DEFAULT 0,
  created_at       timestamptz NOT NULL DEFAULT now(),
  last_activity_at timestamptz NOT NULL DEFAULT now(),
  updated_at       timestamptz,
  PRIMARY KEY (tenant_id, conversation_id)
);

-- The listing's order (most recent activity first) and its cursor.
CREATE INDEX IF NOT EXISTS conversations_by_activity
  ON conversations (tenant_id, last_activity_at DESC, conversation_id DESC);
CREATE INDEX IF NOT EXISTS conversations_by_owner
  ON conversations (tenant_id, owner_subject, last_activity_at DESC, conversation_id DESC);
-- Label and metadata filters. Title search (ILIKE '%…%') reads the tenant's rows in activity order:
-- a trigram index would need pg_trgm, which the memory service creates in its own schema (the
-- services may share a database), so its operator classes are not visible here.
CREATE INDEX IF NOT EXISTS conversations_labels ON conversations USING gin (labels);
CREATE INDEX IF NOT EXISTS conversations_metadata ON conversations USING gin (metadata jsonb_path_ops);

-- Backfill from the runs of the conversations users talk in (a child run's conversation belongs to
-- its team's): the owner is the first subject its runs recorded, the agent the latest run's.
INSERT INTO conversations (tenant_id, conversation_id, owner_subject, agent_id, agent_name, waiting_for_user, run_count,
  created_at, last_activity_at)
SELECT r.tenant_id, r.conversation_id,
  coalesce((array_agg(r.subject ORDER BY r.created_at) FILTER (WHERE r.subject IS NOT NULL))[1], ''),
  (array_agg(r.agent_id ORDER BY r.created_at DESC))[1],
  (array_agg(r.profile ORDER BY r.created_at DESC))[1],
  (array_agg(r.status ORDER BY r.created_at DESC))[1] = 'waiting',
  count(*),
  min(r.created_at),
  max(coalesce(r.finished_at, r.created_at))
FROM runs r
WHERE r.parent_run_id IS NULL AND r.kind = 'message'
GROUP BY r.tenant_id, r.conversation_id
ON CONFLICT (tenant_id, conversation_id) DO NOTHING;
