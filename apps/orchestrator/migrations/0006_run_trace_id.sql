-- The W3C trace id of the request that created a run (null for runs without one, e.g. platform
-- notices or runs created before this column), so an operator can go from a run to its trace.
ALTER TABLE runs ADD COLUMN trace_id text;
