-- Who sent a run's message: NULL for a user, {"kind": "trigger", "taskId", "triggerType"} for a
-- trigger task's fire. Kept with the run so an attempt resumed elsewhere still knows it.
ALTER TABLE runs ADD COLUMN source jsonb;
