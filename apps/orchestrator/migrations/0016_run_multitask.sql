-- Sending while a run is in flight (docs/conversations.md). A newer message may ask the run in
-- flight to stop: `interrupt` (at its next step boundary, keeping what it completed) or
-- `rollback` (cancelled, nothing of it kept in history); `stopped_by` names that message's run.
-- `history_sealed` is set, in one statement that checks no rollback was asked, just before the
-- turn appends its messages to memory: a rollback asked after that point comes too late (the run
-- is finished in all but name), so a rolled-back run never has anything in history to remove.
ALTER TABLE runs ADD COLUMN IF NOT EXISTS stop_requested text CHECK (stop_requested IN ('interrupt', 'rollback'));
ALTER TABLE runs ADD COLUMN IF NOT EXISTS stopped_by text;
ALTER TABLE runs ADD COLUMN IF NOT EXISTS history_sealed boolean NOT NULL DEFAULT false;

-- `steer`: messages that join a running loop before its next model call. `taken_at` is the step
-- (iteration) whose model call first saw it, set once: a resumed attempt puts it at the same place.
CREATE TABLE IF NOT EXISTS run_steers (
  tenant_id text NOT NULL,
  run_id text NOT NULL,
  steer_run_id text NOT NULL,
  content text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  taken_at integer,
  PRIMARY KEY (tenant_id, run_id, steer_run_id)
);
