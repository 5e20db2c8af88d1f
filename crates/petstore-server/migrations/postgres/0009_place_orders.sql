-- Orders placed in rounds: one statement, and one commit, for every order
-- an instance received while its previous round was in flight
-- (src/store/orders.rs, `OrderRounds`). Each order is placed by
-- `place_order` (0007), in the order the requests arrived, and answered as
-- that function answers it; a refused order changes nothing and does not
-- stop the others.
--
-- Every pet of the round is locked first, in id order: two rounds (of two
-- instances) that share pets wait for one another in the same order and
-- never deadlock; writes of a single pet lock one pet and cannot close a
-- cycle with them.
CREATE FUNCTION place_orders(
    p_pet_ids    BIGINT[],
    p_quantities BIGINT[],
    p_ship_dates TEXT[],
    p_occurred   BIGINT[]
) RETURNS TABLE (status TEXT, stock BIGINT, order_id BIGINT)
LANGUAGE plpgsql AS $$
BEGIN
    PERFORM 1 FROM pets p JOIN inventory i ON i.pet_id = p.id
        WHERE p.id = ANY(p_pet_ids)
        ORDER BY p.id
        FOR UPDATE;
    FOR n IN 1 .. coalesce(array_length(p_pet_ids, 1), 0) LOOP
        RETURN QUERY SELECT o.status, o.stock, o.order_id
            FROM place_order(p_pet_ids[n], p_quantities[n], p_ship_dates[n], p_occurred[n]) o;
    END LOOP;
END
$$;
