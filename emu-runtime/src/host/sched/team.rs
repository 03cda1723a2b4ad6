//! The host threads that run a launch's blocks beside the thread that launched it.
//!
//! A launch of blocks that run in parallel hands its blocks out, a run of consecutive blocks
//! at a time, to *pullers* (`launch.rs`, `run_with` and `claim`). The calling thread runs the
//! first puller itself, and this module's *helpers* run the others: one helper thread per
//! puller past the first, as many pullers in all as `rayon::current_num_threads()` says, made
//! the first time a launch needs them and kept for the process.
//!
//! Why not rayon's pool, as before: a thread that is not one of the pool's workers waits for a
//! `for_each` on the pool asleep, and on the two-core virtual machines here waking it, or a
//! worker that had gone to sleep, took 50 to 130 µs. A launch of 40 µs of work ran on one
//! worker while the other was still waking (cuda-samples' reduce1: 0.028 ms on two workers
//! against 0.018 ms on one), and its caller woke 60 µs after the last block ended. Here the
//! caller works instead of sleeping; a helper that is asleep when the launch is offered to
//! it, and has not taken it by the time the caller's own puller ends, is told it is not
//! needed, so that nobody waits for a thread to wake; and a helper stays awake for
//! [`AWAKE`] after each launch, ready for the next one.
//!
//! One launch at a time uses the helpers. A launch made while another has them (two host
//! threads launching at once) runs its pullers on rayon's pool, as before.
//!
//! # The hand-over
//!
//! Each helper has a slot whose state goes `IDLE` → `OFFERED` (the caller, after writing the
//! job's address) → `CLAIMED` (the helper) → `DONE` (the helper, after the job) → `IDLE` (the
//! caller); or `OFFERED` → `IDLE` when the caller withdraws a job nobody claimed. Only the
//! caller moves a slot out of `IDLE`, `DONE` and `OFFERED`-to-`IDLE`; only the helper moves
//! it from `OFFERED` to `CLAIMED` and on to `DONE`; the two compare-exchanges on `OFFERED`
//! decide which of them has the job. The job lives on the caller's stack: the caller returns
//! only once each slot it offered is `IDLE` again, so a helper reads the job only between
//! its claim and its `DONE`, while the caller is still waiting for it.

use std::any::Any;
use std::sync::atomic::{AtomicPtr, AtomicU8, Ordering};
use std::time::{Duration, Instant};

use parking_lot::Mutex;

/// How long a helper spins for the next launch after its last one before it sleeps: long
/// enough that launches made back to back (a loop of them, a benchmark) find it awake, short
/// enough that a program that launches now and then loses little of a core to it.
const AWAKE: Duration = Duration::from_micros(300);

const IDLE: u8 = 0;
const OFFERED: u8 = 1;
const CLAIMED: u8 = 2;
const DONE: u8 = 3;

/// One helper's work: puller number `index` of a launch, and the panic it raised, if any.
struct Job<'a> {
    puller: &'a (dyn Fn(usize) + Sync),
    index: usize,
    panic: Mutex<Option<Box<dyn Any + Send>>>,
}

/// A helper thread's slot (see the module's text for the states).
struct Slot {
    state: AtomicU8,
    /// The job offered, valid while the state is `OFFERED`, `CLAIMED` or `DONE`: a `Job` on
    /// the offering caller's stack, its lifetime erased.
    job: AtomicPtr<Job<'static>>,
    thread: std::thread::Thread,
}

/// The helpers, in the order they were made; locked by the launch that uses them.
static HELPERS: Mutex<Vec<&'static Slot>> = Mutex::new(Vec::new());

/// Runs `puller(0)` on this thread and `puller(1)` to `puller(pullers - 1)` on helper threads
/// (or on rayon's pool, when another launch has the helpers or a helper cannot be made), and
/// returns when all have returned; runs nothing when `pullers` is 0. With `withdraw`, a helper
/// that has not started its puller by the time this thread's returns is not waited for: its
/// puller never runs (pullers take their work from a shared counter, so one that never runs
/// leaves nothing undone). Without it every puller runs (a checked launch's blocks on several
/// host threads, as its checkers' tests want). A panic in a helper's puller is raised again
/// here.
pub(crate) fn run_pullers(pullers: usize, withdraw: bool, puller: &(dyn Fn(usize) + Sync)) {
    match pullers {
        0 => return,
        1 => return puller(0),
        _ => {}
    }
    let Some(mut helpers) = HELPERS.try_lock() else {
        return rayon_pullers(pullers, puller);
    };
    while helpers.len() < pullers - 1 {
        match spawn_helper(helpers.len()) {
            Some(slot) => helpers.push(slot),
            None => {
                drop(helpers);
                return rayon_pullers(pullers, puller);
            }
        }
    }
    let jobs: Vec<Job<'_>> = (1..pullers).map(|index| Job { puller, index, panic: Mutex::new(None) }).collect();
    for (slot, job) in helpers.iter().zip(&jobs) {
        debug_assert_eq!(slot.state.load(Ordering::Relaxed), IDLE);
        // The lifetime is erased: the slot's protocol keeps the helper's use of the job
        // inside this call (the module's text).
        slot.job.store(job as *const Job<'_> as *mut Job<'static>, Ordering::Relaxed);
        slot.state.store(OFFERED, Ordering::Release);
        slot.thread.unpark();
    }
    // The helpers' ends are waited for even if this thread's puller panics, so that no helper
    // is still reading `jobs` when the unwind frees them.
    let mine = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| puller(0)));
    for slot in helpers.iter().take(pullers - 1) {
        if withdraw && slot.state.compare_exchange(OFFERED, IDLE, Ordering::Relaxed, Ordering::Relaxed).is_ok() {
            // Withdrawn before the helper took it.
            continue;
        }
        // The helper is running its puller, which ends when the launch's blocks run out (or,
        // without `withdraw`, is about to): spin, then yield.
        let backoff = crossbeam_utils::Backoff::new();
        while slot.state.load(Ordering::Acquire) != DONE {
            backoff.snooze();
        }
        slot.state.store(IDLE, Ordering::Relaxed);
    }
    drop(helpers);
    if let Err(p) = mine {
        std::panic::resume_unwind(p);
    }
    for job in jobs {
        if let Some(p) = job.panic.into_inner() {
            std::panic::resume_unwind(p);
        }
    }
}

/// The pullers on rayon's pool, this thread waiting for them.
fn rayon_pullers(pullers: usize, puller: &(dyn Fn(usize) + Sync)) {
    use rayon::prelude::*;
    (0..pullers).into_par_iter().for_each(puller);
}

/// Starts helper number `n`, or `None` if the thread cannot be made.
fn spawn_helper(n: usize) -> Option<&'static Slot> {
    let (tx, rx) = std::sync::mpsc::channel::<&'static Slot>();
    // The helper runs blocks as rayon's workers did, on a stack of the same size: std's
    // default (`RUST_MIN_STACK`), which rayon's global pool, built with its defaults, uses.
    let spawned = std::thread::Builder::new().name(format!("deviceemu-helper-{n}")).spawn(move || {
        let slot: &'static Slot = Box::leak(Box::new(Slot {
            state: AtomicU8::new(IDLE),
            job: AtomicPtr::new(std::ptr::null_mut()),
            thread: std::thread::current(),
        }));
        if tx.send(slot).is_ok() {
            helper(slot);
        }
    });
    spawned.ok()?;
    rx.recv().ok()
}

/// A helper's life: waits for a job (spinning for [`AWAKE`] after the last one, then asleep),
/// claims it and runs it.
fn helper(slot: &'static Slot) {
    let mut last = Instant::now();
    let mut spins = 0u32;
    loop {
        if slot.state.compare_exchange(OFFERED, CLAIMED, Ordering::Acquire, Ordering::Relaxed).is_ok() {
            let job = slot.job.load(Ordering::Relaxed);
            // SAFETY: the caller wrote `job` before it set `OFFERED` (release; the claim
            // acquires it) and waits, before it returns and frees the job, for this thread's
            // `DONE` below, after which this thread does not touch the job again.
            let job = unsafe { &*job };
            let ran = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| (job.puller)(job.index)));
            if let Err(p) = ran {
                *job.panic.lock() = Some(p);
            }
            slot.state.store(DONE, Ordering::Release);
            last = Instant::now();
            continue;
        }
        if last.elapsed() < AWAKE {
            // Awake, but yielding now and then to a thread that has work for this core (a
            // test running beside the launches, the program's own threads).
            spins = spins.wrapping_add(1);
            if spins % 64 == 0 {
                std::thread::yield_now();
            } else {
                std::hint::spin_loop();
            }
        } else {
            // `unpark` before this `park` makes it return at once: an offer made between the
            // check above and here is not missed.
            std::thread::park();
        }
    }
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::{AtomicUsize, Ordering};

    use super::run_pullers;

    #[test]
    fn every_puller_that_runs_takes_work_and_all_work_is_done() {
        // Pullers take items from a shared counter until none are left: all items are done
        // once, however many pullers ran.
        for pullers in 1..=4 {
            // (None runs with no puller.)
            run_pullers(0, true, &|_| unreachable!("no puller"));
            for _ in 0..if cfg!(miri) { 5 } else { 200 } {
                let next = AtomicUsize::new(0);
                let done: Vec<AtomicUsize> = (0..64).map(|_| AtomicUsize::new(0)).collect();
                run_pullers(pullers, true, &|_| loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    if i >= done.len() {
                        break;
                    }
                    done[i].fetch_add(1, Ordering::Relaxed);
                });
                assert!(done.iter().all(|d| d.load(Ordering::Relaxed) == 1), "{pullers} pullers");
            }
        }
    }

    #[test]
    fn a_helpers_panic_is_raised_in_the_caller() {
        // Puller 1 runs on a helper (or on rayon's pool): its panic reaches the caller. The
        // caller's own puller waits for it to start (for at most 5 s, so that a pool of one
        // worker, which runs the two one after the other, does not wait forever), so that the
        // helper is not withdrawn.
        let started = AtomicUsize::new(0);
        let r = std::panic::catch_unwind(|| {
            run_pullers(2, true, &|i| {
                started.fetch_add(1, Ordering::SeqCst);
                if i == 1 {
                    panic!("puller one");
                }
                let t = std::time::Instant::now();
                while started.load(Ordering::SeqCst) < 2 && t.elapsed().as_secs() < 5 {
                    std::hint::spin_loop();
                }
            })
        });
        let p = r.expect_err("the helper's panic is raised again");
        assert_eq!(p.downcast_ref::<&str>(), Some(&"puller one"));
        // The helpers are usable afterwards.
        let n = AtomicUsize::new(0);
        run_pullers(2, true, &|_| {
            n.fetch_add(1, Ordering::Relaxed);
        });
        assert!((1..=2).contains(&n.load(Ordering::Relaxed)));
    }

    #[test]
    fn without_withdrawal_every_puller_runs() {
        for pullers in 2..=3 {
            for _ in 0..if cfg!(miri) { 5 } else { 100 } {
                let ran = AtomicUsize::new(0);
                run_pullers(pullers, false, &|_| {
                    ran.fetch_add(1, Ordering::Relaxed);
                });
                assert_eq!(ran.load(Ordering::Relaxed), pullers);
            }
        }
    }

    #[test]
    fn launches_from_several_threads_at_once_each_finish() {
        // One of them has the helpers, the others use rayon's pool.
        std::thread::scope(|s| {
            for _ in 0..4 {
                s.spawn(|| {
                    for _ in 0..100 {
                        let next = AtomicUsize::new(0);
                        let sum = AtomicUsize::new(0);
                        run_pullers(2, true, &|_| loop {
                            let i = next.fetch_add(1, Ordering::Relaxed);
                            if i >= 100 {
                                break;
                            }
                            sum.fetch_add(i, Ordering::Relaxed);
                        });
                        assert_eq!(sum.load(Ordering::Relaxed), 4950);
                    }
                });
            }
        });
    }
}
