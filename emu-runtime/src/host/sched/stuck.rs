//! The monitor of GPU threads blocked in a system call: `std::thread::sleep(Duration::from_secs(3600))`
//! in a kernel, a `std::sync::Mutex` another GPU thread of the block holds, a read nothing
//! answers.
//!
//! **The problem.** The watchdog (`progress.rs`) runs where a GPU thread reaches a progress
//! point, a barrier, a collective or its end. A thread blocked in the kernel of the operating
//! system reaches none of them, and its worker, the host thread that runs its block, is blocked
//! with it: the launch would never return.
//!
//! **Algorithm.** Every host thread that runs GPU threads is registered here ([`Worker`]):
//! while it drives a block (`BlockRun::drive`; an `EMU_SCHEDULE=threads` fiber's own thread
//! while it holds the baton) it is *running*, and each block it starts, barrier it releases,
//! round of completed collectives it resumes and progress point's slow path (every 64
//! iterations of a loop) bumps its count: a thread blocked in a system call stops all of them
//! for its block, which runs on that host thread.
//! A monitor thread (started by the first launch) looks every [`TICK`]: a running worker whose
//! count has not changed for the launch's `EMU_TIMEOUT` and whose CPU time
//! (`pthread_getcpuclockid`) grew by less than a fiftieth of that time is *blocked* (a thread
//! that computes uses its core; one that waits in a system call does not). The monitor marks it
//! and sends it `SIGURG`. The signal interrupts the system call; the handler (`overflow.rs`,
//! next to the stack-overflow handler it shares the trap code with) checks that the mark is
//! set, that a fiber is armed on the thread, and that the interrupted instruction is a system
//! call, and if so makes the fiber return [`RunnerEnd::Blocked`] through corosensei's trap
//! support, as a stack overflow returns: the GPU thread is abandoned where it stood, without
//! running its destructors, its block fails with a `Launch timeout` report naming it (error
//! 702), and the worker is free. Otherwise the interrupted call goes on (`SA_RESTART`), and the
//! monitor looks again a full `EMU_TIMEOUT` later.
//!
//! **Limits.** x86-64 and AArch64 Linux only (elsewhere nothing is monitored). A thread that
//! computes without progress points (a loop in a function without `#[device]`) is not
//! stopped: interrupting it at an arbitrary instruction could leave the allocator or a lock
//! half-updated. Whatever the abandoned thread held stays held (a lock it owned stays locked;
//! its memory leaks), and one abandoned in the middle of an unwind leaves its host thread's
//! panic count raised (`block.rs`, "Stopping a thread"). A system call that legitimately blocks
//! for longer than `EMU_TIMEOUT` (reading a pipe nobody writes yet) is taken for a hang. The
//! emulator's own waits inside a kernel (a cdp1 `device_synchronize()` running the children)
//! pause the monitoring. Under a debugger (a traced process) there is no monitor: the debugger
//! pauses threads at will, and interrupts a blocked one itself.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering::Relaxed};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::{Duration, Instant};

/// How often the monitor looks.
pub(crate) const TICK: Duration = Duration::from_millis(25);

/// A host thread that runs GPU threads, as the monitor sees it. Its own cache lines: its
/// thread writes `resumptions` once a block, and a neighbour's writes would move the line.
#[derive(Debug)]
#[repr(align(128))]
pub(crate) struct Worker {
    /// The thread, for `pthread_kill` and its CPU clock.
    thread: libc::pthread_t,
    /// Whether a fiber runs on it now.
    running: AtomicBool,
    /// Resumptions so far: a change means it is not blocked.
    resumptions: AtomicU64,
    /// The running launch's `EMU_TIMEOUT`, in nanoseconds (0: not monitored).
    limit_ns: AtomicU64,
    /// Set by the monitor right before it signals the thread: the handler acts only then.
    pub(crate) stop: AtomicBool,
}

/// The registered workers.
static WORKERS: Mutex<Vec<Arc<Worker>>> = Mutex::new(Vec::new());

thread_local! {
    /// This thread's registration (removed when the thread ends).
    static ME: Registration = Registration::new();
    /// The same worker, for the signal handler: a plain pointer in a const-initialised
    /// thread-local without destructor, which a handler may read.
    static ME_RAW: std::cell::Cell<*const Worker> = const { std::cell::Cell::new(std::ptr::null()) };
}

struct Registration(Arc<Worker>);

impl Registration {
    fn new() -> Self {
        // SAFETY: plain libc calls about the calling thread.
        let thread = unsafe { libc::pthread_self() };
        let w = Arc::new(Worker {
            thread,
            running: AtomicBool::new(false),
            resumptions: AtomicU64::new(0),
            limit_ns: AtomicU64::new(0),
            stop: AtomicBool::new(false),
        });
        ME_RAW.with(|m| m.set(Arc::as_ptr(&w)));
        WORKERS.lock().unwrap_or_else(|e| e.into_inner()).push(Arc::clone(&w));
        Registration(w)
    }
}

impl Drop for Registration {
    fn drop(&mut self) {
        // Under the lock: the monitor signals a thread only while it holds it, so never one
        // that has gone.
        let mut ws = WORKERS.lock().unwrap_or_else(|e| e.into_inner());
        ws.retain(|w| !Arc::ptr_eq(w, &self.0));
        ME_RAW.with(|m| m.set(std::ptr::null()));
    }
}

/// The calling thread's worker, for the signal handler (null when it has none).
pub(crate) fn me_raw() -> *const Worker {
    ME_RAW.with(|m| m.get())
}

/// The launch whose blocks the calling thread runs from now on has `limit` as its
/// `EMU_TIMEOUT` (zero: off). Starts the monitor when a limit is set.
pub(crate) fn limit(limit: Duration) {
    if !supported() {
        return;
    }
    let ns = u64::try_from(limit.as_nanos()).unwrap_or(u64::MAX);
    if ns != 0 {
        start_monitor();
    }
    let _ = ME.try_with(|m| m.0.limit_ns.store(ns, Relaxed));
}

/// The calling thread's worker, if it registered ([`limit`] registers it): one load of a
/// const-initialised thread-local on the hot path.
#[inline(always)]
fn me() -> Option<&'static Worker> {
    let p = ME_RAW.with(|m| m.get());
    // SAFETY: a non-null `ME_RAW` points into the `Arc` this thread's registration holds, which
    // clears it before it lets go; the reference is used at once, on this thread.
    unsafe { p.as_ref() }
}

/// The calling thread starts driving a block (or an OS fiber's thread takes the baton).
#[inline(always)]
pub(crate) fn enter() {
    if let Some(w) = me() {
        // Only this thread writes it: no locked instruction.
        w.resumptions.store(w.resumptions.load(Relaxed).wrapping_add(1), Relaxed);
        w.running.store(true, Relaxed);
    }
}

/// The calling thread's block moved on (a barrier released, collectives completed, a block of a
/// span begun) or its running fiber reached a progress point: it is not blocked, whatever its
/// processor time (a lone spinner backs off with short sleeps, `progress.rs`).
#[inline(always)]
pub(crate) fn beat() {
    if let Some(w) = me() {
        w.resumptions.store(w.resumptions.load(Relaxed).wrapping_add(1), Relaxed);
    }
}

/// The calling thread stops driving its block (or waits for the emulator itself).
#[inline(always)]
pub(crate) fn leave() {
    if let Some(w) = me() {
        w.running.store(false, Relaxed);
    }
}

/// Runs `f`, a wait of the emulator's own inside a running kernel, without monitoring.
pub(crate) fn paused<R>(f: impl FnOnce() -> R) -> R {
    let was = me().is_some_and(|w| w.running.swap(false, Relaxed));
    let r = f();
    if was {
        enter();
    }
    r
}

/// Whether this platform can stop a blocked fiber (`overflow.rs` has the handler).
#[inline(always)]
fn supported() -> bool {
    cfg!(all(target_os = "linux", any(target_arch = "x86_64", target_arch = "aarch64"), not(miri)))
}

/// Starts the monitor thread, once, and waits until it runs: a launch starts it before its
/// blocks do (`launch.rs::run`), so that no thread is being created while kernel code runs (a
/// debugger evaluating a breakpoint's condition then loses track of it).
pub(crate) fn start_monitor() {
    if !supported() {
        return;
    }
    static STARTED: OnceLock<()> = OnceLock::new();
    STARTED.get_or_init(|| {
        if traced() {
            // Under gdb or lldb: a debugger pauses threads at will, and a thread of ours beside
            // the kernel's makes gdb lose the thread whose breakpoint condition it evaluates
            // (`emu-break`: "Couldn't get registers").
            return;
        }
        crate::host::sched::overflow::install_blocked();
        let (tx, rx) = std::sync::mpsc::channel();
        let spawned =
            std::thread::Builder::new().name("deviceemu-monitor".into()).stack_size(64 * 1024).spawn(move || {
                let _ = tx.send(());
                monitor()
            });
        if spawned.is_ok() {
            let _ = rx.recv();
        }
    });
}

/// Whether a debugger traces the process (`TracerPid` in `/proc/self/status`).
fn traced() -> bool {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| s.lines().find_map(|l| l.strip_prefix("TracerPid:").map(|v| v.trim() != "0")))
        .unwrap_or(false)
}

/// What the monitor remembers of a worker.
struct Look {
    worker: *const Worker,
    resumptions: u64,
    since: Instant,
    cpu: Duration,
}

/// The monitor's loop (see the module's doc).
fn monitor() {
    let mut looks: Vec<Look> = Vec::new();
    loop {
        std::thread::sleep(TICK);
        let ws = WORKERS.lock().unwrap_or_else(|e| e.into_inner());
        looks.retain(|l| ws.iter().any(|w| Arc::as_ptr(w) == l.worker));
        let now = Instant::now();
        for w in ws.iter() {
            let limit = Duration::from_nanos(w.limit_ns.load(Relaxed));
            let running = w.running.load(Relaxed);
            let n = w.resumptions.load(Relaxed);
            let i = match looks.iter().position(|l| l.worker == Arc::as_ptr(w)) {
                Some(i) => i,
                None => {
                    looks.push(Look { worker: Arc::as_ptr(w), resumptions: n, since: now, cpu: cpu_time(w.thread) });
                    continue;
                }
            };
            let l = &mut looks[i];
            if !running || limit.is_zero() || l.resumptions != n {
                *l = Look { worker: l.worker, resumptions: n, since: now, cpu: cpu_time(w.thread) };
                continue;
            }
            let span = now.saturating_duration_since(l.since);
            if span < limit {
                continue;
            }
            let cpu = cpu_time(w.thread);
            if cpu.saturating_sub(l.cpu).saturating_mul(50) < span {
                w.stop.store(true, Relaxed);
                // SAFETY: the thread is registered, and it unregisters under the lock we hold,
                // so it has not ended.
                unsafe { libc::pthread_kill(w.thread, libc::SIGURG) };
            }
            *l = Look { worker: l.worker, resumptions: n, since: now, cpu };
        }
    }
}

/// The CPU time `thread` has used.
fn cpu_time(thread: libc::pthread_t) -> Duration {
    let mut clock: libc::clockid_t = 0;
    let mut ts = libc::timespec { tv_sec: 0, tv_nsec: 0 };
    // SAFETY: `thread` is a live registered thread (the caller holds the registry's lock);
    // both out-pointers are valid.
    let ok =
        unsafe { libc::pthread_getcpuclockid(thread, &mut clock) == 0 && libc::clock_gettime(clock, &mut ts) == 0 };
    if ok {
        Duration::new(ts.tv_sec as u64, ts.tv_nsec as u32)
    } else {
        Duration::MAX
    }
}
