-- The audit of administrative actions (docs/access.md#audit): every successful write of an
-- operation that needs the developer or admin role, as the api reports it. Who (the subject, the
-- key, the end user a key acted for), when, what (the operation and the resource), never a secret.
-- Append-only: the runtime may insert and read, nothing else.
CREATE TABLE admin_audit (
  id           bigint      GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
  tenant_id    text        NOT NULL,
  operation    text        NOT NULL,
  method       text        NOT NULL,
  resource     text        NOT NULL DEFAULT '',
  status       integer     NOT NULL,
  role         text        NOT NULL,
  subject      text        NOT NULL DEFAULT '',
  key_id       text        NOT NULL DEFAULT '',
  acting_user  text        NOT NULL DEFAULT '',
  request_id   text        NOT NULL DEFAULT '',
  at           timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX admin_audit_tenant ON admin_audit (tenant_id, id DESC);

ALTER TABLE admin_audit ENABLE ROW LEVEL SECURITY;
ALTER TABLE admin_audit FORCE ROW LEVEL SECURITY;
CREATE POLICY tenant_rows ON admin_audit TO credential_runtime
  USING (tenant_id = current_setting('credential.tenant_id', true))
  WITH CHECK (tenant_id = current_setting('credential.tenant_id', true));
GRANT SELECT, INSERT ON admin_audit TO credential_runtime;
