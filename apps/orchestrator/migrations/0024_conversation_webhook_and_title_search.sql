-- A conversation's own run webhook URL (docs/conversations.md, "Webhooks when a run ends"): a run
-- of the conversation whose message names none sends its end there, before the tenant's default.
-- Checked by the egress guard when it is set (conversation-service.ts); null: none.
ALTER TABLE conversations ADD COLUMN webhook_url text;

-- Title search (ILIKE '%…%', its % and _ escaped) by a trigram index rather than a scan of the
-- tenant's rows. pg_trgm is one extension per database, and the services share one database in
-- schemas of their own: the memory service's migration creates it in its schema ("memory", its
-- search_path) and names its operator classes unqualified, so it must be found there. This takes
-- the memory service's migration lock (libs/service-kit/src/migrations.ts, lockKey) for the
-- transaction, so the two never create it at once; uses it where it is; and, when no service has
-- created it yet, creates it where the memory service will look for it.
DO $$
DECLARE
  trgm_schema text;
BEGIN
  PERFORM pg_advisory_xact_lock(
    ('x' || substr(encode(sha256(convert_to('migrations:memory', 'UTF8')), 'hex'), 1, 16))::bit(64)::bigint);
  SELECT n.nspname INTO trgm_schema
    FROM pg_extension e JOIN pg_namespace n ON n.oid = e.extnamespace
    WHERE e.extname = 'pg_trgm';
  IF trgm_schema IS NULL THEN
    CREATE SCHEMA IF NOT EXISTS memory;
    CREATE EXTENSION pg_trgm SCHEMA memory;
    trgm_schema := 'memory';
  END IF;
  EXECUTE format('CREATE INDEX conversations_title_trigram ON conversations USING gin (title %I.gin_trgm_ops)',
    trgm_schema);
END
$$;
