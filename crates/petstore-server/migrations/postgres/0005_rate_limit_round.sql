-- One round of the shared rate limiter in one statement (one round trip):
-- locks the subject's row (creating it if needed), decides each request in
-- order by the rule of src/limiter/rule.rs, writes the row back, and returns
-- one decision per request. The rule is written here a second time, in SQL,
-- so that a decision costs no transaction of several statements; a test
-- (`tests/api/limits.rs`, `the_database_round_decides_as_the_rule_does`) holds
-- the two to the same decisions on random sequences.
--
-- Verdicts: 0 allowed, 1 limited, 2 banned. `limit_`, `remaining` and
-- `reset` describe the window with the fewest requests left (the minute on
-- a tie), as the X-RateLimit-* headers report it.
CREATE FUNCTION rate_limit_round(
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
    INSERT INTO rate_limits AS t (subject) VALUES (p_subject)
        ON CONFLICT (subject) DO UPDATE SET subject = excluded.subject
        RETURNING t.* INTO r;
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
