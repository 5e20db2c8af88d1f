-- Rate-limit state shared by every instance on this database: one row per
-- subject (an API key id, `key:<id>`, or a client address, `ip:<address>`),
-- read and written under a row lock so that counts are exact however many
-- instances serve requests. SQLite deployments are single-process and keep
-- this state in memory instead.
CREATE TABLE rate_limits (
    subject       TEXT    PRIMARY KEY,
    minute_start  BIGINT  NOT NULL DEFAULT 0,
    minute_count  INTEGER NOT NULL DEFAULT 0,
    day_start     BIGINT  NOT NULL DEFAULT 0,
    day_count     INTEGER NOT NULL DEFAULT 0,
    while_limited INTEGER NOT NULL DEFAULT 0,
    banned_until  BIGINT
);
CREATE INDEX rate_limits_day ON rate_limits (day_start);
