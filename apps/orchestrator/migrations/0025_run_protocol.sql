-- The edge protocol a run's message came in by (docs/protocols.md): rest, chat_completions,
-- responses, mcp, a2a or ag_ui; NULL for a message the platform sent itself (a trigger's fire, a
-- child run) and for runs recorded before this column. The run listing filters on it.
ALTER TABLE runs ADD COLUMN IF NOT EXISTS protocol text;
