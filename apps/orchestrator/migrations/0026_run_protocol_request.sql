-- What a run's protocol request asked beyond the message (HandleMessageRequest.protocol_request_json):
-- a JSON object the edge reads back when it reports the run in its protocol, e.g. a Responses API
-- request's previous_response_id and text.format (docs/protocols.md). NULL for other runs and for
-- runs recorded before this column.
ALTER TABLE runs ADD COLUMN IF NOT EXISTS protocol_request jsonb;
