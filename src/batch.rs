//! The one scheduler of batches: work over many inputs on every core, while what comes out
//! comes out exactly as one worker would give it. The command line (`normalize`, `stats`,
//! `export`), the importers ([`import`](crate::import): every store's sessions) and the
//! exporters (OTLP's trees, Parquet's surveys and runs) run on it, and so does the Python
//! package through them.
//!
//! Workers take the next input from a shared index; each input's messages (problems,
//! notices, its result; a Parquet run's chunks of rows) go through a bounded queue of its
//! own (1,024 messages, or the caller's bound: [`in_order_waiting`]), and the calling
//! thread receives the inputs' messages in the inputs' order, one input after another. A
//! worker waits once its input's queue is full, and does not start an input more than a
//! few per worker (`AHEAD`) past the one being received, so memory is bounded by the
//! workers, not by the number of inputs or of their messages. It owns the scheduling only:
//! what a worker does and what is done with a message are its caller's. It imports nothing
//! of the crate, so that every layer may use it.

// The allocator's options were measured for the batches' 2v1 ratio and found no better:
// jemalloc's background_thread, dirty/muzzy decay off (-1), one arena, per-CPU arenas
// (`_RJEM_MALLOC_CONF` on main's binary; parquet, stats over 16,000 files and normalize
// rows, 7-15 alternated rounds each under `chrt -f 1`): ratios within the rounds' noise
// (+-0.1x), background_thread's lower two-worker CPU (1.03x against 1.07-1.09x of one
// worker's) not seen again in an 11-round run.

use std::collections::{HashMap, VecDeque};
use std::num::NonZeroUsize;
use std::sync::{Arc, Condvar, Mutex, PoisonError, mpsc};

/// How many messages of one input may wait for the printing thread.
const WAITING: usize = 1024;

/// How many inputs per worker may be started past the one being printed: enough that a
/// worker rarely waits for the printing of a slow input, few enough that what finished
/// inputs wait with stays small.
const AHEAD: usize = 4;

/// The index of the input being printed, for workers to wait on.
struct Printing {
    index: Mutex<usize>,
    moved: Condvar,
}

impl Printing {
    /// Waits until input `index` may start: at most `ahead` past the one being printed.
    fn wait_for(&self, index: usize, ahead: usize) {
        let mut printing = self.index.lock().unwrap_or_else(PoisonError::into_inner);
        while index >= *printing + ahead {
            printing = (self.moved.wait(printing)).unwrap_or_else(PoisonError::into_inner);
        }
    }

    fn set(&self, index: usize) {
        *self.index.lock().unwrap_or_else(PoisonError::into_inner) = index;
        self.moved.notify_all();
    }
}

/// The number of workers for `jobs` (0: one per core) and `inputs` inputs: at least one,
/// never more than there are inputs.
pub fn workers(jobs: usize, inputs: usize) -> usize {
    let jobs = match jobs {
        0 => std::thread::available_parallelism().map_or(1, NonZeroUsize::get),
        n => n,
    };
    jobs.min(inputs).max(1)
}

/// Runs `work` on each of `inputs` (with its index) on `workers` threads; `work` sends its
/// messages through the function it is given, and `print` receives every message, in the
/// inputs' order (all of input 0's, then input 1's, ...), each with its input's index, on
/// the calling thread. With one worker, the inputs are worked on the calling thread, one
/// after another, each message handed over as it is sent.
pub fn in_order<I, M>(
    inputs: &[I],
    workers: usize,
    work: impl Fn(usize, &I, &mut dyn FnMut(M)) + Sync,
    print: impl FnMut(usize, M),
) where
    I: Sync,
    M: Send,
{
    in_order_waiting(inputs, workers, WAITING, work, print);
}

/// [`in_order`] with at most `waiting` (at least one) messages of one input waiting for the
/// printing thread, for messages too large for 1,024 of them to wait per input (a
/// Parquet export's chunks of rows).
pub fn in_order_waiting<I, M>(
    inputs: &[I],
    workers: usize,
    waiting: usize,
    work: impl Fn(usize, &I, &mut dyn FnMut(M)) + Sync,
    print: impl FnMut(usize, M),
) where
    I: Sync,
    M: Send,
{
    run(inputs.iter(), workers, waiting, work, print);
}

/// [`in_order`] over inputs that `source` makes as they are needed: a worker free for an
/// input takes the next one from `source` (one worker at a time, under a lock, so the
/// inputs are numbered in the order `source` gives them), and works on it. Nothing is
/// made ahead of the workers, so that a batch whose inputs are found as it goes (a
/// directory walked file by file) holds no list of them: memory is bounded by the
/// workers, not by the number of inputs.
pub fn in_order_from<I, M>(
    source: impl Iterator<Item = I> + Send,
    workers: usize,
    work: impl Fn(usize, I, &mut dyn FnMut(M)) + Sync,
    print: impl FnMut(usize, M),
) where
    I: Send,
    M: Send,
{
    run(source, workers, WAITING, work, print);
}

fn run<I, M>(
    source: impl Iterator<Item = I> + Send,
    workers: usize,
    waiting: usize,
    work: impl Fn(usize, I, &mut dyn FnMut(M)) + Sync,
    mut print: impl FnMut(usize, M),
) where
    I: Send,
    M: Send,
{
    if workers <= 1 {
        for (index, input) in source.enumerate() {
            work(index, input, &mut |message| print(index, message));
        }
        return;
    }
    // The next input, numbered: taken whole under the lock, so numbers follow the source.
    let source = Mutex::new(source.enumerate());
    let printing = Printing {
        index: Mutex::new(0),
        moved: Condvar::new(),
    };
    let (register, registered) = mpsc::channel::<(usize, Receiving<M>)>();
    std::thread::scope(|scope| {
        for _ in 0..workers {
            let register = register.clone();
            let (source, work, printing) = (&source, &work, &printing);
            scope.spawn(move || {
                loop {
                    let taken = source.lock().unwrap_or_else(PoisonError::into_inner).next();
                    let Some((index, input)) = taken else {
                        break;
                    };
                    // Inputs are taken in order, so the one being printed is never held up.
                    printing.wait_for(index, workers * AHEAD);
                    let queue = Arc::new(Queue::new(waiting));
                    if register
                        .send((index, Receiving(Arc::clone(&queue))))
                        .is_err()
                    {
                        break;
                    }
                    // The printing thread drains every registered input to its end; the
                    // input is over however `work` ends, a panic included.
                    let sending = Sending(queue);
                    work(index, input, &mut |message| sending.0.send(message));
                }
            });
        }
        drop(register);
        let mut ahead = HashMap::new();
        for expected in 0.. {
            printing.set(expected);
            let receive = loop {
                if let Some(receive) = ahead.remove(&expected) {
                    break receive;
                }
                // Inputs are taken in order, so `expected` is registered before any later
                // one a worker waits on; the channel closes only when every worker is done,
                // so then every input taken has been received.
                let Ok((index, receive)) = registered.recv() else {
                    return;
                };
                ahead.insert(index, receive);
            };
            while let Some(message) = receive.0.receive() {
                print(expected, message);
            }
        }
    });
}

/// One input's messages on their way to the printing thread, at most `limit` of them.
/// A bounded std channel would do the same, but it allocates and touches every one of its
/// slots when it is made, once per input: for `stats`, whose one message per file is a
/// file's counts, that was a megabyte of page faults per file, and two workers took three
/// times as long as one over 16,000 small files. This queue grows with what waits in it.
struct Queue<M> {
    state: Mutex<Waiting<M>>,
    /// The printing thread waits on an empty queue, a worker on a full one: never both.
    changed: Condvar,
    /// The most messages that wait at once.
    limit: usize,
}

struct Waiting<M> {
    messages: VecDeque<M>,
    /// The input's work is over: nothing more comes.
    over: bool,
    /// The printing thread is gone (it panicked): messages are dropped, no one waits.
    unread: bool,
}

impl<M> Queue<M> {
    fn new(limit: usize) -> Self {
        Queue {
            state: Mutex::new(Waiting {
                messages: VecDeque::new(),
                over: false,
                unread: false,
            }),
            changed: Condvar::new(),
            limit: limit.max(1),
        }
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Waiting<M>> {
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }

    /// Adds `message`, once fewer than `limit` wait.
    fn send(&self, message: M) {
        let mut state = self.lock();
        while state.messages.len() >= self.limit && !state.unread {
            state = (self.changed.wait(state)).unwrap_or_else(PoisonError::into_inner);
        }
        if state.unread {
            return;
        }
        let was_empty = state.messages.is_empty();
        state.messages.push_back(message);
        drop(state);
        // Only an empty queue has the printing thread waiting on it.
        if was_empty {
            self.changed.notify_all();
        }
    }

    /// The next message, or `None` once the input is over and every message taken.
    fn receive(&self) -> Option<M> {
        let mut state = self.lock();
        loop {
            if let Some(message) = state.messages.pop_front() {
                let was_full = state.messages.len() + 1 >= self.limit;
                drop(state);
                // Only a full queue has a worker waiting on it.
                if was_full {
                    self.changed.notify_all();
                }
                return Some(message);
            }
            if state.over {
                return None;
            }
            state = (self.changed.wait(state)).unwrap_or_else(PoisonError::into_inner);
        }
    }
}

/// A worker's end of an input's [`Queue`]: dropped when the input's work is over.
struct Sending<M>(Arc<Queue<M>>);

impl<M> Drop for Sending<M> {
    fn drop(&mut self) {
        self.0.lock().over = true;
        self.0.changed.notify_all();
    }
}

/// The printing thread's end of an input's [`Queue`]: dropped unread only if it is gone.
struct Receiving<M>(Arc<Queue<M>>);

impl<M> Drop for Receiving<M> {
    fn drop(&mut self) {
        let mut state = self.0.lock();
        state.unread = true;
        state.messages.clear();
        drop(state);
        self.0.changed.notify_all();
    }
}

/// Names the inputs of a batch claim as they go (the run ids `normalize` and `import`
/// write), granted in the inputs' order, so that a name two inputs share goes as it would
/// with one worker: the earlier input has it first (the later is refused, updates it or
/// with `--replace` replaces it, once the earlier is done). An input claims its names (one
/// run for `normalize`, a session's runs for `import`) once every earlier one has claimed
/// its own or ended, and once no earlier input that claimed one of the same names is still
/// running. Names are claimed when an input knows them, before it writes (`normalize`: its
/// first event; `import`: its session planned), so a worker waits for the starts of the
/// inputs before its own, not for their ends.
pub struct Claims {
    state: Mutex<ClaimState>,
    changed: Condvar,
}

struct ClaimState {
    /// Each input's claim, by index.
    claims: Vec<Claim>,
    /// Every input before this one has ended: no need to look at them again.
    ended_below: usize,
}

impl ClaimState {
    /// Whether input `index` must wait before it may have `names`.
    fn waits(&self, index: usize, names: &[&str]) -> bool {
        let earlier = &self.claims[self.ended_below.min(index)..index];
        earlier.iter().any(|claim| match claim {
            Claim::Open => true,
            Claim::Named(theirs) => theirs.iter().any(|name| names.contains(&&**name)),
            Claim::Ended => false,
        })
    }
}

#[derive(PartialEq)]
enum Claim {
    /// Running, its names not known yet (or not started).
    Open,
    Named(Vec<String>),
    Ended,
}

impl Claims {
    /// The claims of a batch of `inputs` inputs, none made yet.
    pub fn new(inputs: usize) -> Claims {
        Claims {
            state: Mutex::new(ClaimState {
                claims: (0..inputs).map(|_| Claim::Open).collect(),
                ended_below: 0,
            }),
            changed: Condvar::new(),
        }
    }

    /// Input `index` claims `name`: returns when it may have it (see [`Claims`]).
    pub fn claim(&self, index: usize, name: &str) {
        self.claim_all(index, &[name]);
    }

    /// Input `index` claims every one of `names`, its one claim: returns when it may have
    /// them all (see [`Claims`]).
    pub fn claim_all(&self, index: usize, names: &[&str]) {
        let mut state = self.state.lock().unwrap_or_else(PoisonError::into_inner);
        while state.waits(index, names) {
            state = (self.changed.wait(state)).unwrap_or_else(PoisonError::into_inner);
        }
        self.grant(&mut state, index, names);
    }

    /// Input `index` claims `name` if it may have it now (see [`Claims`]): whether it has
    /// it. An input that may not goes on without it (holding what it would write, say) and
    /// claims it later, the same way or with [`Claims::claim`].
    pub fn try_claim(&self, index: usize, name: &str) -> bool {
        let mut state = self.state.lock().unwrap_or_else(PoisonError::into_inner);
        if state.waits(index, &[name]) {
            return false;
        }
        self.grant(&mut state, index, &[name]);
        true
    }

    fn grant(&self, state: &mut ClaimState, index: usize, names: &[&str]) {
        state.claims[index] = Claim::Named(names.iter().map(|&name| name.to_owned()).collect());
        self.changed.notify_all();
    }

    /// Input `index` is done: its name is free, and it holds up no later input. Call it
    /// through [`Claims::ending`], so that it is called however the input ends.
    fn end(&self, index: usize) {
        let mut state = self.state.lock().unwrap_or_else(PoisonError::into_inner);
        state.claims[index] = Claim::Ended;
        while state.claims.get(state.ended_below) == Some(&Claim::Ended) {
            state.ended_below += 1;
        }
        self.changed.notify_all();
    }

    /// A guard that ends input `index` when dropped.
    pub fn ending(&self, index: usize) -> Ending<'_> {
        Ending {
            claims: self,
            index,
        }
    }
}

/// Ends its input's claim when dropped ([`Claims::ending`]).
pub struct Ending<'a> {
    claims: &'a Claims,
    index: usize,
}

impl Drop for Ending<'_> {
    fn drop(&mut self) {
        self.claims.end(self.index);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};

    /// Inputs whose work takes different times still print in order, every message once.
    #[test]
    fn messages_come_out_in_input_order_whatever_the_workers_pace() {
        let inputs: Vec<usize> = (0..40).collect();
        let mut printed = Vec::new();
        in_order(
            &inputs,
            4,
            |_, &n, send| {
                for k in 0..(n % 7) * 300 {
                    send((n, k));
                }
                if n % 3 == 0 {
                    std::thread::sleep(std::time::Duration::from_millis(2));
                }
                send((n, usize::MAX));
            },
            |index, message| printed.push((index, message)),
        );
        let expected: Vec<(usize, (usize, usize))> = inputs
            .iter()
            .flat_map(|&n| {
                (0..(n % 7) * 300)
                    .chain([usize::MAX])
                    .map(move |k| (n, (n, k)))
            })
            .collect();
        assert_eq!(printed, expected);
    }

    /// A worker whose input's messages are not being printed waits once [`WAITING`] of them
    /// wait: memory is bounded by the queue, not by what an input says.
    #[test]
    fn an_input_s_messages_wait_at_most_waiting_at_once() {
        most_waiting_of_three_inputs(WAITING, |inputs, work, print| {
            in_order(inputs, 2, work, print)
        });
    }

    /// The same with a bound of the caller's ([`in_order_waiting`]).
    #[test]
    fn an_input_s_messages_wait_at_most_the_caller_s_bound_at_once() {
        most_waiting_of_three_inputs(4, |inputs, work, print| {
            in_order_waiting(inputs, 2, 4, work, print)
        });
    }

    type Work<'a> = &'a (dyn Fn(usize, &usize, &mut dyn FnMut(usize)) + Sync);

    /// Runs three inputs of `3 * bound` messages each through `run` with a printer slow
    /// every `bound` messages, and checks that at most `bound` per input waited at once.
    fn most_waiting_of_three_inputs(
        bound: usize,
        run: impl FnOnce(&[usize], Work<'_>, &mut dyn FnMut(usize, usize)),
    ) {
        let inputs: Vec<usize> = (0..3).collect();
        let sent = AtomicUsize::new(0);
        let mut most_waiting = 0;
        let mut printed = 0;
        let work = |_: usize, _: &usize, send: &mut dyn FnMut(usize)| {
            for k in 0..3 * bound {
                sent.fetch_add(1, Ordering::SeqCst);
                send(k);
            }
        };
        run(&inputs, &work, &mut |_, _| {
            if printed % bound == 0 {
                // A slow printer: the worker fills the queue meanwhile.
                std::thread::sleep(std::time::Duration::from_millis(20));
            }
            printed += 1;
            // Sent and not yet printed: each input's queue holds at most `bound`, and there
            // are three inputs (unbounded, nearly all 9 * bound would wait).
            most_waiting = most_waiting.max(sent.load(Ordering::SeqCst) - printed);
        });
        assert_eq!(printed, 9 * bound);
        // Each of the two workers may have counted a message it still waits to add.
        assert!(
            most_waiting <= 3 * bound + 2,
            "{most_waiting} messages waited at once"
        );
        assert!(
            most_waiting >= bound,
            "the printer was never behind: {most_waiting}"
        );
    }

    /// However slow the first input, the others are not all done and held meanwhile.
    #[test]
    fn workers_start_no_input_far_past_the_one_being_printed() {
        let inputs: Vec<usize> = (0..200).collect();
        let started = AtomicUsize::new(0);
        let mut most_started_while_first_printed = 0;
        in_order(
            &inputs,
            2,
            |_, &n, send| {
                started.fetch_add(1, Ordering::SeqCst);
                if n == 0 {
                    std::thread::sleep(std::time::Duration::from_millis(50));
                }
                send(n);
            },
            |index, _| {
                if index == 0 {
                    most_started_while_first_printed = started.load(Ordering::SeqCst);
                }
            },
        );
        assert!(
            most_started_while_first_printed <= 2 * AHEAD,
            "{most_started_while_first_printed} inputs started while the first was printed"
        );
    }

    /// Inputs made as workers take them ([`in_order_from`]) print in the order they were
    /// made, every message once, and none is made far ahead of the one being printed: a
    /// source that would never end is taken from only as the printing goes.
    #[test]
    fn inputs_made_as_workers_take_them_print_in_order_and_are_not_made_far_ahead() {
        let made = AtomicUsize::new(0);
        let source = (0..).inspect(|_| {
            made.fetch_add(1, Ordering::SeqCst);
        });
        let mut printed = Vec::new();
        let mut most_ahead = 0;
        in_order_from(
            source.take_while(|&n| n < 300),
            2,
            |index, n, send| {
                assert_eq!(index, n);
                if n == 0 {
                    std::thread::sleep(std::time::Duration::from_millis(50));
                }
                for k in 0..n % 3 {
                    send((n, k));
                }
                send((n, usize::MAX));
            },
            |index, message| {
                most_ahead = most_ahead.max(made.load(Ordering::SeqCst) - index);
                printed.push((index, message));
            },
        );
        let expected: Vec<(usize, (usize, usize))> = (0..300)
            .flat_map(|n| (0..n % 3).chain([usize::MAX]).map(move |k| (n, (n, k))))
            .collect();
        assert_eq!(printed, expected);
        // Each worker may hold one input made while it waits for its turn to start.
        assert!(
            most_ahead <= 2 * AHEAD + 2,
            "{most_ahead} inputs made past the one printed"
        );
    }

    /// A claim tried is had only when it could be had without waiting.
    #[test]
    fn a_claim_tried_is_had_only_when_no_earlier_input_holds_it_up() {
        let claims = Claims::new(3);
        assert!(
            !claims.try_claim(1, "run"),
            "input 0 has not named its run yet"
        );
        claims.claim(0, "run");
        assert!(!claims.try_claim(1, "run"), "input 0 has it");
        assert!(
            !claims.try_claim(2, "other"),
            "input 1 has not named its run yet"
        );
        drop(claims.ending(0));
        assert!(claims.try_claim(1, "run"));
        assert!(claims.try_claim(2, "other"));
    }

    #[test]
    fn workers_are_at_least_one_and_at_most_the_inputs() {
        assert_eq!(workers(8, 3), 3);
        assert_eq!(workers(1, 100), 1);
        assert_eq!(workers(4, 0), 1);
        assert!(workers(0, 1000) >= 1);
    }
}
