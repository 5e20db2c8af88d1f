-- Event ids in commit order, given after commit, in batches.
--
-- Before (0006), a deferred trigger gave each event its final id at commit
-- under an advisory lock held until the commit ended, WAL flush included:
-- every write that recorded events committed one at a time, however many
-- were ready, and an order's throughput was one over the flush's latency.
--
-- Now a write inserts its events with a pending id, negative (readers ask
-- for ids above one they have seen, never below zero, so they never see a
-- pending row), and commits without any shared lock: commits flush in
-- groups again. Then `sequence_events` (called by each instance's feed
-- after its commits and once a second, src/feed.rs) takes the lock, gives
-- every committed pending row its final id, in pending order, and commits.
-- Only the sequencer hands out final ids, one batch at a time under the
-- lock, and a batch commits before the next begins: a reader that has seen
-- id n has seen, or will never see, every id below it. Pending order keeps
-- a transaction's own events in the order it inserted them, and a later
-- transaction on the same pet (which waited for the earlier one's row
-- locks) has later pending ids, or is sequenced in a later batch.
-- The sequencer's NOTIFY (carrying the caller's name) wakes every other
-- instance's feed when its batch commits.
DROP TRIGGER events_in_commit_order ON events;
DROP FUNCTION events_in_commit_order();

CREATE SEQUENCE events_final;
SELECT setval('events_final',
              COALESCE(pg_sequence_last_value(pg_get_serial_sequence('events', 'id')), 0) + 1,
              false);
CREATE SEQUENCE events_pending;
ALTER TABLE events ALTER COLUMN id DROP IDENTITY;
ALTER TABLE events ALTER COLUMN id SET DEFAULT -nextval('events_pending');
ALTER SEQUENCE events_pending OWNED BY events.id;
ALTER SEQUENCE events_final OWNED BY events.id;

-- Gives every committed pending event its final id; the number given.
CREATE FUNCTION sequence_events(p_caller TEXT) RETURNS BIGINT
LANGUAGE plpgsql AS $$
DECLARE
    pending BIGINT[];
    first   BIGINT;
    n       BIGINT;
BEGIN
    -- "petstore": the lock that orders event ids by commit. Each statement
    -- after it sees every batch committed before it was granted.
    PERFORM pg_advisory_xact_lock(8099007544119226981);
    SELECT array_agg(id ORDER BY id DESC) INTO pending FROM events WHERE id < 0;
    IF pending IS NULL THEN
        RETURN 0;
    END IF;
    n := cardinality(pending);
    first := nextval('events_final');
    IF n > 1 THEN
        PERFORM setval('events_final', first + n - 1);
    END IF;
    UPDATE events e SET id = first + u.pos - 1
        FROM unnest(pending) WITH ORDINALITY AS u (old_id, pos)
        WHERE e.id = u.old_id;
    PERFORM pg_notify('petstore_events', p_caller);
    RETURN n;
END
$$;
