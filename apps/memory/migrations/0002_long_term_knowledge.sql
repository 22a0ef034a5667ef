-- Long-term knowledge extracted from finished turns. Every table is keyed by tenant first, and
-- every query names the tenant. Vectors (pgvector) live in a separate table the service creates at
-- boot when the extension exists, because their dimension is configuration, not schema.
CREATE EXTENSION IF NOT EXISTS pg_trgm;
-- btree_gin lets the trigram indexes lead with tenant_id, so a fuzzy search reads one tenant's entries
-- only. Full-text indexes stay plain: Postgres ANDs them with the tenant's btree index, which measured faster.
CREATE EXTENSION IF NOT EXISTS btree_gin;

-- One row per ingested turn: the consumer's idempotency key. It is inserted in the same
-- transaction as the turn's knowledge, so a redelivered turn finds it and stores nothing twice.
CREATE TABLE ingested_runs (
  tenant_id       text        NOT NULL,
  run_id          text        NOT NULL,
  conversation_id text        NOT NULL,
  facts_stored    integer     NOT NULL,
  ingested_at     timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (tenant_id, run_id)
);

-- Entities (people, places, organisations...) with their facets, one per (collection, name).
CREATE TABLE entities (
  tenant_id       text        NOT NULL,
  entity_id       uuid        NOT NULL DEFAULT gen_random_uuid(),
  collection      text        NOT NULL,
  name            text        NOT NULL,
  entity_type     text        NOT NULL,
  facets          jsonb       NOT NULL DEFAULT '{}',
  -- "conversation" (stated by the user or the assistant) or "tool" (seen in a tool result).
  origin          text        NOT NULL,
  created_at      timestamptz NOT NULL DEFAULT now(),
  updated_at      timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (tenant_id, entity_id)
);
CREATE UNIQUE INDEX entities_by_name ON entities (tenant_id, collection, lower(name));

-- Facts: subject-predicate-object with provenance. A superseded fact keeps its row, with
-- valid_to and superseded_by set; "current" means valid_to IS NULL.
CREATE TABLE facts (
  tenant_id       text        NOT NULL,
  fact_id         uuid        NOT NULL DEFAULT gen_random_uuid(),
  collection      text        NOT NULL,
  subject         text        NOT NULL,
  predicate       text        NOT NULL,
  object          text        NOT NULL,
  kind            text        NOT NULL CHECK (kind IN ('fact', 'preference')),
  confidence      real        NOT NULL CHECK (confidence >= 0 AND confidence <= 1),
  origin          text        NOT NULL CHECK (origin IN ('extracted', 'saved')),
  conversation_id text,
  run_id          text,
  message_seq     bigint,
  valid_from      timestamptz NOT NULL DEFAULT now(),
  valid_to        timestamptz,
  superseded_by   uuid,
  created_at      timestamptz NOT NULL DEFAULT now(),
  -- The text recall searches: "subject predicate object" with the predicate's underscores as spaces.
  -- Full text uses the 'english' configuration (stemming: "lives" matches "live"); trigram
  -- similarity covers names and typos in any language.
  search_text     text GENERATED ALWAYS AS (subject || ' ' || replace(predicate, '_', ' ') || ' ' || object) STORED,
  search_vector   tsvector GENERATED ALWAYS AS (to_tsvector('english', subject || ' ' || replace(predicate, '_', ' ') || ' ' || object)) STORED,
  PRIMARY KEY (tenant_id, fact_id)
);
CREATE INDEX facts_current_by_subject ON facts (tenant_id, lower(subject), predicate) WHERE valid_to IS NULL;
CREATE INDEX facts_by_collection ON facts (tenant_id, collection, created_at DESC);
CREATE INDEX facts_current_fulltext ON facts USING gin (search_vector) WHERE valid_to IS NULL;
CREATE INDEX facts_current_trigram ON facts USING gin (tenant_id, search_text gin_trgm_ops) WHERE valid_to IS NULL;
CREATE INDEX facts_by_run ON facts (tenant_id, run_id);

-- Episode summaries: one per ingested turn ("turn") and one per idle session ("session").
CREATE TABLE episodes (
  tenant_id       text        NOT NULL,
  episode_id      uuid        NOT NULL DEFAULT gen_random_uuid(),
  collection      text        NOT NULL,
  conversation_id text        NOT NULL,
  kind            text        NOT NULL CHECK (kind IN ('turn', 'session')),
  summary         text        NOT NULL,
  topics          text[]      NOT NULL DEFAULT '{}',
  first_seq       bigint      NOT NULL,
  last_seq        bigint      NOT NULL,
  run_id          text,
  created_at      timestamptz NOT NULL DEFAULT now(),
  search_vector   tsvector GENERATED ALWAYS AS (to_tsvector('english', summary)) STORED,
  PRIMARY KEY (tenant_id, episode_id)
);
-- A session episode is written once per conversation and covered range, whichever replica wins.
CREATE UNIQUE INDEX episodes_session_once ON episodes (tenant_id, conversation_id, last_seq) WHERE kind = 'session';
CREATE INDEX episodes_by_collection ON episodes (tenant_id, collection, created_at DESC);
CREATE INDEX episodes_fulltext ON episodes USING gin (search_vector);
CREATE INDEX episodes_trigram ON episodes USING gin (tenant_id, summary gin_trgm_ops);

-- Per-run scratchpad (working memory), dropped when the run's turn is ingested or after its TTL.
CREATE TABLE working_memory (
  tenant_id       text        NOT NULL,
  run_id          text        NOT NULL,
  key             text        NOT NULL,
  value_json      text        NOT NULL,
  conversation_id text,
  updated_at      timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (tenant_id, run_id, key)
);
CREATE INDEX working_memory_by_age ON working_memory (updated_at);

-- Audit of deletions (DeleteFact, ForgetSubject): who, what, when; never the deleted content.
CREATE TABLE audit_log (
  audit_id        uuid        NOT NULL DEFAULT gen_random_uuid() PRIMARY KEY,
  tenant_id       text        NOT NULL,
  action          text        NOT NULL,
  target          text        NOT NULL,
  actor           text        NOT NULL,
  reason          text        NOT NULL,
  counts          jsonb       NOT NULL DEFAULT '{}',
  at              timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX audit_log_by_tenant ON audit_log (tenant_id, at DESC);
