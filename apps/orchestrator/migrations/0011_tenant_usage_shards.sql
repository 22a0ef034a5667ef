-- Token usage per tenant and day, spread over shards. With one row per tenant and day
-- (tenant_usage), every finished turn of a tenant updated the same row: a busy tenant's turns
-- queued on that row's lock, each holding it until its commit's WAL flush, so the tenant's
-- finishes ran one at a time (bench/turn PG_STATEMENTS=1: the finish statement spent most of
-- PostgreSQL's execution time of a turn waiting there). A finish now adds to the shard of its
-- database session (pg_backend_pid() % 32): a session runs one statement at a time, so two
-- finishes meet on a row only when their sessions share a shard. Readers sum the shards.
--
-- tenant_usage stays as it is (a new table, so replicas not yet upgraded keep writing there during
-- a rolling deploy); readers add its rows to the shards' (RunRecords.usage).
CREATE TABLE IF NOT EXISTS tenant_usage_shards (
  tenant_id     text     NOT NULL,
  day           date     NOT NULL,
  shard         smallint NOT NULL,
  turns         bigint   NOT NULL DEFAULT 0,
  input_tokens  bigint   NOT NULL DEFAULT 0,
  output_tokens bigint   NOT NULL DEFAULT 0,
  PRIMARY KEY (tenant_id, day, shard)
);
