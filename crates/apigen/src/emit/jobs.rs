//! The jobs that build and render the files or their parts, run on all
//! available cores.

/// The jobs that build and render the files or their parts, run on all
/// available cores.
#[derive(Default)]
pub(super) struct Jobs<'a> {
    jobs: Vec<Box<dyn Fn() -> String + Sync + 'a>>,
}

impl<'a> Jobs<'a> {
    /// One job; its index among the results.
    pub(super) fn one(&mut self, job: impl Fn() -> String + Sync + 'a) -> usize {
        self.jobs.push(Box::new(job));
        self.jobs.len() - 1
    }

    /// A job for each part; the range of their results.
    pub(super) fn each<T: Sync + 'a>(
        &mut self,
        parts: &[&'a [T]],
        job: impl Fn(&'a [T]) -> String + Sync + Copy + 'a,
    ) -> std::ops::Range<usize> {
        let start = self.jobs.len();
        for &part in parts {
            self.jobs.push(Box::new(move || job(part)));
        }
        start..self.jobs.len()
    }

    pub(super) fn run(self) -> Done {
        Done(run_all(&self.jobs))
    }
}

/// The jobs' results, taken by index.
pub(super) struct Done(Vec<String>);

impl Done {
    pub(super) fn take(&mut self, index: usize) -> String {
        std::mem::take(&mut self.0[index])
    }

    pub(super) fn take_each(&mut self, range: std::ops::Range<usize>) -> Vec<String> {
        range.map(|i| self.take(i)).collect()
    }
}

/// Runs every job, in order, on all available cores.
pub(super) fn run_all(jobs: &[Box<dyn Fn() -> String + Sync + '_>]) -> Vec<String> {
    let threads = std::thread::available_parallelism()
        .map_or(1, |n| n.get())
        .min(jobs.len().max(1));
    let next = std::sync::atomic::AtomicUsize::new(0);
    let results: Vec<std::sync::Mutex<String>> = jobs.iter().map(|_| Default::default()).collect();
    std::thread::scope(|scope| {
        for _ in 0..threads {
            scope.spawn(|| loop {
                let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                let Some(job) = jobs.get(i) else { break };
                let text = job();
                *results[i]
                    .lock()
                    .unwrap_or_else(std::sync::PoisonError::into_inner) = text;
            });
        }
    });
    results
        .into_iter()
        .map(|r| {
            r.into_inner()
                .unwrap_or_else(std::sync::PoisonError::into_inner)
        })
        .collect()
}
