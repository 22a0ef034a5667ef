-- A fire row is updated three or four times in its life (claimed, marked started, settled) and a
-- task row at each of its fires (last fire and outcome). Leaving room in each page lets the
-- updates that change no indexed column (the start mark, a task's last fire) stay on the page as
-- heap-only tuples: no new entry in every index, less WAL. Pages written from now on keep the room;
-- existing pages get it when the table is rewritten (VACUUM FULL or pg_repack), if ever.
ALTER TABLE fires SET (fillfactor = 70);
ALTER TABLE tasks SET (fillfactor = 80);
