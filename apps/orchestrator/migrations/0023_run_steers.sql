-- Steering (docs/conversations.md, "Sending while a run is in flight"): a message sent with
-- `multitask: steer` is recorded as a queued run of its own, then `steers` names the run in flight
-- it asks to join. That run takes it before its next model call, in one statement fenced by its
-- lease: the message's run ends `completed` / `steered` and `steered_at` keeps the loop iteration
-- before whose model call it joined (a resumed run puts it back at the same place). A steer the run
-- never took stays queued and runs as its own turn after it.
ALTER TABLE runs ADD COLUMN IF NOT EXISTS steers text;
ALTER TABLE runs ADD COLUMN IF NOT EXISTS steered_at integer;
CREATE INDEX IF NOT EXISTS runs_steers ON runs (tenant_id, steers) WHERE steers IS NOT NULL;
