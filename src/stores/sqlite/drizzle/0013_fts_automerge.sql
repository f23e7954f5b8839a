-- The search index merges its segments 16 at a time instead of 4 (FTS5's `automerge`, a setting stored in the
-- index): each entry's words are rewritten by fewer merges, which was about a fifth of the index's cost per entry;
-- searches read at most 15 segments per level instead of 3 (docs/audit.md, issue 32).
INSERT INTO audit_log_search(audit_log_search, rank) VALUES ('automerge', 16);
