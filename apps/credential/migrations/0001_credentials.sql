-- Encrypted credentials and their audit trail, per tenant, behind row-level security.
--
-- Roles (cluster-wide, created here when missing; a DBA may create them beforehand instead):
--   credential_runtime      what the service acts as for tenant requests: sees only the rows of the
--                           tenant set in the transaction (set_config('credential.tenant_id', ..., true)).
--   credential_maintenance  what the key rotation acts as: every tenant's key columns, never a
--                           ciphertext (column privileges), and it cannot insert or delete.
-- Neither owns the tables, and RLS is forced, so even the owner is filtered.
DO $$
BEGIN
  IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'credential_runtime') THEN
    BEGIN
      CREATE ROLE credential_runtime NOLOGIN;
    EXCEPTION WHEN duplicate_object OR unique_violation THEN NULL; -- another database's migration won the race
    END;
  END IF;
  IF NOT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = 'credential_maintenance') THEN
    BEGIN
      CREATE ROLE credential_maintenance NOLOGIN;
    EXCEPTION WHEN duplicate_object OR unique_violation THEN NULL;
    END;
  END IF;
END
$$;

CREATE TABLE credentials (
  tenant_id   text        NOT NULL,
  service     text        NOT NULL,
  account     text        NOT NULL,
  -- Grows by one with every save; bound into both layers' associated data.
  version     bigint      NOT NULL CHECK (version > 0),
  -- The key-encryption key that wraps data_key, and the wrapped data key (iv | ciphertext | tag).
  key_id      text        NOT NULL,
  wrapped_key bytea       NOT NULL,
  -- The secret JSON under the record's own data key (iv | ciphertext | tag).
  ciphertext  bytea       NOT NULL,
  created_at  timestamptz NOT NULL DEFAULT now(),
  updated_at  timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (tenant_id, service, account)
);
CREATE INDEX credentials_key_id ON credentials (key_id);

-- Every read and write, never the secret. Append-only: the runtime may insert and read, nothing else.
CREATE TABLE audit_events (
  id          bigint      GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  tenant_id   text        NOT NULL,
  service     text        NOT NULL,
  account     text        NOT NULL,
  action      text        NOT NULL CHECK (action IN ('save', 'get', 'list', 'delete')),
  outcome     text        NOT NULL,
  actor_kind  text        NOT NULL CHECK (actor_kind IN ('platform', 'grant')),
  subject     text        NOT NULL DEFAULT '',
  tool        text        NOT NULL DEFAULT '',
  run_id      text        NOT NULL DEFAULT '',
  call_id     text        NOT NULL DEFAULT '',
  at          timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX audit_events_tenant ON audit_events (tenant_id, id DESC);

ALTER TABLE credentials ENABLE ROW LEVEL SECURITY;
ALTER TABLE credentials FORCE ROW LEVEL SECURITY;
ALTER TABLE audit_events ENABLE ROW LEVEL SECURITY;
ALTER TABLE audit_events FORCE ROW LEVEL SECURITY;

-- current_setting(..., true) is NULL when the tenant was never set and '' after a transaction
-- that set it ended: neither equals a tenant id, so a query without a tenant sees nothing.
CREATE POLICY tenant_rows ON credentials TO credential_runtime
  USING (tenant_id = current_setting('credential.tenant_id', true))
  WITH CHECK (tenant_id = current_setting('credential.tenant_id', true));
CREATE POLICY tenant_rows ON audit_events TO credential_runtime
  USING (tenant_id = current_setting('credential.tenant_id', true))
  WITH CHECK (tenant_id = current_setting('credential.tenant_id', true));
CREATE POLICY key_rotation_read ON credentials FOR SELECT TO credential_maintenance USING (true);
CREATE POLICY key_rotation_write ON credentials FOR UPDATE TO credential_maintenance USING (true) WITH CHECK (true);

DO $$
BEGIN
  EXECUTE format('GRANT USAGE ON SCHEMA %I TO credential_runtime, credential_maintenance', current_schema());
END
$$;
GRANT SELECT, INSERT, UPDATE, DELETE ON credentials TO credential_runtime;
GRANT SELECT, INSERT ON audit_events TO credential_runtime;
GRANT SELECT (tenant_id, service, account, version, key_id, wrapped_key), UPDATE (key_id, wrapped_key) ON credentials TO credential_maintenance;
