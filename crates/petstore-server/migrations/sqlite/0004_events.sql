-- The store's events (`GET /v1/store/events`): one row per change, written
-- in the change's own transaction. Ids increase in commit order (SQLite has
-- one writer) and are never reused (AUTOINCREMENT), so a subscriber resumes
-- after the last id it saw. Rows older than 24 hours are pruned; the highest
-- id pruned is kept, so that resuming from before it is told apart from
-- resuming from the present.

CREATE TABLE events (
    id          INTEGER PRIMARY KEY AUTOINCREMENT,
    kind        TEXT    NOT NULL,
    order_id    INTEGER,
    pet_id      INTEGER NOT NULL,
    quantity    INTEGER,
    stock       INTEGER NOT NULL,
    status      TEXT    NOT NULL,
    -- Unix milliseconds.
    occurred_at INTEGER NOT NULL
);
CREATE INDEX events_occurred ON events (occurred_at);

CREATE TABLE event_horizon (
    id             INTEGER PRIMARY KEY CHECK (id = 1),
    pruned_through INTEGER NOT NULL
);
INSERT INTO event_horizon (id, pruned_through) VALUES (1, 0);
