-- The store's events: the same tables as migrations/sqlite/0004_events.sql.
-- Several instances write them: a transaction takes an advisory lock before
-- its first event, held until it commits, so that ids are handed out in
-- commit order and a reader that has seen id n has seen every id below it.
-- Inserting notifies `petstore_events` (delivered at commit), which wakes
-- every instance's feed.

CREATE TABLE events (
    id          BIGINT  GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    kind        TEXT    NOT NULL,
    order_id    BIGINT,
    pet_id      BIGINT  NOT NULL,
    quantity    INTEGER,
    stock       INTEGER NOT NULL,
    status      TEXT    NOT NULL,
    -- Unix milliseconds.
    occurred_at BIGINT  NOT NULL
);
CREATE INDEX events_occurred ON events (occurred_at);

CREATE TABLE event_horizon (
    id             INTEGER PRIMARY KEY CHECK (id = 1),
    pruned_through BIGINT  NOT NULL
);
INSERT INTO event_horizon (id, pruned_through) VALUES (1, 0);

CREATE FUNCTION notify_events() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM pg_notify('petstore_events', '');
    RETURN NULL;
END
$$;

CREATE TRIGGER events_notify AFTER INSERT ON events
    FOR EACH STATEMENT EXECUTE FUNCTION notify_events();
