-- A run may have an output schema (a JSON Schema, draft 2020-12): its message's, else its
-- profile's when the message was accepted. Kept with the run so a resumed turn (another attempt,
-- another replica, after a restart) checks its answer against the same schema, whatever the
-- profile says by then. Null: the answer is free text.
ALTER TABLE runs ADD COLUMN IF NOT EXISTS output_schema jsonb;
