-- A replay of a run (docs/conversations.md, "Replaying a run"): a new run, in a fork of the
-- original's conversation, whose first `replay_from_step` steps (model responses and their tool
-- results) are answered from the original run's journal instead of being asked again. The
-- original's id is kept with the replay; the original lists its replays through the index.
ALTER TABLE runs ADD COLUMN IF NOT EXISTS replay_of text;
ALTER TABLE runs ADD COLUMN IF NOT EXISTS replay_from_step integer;
CREATE INDEX IF NOT EXISTS runs_replay_of ON runs (tenant_id, replay_of, created_at) WHERE replay_of IS NOT NULL;
