-- Webhooks: the same tables as migrations/sqlite/0012_webhooks.sql. Several
-- instances share them: the dispatcher claims rows with `FOR UPDATE SKIP
-- LOCKED`, so that each attempt is made by one instance.
--
-- The endpoints a key subscribed, the outbox of
-- deliveries still to make, and every attempt made.
--
-- The events table is where a delivery starts: an event row is written in
-- its change's transaction, and an endpoint's `cursor` is the last event
-- considered for it. The dispatcher moves events past the cursor into the
-- outbox (`webhook_deliveries`, with the event's JSON) and the cursor
-- after them in one transaction, so that a crash loses no event and queues
-- none twice. A delivery row lives until it succeeds or its last retry
-- fails; `due_at` is when its next attempt may start, pushed past the
-- attempt's timeout while one is in flight.

CREATE TABLE webhook_endpoints (
    id              BIGINT  GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    key_id          BIGINT  NOT NULL,
    url             TEXT    NOT NULL,
    -- Event types, comma-separated.
    events          TEXT    NOT NULL,
    description     TEXT,
    secret          TEXT    NOT NULL,
    enabled         INTEGER NOT NULL,
    disabled_reason TEXT,
    cursor          BIGINT  NOT NULL,
    -- Unix milliseconds.
    created_at      BIGINT  NOT NULL
);
CREATE INDEX webhook_endpoints_key ON webhook_endpoints (key_id, id);

CREATE TABLE webhook_deliveries (
    id          BIGINT  GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    endpoint_id BIGINT  NOT NULL,
    event_id    BIGINT  NOT NULL,
    payload     TEXT    NOT NULL,
    -- Attempts made so far.
    attempts    INTEGER NOT NULL,
    -- Unix milliseconds.
    due_at      BIGINT  NOT NULL,
    UNIQUE (endpoint_id, event_id)
);
CREATE INDEX webhook_deliveries_due ON webhook_deliveries (due_at);

CREATE TABLE webhook_attempts (
    id           BIGINT  GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    endpoint_id  BIGINT  NOT NULL,
    event_id     BIGINT  NOT NULL,
    attempt      INTEGER NOT NULL,
    result       TEXT    NOT NULL,
    status       INTEGER,
    error        TEXT,
    -- Unix milliseconds.
    attempted_at BIGINT  NOT NULL
);
CREATE INDEX webhook_attempts_endpoint ON webhook_attempts (endpoint_id, id);
