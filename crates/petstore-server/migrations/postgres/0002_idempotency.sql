-- Idempotent retries: the first successful response to a POST sent with an
-- `Idempotency-Key`, per API key, kept 24 hours. Written in the same
-- transaction as the work it records, so a retry never repeats the work.
CREATE TABLE idempotency (
    key_id       BIGINT NOT NULL,
    idem_key     TEXT   NOT NULL,
    request_hash TEXT   NOT NULL,
    response     TEXT   NOT NULL,
    created_at   BIGINT NOT NULL,
    PRIMARY KEY (key_id, idem_key)
);
CREATE INDEX idempotency_age ON idempotency (created_at);
