//! SQLite at run time: every statement runs in the thread that asks for it,
//! with no hop to a connection thread.
//!
//! - Reads use a read-only connection owned by the calling thread (one per
//!   actix worker), opened on first use. In WAL mode readers never wait for
//!   the writer; a point read from a warm page cache takes microseconds, so
//!   running it inline on the worker costs less than handing it off.
//! - Once nothing has been written for [`SNAPSHOT_AGE`], a read connection
//!   keeps its read transaction (its snapshot) open across requests, for at
//!   most that age again: starting and ending a read transaction takes the
//!   WAL's shared-memory locks (a mutex and two `fcntl` calls), which perf
//!   put at 13% of a `GET /v1/pets/{id}`. The writer counts its commits and
//!   bumps the count before it answers, so a read that follows an answered
//!   write always starts a fresh snapshot and sees it. While writes come in,
//!   reads end their transaction at once: snapshots held between reads then
//!   keep checkpoints from ever rewinding the WAL (measured: 240 MB of WAL
//!   after 20 s of mixed load, against 4 MB). [`release_snapshots`] ends the
//!   calling thread's snapshots older than that age; each worker calls it on
//!   a timer, so that an idle worker holds none for long.
//! - Writes go to one writer thread as closures. The thread takes the writes
//!   queued, and those that arrive while it works, runs each inside a
//!   savepoint of one transaction (a write refused by a rule rolls back only
//!   its own savepoint), commits once with `synchronous = FULL`, and only then
//!   answers them all: a group commit. An answered write is on disk, and one
//!   fsync serves the group.
//! - Nothing waits past the database timeout: connections wait that long at
//!   most for a lock another process holds (`busy_timeout`), a group waits
//!   for the file's write lock no longer than its oldest write may, and a
//!   write still queued when its time is up is answered 503 without running.
//!   A group that fails to commit (a full disk, a lock never granted) is
//!   rolled back whole, so its writes are answered 503: none happened.

use crate::error::ApiError;
use std::cell::RefCell;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{mpsc, Arc};
use std::time::{Duration, Instant};

type Result<T> = std::result::Result<T, ApiError>;

/// Writes committed together at most.
const MAX_GROUP: usize = 256;
/// WAL pages written between two automatic checkpoints (16 MB at the
/// default page size): the WAL stays about this large.
const CHECKPOINT_PAGES: u64 = 4_000;
/// How long a read connection may keep one snapshot while nothing changes.
pub const SNAPSHOT_AGE: Duration = Duration::from_millis(50);

/// A write as the writer thread runs it.
struct Job {
    /// When its caller stops waiting: a job not begun by then is not run.
    deadline: Instant,
    work: Work,
}

/// Does a write's work on the connection and returns whether to keep it,
/// and how to answer once the group's commit is known. Given no connection,
/// it does nothing and answers that the write waited too long.
type Work = Box<dyn FnOnce(Option<&mut rusqlite::Connection>) -> Done + Send>;

struct Done {
    keep: bool,
    answer: Answer,
}

/// Answers a job's caller, given how its group's commit went.
type Answer = Box<dyn FnOnce(std::result::Result<(), &rusqlite::Error>) + Send>;

#[derive(Debug)]
pub struct SqliteStore {
    /// Tells this store's read connections from other stores' in a thread.
    id: u64,
    path: PathBuf,
    jobs: mpsc::Sender<Job>,
    /// Transactions committed by the writer so far.
    commits: Arc<AtomicU64>,
    /// Writes sent to the writer and not yet taken up by it.
    queued: Arc<AtomicUsize>,
    /// The database timeout.
    timeout: Duration,
}

/// A thread's read connection to one store, and the snapshot it holds.
struct Reader {
    conn: rusqlite::Connection,
    /// The writer's commit count at this connection's last read, and when
    /// this connection first saw it. An open snapshot began at that count.
    seen: u64,
    changed: Instant,
    /// When the open read transaction began.
    snapshot: Option<Instant>,
}

impl Reader {
    /// Ends the open read transaction, if any.
    fn release(&mut self) {
        if self.snapshot.take().is_some() {
            // A read transaction has nothing to commit; this cannot fail in a
            // way that leaves it open, short of a closed connection.
            let _ = run(&self.conn, "COMMIT");
        }
    }
}

thread_local! {
    static READERS: RefCell<HashMap<u64, Reader>> = RefCell::new(HashMap::new());
}

/// The time as the readers read it: the monotonic clock, or in this
/// module's tests a hand that the test moves (so that an age is what the
/// test says, however busy the machine).
fn now() -> Instant {
    #[cfg(test)]
    if let Some(now) = tests_support::MANUAL_NOW.with(std::cell::Cell::get) {
        return now;
    }
    Instant::now()
}

/// How long ago `since` was, by [`now`].
fn age(since: Instant) -> Duration {
    now().saturating_duration_since(since)
}

/// Ends this thread's read snapshots that are older than [`SNAPSHOT_AGE`].
pub fn release_snapshots() {
    READERS.with(|readers| {
        for reader in readers.borrow_mut().values_mut() {
            if reader
                .snapshot
                .is_some_and(|since| age(since) >= SNAPSHOT_AGE)
            {
                reader.release();
            }
        }
    });
}

impl SqliteStore {
    /// Opens the (migrated) database file and starts its writer thread.
    /// Nothing waits on the database longer than `timeout`.
    pub fn open(path: &Path, timeout: Duration) -> Result<SqliteStore> {
        static NEXT_ID: AtomicU64 = AtomicU64::new(0);
        let mut writer = connect(path, rusqlite::OpenFlags::SQLITE_OPEN_READ_WRITE, timeout)?;
        // Checkpoints stay SQLite's automatic ones, run by the writer between
        // groups: one run from another thread cannot finish while writes keep
        // coming, and the WAL then grows without bound (measured: 1.2 GB in
        // 12 s of orders). They run every CHECKPOINT_PAGES rather than the
        // default 1 000: a page written by many groups in between (an index
        // leaf, the inventory) is copied back once per checkpoint.
        writer.execute_batch(&format!(
            "PRAGMA journal_mode = WAL; PRAGMA synchronous = FULL; PRAGMA foreign_keys = ON; \
             PRAGMA wal_autocheckpoint = {CHECKPOINT_PAGES};"
        ))?;
        let (jobs, queue) = mpsc::channel();
        let commits = Arc::new(AtomicU64::new(0));
        let queued = Arc::new(AtomicUsize::new(0));
        let (counted, taken) = (commits.clone(), queued.clone());
        std::thread::Builder::new()
            .name("sqlite-writer".into())
            .spawn(move || write_loop(&mut writer, &queue, &counted, &taken))
            .map_err(|e| ApiError::Internal(Box::new(e)))?;
        Ok(SqliteStore {
            id: NEXT_ID.fetch_add(1, Ordering::Relaxed),
            path: path.to_path_buf(),
            jobs,
            commits,
            queued,
            timeout,
        })
    }

    /// The database timeout.
    pub fn timeout(&self) -> Duration {
        self.timeout
    }

    /// Runs `op` on this thread's read connection, in a snapshot that holds
    /// every write answered so far.
    pub fn read<T>(&self, op: impl FnOnce(&mut rusqlite::Connection) -> Result<T>) -> Result<T> {
        READERS.with(|readers| {
            let mut readers = readers.borrow_mut();
            let reader = match readers.entry(self.id) {
                std::collections::hash_map::Entry::Occupied(e) => e.into_mut(),
                std::collections::hash_map::Entry::Vacant(e) => e.insert(Reader {
                    conn: connect(
                        &self.path,
                        rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY,
                        self.timeout,
                    )?,
                    seen: u64::MAX,
                    changed: now(),
                    snapshot: None,
                }),
            };
            // Read before the transaction begins: a commit in between only
            // makes the next read start afresh.
            let commits = self.commits.load(Ordering::Acquire);
            let moved = reader.seen != commits;
            if moved {
                reader.seen = commits;
                reader.changed = now();
            }
            if reader
                .snapshot
                .is_some_and(|since| moved || age(since) >= SNAPSHOT_AGE)
            {
                reader.release();
            }
            if reader.snapshot.is_none() {
                run(&reader.conn, "BEGIN")?;
                reader.snapshot = Some(now());
            }
            let result = op(&mut reader.conn);
            // Keep the snapshot only when writes have been quiet for a while:
            // held between reads while writes come in, snapshots keep
            // checkpoints from ever rewinding the WAL.
            if result.is_err() || age(reader.changed) < SNAPSHOT_AGE {
                reader.release();
            }
            result
        })
    }

    /// Runs `op` in the writer thread, inside the next group's transaction;
    /// resolves once that transaction is committed (or has failed). A write
    /// the writer could not begin within the timeout is answered 503
    /// without running.
    pub async fn write<T: Send + 'static>(
        &self,
        op: impl FnOnce(&mut rusqlite::Connection) -> Result<T> + Send + 'static,
    ) -> Result<T> {
        let (reply, answer) = tokio::sync::oneshot::channel();
        let timeout = self.timeout;
        let work = move |conn: Option<&mut rusqlite::Connection>| {
            let result = match conn {
                Some(conn) => op(conn),
                None => Err(ApiError::unavailable(format!(
                    "the write could not begin within {timeout:?}"
                ))),
            };
            Done {
                keep: result.is_ok(),
                answer: Box::new(move |committed| {
                    let _ = reply.send(match committed {
                        Ok(()) => result,
                        // A failed commit is rolled back: nothing happened.
                        Err(e) => Err(ApiError::sqlite(e, "commit failed")),
                    });
                }),
            }
        };
        let job = Job {
            deadline: Instant::now() + timeout,
            work: Box::new(work),
        };
        self.queued.fetch_add(1, Ordering::Relaxed);
        self.jobs.send(job).map_err(|_| stopped())?;
        answer.await.map_err(|_| stopped())?
    }

    /// Writes waiting for the writer thread.
    pub fn queued_writes(&self) -> usize {
        self.queued.load(Ordering::Relaxed)
    }
}

/// A connection used by one thread at a time (SQLite's own mutex is off),
/// that waits `timeout` at most for a lock.
fn connect(
    path: &Path,
    mode: rusqlite::OpenFlags,
    timeout: Duration,
) -> Result<rusqlite::Connection> {
    let conn = rusqlite::Connection::open_with_flags(
        path,
        mode | rusqlite::OpenFlags::SQLITE_OPEN_NO_MUTEX,
    )?;
    conn.busy_timeout(timeout)?;
    Ok(conn)
}

fn stopped() -> ApiError {
    ApiError::Internal("the SQLite writer did not answer".into())
}

/// The writer thread: group after group until every sender is gone. A group
/// runs the writes queued when it begins and those that arrive while it runs,
/// up to [`MAX_GROUP`]: a write that arrives mid-group commits with it rather
/// than waiting a whole group. A write whose deadline has passed is answered
/// at once, unrun. Each commit is counted before its writes are answered.
fn write_loop(
    conn: &mut rusqlite::Connection,
    queue: &mpsc::Receiver<Job>,
    commits: &AtomicU64,
    queued: &AtomicUsize,
) {
    let mut answers = Vec::new();
    while let Ok(first) = queue.recv() {
        let group = std::iter::once(first)
            .chain(std::iter::from_fn(|| queue.try_recv().ok()))
            .inspect(|_| {
                queued.fetch_sub(1, Ordering::Relaxed);
            })
            .filter_map(|job| {
                if job.deadline > Instant::now() {
                    return Some(job);
                }
                ((job.work)(None).answer)(Ok(()));
                None
            });
        let outcome = run_group(conn, group.take(MAX_GROUP), &mut answers);
        if outcome.is_err() {
            let _ = conn.execute_batch("ROLLBACK");
        } else {
            commits.fetch_add(1, Ordering::Release);
        }
        for answer in answers.drain(..) {
            answer(outcome.as_ref().map(|_| ()));
        }
    }
}

/// Runs one of the writer's own statements (begin, savepoints, commit),
/// prepared once.
fn run(conn: &rusqlite::Connection, sql: &str) -> rusqlite::Result<()> {
    conn.prepare_cached(sql)?.execute([]).map(|_| ())
}

/// Runs a group in one transaction, each job in its own savepoint, and
/// commits. Collects each job's answer; a job that panicked has none (its
/// caller sees the writer's reply channel closed, a 500). The file's write
/// lock is waited for no longer than the oldest job may wait; not granted,
/// that job is answered with the failure and the others stay queued.
fn run_group(
    conn: &mut rusqlite::Connection,
    group: impl Iterator<Item = Job>,
    answers: &mut Vec<Answer>,
) -> rusqlite::Result<()> {
    let mut group = group.peekable();
    let Some(oldest) = group.peek() else {
        return Ok(());
    };
    conn.busy_timeout(oldest.deadline.saturating_duration_since(Instant::now()))?;
    if let Err(e) = run(conn, "BEGIN IMMEDIATE") {
        if let Some(job) = group.next() {
            answers.push((job.work)(None).answer);
        }
        return Err(e);
    }
    for job in group {
        run(conn, "SAVEPOINT job")?;
        let done = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            (job.work)(Some(&mut *conn))
        }));
        let keep = matches!(done, Ok(Done { keep: true, .. }));
        if !keep {
            run(conn, "ROLLBACK TO job")?;
        }
        run(conn, "RELEASE job")?;
        if let Ok(done) = done {
            answers.push(done.answer);
        }
    }
    run(conn, "COMMIT")
}

#[cfg(test)]
mod tests_support {
    use super::*;

    thread_local! {
        /// This thread's readers' time, when a test holds it.
        pub static MANUAL_NOW: std::cell::Cell<Option<Instant>> =
            const { std::cell::Cell::new(None) };
    }

    /// Holds this thread's readers' time where it is; it moves only by
    /// [`advance`].
    pub fn hold_the_clock() {
        MANUAL_NOW.with(|now| now.set(Some(Instant::now())));
    }

    /// Moves this thread's held time on by `by`.
    pub fn advance(by: Duration) {
        MANUAL_NOW.with(|now| now.set(now.get().map(|t| t + by)));
    }

    pub fn store() -> (tempfile::TempDir, SqliteStore) {
        store_with(Duration::from_secs(2))
    }

    pub fn store_with(timeout: Duration) -> (tempfile::TempDir, SqliteStore) {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("t.db");
        let conn = rusqlite::Connection::open(&path).unwrap();
        conn.execute_batch("PRAGMA journal_mode = WAL; CREATE TABLE t (n INTEGER NOT NULL)")
            .unwrap();
        (dir, SqliteStore::open(&path, timeout).unwrap())
    }

    /// A runtime to await the writer's answers on.
    pub fn runtime() -> tokio::runtime::Runtime {
        tokio::runtime::Builder::new_current_thread()
            .build()
            .unwrap()
    }

    pub fn count(store: &SqliteStore) -> i64 {
        store
            .read(|c| Ok(c.query_row("SELECT count(*) FROM t", [], |r| r.get(0))?))
            .unwrap()
    }
}

#[cfg(test)]
mod tests {
    use super::tests_support::*;
    use super::*;

    #[test]
    fn a_refused_or_panicking_write_undoes_only_itself() {
        let (_dir, store) = store();
        let runtime = runtime();
        let outcomes = runtime.block_on(futures_util::future::join_all((0..60).map(|n| {
            store.write(move |c| {
                c.execute("INSERT INTO t (n) VALUES (?1)", [n])?;
                match n % 3 {
                    0 => Ok(n),
                    _ if n % 20 == 2 => panic!("job {n} panics after writing (expected)"),
                    _ => Err(ApiError::conflict("refused", "refused after writing")),
                }
            })
        })));
        // Sent before the first was taken: most share one group's commit.
        for (n, outcome) in outcomes.iter().enumerate() {
            match n % 3 {
                0 => assert_eq!(outcome.as_ref().ok(), Some(&(n as i64))),
                _ => assert!(outcome.is_err()),
            }
        }
        assert_eq!(count(&store), 20, "only the kept writes are there");
        // The writer survived the panics.
        runtime
            .block_on(store.write(|c| Ok(c.execute("INSERT INTO t (n) VALUES (0)", [])?)))
            .unwrap();
        assert_eq!(count(&store), 21);
    }

    #[test]
    fn the_wal_stays_bounded_under_sustained_writes() {
        let (dir, store) = store();
        let runtime = runtime();
        // Commits of 8 rows of one 4 KiB page each, four checkpoints' worth
        // of pages in all: the WAL would hold them all unless checkpoints
        // copy them back and let it rewind.
        const ROWS: u64 = 8;
        let commits = 4 * CHECKPOINT_PAGES / ROWS;
        runtime.block_on(async {
            for _ in 0..commits {
                store
                    .write(|c| {
                        for _ in 0..ROWS {
                            c.execute("INSERT INTO t (n) VALUES (zeroblob(4000))", [])?;
                        }
                        Ok(())
                    })
                    .await
                    .unwrap();
            }
        });
        let wal = std::fs::metadata(dir.path().join("t.db-wal"))
            .unwrap()
            .len();
        // A checkpoint's worth of frames (page and frame header each), plus
        // the commit that crossed the mark.
        let bound = (CHECKPOINT_PAGES + 2 * ROWS) * (4096 + 24);
        assert!(wal <= bound, "the WAL is {wal} bytes, more than {bound}");
        assert_eq!(u64::try_from(count(&store)).unwrap(), commits * ROWS);
    }

    fn holds_snapshot(store: &SqliteStore) -> bool {
        READERS.with(|r| {
            r.borrow()
                .get(&store.id)
                .is_some_and(|r| r.snapshot.is_some())
        })
    }

    #[test]
    fn snapshots_last_while_nothing_is_written_and_not_longer_than_their_age() {
        let (_dir, store) = store();
        let runtime = runtime();
        hold_the_clock();
        assert_eq!(count(&store), 0);
        assert!(
            !holds_snapshot(&store),
            "the commit count is news: none kept"
        );
        advance(SNAPSHOT_AGE);
        assert_eq!(count(&store), 0);
        assert!(holds_snapshot(&store), "quiet for a while: kept");
        // A write answered after the snapshot began: the next read sees it,
        // and keeps no snapshot while writes are recent.
        runtime
            .block_on(store.write(|c| Ok(c.execute("INSERT INTO t (n) VALUES (1)", [])?)))
            .unwrap();
        assert_eq!(count(&store), 1);
        assert!(!holds_snapshot(&store));
        advance(SNAPSHOT_AGE - Duration::from_millis(1));
        assert_eq!(count(&store), 1);
        assert!(!holds_snapshot(&store), "writes still recent");
        advance(Duration::from_millis(1));
        assert_eq!(count(&store), 1);
        assert!(holds_snapshot(&store), "quiet again");
        // Young snapshots survive a release; old ones do not.
        advance(SNAPSHOT_AGE / 2);
        release_snapshots();
        assert!(holds_snapshot(&store));
        advance(SNAPSHOT_AGE / 2);
        release_snapshots();
        assert!(!holds_snapshot(&store));
        assert_eq!(count(&store), 1);
    }

    #[test]
    fn reads_see_committed_writes_from_any_thread() {
        let (_dir, store) = store();
        let store = std::sync::Arc::new(store);
        let runtime = runtime();
        runtime
            .block_on(store.write(|c| Ok(c.execute("INSERT INTO t (n) VALUES (1)", [])?)))
            .unwrap();
        let other = store.clone();
        let seen = std::thread::spawn(move || count(&other)).join().unwrap();
        assert_eq!((count(&store), seen), (1, 1));
    }
}

#[cfg(test)]
mod timeouts {
    use super::tests_support::*;
    use super::*;

    const TIMEOUT: Duration = Duration::from_millis(300);

    /// Another connection (another process, as far as SQLite can tell)
    /// holding the file's write lock until dropped. Readers of a WAL
    /// database do not wait for it.
    fn hold_write_lock(dir: &Path) -> rusqlite::Connection {
        let other = rusqlite::Connection::open(dir.join("t.db")).unwrap();
        other
            .execute_batch("BEGIN IMMEDIATE; INSERT INTO t (n) VALUES (9)")
            .unwrap();
        other
    }

    #[test]
    fn a_locked_file_answers_503_within_the_timeout_and_nothing_is_written() {
        let (dir, store) = store_with(TIMEOUT);
        let runtime = runtime();
        let other = hold_write_lock(dir.path());
        assert_eq!(count(&store), 0, "reads go on");
        let started = Instant::now();
        let outcomes =
            runtime.block_on(futures_util::future::join_all((0..20).map(|n| {
                store.write(move |c| Ok(c.execute("INSERT INTO t (n) VALUES (?1)", [n])?))
            })));
        let waited = started.elapsed();
        for outcome in &outcomes {
            assert!(
                matches!(outcome, Err(ApiError::Unavailable { cause: Some(_), .. })),
                "{outcome:?}"
            );
        }
        // Each write waited its own timeout at most, not one per write
        // queued before it (which would be 20 timeouts): ten timeouts is
        // ten times what they take, and half of what one after another
        // would.
        assert!(waited < 10 * TIMEOUT, "20 writes took {waited:?}");
        drop(other);
        assert_eq!(
            count(&store),
            0,
            "the other connection rolled back, and none of ours ran"
        );
        runtime
            .block_on(store.write(|c| Ok(c.execute("INSERT INTO t (n) VALUES (1)", [])?)))
            .expect("the lock released, writes go on");
        assert_eq!(count(&store), 1);
    }

    #[test]
    fn a_write_queued_past_its_deadline_is_answered_without_running() {
        let (_dir, store) = store_with(TIMEOUT);
        let runtime = runtime();
        let (first, second) = runtime.block_on(async {
            // The first write keeps the writer busy past the second's deadline.
            let slow = store.write(|c| {
                std::thread::sleep(TIMEOUT + Duration::from_millis(100));
                Ok(c.execute("INSERT INTO t (n) VALUES (1)", [])?)
            });
            let late = store.write(|c| Ok(c.execute("INSERT INTO t (n) VALUES (2)", [])?));
            futures_util::future::join(slow, late).await
        });
        assert_eq!(first.unwrap(), 1);
        assert!(
            matches!(second, Err(ApiError::Unavailable { cause: Some(_), .. })),
            "{second:?}"
        );
        assert_eq!(count(&store), 1, "the late write never ran");
    }
}
