-- The last error of a task that is not a fire's: an event filter or condition that failed on an
-- event (FILTER_INPUT_TOO_LONG, FILTER_EVALUATION_FAILED). It is shown on the task (lastError) so
-- a filter that cannot match is seen, not silent; replacing the task's spec clears it.
ALTER TABLE tasks
  ADD COLUMN last_error_code text NOT NULL DEFAULT '',
  ADD COLUMN last_error_message text NOT NULL DEFAULT '',
  ADD COLUMN last_error_at timestamptz;
