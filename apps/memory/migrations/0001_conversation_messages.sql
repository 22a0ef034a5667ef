-- Raw conversation history, per tenant. Rows are only ever inserted, never updated or deleted
-- by the service: the history is the record of what happened.
CREATE TABLE conversations (
  tenant_id       text        NOT NULL,
  conversation_id text        NOT NULL,
  next_seq        bigint      NOT NULL DEFAULT 1,
  created_at      timestamptz NOT NULL DEFAULT now(),
  updated_at      timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (tenant_id, conversation_id)
);

CREATE TABLE messages (
  tenant_id       text        NOT NULL,
  conversation_id text        NOT NULL,
  seq             bigint      NOT NULL,
  role            text        NOT NULL CHECK (role IN ('system', 'user', 'assistant', 'tool')),
  -- The ChatMessage JSON exactly as appended (text, not jsonb, so it is byte-for-byte preserved).
  message_json    text        NOT NULL,
  run_id          text,
  created_at      timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (tenant_id, conversation_id, seq),
  FOREIGN KEY (tenant_id, conversation_id) REFERENCES conversations (tenant_id, conversation_id)
);

-- One row per applied append, so a retried append (same append_id) is recognised and not repeated.
CREATE TABLE appends (
  tenant_id       text        NOT NULL,
  conversation_id text        NOT NULL,
  append_id       text        NOT NULL,
  first_seq       bigint      NOT NULL,
  last_seq        bigint      NOT NULL,
  created_at      timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (tenant_id, conversation_id, append_id)
);
