-- Placing an order in one statement (one round trip, autocommitted when the
-- request has no Idempotency-Key): locks the pet's row and its stock, and if
-- the pet is available with enough in stock, takes the quantity, makes the
-- pet sold when its stock reaches zero, inserts the order and records its
-- two events (order.placed, then inventory.changed), with the pet's stock
-- and status as this call leaves them. Before, the same work was a
-- transaction of six round trips (BEGIN, the locked read, the stock, the
-- order, the events, COMMIT).
--
-- The rule (src/store/orders.rs, `Db::place_order`) is written here a
-- second time, in SQL; SQLite runs it statement by statement. The function
-- answers what it saw, so the Rust side words a refusal and checks that
-- the two agree: `status` is NULL when there is no such pet, and
-- `order_id` is NULL when the order was refused.
CREATE FUNCTION place_order(
    p_pet_id     BIGINT,
    p_quantity   BIGINT,
    p_ship_date  TEXT,
    p_occurred   BIGINT,
    OUT status   TEXT,
    OUT stock    BIGINT,
    OUT order_id BIGINT
) LANGUAGE plpgsql AS $$
DECLARE
    left_   BIGINT;
    after_  TEXT;
BEGIN
    SELECT p.status, i.quantity INTO status, stock
        FROM pets p JOIN inventory i ON i.pet_id = p.id
        WHERE p.id = p_pet_id
        FOR UPDATE;
    IF NOT FOUND OR status <> 'available' OR stock < p_quantity THEN
        RETURN;
    END IF;
    -- The pet's rows are locked: what this call leaves is known here.
    left_ := stock - p_quantity;
    after_ := CASE WHEN left_ = 0 THEN 'sold' ELSE status END;
    UPDATE inventory SET quantity = left_ WHERE pet_id = p_pet_id;
    IF after_ <> status THEN
        UPDATE pets SET status = after_ WHERE id = p_pet_id;
    END IF;
    INSERT INTO orders (pet_id, quantity, ship_date, complete)
        VALUES (p_pet_id, p_quantity, p_ship_date, 0)
        RETURNING id INTO order_id;
    INSERT INTO events (kind, order_id, pet_id, quantity, stock, status, occurred_at)
        VALUES ('order.placed', order_id, p_pet_id, p_quantity, left_, after_, p_occurred),
               ('inventory.changed', NULL, p_pet_id, NULL, left_, after_, p_occurred);
END
$$;
