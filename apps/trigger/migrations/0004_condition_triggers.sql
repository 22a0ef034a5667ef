-- Condition triggers: a tool is polled on an interval; the task fires when its condition becomes
-- true (edge-triggered), not again until it was false in between, and not within its cool-down.
ALTER TABLE tasks
  ADD COLUMN next_poll_at timestamptz,
  ADD COLUMN condition_met boolean,
  ADD COLUMN condition_fired_at timestamptz;
CREATE INDEX tasks_poll_due ON tasks (next_poll_at) WHERE trigger_type = 'condition' AND status = 'ACTIVE' AND next_poll_at IS NOT NULL;
