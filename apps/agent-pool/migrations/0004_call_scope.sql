-- A start is the same start when the model's call id repeats within one run (within one
-- conversation when the caller names no run), not within the whole tenant: models do not promise
-- call ids unique beyond a response, and a repeated id used to hand an earlier conversation's
-- entry, finished or not, to a new call.
ALTER TABLE entries DROP CONSTRAINT entries_tenant_id_call_id_key;
CREATE UNIQUE INDEX entries_call ON entries (tenant_id, conversation_id, (COALESCE(run_id, '')), call_id);
