-- Recall that stays fast as a tenant's knowledge grows: every search reads one tenant's index
-- entries and returns a bounded top-k.
--
-- Full text: the GIN indexes lead with tenant_id (btree_gin), so "this tenant's facts with this
-- word" is one index lookup instead of the word's matches across every tenant ANDed with the
-- tenant's whole row set. Recall's GIN indexes are written directly (fastupdate off): with the
-- default pending list, every lookup also scans up to gin_pending_list_limit (4 MB) of entries not
-- yet merged, which after a burst of ingestion made each recall many times slower until a vacuum.
CREATE INDEX facts_current_fulltext_by_tenant ON facts USING gin (tenant_id, search_vector) WITH (fastupdate = off) WHERE valid_to IS NULL;
DROP INDEX facts_current_fulltext;
CREATE INDEX episodes_fulltext_by_tenant ON episodes USING gin (tenant_id, search_vector) WITH (fastupdate = off);
DROP INDEX episodes_fulltext;

-- Trigram (typos, names): instead of comparing each query word with every fact's text (the trigram
-- index of a large tenant yields thousands of candidates for a common syllable), query words are
-- matched against the tenant's vocabulary: one row per distinct word of its facts and episode
-- summaries, a few thousand rows rather than 100k texts. The closest words then fetch their facts
-- through the full-text index, and those are scored by word similarity as before.
CREATE TABLE recall_terms (
  tenant_id text NOT NULL,
  term      text NOT NULL,
  PRIMARY KEY (tenant_id, term)
);
CREATE INDEX recall_terms_trigram ON recall_terms USING gin (tenant_id, term gin_trgm_ops) WITH (fastupdate = off);

-- The words of a text, as the vocabulary keeps them (lower case, the default parser's tokens).
CREATE FUNCTION recall_terms_of(body text) RETURNS text[] LANGUAGE sql IMMUTABLE PARALLEL SAFE
  RETURN tsvector_to_array(to_tsvector('simple', body));

-- New facts and episodes add their words (statement-level, one insert per statement, in key order).
CREATE FUNCTION recall_terms_add_facts() RETURNS trigger LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
BEGIN
  INSERT INTO recall_terms (tenant_id, term)
  SELECT DISTINCT n.tenant_id, t.term FROM new_rows n, unnest(recall_terms_of(n.search_text)) AS t(term) ORDER BY 1, 2
  ON CONFLICT DO NOTHING;
  RETURN NULL;
END $$;
CREATE FUNCTION recall_terms_add_episodes() RETURNS trigger LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
BEGIN
  INSERT INTO recall_terms (tenant_id, term)
  SELECT DISTINCT n.tenant_id, t.term FROM new_rows n, unnest(recall_terms_of(n.summary)) AS t(term) ORDER BY 1, 2
  ON CONFLICT DO NOTHING;
  RETURN NULL;
END $$;

-- Deleted facts and episodes (DeleteFact, ForgetSubject) take away the words no current fact or
-- episode of the tenant still uses: forgetting a subject leaves no trace of its name here.
CREATE FUNCTION recall_terms_prune(deleted_tenant text[], deleted_term text[]) RETURNS void LANGUAGE sql SET search_path FROM CURRENT
BEGIN ATOMIC
  DELETE FROM recall_terms r
  USING unnest(deleted_tenant, deleted_term) AS d(tenant_id, term)
  WHERE r.tenant_id = d.tenant_id AND r.term = d.term
    AND NOT EXISTS (SELECT 1 FROM facts f WHERE f.tenant_id = d.tenant_id AND f.valid_to IS NULL
                    AND f.search_vector @@ plainto_tsquery('english', d.term) AND d.term = ANY (recall_terms_of(f.search_text)))
    AND NOT EXISTS (SELECT 1 FROM episodes e WHERE e.tenant_id = d.tenant_id
                    AND e.search_vector @@ plainto_tsquery('english', d.term) AND d.term = ANY (recall_terms_of(e.summary)));
END;
CREATE FUNCTION recall_terms_prune_facts() RETURNS trigger LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
BEGIN
  PERFORM recall_terms_prune(array_agg(d.tenant_id), array_agg(d.term))
  FROM (SELECT DISTINCT o.tenant_id, t.term FROM old_rows o, unnest(recall_terms_of(o.search_text)) AS t(term)) AS d;
  RETURN NULL;
END $$;
CREATE FUNCTION recall_terms_prune_episodes() RETURNS trigger LANGUAGE plpgsql SET search_path FROM CURRENT AS $$
BEGIN
  PERFORM recall_terms_prune(array_agg(d.tenant_id), array_agg(d.term))
  FROM (SELECT DISTINCT o.tenant_id, t.term FROM old_rows o, unnest(recall_terms_of(o.summary)) AS t(term)) AS d;
  RETURN NULL;
END $$;

CREATE TRIGGER facts_add_recall_terms AFTER INSERT ON facts REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION recall_terms_add_facts();
CREATE TRIGGER episodes_add_recall_terms AFTER INSERT ON episodes REFERENCING NEW TABLE AS new_rows FOR EACH STATEMENT EXECUTE FUNCTION recall_terms_add_episodes();
CREATE TRIGGER facts_prune_recall_terms AFTER DELETE ON facts REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION recall_terms_prune_facts();
CREATE TRIGGER episodes_prune_recall_terms AFTER DELETE ON episodes REFERENCING OLD TABLE AS old_rows FOR EACH STATEMENT EXECUTE FUNCTION recall_terms_prune_episodes();

-- The vocabulary of what is already stored.
INSERT INTO recall_terms (tenant_id, term)
SELECT tenant_id, t.term FROM facts, unnest(recall_terms_of(search_text)) AS t(term)
UNION
SELECT tenant_id, t.term FROM episodes, unnest(recall_terms_of(summary)) AS t(term);

-- Trigram indexes over whole texts are no longer read by recall.
DROP INDEX facts_current_trigram;
DROP INDEX episodes_trigram;
