//! The rate limiter shared by instances on PostgreSQL, against the rule.

use petstore_server::keys::Limits;
use petstore_server::limiter::BanPolicy;

/// The shared limiter decides a round itself when it knows the subject's row
/// (its own last round wrote it) and in the database otherwise
/// (`rate_limit_round_cached`, the rule written in SQL so that a decision
/// is one statement); the in-memory limiter runs the rule itself. Two
/// instances on one database take the requests in turn at random, so both
/// ways run. Given the same requests, in rounds of one and of several, at
/// times that cross minute and day windows, into limits and bans and out
/// again, they decide as the in-memory limiter does, decision for decision.
#[actix_web::test]
async fn the_database_round_decides_as_the_rule_does() {
    use petstore_server::limiter::{RateLimiter, SharedLimiter, Subject};
    use petstore_server::store::Db;
    let url = crate::postgres::cluster().fresh_database().await;
    let db = Db::connect(&url).await.expect("database opens");
    let ban = BanPolicy {
        after: 3,
        seconds: 90,
    };
    let instances = [
        SharedLimiter::new(db.clone(), ban),
        SharedLimiter::new(db, ban),
    ];
    let local = RateLimiter::new(ban);
    // A small deterministic generator: the same sequence every run.
    let mut state: u64 = 0x2545_f491_4f6c_dd1d;
    let mut next = move |n: u64| {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state % n
    };
    let limits = [
        Limits {
            per_minute: 3,
            per_day: 10,
        },
        Limits {
            per_minute: 5,
            per_day: 7,
        },
        Limits {
            per_minute: 1_000,
            per_day: 1_000,
        },
    ];
    // Just before a UTC midnight, so that day windows roll too.
    let mut now: i64 = 1_795_564_800 - 300;
    let mut compared = 0;
    for step in 0..600 {
        // Mostly the same second, sometimes seconds, sometimes minutes on.
        now += match next(10) {
            0..=5 => 0,
            6..=8 => next(20) as i64,
            _ => 60 + next(600) as i64,
        };
        let subject = Subject::Key(1 + next(3) as i64);
        let limit = limits[next(3) as usize];
        // Several requests of one subject at once: one round in the database.
        let burst = 1 + next(4) as usize;
        let shared = &instances[next(2) as usize];
        let checks = (0..burst).map(|_| shared.check(subject, limit, now));
        let decided = futures_util::future::join_all(checks).await;
        for got in decided {
            let expected = local.check(subject, limit, now);
            assert_eq!(got.expect("a decision"), expected, "step {step} at {now}");
            compared += 1;
        }
    }
    assert!(compared > 1_000, "{compared} decisions compared");
    for (i, instance) in instances.iter().enumerate() {
        let (here, there) = instance.rounds();
        assert!(
            here > 50 && there > 50,
            "instance {i}: {here} rounds decided by itself, {there} by the database"
        );
    }
}
