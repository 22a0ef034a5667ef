-- Event triggers: an event of a tenant finds its tasks through (source, type), not a scan.
ALTER TABLE tasks ADD COLUMN event_source text, ADD COLUMN event_type text;
CREATE INDEX tasks_by_event ON tasks (tenant_id, event_source, event_type) WHERE trigger_type = 'event' AND status = 'ACTIVE';

-- Tasks waiting for an approval (or whose approval expired) keep their schedule: plan them too.
DROP INDEX tasks_due;
CREATE INDEX tasks_due ON tasks (next_fire_at) WHERE status IN ('ACTIVE', 'PENDING_APPROVAL', 'EXPIRED') AND next_fire_at IS NOT NULL;
