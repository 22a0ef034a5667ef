-- At most one running run per conversation, held by Postgres itself. Claims and admissions check
-- for a live run in their statement's snapshot, which cannot see a racing writer's uncommitted
-- run (two replicas while Redis is down); this index can: the second writer's statement fails,
-- and the journal records its run as queued instead.
--
-- Conversations that already have several running runs keep the oldest running; the others go
-- back to the queue. Their holders, if alive, lose the run at their next lease renewal, and the
-- runs resume from their journals one at a time, in order.
UPDATE runs SET status = 'queued', lease_owner = NULL, lease_until = NULL
WHERE run_id IN (
  SELECT run_id FROM (
    SELECT run_id, row_number() OVER (PARTITION BY tenant_id, conversation_id ORDER BY created_at, arrival) AS place
    FROM runs WHERE status = 'running'
  ) AS ranked
  WHERE place > 1
);

-- Building the index holds writes to runs for the length of a table scan. On a large table, build
-- it beforehand without that lock (CREATE UNIQUE INDEX CONCURRENTLY runs_one_running ON ... the
-- same definition), after queueing the extra running runs as above; this migration then keeps it.
CREATE UNIQUE INDEX IF NOT EXISTS runs_one_running ON runs (tenant_id, conversation_id) WHERE status = 'running';
