-- A third kind of entry: a decision the platform asks the user for itself ('user_decision', e.g. a
-- committee whose strategy is "user"): nobody runs; the entry waits for approval until it expires,
-- and the decision is stored as its result.
ALTER TABLE entries DROP CONSTRAINT entries_kind_check;
ALTER TABLE entries ADD CONSTRAINT entries_kind_check CHECK (kind IN ('agent', 'approval_gate', 'user_decision'));
