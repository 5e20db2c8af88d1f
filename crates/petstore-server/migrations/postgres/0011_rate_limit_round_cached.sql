-- The shared limiter's round, decided by the instance when it knows the
-- subject's row.
--
-- Every update of a row, whoever makes it (a round, an older instance's
-- `rate_limit_round`, an operator by hand), takes a new `version` from one
-- sequence, by a trigger: a version names one state of one row, even across
-- a sweep that deletes the row and a round that creates it again. An
-- instance keeps the row as its last round left it, with its version,
-- decides the next round itself by the same rule (the Rust one,
-- `limiter/rule.rs`), and sends the state it computed with the version it
-- started from:
--
-- - The row still has that version (no one wrote it since): the state is
--   written as sent, and the function returns one row, the new version.
--   No rule runs in SQL: under a load of single reads the rule in plpgsql
--   took five times a pet read's execution time.
-- - It does not (another instance wrote it, the row was swept, or the
--   instance does not know it): the round is decided here by
--   `rate_limit_round` (0005, 0010), under the row lock.
--
-- Either way it is one statement, and counts and bans stay exact across
-- instances: a state computed from a row is written only if the row is
-- still that row. Rows are returned in the order of the requests, then one
-- row whose `verdict` is NULL carrying the row's state and version as the
-- round left it; a round decided by the instance returns that row alone.
ALTER TABLE rate_limits ADD COLUMN version BIGINT NOT NULL DEFAULT 0;
CREATE SEQUENCE rate_limit_versions;

CREATE FUNCTION rate_limit_next_version() RETURNS trigger
LANGUAGE plpgsql AS $$
BEGIN
    NEW.version := nextval('rate_limit_versions');
    RETURN NEW;
END
$$;

CREATE TRIGGER rate_limit_version BEFORE UPDATE ON rate_limits
FOR EACH ROW EXECUTE FUNCTION rate_limit_next_version();

CREATE FUNCTION rate_limit_round_cached(
    p_subject       TEXT,
    -- The version the instance decided from; NULL when it knows no row.
    p_version       BIGINT,
    -- The state it computed (ignored when p_version is NULL).
    p_minute_start  BIGINT,
    p_minute_count  INTEGER,
    p_day_start     BIGINT,
    p_day_count     INTEGER,
    p_while_limited INTEGER,
    p_banned_until  BIGINT,
    -- The round's requests, for deciding here.
    p_per_minute    BIGINT[],
    p_per_day       BIGINT[],
    p_now           BIGINT[],
    p_ban_after     BIGINT,
    p_ban_seconds   BIGINT
) RETURNS TABLE (
    verdict INTEGER, retry_after BIGINT, limit_ BIGINT, remaining BIGINT, reset BIGINT,
    version_ BIGINT, minute_start_ BIGINT, minute_count_ INTEGER, day_start_ BIGINT,
    day_count_ INTEGER, while_limited_ INTEGER, banned_until_ BIGINT
)
LANGUAGE plpgsql AS $$
BEGIN
    -- As in 0010: a round does not wait for the WAL flush.
    PERFORM set_config('synchronous_commit', 'off', true);
    IF p_version IS NOT NULL THEN
        UPDATE rate_limits SET
            minute_start = p_minute_start, minute_count = p_minute_count,
            day_start = p_day_start, day_count = p_day_count,
            while_limited = p_while_limited, banned_until = p_banned_until
        WHERE subject = p_subject AND version = p_version
        RETURNING version, minute_start, minute_count, day_start, day_count,
                  while_limited, banned_until
        INTO version_, minute_start_, minute_count_, day_start_, day_count_,
             while_limited_, banned_until_;
        IF FOUND THEN
            RETURN NEXT;
            RETURN;
        END IF;
    END IF;
    -- Decided here; the row stays locked until the statement commits.
    RETURN QUERY
        SELECT d.verdict, d.retry_after, d.limit_, d.remaining, d.reset,
               NULL::BIGINT, NULL::BIGINT, NULL::INTEGER, NULL::BIGINT,
               NULL::INTEGER, NULL::INTEGER, NULL::BIGINT
        FROM rate_limit_round(p_subject, p_per_minute, p_per_day, p_now,
                              p_ban_after, p_ban_seconds) d;
    SELECT r.version, r.minute_start, r.minute_count, r.day_start, r.day_count,
           r.while_limited, r.banned_until
    INTO version_, minute_start_, minute_count_, day_start_, day_count_,
         while_limited_, banned_until_
    FROM rate_limits r WHERE r.subject = p_subject;
    verdict := NULL;
    retry_after := NULL;
    limit_ := NULL;
    remaining := NULL;
    reset := NULL;
    RETURN NEXT;
END
$$;
