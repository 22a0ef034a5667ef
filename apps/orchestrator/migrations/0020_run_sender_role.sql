-- The tenant role of whoever sent a run's message (viewer, member, developer, admin:
-- docs/access.md), kept with the run like its subject (0012): a reply that reads as an
-- approval decision decides only what that role and subject may decide, on the first attempt
-- and on a resumed one alike. Null: a run from before this column, or one no user sent (a
-- trigger's), which decides as a member.
ALTER TABLE runs ADD COLUMN IF NOT EXISTS sender_role text;
