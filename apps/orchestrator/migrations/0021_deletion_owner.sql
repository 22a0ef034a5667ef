-- Whose conversation a deletion job removed (erasure/deletion-store.ts): the conversation's owner
-- when the job was recorded, NULL when it had no row. After the deletion the conversation is gone,
-- and this is what tells that a member deleting it again is its owner (and gets the same job back).
ALTER TABLE conversation_deletions ADD COLUMN IF NOT EXISTS owner_subject text;
