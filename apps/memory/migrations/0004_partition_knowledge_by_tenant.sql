-- Facts and episodes are split into 32 hash partitions of tenant_id. Every statement names its
-- tenant, so the planner reads one partition; each partition has its own indexes, so a common
-- word's GIN posting list holds the facts of the few tenants that share the partition instead of
-- every tenant's (recall intersected it with the tenant's entries), and the smaller B-trees and
-- heaps are cheaper to keep in memory. 32: a deployment with a few dozen large tenants has one or
-- two per partition (10 tenants spread over 9 partitions; with 16, three of them shared one);
-- planning stays cheap, as a statement naming its tenant is pruned to one partition when planned;
-- the cost is more, smaller files (32 per table and per index). A hash partition count can later
-- be changed only by rewriting the tables, as this migration does.
--
-- The rows are copied into the new tables, which then take the old names, indexes and triggers.
-- Primary keys already lead with tenant_id (a partitioned table's unique keys must include it).

CREATE TABLE facts_partitioned (LIKE facts INCLUDING DEFAULTS INCLUDING GENERATED INCLUDING CONSTRAINTS) PARTITION BY HASH (tenant_id);
CREATE TABLE episodes_partitioned (LIKE episodes INCLUDING DEFAULTS INCLUDING GENERATED INCLUDING CONSTRAINTS) PARTITION BY HASH (tenant_id);
DO $$
BEGIN
  FOR i IN 0..31 LOOP
    EXECUTE format('CREATE TABLE %I PARTITION OF facts_partitioned FOR VALUES WITH (MODULUS 32, REMAINDER %s)', 'facts_p' || lpad(i::text, 2, '0'), i);
    EXECUTE format('CREATE TABLE %I PARTITION OF episodes_partitioned FOR VALUES WITH (MODULUS 32, REMAINDER %s)', 'episodes_p' || lpad(i::text, 2, '0'), i);
  END LOOP;
END $$;

INSERT INTO facts_partitioned (tenant_id, fact_id, collection, subject, predicate, object, kind, confidence, origin, conversation_id, run_id, message_seq, valid_from, valid_to, superseded_by, created_at)
SELECT tenant_id, fact_id, collection, subject, predicate, object, kind, confidence, origin, conversation_id, run_id, message_seq, valid_from, valid_to, superseded_by, created_at FROM facts;
INSERT INTO episodes_partitioned (tenant_id, episode_id, collection, conversation_id, kind, summary, topics, first_seq, last_seq, run_id, created_at)
SELECT tenant_id, episode_id, collection, conversation_id, kind, summary, topics, first_seq, last_seq, run_id, created_at FROM episodes;

ALTER TABLE facts RENAME TO facts_unpartitioned;
ALTER TABLE episodes RENAME TO episodes_unpartitioned;
ALTER TABLE facts_partitioned RENAME TO facts;
ALTER TABLE episodes_partitioned RENAME TO episodes;

-- The vocabulary's prune function (0003) is bound to the tables it was created with: the same
-- body again binds it to the new ones, so the old tables can go.
CREATE OR REPLACE FUNCTION recall_terms_prune(deleted_tenant text[], deleted_term text[]) RETURNS void LANGUAGE sql SET search_path FROM CURRENT
BEGIN ATOMIC
  DELETE FROM recall_terms r
  USING unnest(deleted_tenant, deleted_term) AS d(tenant_id, term)
  WHERE r.tenant_id = d.tenant_id AND r.term = d.term
    AND NOT EXISTS (SELECT 1 FROM facts f WHERE f.tenant_id = d.tenant_id AND f.valid_to IS NULL
                    AND f.search_vector @@ plainto_tsquery('english', d.term) AND d.term = ANY (recall_terms_of(f.search_text)))
    AND NOT EXISTS (SELECT 1 FROM episodes e WHERE e.tenant_id = d.tenant_id
                    AND e.search_vector @@ plainto_tsquery('english', d.term) AND d.term = ANY (recall_terms_of(e.summary)));
END;
DROP TABLE facts_unpartitioned;
DROP TABLE episodes_unpartitioned;

-- The same keys, indexes and triggers as before, now per partition (built once, after the copy).
ALTER TABLE facts ADD PRIMARY KEY (tenant_id, fact_id);
CREATE INDEX facts_current_by_subject ON facts (tenant_id, lower(subject), predicate) WHERE valid_to IS NULL;
CREATE INDEX facts_by_collection ON facts (tenant_id, collection, created_at DESC);
CREATE INDEX facts_by_run ON facts (tenant_id, run_id);
CREATE INDEX facts_current_fulltext_by_tenant ON facts USING gin (tenant_id, search_vector) WITH (fastupdate = off) WHERE valid_to IS NULL;

ALTER TABLE episodes ADD PRIMARY KEY (tenant_id, episode_id);
CREATE UNIQUE INDEX episodes_session_once ON episodes (tenant_id, conversation_id, last_seq) WHERE kind = 'session';
CREATE INDEX episodes_by_collection ON episodes (tenant_id, collection, created_at DESC);
CREATE INDEX episodes_fulltext_by_tenant ON episodes USING gin (tenant_id, search_vector) WITH (fastupdate = off);

-- Statement-level triggers on a partitioned table see the rows of every partition the statement touched.
CREATE TRIGGER facts_add_recall_terms AFTER INSERT ON facts REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION recall_terms_add_facts();
CREATE TRIGGER episodes_add_recall_terms AFTER INSERT ON episodes REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION recall_terms_add_episodes();
CREATE TRIGGER facts_prune_recall_terms AFTER DELETE ON facts REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION recall_terms_prune_facts();
CREATE TRIGGER episodes_prune_recall_terms AFTER DELETE ON episodes REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION recall_terms_prune_episodes();

ANALYZE facts;
ANALYZE episodes;
