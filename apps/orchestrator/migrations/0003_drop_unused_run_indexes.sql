-- No query reads these two indexes, and every write of a run paid for them (a claim, the input
-- and the outcome each write a new row version, and each version was indexed again). Live runs
-- are found through runs_unfinished (ordering, the claim's guard and the recovery sweep alike).
DROP INDEX IF EXISTS runs_by_conversation;
DROP INDEX IF EXISTS runs_expired_leases;
