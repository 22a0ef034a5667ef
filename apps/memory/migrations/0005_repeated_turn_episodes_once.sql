-- A repeated turn episode is stored once. A turn whose summary equals, after normalising (see
-- episode_summary_key), a turn episode already stored for the same tenant and collection adds no
-- row: the stored episode counts the repetition (occurrences, last_seen_at) and the turn's
-- ingested_runs row names the episode it contributed to (episode_id). Session episodes are not
-- affected. Existing duplicates are merged here first: the oldest row of each group stays, with
-- the group's occurrences summed and its latest last_seen_at; the runs of the others are
-- repointed to it; the others and their vectors go (the vocabulary triggers prune what no row
-- uses any more, which is nothing, as the kept summary has the same words).

-- Ingestion is held off while the merge and the unique index are built (a turn stored between
-- them would make the index fail); reads go on.
LOCK TABLE episodes, ingested_runs IN SHARE ROW EXCLUSIVE MODE;

-- The key a turn summary is compared by: every run of white space (Postgres' \s: space, tab,
-- newline, carriage return, form feed, vertical tab) as one space, no space at either end,
-- lower-cased by the database's collation, then sha256 (a b-tree entry must stay small, and
-- summaries have no length limit). Punctuation and Unicode normal forms are compared as they are.
CREATE FUNCTION episode_summary_key(summary text) RETURNS bytea LANGUAGE sql IMMUTABLE PARALLEL SAFE STRICT
RETURN sha256(convert_to(lower(btrim(regexp_replace(summary, '\s+', ' ', 'g'), ' ')), 'UTF8'));

ALTER TABLE episodes ADD COLUMN occurrences integer NOT NULL DEFAULT 1 CHECK (occurrences >= 1);
ALTER TABLE episodes ADD COLUMN last_seen_at timestamptz;
UPDATE episodes SET last_seen_at = created_at;
ALTER TABLE episodes ALTER COLUMN last_seen_at SET DEFAULT now(), ALTER COLUMN last_seen_at SET NOT NULL;

-- Provenance: which episode each run contributed to (NULL: the turn had no summary, or the episode
-- was forgotten). Existing runs get theirs from the episode that names the run.
ALTER TABLE ingested_runs ADD COLUMN episode_id uuid;
UPDATE ingested_runs r SET episode_id = e.episode_id
FROM episodes e WHERE e.tenant_id = r.tenant_id AND e.run_id = r.run_id AND e.kind = 'turn';

CREATE TEMPORARY TABLE episode_merges ON COMMIT DROP AS
SELECT tenant_id, episode_id, keep_id, occurrences_total, last_seen_latest FROM (
  SELECT tenant_id, episode_id,
    first_value(episode_id) OVER w AS keep_id,
    sum(occurrences) OVER g AS occurrences_total,
    max(last_seen_at) OVER g AS last_seen_latest,
    count(*) OVER g AS copies
  FROM episodes
  WHERE kind = 'turn'
  WINDOW g AS (PARTITION BY tenant_id, collection, episode_summary_key(summary)),
         w AS (g ORDER BY created_at, episode_id)) AS grouped
WHERE copies > 1;

UPDATE episodes e SET occurrences = m.occurrences_total, last_seen_at = m.last_seen_latest
FROM episode_merges m WHERE e.tenant_id = m.tenant_id AND e.episode_id = m.episode_id AND m.episode_id = m.keep_id;

UPDATE ingested_runs r SET episode_id = m.keep_id
FROM episode_merges m WHERE r.tenant_id = m.tenant_id AND r.episode_id = m.episode_id AND m.episode_id <> m.keep_id;

-- The vectors of the merged-away episodes: the embeddings tables are created at boot, one per
-- dimension (embeddings_d<n>, vector-table.ts), and may not exist at all.
DO $$
DECLARE
  vectors regclass;
BEGIN
  FOR vectors IN
    SELECT c.oid::regclass FROM pg_class c
    WHERE c.relnamespace = current_schema()::regnamespace AND c.relname ~ '^embeddings_d[0-9]+$' AND c.relkind IN ('r', 'p') AND NOT c.relispartition
  LOOP
    EXECUTE format(
      'DELETE FROM %s v USING episode_merges m WHERE v.tenant_id = m.tenant_id AND v.item_kind = %L AND v.item_id = m.episode_id AND m.episode_id <> m.keep_id',
      vectors, 'episode');
  END LOOP;
END $$;

DELETE FROM episodes e USING episode_merges m
WHERE e.tenant_id = m.tenant_id AND e.episode_id = m.episode_id AND m.episode_id <> m.keep_id;

-- The key ingestion upserts on (INSERT ... ON CONFLICT); a partitioned table's unique index includes tenant_id.
CREATE UNIQUE INDEX episodes_turn_once ON episodes (tenant_id, collection, episode_summary_key(summary)) WHERE kind = 'turn';
-- ForgetSubject clears the provenance of the episodes it deletes.
CREATE INDEX ingested_runs_by_episode ON ingested_runs (tenant_id, episode_id) WHERE episode_id IS NOT NULL;

ANALYZE episodes;
