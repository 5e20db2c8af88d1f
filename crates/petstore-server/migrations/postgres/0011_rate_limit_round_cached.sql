-- The shared limiter's round, decided by the instance when it knows the
-- subject's row.
--
-- Every write of a row now takes a new `version` from one sequence, so a
-- version names one state of one row, even across a sweep that deletes the
-- row and a round that creates it again. An instance keeps the row as its
-- last round left it, with its version, decides the next round itself by
-- the same rule (the Rust one, `limiter/rule.rs`), and sends the state it
-- computed with the version it started from:
--
-- - The row still has that version (no other instance wrote it since): the
--   state is written as sent, and the function returns one row, the new
--   version. No lock is waited for but the row's own, and no rule runs in
--   SQL: under a load of single reads the old round took five times a pet
--   read's execution time.
-- - It does not (another instance wrote it, the row was swept, or the
--   instance does not know it): the round is decided here, as
--   `rate_limit_round` decides it (0005, 0010), under the row lock.
--
-- Either way it is one statement, and counts and bans stay exact across
-- instances: a state computed from a row is written only if the row is
-- still that row. Rows are returned in the order of the requests, then one
-- row whose `verdict` is NULL carrying the row's state and version as the
-- round left it; a round decided by the instance returns that row alone.
ALTER TABLE rate_limits ADD COLUMN version BIGINT NOT NULL DEFAULT 0;
CREATE SEQUENCE rate_limit_versions;

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
DECLARE
    r        rate_limits%ROWTYPE;
    now_     BIGINT;
    per_min  BIGINT;
    per_day  BIGINT;
    start_   BIGINT;
    blocking BIGINT;
BEGIN
    -- As in 0010: a round does not wait for the WAL flush.
    PERFORM set_config('synchronous_commit', 'off', true);
    IF p_version IS NOT NULL THEN
        UPDATE rate_limits SET
            minute_start = p_minute_start, minute_count = p_minute_count,
            day_start = p_day_start, day_count = p_day_count,
            while_limited = p_while_limited, banned_until = p_banned_until,
            version = nextval('rate_limit_versions')
        WHERE subject = p_subject AND version = p_version
        RETURNING version INTO version_;
        IF FOUND THEN
            minute_start_ := p_minute_start;
            minute_count_ := p_minute_count;
            day_start_ := p_day_start;
            day_count_ := p_day_count;
            while_limited_ := p_while_limited;
            banned_until_ := p_banned_until;
            RETURN NEXT;
            RETURN;
        END IF;
    END IF;
    SELECT * INTO r FROM rate_limits WHERE subject = p_subject FOR UPDATE;
    IF NOT FOUND THEN
        INSERT INTO rate_limits (subject) VALUES (p_subject) ON CONFLICT (subject) DO NOTHING;
        SELECT * INTO r FROM rate_limits WHERE subject = p_subject FOR UPDATE;
    END IF;
    -- The rule, as in 0010.
    FOR i IN 1 .. coalesce(array_length(p_now, 1), 0) LOOP
        now_ := p_now[i];
        per_min := p_per_minute[i];
        per_day := p_per_day[i];
        start_ := now_ - ((now_ % 60) + 60) % 60;
        IF r.minute_start <> start_ THEN
            r.minute_start := start_;
            r.minute_count := 0;
        END IF;
        start_ := now_ - ((now_ % 86400) + 86400) % 86400;
        IF r.day_start <> start_ THEN
            r.day_start := start_;
            r.day_count := 0;
        END IF;
        verdict := NULL;
        IF r.banned_until IS NOT NULL THEN
            IF r.banned_until > now_ THEN
                verdict := 2;
                retry_after := r.banned_until - now_;
            ELSE
                r.banned_until := NULL;
                r.while_limited := 0;
            END IF;
        END IF;
        IF verdict IS NULL THEN
            blocking := NULL;
            IF r.minute_count >= per_min THEN
                blocking := r.minute_start + 60;
            END IF;
            IF r.day_count >= per_day THEN
                blocking := greatest(coalesce(blocking, 0), r.day_start + 86400);
            END IF;
            IF blocking IS NOT NULL THEN
                r.while_limited := r.while_limited + 1;
                IF r.while_limited > p_ban_after THEN
                    r.banned_until := now_ + p_ban_seconds;
                    verdict := 2;
                    retry_after := p_ban_seconds;
                ELSE
                    verdict := 1;
                    retry_after := greatest(blocking - now_, 1);
                END IF;
            ELSE
                r.while_limited := 0;
                r.minute_count := r.minute_count + 1;
                r.day_count := r.day_count + 1;
                verdict := 0;
                retry_after := 0;
            END IF;
        END IF;
        IF greatest(per_day - r.day_count, 0) < greatest(per_min - r.minute_count, 0) THEN
            limit_ := per_day;
            remaining := greatest(per_day - r.day_count, 0);
            reset := r.day_start + 86400;
        ELSE
            limit_ := per_min;
            remaining := greatest(per_min - r.minute_count, 0);
            reset := r.minute_start + 60;
        END IF;
        RETURN NEXT;
    END LOOP;
    UPDATE rate_limits SET
        minute_start = r.minute_start, minute_count = r.minute_count,
        day_start = r.day_start, day_count = r.day_count,
        while_limited = r.while_limited, banned_until = r.banned_until,
        version = nextval('rate_limit_versions')
    WHERE subject = p_subject
    RETURNING version INTO version_;
    verdict := NULL;
    retry_after := NULL;
    limit_ := NULL;
    remaining := NULL;
    reset := NULL;
    minute_start_ := r.minute_start;
    minute_count_ := r.minute_count;
    day_start_ := r.day_start;
    day_count_ := r.day_count;
    while_limited_ := r.while_limited;
    banned_until_ := r.banned_until;
    RETURN NEXT;
END
$$;

-- An instance of an earlier version, during a rolling upgrade, still calls
-- `rate_limit_round`: it now runs the same round with no row known, so its
-- writes take new versions too and never pass for a state another instance
-- cached.
CREATE OR REPLACE FUNCTION rate_limit_round(
    p_subject     TEXT,
    p_per_minute  BIGINT[],
    p_per_day     BIGINT[],
    p_now         BIGINT[],
    p_ban_after   BIGINT,
    p_ban_seconds BIGINT
) RETURNS TABLE (verdict INTEGER, retry_after BIGINT, limit_ BIGINT, remaining BIGINT, reset BIGINT)
LANGUAGE sql AS $$
    SELECT r.verdict, r.retry_after, r.limit_, r.remaining, r.reset
    FROM rate_limit_round_cached(p_subject, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
                                 p_per_minute, p_per_day, p_now, p_ban_after, p_ban_seconds) r
    WHERE r.verdict IS NOT NULL
$$;
