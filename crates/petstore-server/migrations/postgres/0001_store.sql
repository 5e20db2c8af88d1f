-- The store on PostgreSQL: the same tables, columns and rules as
-- migrations/sqlite/0001_store.sql, in PostgreSQL's dialect. Flags stay
-- 0/1 integers so that one set of queries serves both databases.

CREATE TABLE categories (
    id          BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    name        TEXT   NOT NULL,
    description TEXT
);

CREATE TABLE pets (
    id          BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    name        TEXT   NOT NULL,
    category_id BIGINT NOT NULL REFERENCES categories (id),
    status      TEXT   NOT NULL CHECK (status IN ('available', 'pending', 'sold'))
);
CREATE INDEX pets_category ON pets (category_id);

CREATE TABLE inventory (
    pet_id   BIGINT  PRIMARY KEY REFERENCES pets (id) ON DELETE CASCADE,
    quantity INTEGER NOT NULL CHECK (quantity >= 0)
);

-- Orders outlive their pet's deletion (only complete orders can remain), so
-- pet_id is a plain column, not a foreign key.
CREATE TABLE orders (
    id        BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    pet_id    BIGINT  NOT NULL,
    quantity  INTEGER NOT NULL CHECK (quantity > 0),
    ship_date TEXT,
    complete  INTEGER NOT NULL DEFAULT 0 CHECK (complete IN (0, 1))
);
CREATE INDEX orders_pet ON orders (pet_id, complete);

-- API keys, stored only as SHA-256 hashes of the key.
CREATE TABLE api_keys (
    id         BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    hash       TEXT    NOT NULL UNIQUE,
    prefix     TEXT    NOT NULL,
    name       TEXT,
    plan       TEXT    NOT NULL CHECK (plan IN ('free', 'pro', 'business', 'enterprise')),
    per_minute INTEGER NOT NULL CHECK (per_minute > 0),
    per_day    INTEGER NOT NULL CHECK (per_day > 0),
    created_at TEXT    NOT NULL,
    revoked_at TEXT
);
