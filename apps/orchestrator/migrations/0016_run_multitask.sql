-- Sending while a run is in flight (docs/conversations.md). A newer message may ask the run in
-- flight to stop: `interrupt` (at its next step boundary, keeping what it completed) or
-- `rollback` (cancelled, nothing of it kept in history); `stopped_by` names that message's run.
-- `history_sealed` is set, in one statement that checks no rollback was asked, just before the
-- turn appends its messages to memory: a rollback asked after that point comes too late (the run
-- is finished in all but name), so a rolled-back run never has anything in history to remove.
ALTER TABLE runs ADD COLUMN IF NOT EXISTS stop_requested text CHECK (stop_requested IN ('interrupt', 'rollback'));
ALTER TABLE runs ADD COLUMN IF NOT EXISTS stopped_by text;
ALTER TABLE runs ADD COLUMN IF NOT EXISTS history_sealed boolean NOT NULL DEFAULT false;

