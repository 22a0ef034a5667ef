-- A client's Idempotency-Key (docs/conversations.md, "Idempotent sends"): the run the first
-- message sent with it started, and the fingerprint of that message's request, so a repeat is
-- answered with that run and a different request under the same key is refused. One row per
-- tenant and key (another tenant's same key is another row). The row is written by the same
-- statement that records the run, so a key never names a run that does not exist, and two
-- racing sends cannot both record a run. A row lives until `expires_at` (24 h after the send);
-- an expired row is replaced by the next send with its key and swept in batches meanwhile.
CREATE TABLE IF NOT EXISTS idempotency_keys (
  tenant_id text NOT NULL,
  idempotency_key text NOT NULL,
  fingerprint text NOT NULL,
  run_id text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  expires_at timestamptz NOT NULL,
  PRIMARY KEY (tenant_id, idempotency_key)
);
CREATE INDEX IF NOT EXISTS idempotency_keys_expiry ON idempotency_keys (expires_at);
