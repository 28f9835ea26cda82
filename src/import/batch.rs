//! Sessions are independent: they are imported on every core. This room owns the work
//! queue (a shared counter over the sessions, results kept in their order) and nothing of
//! what is done to each.

use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};

/// `work` on every item, on `jobs` threads (0: one per core); `progress(done, total)` after
/// each. The results are in the items' order.
pub(crate) fn parallel<T: Sync, R: Send>(
    items: &[T],
    jobs: usize,
    progress: &(dyn Fn(usize, usize) + Sync),
    work: impl Fn(&T) -> R + Sync,
) -> Vec<R> {
    let total = items.len();
    let jobs = match jobs {
        0 => std::thread::available_parallelism().map_or(1, |n| n.get()),
        n => n,
    }
    .min(total.max(1));
    let next = AtomicUsize::new(0);
    let done = AtomicUsize::new(0);
    let results: Mutex<Vec<Option<R>>> = Mutex::new((0..total).map(|_| None).collect());
    std::thread::scope(|scope| {
        for _ in 0..jobs {
            scope.spawn(|| {
                loop {
                    let at = next.fetch_add(1, Ordering::Relaxed);
                    let Some(item) = items.get(at) else { break };
                    let result = work(item);
                    results.lock().expect("results lock")[at] = Some(result);
                    progress(done.fetch_add(1, Ordering::Relaxed) + 1, total);
                }
            });
        }
    });
    results
        .into_inner()
        .expect("results lock")
        .into_iter()
        .flatten()
        .collect()
}
