-- Listing a tenant's runs (ListRuns, GET /v1/runs), newest first with keyset paging on
-- (created_at, run_id) descending. Without these, a listing sorts every run of the tenant.
-- Building them holds writes to runs for a table scan each; on a large table, build them
-- beforehand with CREATE INDEX CONCURRENTLY (the same names and definitions), and this migration
-- then keeps them.
--
-- runs_by_tenant_created serves the listing with or without the stop reason, source, time range
-- and tool filters: the scan walks the tenant's runs in page order, checks the filters on
-- each row, and stops once a page is full. None of its columns changes after a run is recorded,
-- so updates that can stay HOT (lease renewals) still do.
CREATE INDEX IF NOT EXISTS runs_by_tenant_created ON runs (tenant_id, created_at DESC, run_id DESC);

-- runs_by_status_created serves the status filter (a console's "failed runs"): with few runs of
-- that status, walking runs_by_tenant_created would read a tenant's other runs to fill a page.
-- Status changes only with writes that already update every index (a claim, the outcome: status
-- is in the predicates of runs_unfinished and runs_one_running), so it adds an index entry to
-- those, not to lease renewals.
CREATE INDEX IF NOT EXISTS runs_by_status_created ON runs (tenant_id, status, created_at DESC, run_id DESC);

-- runs_by_conversation_created serves the conversation filter (the most common one: a client
-- showing one conversation's runs) without walking the rest of the tenant's runs.
CREATE INDEX IF NOT EXISTS runs_by_conversation_created ON runs (tenant_id, conversation_id, created_at DESC, run_id DESC);

-- The parent filter uses runs_children (migration 0007). The tool filter is an EXISTS over the
-- run's journaled model responses (run_steps kind 'model': the calls the model made, live runs
-- included); it probes the run_steps primary key (run_id, kind, step_key) by its (run_id, kind)
-- prefix, reading only that run's few model steps, so no index is added for it: an index on the
-- step payloads would cost every model step of every turn a GIN insert for a filter operators
-- use now and then. A rare tool over a large tenant walks more runs per page; narrow it with a
-- time range.
