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
    p_occurred   BIGINT
) RETURNS TABLE (status TEXT, stock BIGINT, order_id BIGINT)
LANGUAGE plpgsql AS $$
DECLARE
    status_ TEXT;
    stock_  BIGINT;
    id_     BIGINT;
BEGIN
    SELECT p.status, i.quantity INTO status_, stock_
        FROM pets p JOIN inventory i ON i.pet_id = p.id
        WHERE p.id = p_pet_id
        FOR UPDATE;
    IF NOT FOUND OR status_ <> 'available' OR stock_ < p_quantity THEN
        RETURN QUERY SELECT status_, stock_, NULL::BIGINT;
        RETURN;
    END IF;
    UPDATE inventory SET quantity = quantity - p_quantity WHERE pet_id = p_pet_id;
    IF stock_ = p_quantity THEN
        UPDATE pets SET status = 'sold' WHERE id = p_pet_id;
    END IF;
    INSERT INTO orders (pet_id, quantity, ship_date, complete)
        VALUES (p_pet_id, p_quantity, p_ship_date, 0)
        RETURNING id INTO id_;
    INSERT INTO events (kind, order_id, pet_id, quantity, stock, status, occurred_at)
        SELECT k.kind, k.order_id, p.id, k.quantity, i.quantity, p.status, p_occurred
        FROM (VALUES (0, 'order.placed', id_, p_quantity),
                     (1, 'inventory.changed', NULL::BIGINT, NULL::BIGINT))
             AS k (n, kind, order_id, quantity)
        JOIN pets p ON p.id = p_pet_id JOIN inventory i ON i.pet_id = p.id
        ORDER BY k.n;
    RETURN QUERY SELECT status_, stock_, id_;
END
$$;
