-- Event ids in commit order, decided at commit.
--
-- Before, the statement that inserted a transaction's events first took an
-- advisory lock, held until the commit ended: ids followed commit order, but
-- the lock was held across the client's next round trip (its COMMIT) as well
-- as the WAL flush. And each such insert sent a NOTIFY, whose commit-time
-- queue lock serialized those commits a second time.
--
-- Now an event's row is inserted with a provisional id; at commit a deferred
-- trigger takes the same lock and gives the row its final id, in insertion
-- order. Readers only ever see committed rows, so they see final ids only,
-- and the lock is held from the commit's start to its end: no round trip.
-- Instances learn of commits by a NOTIFY each sends after its own commits,
-- outside them (src/feed.rs), not from here.
DROP TRIGGER events_notify ON events;
DROP FUNCTION notify_events();

CREATE FUNCTION events_in_commit_order() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    -- "petstore": the lock that orders event ids by commit.
    PERFORM pg_advisory_xact_lock(8099007544119226981);
    UPDATE events SET id = DEFAULT WHERE id = NEW.id;
    RETURN NULL;
END
$$;

CREATE CONSTRAINT TRIGGER events_in_commit_order AFTER INSERT ON events
    DEFERRABLE INITIALLY DEFERRED
    FOR EACH ROW EXECUTE FUNCTION events_in_commit_order();
