-- The shared limiter's round (0005), cheaper, with the same rule:
--
-- One write of the subject's row instead of two: the row is locked with
-- `SELECT ... FOR UPDATE` and inserted only when it is missing, where the
-- upsert wrote a new version of it on every round before the update wrote
-- another.
--
-- Committed without waiting for the WAL flush (`synchronous_commit` off
-- for this transaction alone). Every subject's requests wait on its rounds
-- one after another, so a round's latency is the limiter's throughput, and
-- the flush was most of it. Other transactions see the round at once, as
-- before: counts and bans stay exact across instances. What it gives up:
-- if the database itself crashes, the rounds of its last moments (at most
-- three `wal_writer_delay`s, 600 ms by default) are lost, so a subject may
-- be allowed that many rounds' requests again, or a ban just earned
-- forgotten. Orders, keys and every other write still commit durably.
--
-- Measured with pgbench, one client, rounds of 12 decisions, and with the
-- server under load (BENCHMARKS.md).
CREATE OR REPLACE FUNCTION rate_limit_round(
    p_subject     TEXT,
    p_per_minute  BIGINT[],
    p_per_day     BIGINT[],
    p_now         BIGINT[],
    p_ban_after   BIGINT,
    p_ban_seconds BIGINT
) RETURNS TABLE (verdict INTEGER, retry_after BIGINT, limit_ BIGINT, remaining BIGINT, reset BIGINT)
LANGUAGE plpgsql AS $$
DECLARE
    r        rate_limits%ROWTYPE;
    now_     BIGINT;
    per_min  BIGINT;
    per_day  BIGINT;
    start_   BIGINT;
    blocking BIGINT;
BEGIN
    PERFORM set_config('synchronous_commit', 'off', true);
    SELECT * INTO r FROM rate_limits WHERE subject = p_subject FOR UPDATE;
    IF NOT FOUND THEN
        -- Another round may create it meanwhile: then this one waits for
        -- it, and locks what it wrote.
        INSERT INTO rate_limits (subject) VALUES (p_subject) ON CONFLICT (subject) DO NOTHING;
        SELECT * INTO r FROM rate_limits WHERE subject = p_subject FOR UPDATE;
    END IF;
    FOR i IN 1 .. coalesce(array_length(p_now, 1), 0) LOOP
        now_ := p_now[i];
        per_min := p_per_minute[i];
        per_day := p_per_day[i];
        -- Roll both windows to the ones holding now.
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
            -- The windows already full: the latest reset blocks longest.
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
        -- The window with the fewest requests left; the minute on a tie.
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
        while_limited = r.while_limited, banned_until = r.banned_until
    WHERE subject = p_subject;
END
$$;
