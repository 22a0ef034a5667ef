-- What an entry holds: an agent-tool's call ('agent': its runner takes every step), or a plain
-- tool's call that requires approval ('approval_gate': the pool asks the user first and runs the
-- tool once, with the approved arguments, only after an approval).
ALTER TABLE entries ADD COLUMN kind text NOT NULL DEFAULT 'agent' CHECK (kind IN ('agent', 'approval_gate'));
