-- Model connections: an OpenAI-compatible endpoint a tenant registers for its agents
-- (docs/models.md, "Models the tenant brings"). This table holds what is not secret (the name,
-- the base URL, the models, a preview of the key); the API key itself is a row of `credentials`
-- (service '@model-connection', account = the connection's name: a service name no credential
-- can have, see CredentialService in libs/contracts), so it is sealed, re-wrapped on key
-- rotation, counted in key usage and audited exactly like every other secret. Both rows are
-- written and deleted in one transaction.
CREATE TABLE model_connections (
  tenant_id   text        NOT NULL,
  name        text        NOT NULL,
  base_url    text        NOT NULL,
  models      text[]      NOT NULL DEFAULT '{}',
  key_preview text        NOT NULL,
  -- Grows by one with every update (URL, key or models).
  version     bigint      NOT NULL CHECK (version > 0),
  created_at  timestamptz NOT NULL DEFAULT now(),
  updated_at  timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (tenant_id, name)
);

ALTER TABLE model_connections ENABLE ROW LEVEL SECURITY;
ALTER TABLE model_connections FORCE ROW LEVEL SECURITY;
CREATE POLICY tenant_rows ON model_connections TO credential_runtime
  USING (tenant_id = current_setting('credential.tenant_id', true))
  WITH CHECK (tenant_id = current_setting('credential.tenant_id', true));
GRANT SELECT, INSERT, UPDATE, DELETE ON model_connections TO credential_runtime;
