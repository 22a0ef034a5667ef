-- Child runs: a run started by another run's tool call (a delegation to a role). The parent's run
-- id and the call that started it, the delegation chain (profile names from the root run's down
-- to this run's) and the depth (0 for a run a user started) are kept with the run, so a resumed
-- parent finds its children, cancelling a parent reaches them, and the chain survives a crash.
ALTER TABLE runs ADD COLUMN IF NOT EXISTS parent_run_id text;
ALTER TABLE runs ADD COLUMN IF NOT EXISTS parent_call_id text;
ALTER TABLE runs ADD COLUMN IF NOT EXISTS delegation_chain text[] NOT NULL DEFAULT '{}';
ALTER TABLE runs ADD COLUMN IF NOT EXISTS depth integer NOT NULL DEFAULT 0;

-- A plan-and-execute run's plan as it runs (subtasks with their status and child runs, the shared
-- context, failures, the Mermaid export); null for other runs.
ALTER TABLE runs ADD COLUMN IF NOT EXISTS plan jsonb;

CREATE INDEX IF NOT EXISTS runs_children ON runs (tenant_id, parent_run_id) WHERE parent_run_id IS NOT NULL;
