-- A fork is a conversation whose history starts with its parent's, up to and including
-- parent_seq, without copying it: ListMessages reads the parent's prefix (recursively, for forks of
-- forks) and then the fork's own messages, which are numbered from parent_seq + 1. fork_depth is
-- the number of forks between this conversation and its root (0 for a conversation that is not a
-- fork); the service bounds it.
ALTER TABLE conversations
  ADD COLUMN parent_conversation_id text,
  ADD COLUMN parent_seq bigint,
  ADD COLUMN fork_depth integer NOT NULL DEFAULT 0,
  ADD CONSTRAINT conversations_fork_parent CHECK (
    (parent_conversation_id IS NULL AND parent_seq IS NULL AND fork_depth = 0)
    OR (parent_conversation_id IS NOT NULL AND parent_seq > 0 AND fork_depth > 0)
  ),
  ADD CONSTRAINT conversations_fork_parent_fk FOREIGN KEY (tenant_id, parent_conversation_id)
    REFERENCES conversations (tenant_id, conversation_id);
