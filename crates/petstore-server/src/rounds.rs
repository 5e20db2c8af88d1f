//! Requests answered in rounds, so that a busy key costs one statement per
//! round rather than one per request: while a key's rounds are in flight,
//! the requests that arrive for it wait, and the next round takes them
//! all, in arrival order. A lone request goes alone, at once.
//!
//! Used for the shared limiter's decisions (a key per subject), and on
//! PostgreSQL for single-pet reads and for orders without an idempotency
//! key (one key each). One round per key is in
//! flight at a time: two at once, tried for pet reads, made smaller rounds
//! and served 10-20% fewer requests under load.
//!
//! Each request is answered by a round that started after it arrived, so
//! nothing is answered from before it was asked. A task spawned by the
//! request that found no round in flight drives the rounds, so a client
//! that goes away strands no one; a task that ends before its key's queue
//! is empty (the runtime stopping, a panic) answers the queue with an
//! error rather than leave it waiting.

use crate::error::ApiError;
use crate::lock;
use std::collections::HashMap;
use std::hash::Hash;
use std::sync::{Arc, Mutex};
use tokio::sync::oneshot;

/// The rounds of every key.
#[derive(Debug)]
pub(crate) struct Rounds<K, Q, A> {
    /// Per key with a round in flight, the requests for its next round.
    keys: Mutex<HashMap<K, Queue<Q, A>>>,
}

type Queue<Q, A> = Vec<(Q, Reply<A>)>;

type Reply<A> = oneshot::Sender<Result<A, ApiError>>;

impl<K, Q, A> Rounds<K, Q, A>
where
    K: Hash + Eq + Clone + 'static,
    Q: 'static,
    A: 'static,
{
    pub(crate) fn new() -> Arc<Self> {
        Arc::new(Rounds {
            keys: Mutex::new(HashMap::new()),
        })
    }

    /// `request`, answered by the next round of `key`. `run` takes a round's
    /// requests in arrival order and answers each, in the same order; its
    /// error answers the whole round, and when it says the database is away,
    /// the requests queued meanwhile too, at once, rather than each waiting
    /// out a round of its own (as unavailable: they were never sent, so a
    /// round's indeterminate outcome is not theirs). Runs on a worker's runtime (a tokio `LocalSet`: actix-web's,
    /// or the axum workers'), where the rounds' task is spawned.
    pub(crate) async fn ask<R>(self: &Arc<Self>, key: K, request: Q, run: R) -> Result<A, ApiError>
    where
        R: AsyncFn(&K, Vec<Q>) -> Result<Vec<A>, ApiError> + 'static,
    {
        let (reply, answer) = oneshot::channel();
        let lead = {
            let mut keys = lock(&self.keys);
            match keys.get_mut(&key) {
                Some(queue) => {
                    queue.push((request, reply));
                    false
                }
                None => {
                    keys.insert(key.clone(), vec![(request, reply)]);
                    true
                }
            }
        };
        if lead {
            let rounds = self.clone();
            tokio::task::spawn_local(async move { rounds.lead(key, run).await });
        }
        answer
            .await
            .unwrap_or_else(|_| Err(ApiError::Internal("the rounds stopped".into())))
    }

    /// Runs `key`'s rounds until no request waits.
    async fn lead<R>(self: Arc<Self>, key: K, run: R)
    where
        R: AsyncFn(&K, Vec<Q>) -> Result<Vec<A>, ApiError>,
    {
        let mut leading = Leading {
            rounds: &self,
            key: &key,
            done: false,
        };
        loop {
            let batch = {
                let mut keys = lock(&self.keys);
                match keys.get_mut(&key) {
                    Some(queue) if !queue.is_empty() => std::mem::take(queue),
                    _ => {
                        // Under the lock: a request that comes after finds
                        // no round in flight and leads.
                        keys.remove(&key);
                        leading.done = true;
                        return;
                    }
                }
            };
            let (requests, replies): (Vec<Q>, Vec<Reply<A>>) = batch.into_iter().unzip();
            let asked = replies.len();
            let answered = run(&key, requests).await.and_then(|answers| {
                if answers.len() == asked {
                    Ok(answers)
                } else {
                    Err(ApiError::Internal(
                        format!("a round answered {} of {asked} requests", answers.len()).into(),
                    ))
                }
            });
            match answered {
                Ok(answers) => {
                    for (reply, answer) in replies.into_iter().zip(answers) {
                        let _ = reply.send(Ok(answer));
                    }
                }
                Err(e) => {
                    for reply in replies {
                        let _ = reply.send(Err(e.relay()));
                    }
                    if e.database_away() {
                        // Never sent: whatever became of the round, these
                        // did not happen.
                        let unsent = match &e {
                            ApiError::Indeterminate(cause) => {
                                ApiError::unavailable(cause.to_string())
                            }
                            other => other.relay(),
                        };
                        let queued = lock(&self.keys)
                            .get_mut(&key)
                            .map(std::mem::take)
                            .unwrap_or_default();
                        for (_, reply) in queued {
                            let _ = reply.send(Err(unsent.relay()));
                        }
                    }
                }
            }
        }
    }
}

/// The task running a key's rounds. Dropped before it was done (the
/// runtime stopping with the task, a panic), it removes the key's queue,
/// which answers its requests with an error (their senders dropped), and
/// the next request leads a new round, rather than all waiting on a task
/// that is gone.
struct Leading<'a, K: Hash + Eq, Q, A> {
    rounds: &'a Rounds<K, Q, A>,
    key: &'a K,
    /// The rounds ended with no request left, and the key is removed.
    done: bool,
}

impl<K: Hash + Eq, Q, A> Drop for Leading<'_, K, Q, A> {
    fn drop(&mut self) {
        if !self.done {
            lock(&self.rounds.keys).remove(self.key);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_task_that_ends_early_leaves_no_one_waiting_on_it() {
        use oneshot::error::TryRecvError;
        let rounds = Rounds::<u8, u8, u8>::new();
        let queued = |key| {
            let (reply, answer) = oneshot::channel();
            lock(&rounds.keys).insert(key, vec![(1, reply)]);
            answer
        };
        let end = |done| {
            drop(Leading {
                rounds: &*rounds,
                key: &0,
                done,
            })
        };
        // Its queue is answered (the senders dropped: an error), and the
        // next request will lead a round of its own.
        let mut answer = queued(0);
        end(false);
        assert!(matches!(answer.try_recv(), Err(TryRecvError::Closed)));
        assert!(lock(&rounds.keys).is_empty());
        // A task that was done leaves a new task's queue be.
        let mut answer = queued(0);
        end(true);
        assert!(matches!(answer.try_recv(), Err(TryRecvError::Empty)));
        assert_eq!(lock(&rounds.keys).len(), 1);
    }

    #[actix_web::test]
    async fn requests_that_arrive_during_a_round_share_the_next() {
        use std::cell::RefCell;
        use std::rc::Rc;
        let rounds = Rounds::<u8, u32, u32>::new();
        let sizes = Rc::new(RefCell::new(Vec::new()));
        // The first round waits on `gate` until the others have queued.
        let gate = Rc::new(tokio::sync::Notify::new());
        let run = {
            let (sizes, gate) = (sizes.clone(), gate.clone());
            async move |_: &u8, requests: Vec<u32>| {
                sizes.borrow_mut().push(requests.len());
                if sizes.borrow().len() == 1 {
                    gate.notified().await;
                }
                Ok(requests.into_iter().map(|n| n * 10).collect())
            }
        };
        let ask = |n| {
            let (rounds, run) = (rounds.clone(), run.clone());
            tokio::task::spawn_local(async move { rounds.ask(0, n, run).await.unwrap() })
        };
        let first = ask(0);
        while sizes.borrow().is_empty() {
            tokio::task::yield_now().await;
        }
        let rest: Vec<_> = (1..5).map(ask).collect();
        for _ in 0..10 {
            tokio::task::yield_now().await;
        }
        gate.notify_one();
        let mut answers = vec![first.await.unwrap()];
        for task in rest {
            answers.push(task.await.unwrap());
        }
        assert_eq!(answers, [0, 10, 20, 30, 40], "each its own answer");
        // The first alone, the four that came while it ran together.
        assert_eq!(*sizes.borrow(), [1, 4]);
        assert!(lock(&rounds.keys).is_empty(), "nothing left behind");
    }

    #[actix_web::test]
    async fn the_database_away_answers_the_queue_at_once() {
        use std::cell::Cell;
        use std::rc::Rc;
        let rounds = Rounds::<u8, u32, u32>::new();
        let ran = Rc::new(Cell::new(0));
        let run = {
            let ran = ran.clone();
            async move |_: &u8, _: Vec<u32>| -> Result<Vec<u32>, ApiError> {
                ran.set(ran.get() + 1);
                tokio::task::yield_now().await;
                Err(ApiError::unavailable("down"))
            }
        };
        let asked = (0..3).map(|n| {
            let rounds = rounds.clone();
            let run = run.clone();
            async move { rounds.ask(0, n, run).await }
        });
        for answer in futures_util::future::join_all(asked).await {
            assert!(answer.unwrap_err().database_away());
        }
        // The first round's error answered the two queued behind it.
        assert_eq!(ran.get(), 1);
        assert!(lock(&rounds.keys).is_empty());
    }

    #[actix_web::test]
    async fn only_the_sent_round_is_indeterminate() {
        use std::cell::Cell;
        use std::rc::Rc;
        let rounds = Rounds::<u8, u32, u32>::new();
        let sent = Rc::new(Cell::new(0));
        let run = {
            let sent = sent.clone();
            async move |_: &u8, requests: Vec<u32>| -> Result<Vec<u32>, ApiError> {
                sent.set(sent.get() + requests.len());
                for _ in 0..10 {
                    tokio::task::yield_now().await;
                }
                Err(ApiError::Indeterminate("connection lost at commit".into()))
            }
        };
        let ask = |n| {
            let (rounds, run) = (rounds.clone(), run.clone());
            tokio::task::spawn_local(async move { rounds.ask(0, n, run).await })
        };
        let first = ask(0);
        while sent.get() == 0 {
            tokio::task::yield_now().await;
        }
        let queued: Vec<_> = (1..3).map(ask).collect();
        // The first was sent and may have happened; the two queued behind
        // it were never sent: unavailable, nothing done.
        let answer = first.await.unwrap();
        assert!(
            matches!(answer, Err(ApiError::Indeterminate(_))),
            "{answer:?}"
        );
        for task in queued {
            let answer = task.await.unwrap();
            assert!(
                matches!(answer, Err(ApiError::Unavailable { .. })),
                "{answer:?}"
            );
        }
        assert_eq!(sent.get(), 1, "one round, of the first alone");
    }
}
