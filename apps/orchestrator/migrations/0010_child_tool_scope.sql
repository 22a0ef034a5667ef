-- A child run may be held to fewer tools than its profile allows: a plan's subtask that names a
-- tool runs as a child run that may use that tool only (within what its role's profile allows).
-- Null: the profile's own allowlist, as before. Kept with the run so a resumed child keeps it.
ALTER TABLE runs ADD COLUMN IF NOT EXISTS tool_scope text[];
