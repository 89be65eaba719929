-- db/migrations/005.sql - PLACEHOLDER on branch `cpufair` only: schema version 5 -> 6
-- is reserved for another helper's migration, which replaces this file when the
-- branches are merged (coordinator: keep theirs, drop this one; if theirs has not
-- landed, rename 008.sql to the first free number and drop the placeholders).
-- It changes nothing, so that db/embed.sh (which wants 001, 002 ... without gaps)
-- can build this branch with its own db/migrations/008.sql.
SELECT 1;
