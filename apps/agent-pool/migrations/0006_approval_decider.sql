-- Who decided an approval: the end user (the token's `sub`, or the user an API key acted for)
-- whose decision the orchestrator passed with ResolveApproval. Null while the approval waits, for
-- one decided before this column, and for one nobody decided (expired, cancelled with the run).
ALTER TABLE entries ADD COLUMN IF NOT EXISTS decided_by text;
