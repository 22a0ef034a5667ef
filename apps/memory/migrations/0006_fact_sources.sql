-- Every conversation a fact was learned from. A fact is stored once (an identical current fact is
-- not written again), so `facts.conversation_id` names only the first conversation that stated it;
-- the others were lost. Deleting a conversation (DeleteConversation) must delete the facts only it
-- taught and leave the others with their remaining provenance: this table keeps all of it, one row
-- per (fact, conversation). Facts saved without a conversation have no row here.
CREATE TABLE fact_sources (
  tenant_id       text        NOT NULL,
  fact_id         uuid        NOT NULL,
  conversation_id text        NOT NULL,
  run_id          text,
  added_at        timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (tenant_id, fact_id, conversation_id)
);
-- A conversation's deletion finds its facts by conversation.
CREATE INDEX fact_sources_by_conversation ON fact_sources (tenant_id, conversation_id);

-- The provenance already stored.
INSERT INTO fact_sources (tenant_id, fact_id, conversation_id, run_id, added_at)
SELECT tenant_id, fact_id, conversation_id, run_id, created_at FROM facts WHERE conversation_id IS NOT NULL
ON CONFLICT DO NOTHING;

-- A conversation's deletion finds its episodes and working memory by conversation.
CREATE INDEX ingested_runs_by_conversation ON ingested_runs (tenant_id, conversation_id);
CREATE INDEX episodes_by_conversation ON episodes (tenant_id, conversation_id);
CREATE INDEX working_memory_by_conversation ON working_memory (tenant_id, conversation_id) WHERE conversation_id IS NOT NULL;

-- Deleted conversations. A turn of a deleted conversation may still be on its way through the
-- ingestion stream; ingestion skips a turn whose conversation was deleted and has no history again
-- (a conversation id used again after its deletion is ingested as usual). Ids only, no content.
CREATE TABLE deleted_conversations (
  tenant_id       text        NOT NULL,
  conversation_id text        NOT NULL,
  deleted_at      timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (tenant_id, conversation_id)
);
