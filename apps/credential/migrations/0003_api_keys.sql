-- API keys for servers (docs/access.md#api-keys): a tenant's keys, each stored as the SHA-256 of
-- the whole key (the key is 256 random bits, so a fast hash suffices; the key itself is never
-- stored and is shown once, at creation).
--
-- A key names its id (`plk_<key_id>_<secret>`), but not its tenant: the api learns the tenant from
-- the key. So verifying reads by id across tenants, as its own role, credential_key_lookup, which
-- may read only the columns verification needs (never the name) and write nothing but last_used_at
-- (which it reads too: a later use never moves it back).
DO $$
BEGIN
  IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'credential_key_lookup') THEN
    BEGIN
      CREATE ROLE credential_key_lookup NOLOGIN;
    EXCEPTION WHEN duplicate_object OR unique_violation THEN NULL;
    END;
  END IF;
END
$$;

CREATE TABLE api_keys (
  key_id       text        PRIMARY KEY,
  tenant_id    text        NOT NULL,
  name         text        NOT NULL,
  role         text        NOT NULL CHECK (role IN ('viewer', 'member', 'developer', 'admin')),
  key_hash     bytea       NOT NULL CHECK (length(key_hash) = 32),
  created_by   text        NOT NULL DEFAULT '',
  created_at   timestamptz NOT NULL DEFAULT now(),
  expires_at   timestamptz,
  revoked_at   timestamptz,
  last_used_at timestamptz
);
CREATE INDEX api_keys_tenant ON api_keys (tenant_id, created_at DESC);

ALTER TABLE api_keys ENABLE ROW LEVEL SECURITY;
ALTER TABLE api_keys FORCE ROW LEVEL SECURITY;
CREATE POLICY tenant_rows ON api_keys TO credential_runtime
  USING (tenant_id = current_setting('credential.tenant_id', true))
  WITH CHECK (tenant_id = current_setting('credential.tenant_id', true));
CREATE POLICY key_lookup_read ON api_keys FOR SELECT TO credential_key_lookup USING (true);
CREATE POLICY key_lookup_touch ON api_keys FOR UPDATE TO credential_key_lookup USING (true) WITH CHECK (true);

DO $$
BEGIN
  EXECUTE format('GRANT USAGE ON SCHEMA %I TO credential_key_lookup', current_schema());
END
$$;
GRANT SELECT, INSERT, UPDATE ON api_keys TO credential_runtime;
GRANT SELECT (key_id, tenant_id, role, key_hash, expires_at, revoked_at, last_used_at), UPDATE (last_used_at) ON api_keys TO credential_key_lookup;
