//! Streams, events, asynchronous launches and copies, and CUDA's asynchronous error model, in
//! the emulator and (built with `--features gpu`, run with `EMU_TARGET=gpu`) on the GPU.
//!
//! Every test takes [`serial`]: the tests share the device's legacy default stream and its
//! unreported faults (a `device_synchronize` in one test would take another's fault), so they
//! run one at a time. Settings that last for the process (`EMU_STICKY_ERRORS`, `EMU_DEVICES`,
//! `EMU_LAUNCH_BLOCKING` from the environment) are tested in child processes
//! (`child_process_helper`).
//!
//! On the GPU a kernel that faults leaves the CUDA context unusable for the rest of the process
//! (every later call returns the fault: CUDA's contexts make launch faults sticky, whatever
//! `EMU_STICKY_ERRORS` says), so the tests that fault on purpose run in a child process there
//! ([`faulting`]), and assert what the GPU gives: 719 (the bounds check's trap) at the next
//! synchronising call, whose error names the kernels queued since the last successful
//! synchronisation and their `launch!` sites. The emulator's full report (block, thread, line)
//! is asserted in the emulator.
//!
//! Timing-based assertions compare a kernel with another one at least ten times as long, so
//! that the order they check does not depend on the machine's load; the long kernel's length is
//! measured on the target it runs on ([`long_iters`]).

use std::sync::{Mutex, MutexGuard};

use crate::common::{assert_has, marked_line};
use deviceemu::prelude::*;
use deviceemu::{
    device_count, get_last_error, peek_at_last_error, set_device, with_config, Config, DefaultStream, Error, Target,
    STICKY_CODES,
};

const SRC: &str = include_str!("streams.rs");
const FILE: &str = "tests/it/streams/streams.rs";

/// One test at a time (see the module's doc); a failed test does not poison the others.
fn serial() -> MutexGuard<'static, ()> {
    static LOCK: Mutex<()> = Mutex::new(());
    LOCK.lock().unwrap_or_else(|e| e.into_inner())
}

/// Whether this process's launches run on the GPU (`EMU_TARGET=gpu`, or `auto` with a GPU).
fn on_gpu() -> bool {
    Config::from_env().is_ok_and(|c| c.get_target() == Target::Gpu)
}

/// The environment's settings, to change one of them in code: `Config::default()` would also
/// reset the target (to `auto`: the GPU, where there is one, under `EMU_TARGET=emulator` too).
fn env_config() -> Config {
    Config::from_env().unwrap()
}

/// Runs a test that makes a kernel fault on purpose in a child process of its own (`mode`,
/// which `child_process_helper` runs). On the GPU the fault leaves the process's CUDA context unusable for
/// every later test. In the emulator an asynchronous fault is returned by the next blocking
/// call on its device, related or not, as CUDA does: in this process that could be another
/// test's (a launch on the default stream or a copy, on another test thread), which would fail
/// with this test's fault while this test saw none.
fn faulting(mode: &str) {
    child(mode, &[]);
}

/// What a kernel fault gives on the GPU: 719 (the bounds check's trap), with an error that
/// names the kernels queued since the last successful synchronisation (each `(name, launch!
/// site)`), and points at the emulator for the full report.
#[track_caller]
fn assert_gpu_fault(e: &Error, kernels: &[(&str, String)]) {
    assert_eq!(e.code(), 719, "{e}");
    let text = e.to_string();
    for (k, site) in kernels {
        assert_has(&text, &format!("`{k}`"));
        assert_has(&text, &format!("launch! at {site}"));
    }
    assert_has(&text, "EMU_TARGET=emulator gives the full report");
}

/// `tests/it/streams/streams.rs:LINE` of the line that ends with `// @marker`.
fn at(marker: &str) -> String {
    format!("{FILE}:{}", marked_line(SRC, &format!("// @{marker}")))
}

#[kernel]
fn affine(m: u32, a: u32, y: &mut [u32]) {
    let i = (block_idx().x * block_dim().x + thread_idx().x) as usize;
    if i < y.len() {
        y[i] = y[i].wrapping_mul(m).wrapping_add(a);
    }
}

#[kernel]
fn copy_plus(x: &[u32], add: u32, y: &mut [u32]) {
    let i = (block_idx().x * block_dim().x + thread_idx().x) as usize;
    if i < y.len() {
        y[i] = x[i] + add;
    }
}

/// Each thread spins `iters` iterations of xorshift32, then adds 1 to `y[i]`: long work whose
/// result is known. `iters` stays below 2^31, so `s & (iters >> 31)` is 0, but the compiler
/// cannot know it and keeps the loop (with `s & 0` LLVM deleted it from the PTX; an LCG it
/// composed 64 steps at a time).
#[kernel]
fn busy(iters: u32, y: &mut [u32]) {
    let i = (block_idx().x * block_dim().x + thread_idx().x) as usize;
    let mut s = i as u32;
    let mut k = 0;
    while k < iters {
        s ^= s << 13;
        s ^= s >> 17;
        s ^= s << 5;
        k += 1;
    }
    if i < y.len() {
        y[i] = y[i] + 1 + (s & (iters >> 31));
    }
}

/// Spins like [`busy`], then copies `x` to `y`: it reads `x` only at its end.
#[kernel]
fn late_copy(iters: u32, x: &[u32], y: &mut [u32]) {
    let i = (block_idx().x * block_dim().x + thread_idx().x) as usize;
    let mut s = i as u32;
    let mut k = 0;
    while k < iters {
        s ^= s << 13;
        s ^= s >> 17;
        s ^= s << 5;
        k += 1;
    }
    if i < y.len() {
        y[i] = x[i] + (s & (iters >> 31));
    }
}

/// The last thread writes one past the end.
#[kernel]
fn oob(y: &mut [u32]) {
    let i = (block_idx().x * block_dim().x + thread_idx().x) as usize;
    y[i + 1] = 7; // @oob
}

/// Iterations of [`busy`] for a long kernel of one thread, about 150 ms on this target now,
/// and for a short one, a twentieth of it. Measured once per process, by timing `busy` on the
/// target it runs on (the emulator, or the GPU, where an iteration is some 1000 times faster):
/// the probe grows until it runs at least 20 ms, after a first launch that loads the module.
fn long_iters() -> u32 {
    static ITERS: std::sync::OnceLock<u32> = std::sync::OnceLock::new();
    *ITERS.get_or_init(|| {
        let mut y = DeviceBuffer::<u32>::zeroed(1).unwrap();
        launch!(busy<<<1, 1>>>(1, &mut y)).unwrap();
        let mut probe = 20_000u32;
        loop {
            let t = std::time::Instant::now();
            launch!(busy<<<1, 1>>>(probe, &mut y)).unwrap();
            let secs = t.elapsed().as_secs_f64();
            if secs >= 0.02 || probe >= 1 << 28 {
                let iters = ((0.15 / (secs / probe as f64)) as u32).clamp(20_000, 1 << 30);
                if std::env::var_os("STREAMS_VERBOSE").is_some() {
                    eprintln!("long_iters: {probe} iterations took {:.3} ms; a long kernel is {iters}", secs * 1e3);
                }
                return iters;
            }
            probe = probe.saturating_mul(if secs < 0.002 { 16 } else { 4 });
        }
    })
}
fn short_iters() -> u32 {
    long_iters() / 20
}

/// Queues a long one-thread kernel on `s` writing `y`, between two recorded events.
fn long_kernel(s: &Stream, y: &mut DeviceBuffer<u32>) -> (Event, Event) {
    let (start, end) = (Event::new().unwrap(), Event::new().unwrap());
    start.record(s).unwrap();
    let iters = long_iters().saturating_mul(LONG_SCALE.load(std::sync::atomic::Ordering::Relaxed));
    launch!(busy<<<1, 1, 0, s>>>(iters, y)).unwrap();
    end.record(s).unwrap();
    (start, end)
}

/// How many times [`long_iters`] a long kernel runs now; [`overlaps`] raises it.
static LONG_SCALE: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(1);

/// Runs `attempt` until it sees two streams' work overlap, with long kernels 1, 4 and 16
/// times as long, and returns the last attempt's answer. Under load a stream's worker can
/// start a short kernel later than a long kernel lasts (seen in CI on 2026-12-04, with a
/// compiler running beside the tests), so one observation without overlap does not show that
/// a stream waited; three, each longer, do. Waiting, where it is due, is asserted on every run.
fn overlaps(mut attempt: impl FnMut() -> bool) -> bool {
    struct Reset;
    impl Drop for Reset {
        fn drop(&mut self) {
            LONG_SCALE.store(1, std::sync::atomic::Ordering::Relaxed);
        }
    }
    let _reset = Reset;
    for scale in [1, 4, 16] {
        LONG_SCALE.store(scale, std::sync::atomic::Ordering::Relaxed);
        if attempt() {
            return true;
        }
    }
    false
}

fn ms(a: &Event, b: &Event) -> f32 {
    a.synchronize().unwrap();
    b.synchronize().unwrap();
    Event::elapsed_time(a, b).unwrap()
}

#[test]
fn work_in_one_stream_runs_in_order() {
    let _g = serial();
    let s = Stream::non_blocking().unwrap();
    let mut y = DeviceBuffer::from_slice(&[1u32; 1000]).unwrap();
    let mut expect = 1u32;
    for k in 0..20u32 {
        let (m, a) = (k % 3 + 2, k);
        launch!(affine<<<4, 256, 0, &s>>>(m, a, &mut y)).unwrap();
        expect = expect.wrapping_mul(m).wrapping_add(a);
    }
    s.synchronize().unwrap();
    assert_eq!(y.to_vec().unwrap(), vec![expect; 1000]);
    assert!(s.query().unwrap());
}

#[test]
fn a_stream_launch_returns_before_its_kernel_ends() {
    let _g = serial();
    let s = Stream::non_blocking().unwrap();
    let mut y = DeviceBuffer::<u32>::zeroed(1).unwrap();
    let (_, end) = long_kernel(&s, &mut y);
    assert!(!s.query().unwrap(), "the long kernel is still running");
    assert!(!end.query().unwrap());
    s.synchronize().unwrap();
    assert!(s.query().unwrap() && end.query().unwrap());
    assert_eq!(y.to_vec().unwrap(), vec![1]);
}

#[test]
fn independent_streams_both_finish_and_overlap() {
    let _g = serial();
    let (a, b) = (Stream::non_blocking().unwrap(), Stream::non_blocking().unwrap());
    let mut last = 0.0;
    let overlapped = overlaps(|| {
        let mut ya = DeviceBuffer::<u32>::zeroed(1).unwrap();
        let mut yb = DeviceBuffer::<u32>::zeroed(1).unwrap();
        let (_, end_a) = long_kernel(&a, &mut ya);
        let end_b = Event::new().unwrap();
        launch!(busy<<<1, 1, 0, &b>>>(short_iters(), &mut yb)).unwrap();
        end_b.record(&b).unwrap();
        a.synchronize().unwrap();
        b.synchronize().unwrap();
        assert_eq!((ya.to_vec().unwrap(), yb.to_vec().unwrap()), (vec![1], vec![1]));
        last = ms(&end_b, &end_a);
        last > 0.0
    });
    // The short kernel, queued after the long one, finished before it: stream b did not wait
    // for stream a. (Whether b's kernel also started after a's start event was recorded is
    // up to the two streams' workers: independent streams are not ordered, so that is not
    // asserted.)
    assert!(overlapped, "stream b waited for stream a: its kernel ended {last} ms before a's");
}

#[test]
fn events_order_work_across_streams() {
    let _g = serial();
    for wait in [true, false] {
        let (a, b) = (Stream::non_blocking().unwrap(), Stream::non_blocking().unwrap());
        let mut d = 0.0;
        let mut run = || {
            let mut ya = DeviceBuffer::<u32>::zeroed(1).unwrap();
            let mut yb = DeviceBuffer::<u32>::zeroed(1).unwrap();
            let (_, end_a) = long_kernel(&a, &mut ya);
            if wait {
                b.wait_event(&end_a).unwrap();
            }
            launch!(busy<<<1, 1, 0, &b>>>(1, &mut yb)).unwrap();
            let end_b = Event::new().unwrap();
            end_b.record(&b).unwrap();
            d = ms(&end_a, &end_b);
            d < 0.0
        };
        if wait {
            run();
            assert!(d >= 0.0, "b's kernel ran before the event it waits for: {d} ms");
        } else {
            assert!(overlaps(run), "without wait_event b's kernel does not wait: {d} ms");
        }
    }
}

#[test]
fn a_buffer_written_on_one_stream_is_read_after_it_on_another() {
    let _g = serial();
    let (a, b) = (Stream::non_blocking().unwrap(), Stream::non_blocking().unwrap());
    let mut y = DeviceBuffer::<u32>::zeroed(1).unwrap();
    let mut z = DeviceBuffer::<u32>::zeroed(1).unwrap();
    long_kernel(&a, &mut y);
    // No event: the buffer's pending write orders it (cudarc's design).
    launch!(copy_plus<<<1, 1, 0, &b>>>(&y, 10, &mut z)).unwrap();
    b.synchronize().unwrap();
    assert_eq!(z.to_vec().unwrap(), vec![11]);
}

#[test]
fn blocking_streams_synchronise_with_the_legacy_default_stream_and_non_blocking_ones_do_not() {
    let _g = serial();
    with_config(env_config().default_stream(DefaultStream::Legacy), || {
        for blocking in [true, false] {
            let s = if blocking { Stream::new().unwrap() } else { Stream::non_blocking().unwrap() };
            let d = Stream::default_stream();
            // Unrelated work on the default stream after a long kernel on `s`: whether it
            // ended after that kernel.
            let mut t = 0.0;
            let mut default_after_stream = || {
                let mut y = DeviceBuffer::<u32>::zeroed(1).unwrap();
                let mut q = DeviceBuffer::<u32>::zeroed(1).unwrap();
                let (_, end_s) = long_kernel(&s, &mut y);
                launch!(busy<<<1, 1, 0, &d>>>(1, &mut q)).unwrap();
                let e_def = Event::new().unwrap();
                e_def.record(&d).unwrap();
                t = ms(&end_s, &e_def);
                t >= 0.0
            };
            let after = if blocking { default_after_stream() } else { !overlaps(|| !default_after_stream()) };
            assert_eq!(after, blocking, "blocking {blocking}: default-stream work ended {t} ms after the stream's");

            // And the other way: a blocking stream's work waits for earlier default-stream work.
            let mut stream_after_default = || {
                let mut y = DeviceBuffer::<u32>::zeroed(1).unwrap();
                let mut q = DeviceBuffer::<u32>::zeroed(1).unwrap();
                let (_, end_d) = long_kernel(&d, &mut y);
                launch!(busy<<<1, 1, 0, &s>>>(1, &mut q)).unwrap();
                let e_s = Event::new().unwrap();
                e_s.record(&s).unwrap();
                t = ms(&end_d, &e_s);
                t >= 0.0
            };
            let after = if blocking { stream_after_default() } else { !overlaps(|| !stream_after_default()) };
            assert_eq!(
                after, blocking,
                "blocking {blocking}: the stream's work ended {t} ms after the default stream's"
            );
        }
    });
}

#[test]
fn the_three_argument_launch_runs_after_the_default_streams_queued_work() {
    let _g = serial();
    let d = Stream::default_stream();
    let mut y = DeviceBuffer::<u32>::zeroed(1).unwrap();
    let mut q = DeviceBuffer::<u32>::zeroed(1).unwrap();
    let (_, end) = long_kernel(&d, &mut y);
    launch!(busy<<<1, 1>>>(1, &mut q)).unwrap(); // another buffer: only the stream orders it
    assert!(end.query().unwrap(), "the synchronous launch ran before the default stream's earlier work ended");
}

#[test]
fn per_thread_default_streams_do_not_synchronise_with_each_other() {
    let _g = serial();
    for per_thread in [true, false] {
        let which = if per_thread { DefaultStream::PerThread } else { DefaultStream::Legacy };
        let config = env_config().default_stream(which);
        let (tx, rx) = std::sync::mpsc::channel::<()>();
        let long = std::thread::spawn({
            let config = config.clone();
            move || {
                with_config(config, || {
                    let mut y = DeviceBuffer::<u32>::zeroed(1).unwrap();
                    let (_, end) = long_kernel(&Stream::default_stream(), &mut y);
                    tx.send(()).unwrap();
                    end.synchronize().unwrap();
                    end
                })
            }
        });
        rx.recv().unwrap();
        let short_end = with_config(config, || {
            let d = Stream::default_stream();
            // Made while the other thread's kernel runs: on the GPU a new buffer is cleared on
            // a non-blocking stream, which waits for no other stream (`cuMemsetD8`, on the
            // legacy stream, would wait for the other thread's per-thread stream).
            let mut q = DeviceBuffer::<u32>::zeroed(1).unwrap();
            launch!(busy<<<1, 1, 0, &d>>>(1, &mut q)).unwrap();
            let e = Event::new().unwrap();
            e.record(&d).unwrap();
            e.synchronize().unwrap();
            e
        });
        let long_end = long.join().unwrap();
        let t = Event::elapsed_time(&long_end, &short_end).unwrap();
        assert_eq!(
            t < 0.0,
            per_thread,
            "per-thread {per_thread}: the other thread's work ended {t} ms after the long kernel"
        );
    }
}

#[test]
fn elapsed_time_is_positive_and_grows_with_the_work() {
    let _g = serial();
    let s = Stream::non_blocking().unwrap();
    let mut y = DeviceBuffer::<u32>::zeroed(1).unwrap();
    let e: Vec<Event> = (0..3).map(|_| Event::new().unwrap()).collect();
    e[0].record(&s).unwrap();
    launch!(busy<<<1, 1, 0, &s>>>(long_iters() / 10, &mut y)).unwrap();
    e[1].record(&s).unwrap();
    launch!(busy<<<1, 1, 0, &s>>>(long_iters(), &mut y)).unwrap();
    e[2].record(&s).unwrap();
    // Not completed yet: 600.
    assert_eq!(Event::elapsed_time(&e[0], &e[2]).unwrap_err().code(), 600);
    let _ = get_last_error();
    let (short, long) = (ms(&e[0], &e[1]), ms(&e[1], &e[2]));
    assert!(short > 0.0 && long > short, "{short} ms then {long} ms");
    // Without timing or never recorded: 400.
    let untimed = Event::without_timing().unwrap();
    untimed.record(&s).unwrap();
    untimed.synchronize().unwrap();
    assert_eq!(Event::elapsed_time(&e[0], &untimed).unwrap_err().code(), 400);
    assert_eq!(Event::elapsed_time(&Event::new().unwrap(), &e[0]).unwrap_err().code(), 400);
    let _ = get_last_error();
}

#[test]
fn a_kernel_fault_surfaces_at_the_next_synchronising_call_with_its_report() {
    faulting("fault-at-sync");
}

fn fault_at_sync() {
    let _ = get_last_error();
    let s = Stream::non_blocking().unwrap();
    let mut y = DeviceBuffer::<u32>::zeroed(32).unwrap();
    launch!(oob<<<1, 32, 0, &s>>>(&mut y)).expect("a launch returns launch-time errors only"); // @oob-launch-1
    assert!(peek_at_last_error().is_ok(), "nothing is known right after the launch");
    let e = s.synchronize().unwrap_err();
    if on_gpu() {
        // The GPU's delayed error names the kernel and where it was launched.
        assert_gpu_fault(&e, &[("oob", at("oob-launch-1"))]);
        assert_eq!(peek_at_last_error().unwrap_err().code(), 719);
        assert_eq!(get_last_error().unwrap_err().code(), 719);
        assert!(get_last_error().is_ok());
        // Sticky, as CUDA's contexts are: the stream and the device stay failed, and keep
        // naming the kernel.
        assert_gpu_fault(&s.synchronize().unwrap_err(), &[("oob", at("oob-launch-1"))]);
        assert_gpu_fault(&device_synchronize().unwrap_err(), &[("oob", at("oob-launch-1"))]);
        assert_eq!(y.to_vec().unwrap_err().code(), 719);
        let _ = get_last_error();
        return;
    }
    assert_eq!(e.code(), 700);
    let text = e.to_string();
    assert_has(&text, "Invalid __global__ write of size 4 bytes");
    assert_has(&text, "by thread (31,0,0) in block (0,0,0)");
    assert_has(&text, "oob");
    assert_has(&text, &at("oob"));
    // Also in the last-error slot, once.
    assert_eq!(peek_at_last_error().unwrap_err().code(), 700);
    assert_eq!(get_last_error().unwrap_err().code(), 700);
    assert!(get_last_error().is_ok());
    // Returned once (not sticky by default): the stream and the device work again.
    s.synchronize().unwrap();
    device_synchronize().unwrap();
    launch!(affine<<<1, 32, 0, &s>>>(0, 5, &mut y)).unwrap();
    s.synchronize().unwrap();
    assert_eq!(y.to_vec().unwrap(), vec![5; 32]);
    // device_synchronize and event.synchronize return it too.
    launch!(oob<<<1, 32, 0, &s>>>(&mut y)).unwrap();
    assert_eq!(device_synchronize().unwrap_err().code(), 700);
    let ev = Event::new().unwrap();
    launch!(oob<<<1, 32, 0, &s>>>(&mut y)).unwrap();
    ev.record(&s).unwrap();
    assert_eq!(ev.synchronize().unwrap_err().code(), 700);
    let _ = get_last_error();
}

#[test]
fn launch_time_errors_are_returned_by_the_launch() {
    let _g = serial();
    let s = Stream::non_blocking().unwrap();
    let mut y = DeviceBuffer::<u32>::zeroed(32).unwrap();
    let e = launch!(affine<<<1, 2048, 0, &s>>>(1, 1, &mut y)).unwrap_err();
    assert_eq!(e.code(), 9);
    assert_eq!(get_last_error().unwrap_err().code(), 9);
    s.synchronize().unwrap();
}

/// Seed 000 (§3.2.8): "if an asynchronous call fails, the error shows up in some unrelated
/// later call". The launch of the faulty kernel succeeds, a later, correct launch succeeds, and
/// the copy of *that* launch's result returns the first kernel's fault, whose report points at
/// the faulty kernel and its line.
#[test]
fn seed_000_the_fault_appears_at_an_unrelated_later_call() {
    faulting("seed-000");
}

fn seed_000() {
    let s = Stream::new().unwrap();
    let mut a = DeviceBuffer::<u32>::zeroed(32).unwrap();
    let mut b = DeviceBuffer::from_slice(&[1u32; 32]).unwrap();
    // As the guide says: clear the error variable before the launch, check it right after.
    let _ = get_last_error();
    launch!(oob<<<1, 32, 0, &s>>>(&mut a)).unwrap(); // @oob-launch-2
    assert!(get_last_error().is_ok(), "a launch reports only errors before the kernel runs");
    launch!(affine<<<1, 32, 0, &s>>>(2, 0, &mut b)).unwrap(); // @affine-launch-2
    let e = b.to_vec().unwrap_err(); // an unrelated buffer's copy
    if on_gpu() {
        // The GPU cannot say which of the two queued kernels faulted: the error names both,
        // with their launch sites, and the context stays failed.
        assert_gpu_fault(&e, &[("oob", at("oob-launch-2")), ("affine", at("affine-launch-2"))]);
        assert_eq!(get_last_error().unwrap_err().code(), 719);
        assert_eq!(b.to_vec().unwrap_err().code(), 719);
        let _ = get_last_error();
        return;
    }
    assert_eq!(e.code(), 700);
    let text = e.to_string();
    assert_has(&text, "kernel `oob` failed");
    assert_has(&text, "by thread (31,0,0) in block (0,0,0)");
    assert_has(&text, &at("oob"));
    assert_eq!(get_last_error().unwrap_err().code(), 700);
    // The correct kernel did run; the next copy returns its result.
    assert_eq!(b.to_vec().unwrap(), vec![2; 32]);
}

#[test]
fn query_does_not_set_the_last_error() {
    faulting("query");
}

fn query_and_the_last_error() {
    let _ = get_last_error();
    let s = Stream::non_blocking().unwrap();
    let mut y = DeviceBuffer::<u32>::zeroed(32).unwrap();
    let mut w = DeviceBuffer::<u32>::zeroed(1).unwrap();
    let (_, end) = long_kernel(&s, &mut w);
    launch!(oob<<<1, 32, 0, &s>>>(&mut y)).unwrap(); // @oob-launch-3
    let after = Event::new().unwrap();
    after.record(&s).unwrap();
    assert!(!s.query().unwrap());
    assert!(!end.query().unwrap());
    assert!(peek_at_last_error().is_ok(), "a not-ready answer is not an error");
    // The event's query never records a fault, even once the faulty kernel has run (in the
    // emulator it does not look at faults; on the GPU it returns the context's sticky error,
    // without recording it).
    loop {
        match after.query() {
            Ok(false) => std::thread::sleep(std::time::Duration::from_millis(5)),
            Ok(true) => break,
            Err(e) if on_gpu() => {
                assert_eq!(e.code(), 719, "{e}");
                break;
            }
            Err(e) => panic!("the emulator's event query returned {e}"),
        }
    }
    assert!(peek_at_last_error().is_ok());
    // The stream's query, once done, returns the fault as a synchronize would.
    let e = s.query().unwrap_err();
    assert_eq!(get_last_error().unwrap_err().code(), e.code());
    if on_gpu() {
        assert_gpu_fault(&e, &[("oob", at("oob-launch-3"))]);
        assert_eq!(s.query().unwrap_err().code(), 719, "sticky on the GPU");
        let _ = get_last_error();
    } else {
        assert_eq!(e.code(), 700);
        assert!(s.query().unwrap());
    }
}

#[test]
fn launch_blocking_returns_the_fault_from_the_launch() {
    faulting("launch-blocking-config");
}

fn launch_blocking_in_code() {
    let _ = get_last_error();
    with_config(env_config().launch_blocking(true), || {
        let s = Stream::non_blocking().unwrap();
        // A correct launch has finished when it returns (on the GPU too: the launch
        // synchronises its stream, as with CUDA_LAUNCH_BLOCKING=1).
        let mut w = DeviceBuffer::<u32>::zeroed(1).unwrap();
        launch!(busy<<<1, 1, 0, &s>>>(long_iters(), &mut w)).unwrap();
        assert!(s.query().unwrap());
        let mut y = DeviceBuffer::<u32>::zeroed(32).unwrap();
        let e = launch!(oob<<<1, 32, 0, &s>>>(&mut y)).unwrap_err(); // @oob-launch-4
        if on_gpu() {
            assert_gpu_fault(&e, &[("oob", at("oob-launch-4"))]);
            assert_has(&e.to_string(), "running kernel `oob`");
            assert_eq!(get_last_error().unwrap_err().code(), 719);
            assert_eq!(s.synchronize().unwrap_err().code(), 719, "sticky on the GPU");
            let _ = get_last_error();
            return;
        }
        assert_eq!(e.code(), 700);
        assert_has(&e.to_string(), &at("oob"));
        assert_eq!(get_last_error().unwrap_err().code(), 700);
        // Reported once, by the launch.
        s.synchronize().unwrap();
    });
}

#[test]
fn host_reads_and_writes_wait_for_queued_work() {
    let _g = serial();
    let s = Stream::non_blocking().unwrap();
    // to_vec waits for the queued writer.
    let mut y = DeviceBuffer::<u32>::zeroed(1).unwrap();
    let (_, end) = long_kernel(&s, &mut y);
    assert!(!end.query().unwrap());
    assert_eq!(y.to_vec().unwrap(), vec![1], "to_vec did not wait for the kernel");
    // copy_from_slice waits for a queued reader: the kernel reads `x` at its end and still
    // sees the old contents.
    let mut x = DeviceBuffer::from_slice(&[5u32]).unwrap();
    let mut z = DeviceBuffer::<u32>::zeroed(1).unwrap();
    launch!(late_copy<<<1, 1, 0, &s>>>(long_iters(), &x, &mut z)).unwrap();
    x.copy_from_slice(&[9]).unwrap();
    assert_eq!(z.to_vec().unwrap(), vec![5]);
    assert_eq!(x.to_vec().unwrap(), vec![9]);
    // A synchronous launch waits for the buffer's queued work on any stream.
    long_kernel(&s, &mut y);
    launch!(affine<<<1, 1>>>(10, 0, &mut y)).unwrap();
    assert_eq!(y.to_vec().unwrap(), vec![20], "the launch ran before the queued kernel (1 + 1, then times 10)");
}

#[test]
fn dropping_a_buffer_waits_for_queued_work_and_queued_work_keeps_it_alive() {
    let _g = serial();
    let s = Stream::non_blocking().unwrap();
    let mut y = DeviceBuffer::<u32>::zeroed(1024).unwrap();
    let (_, end) = long_kernel(&s, &mut y);
    launch!(affine<<<4, 256, 0, &s>>>(3, 1, &mut y)).unwrap();
    drop(y);
    assert!(end.query().unwrap(), "drop returned before the queued kernel ended");
    // A host buffer, too.
    let d = DeviceBuffer::from_slice(&[4u32; 1024]).unwrap();
    let mut w = DeviceBuffer::<u32>::zeroed(1).unwrap();
    let mut h = HostBuffer::<u32>::zeroed(1024).unwrap();
    let (_, end) = long_kernel(&s, &mut w);
    d.copy_to_host_async(&mut h, &s).unwrap();
    drop(d); // the queued copy still reads it
    assert_eq!(h.as_slice(), &[4u32; 1024][..]);
    assert!(end.query().unwrap());
    let (_, end) = long_kernel(&s, &mut w);
    let dst = DeviceBuffer::<u32>::zeroed(1024);
    let mut dst = dst.unwrap();
    dst.copy_from_host_async(&h, &s).unwrap();
    drop(h);
    assert!(end.query().unwrap(), "the host buffer's drop waited for the copy that reads it");
    assert_eq!(dst.to_vec().unwrap(), vec![4; 1024]);
}

#[test]
fn async_copies_and_memset_round_trip() {
    let _g = serial();
    let s = Stream::new().unwrap();
    let data: Vec<u32> = (0..5000).collect();
    let src = HostBuffer::from_slice(&data).unwrap();
    let mut d = DeviceBuffer::<u32>::uninit(5000).unwrap();
    let mut out = HostBuffer::<u32>::zeroed(5000).unwrap();
    d.copy_from_host_async(&src, &s).unwrap();
    launch!(affine<<<20, 256, 0, &s>>>(2, 1, &mut d)).unwrap();
    d.copy_to_host_async(&mut out, &s).unwrap();
    assert_eq!(out.to_vec(), data.iter().map(|v| v * 2 + 1).collect::<Vec<_>>());
    d.memset_zero_async(&s).unwrap();
    d.copy_to_host_async(&mut out, &s).unwrap();
    assert_eq!(out.as_slice(), &vec![0u32; 5000][..]);
    out.as_mut_slice()[0] = 3;
    assert_eq!(out.as_slice()[0], 3);
    // Length mismatch: error 1, nothing queued.
    let short = HostBuffer::<u32>::zeroed(3).unwrap();
    assert_eq!(d.copy_from_host_async(&short, &s).unwrap_err().code(), 1);
    let _ = get_last_error();
    s.synchronize().unwrap();
}

/// The two-stream pipeline that BENCHMARKS.md times on the GPU: chunks copied in, scaled and
/// copied out, alternating between two streams.
#[test]
fn a_two_stream_pipeline_gives_the_serial_result() {
    let _g = serial();
    let (n, chunks) = (4096usize, 8usize);
    let streams = [Stream::non_blocking().unwrap(), Stream::non_blocking().unwrap()];
    let input: Vec<HostBuffer<u32>> = (0..chunks)
        .map(|c| HostBuffer::from_slice(&(0..n as u32).map(|i| i + c as u32).collect::<Vec<_>>()).unwrap())
        .collect();
    let mut output: Vec<HostBuffer<u32>> = (0..chunks).map(|_| HostBuffer::zeroed(n).unwrap()).collect();
    let mut dev: Vec<DeviceBuffer<u32>> = (0..chunks).map(|_| DeviceBuffer::zeroed(n).unwrap()).collect();
    for c in 0..chunks {
        let s = &streams[c % 2];
        dev[c].copy_from_host_async(&input[c], s).unwrap();
        launch!(affine<<<(n as u32).div_ceil(256), 256, 0, s>>>(3, 1, &mut dev[c])).unwrap();
        dev[c].copy_to_host_async(&mut output[c], s).unwrap();
    }
    device_synchronize().unwrap();
    for (c, out) in output.iter().enumerate() {
        let expect: Vec<u32> = (0..n as u32).map(|i| (i + c as u32) * 3 + 1).collect();
        assert_eq!(out.as_slice(), &expect[..], "chunk {c}");
    }
}

// The guide's example (docs/guide/streams.md), as written there.
#[kernel]
fn scale(m: f32, y: &mut [f32]) {
    let i = thread_idx().x as usize;
    if i < y.len() {
        y[i] *= m;
    }
}

fn readme_main() -> Result<(), deviceemu::Error> {
    let (a, b) = (Stream::non_blocking()?, Stream::non_blocking()?);
    let input = HostBuffer::from_slice(&vec![1.0f32; 256])?; // page-locked on the GPU
    let mut out = HostBuffer::<f32>::zeroed(256)?;
    let mut d = DeviceBuffer::<f32>::zeroed(256)?;
    d.copy_from_host_async(&input, &a)?; // returns at once
    launch!(scale<<<1, 256, 0, &a>>>(2.0, &mut d))?; // queued on `a`
    let done = Event::new()?;
    done.record(&a)?;
    b.wait_event(&done)?; // b's later work waits for a's
    d.copy_to_host_async(&mut out, &b)?;
    b.synchronize()?; // a kernel fault would come out here
    assert_eq!(out.as_slice()[0], 2.0);
    Ok(())
}

#[test]
fn the_readme_example_runs() {
    let _g = serial();
    readme_main().unwrap();
}

// ---------------------------------------------------------------------------------------------
// Settings that last for the process: in a child process each.
// ---------------------------------------------------------------------------------------------

const CHILD_VAR: &str = "DEVICEEMU_STREAMS_CHILD";

/// Re-runs this test binary's `child_process_helper` with `mode` and `vars`, under this
/// process's target (`EMU_TARGET`; the other `EMU_` settings are removed); returns its output.
fn child(mode: &str, vars: &[(&str, &str)]) -> String {
    let mut cmd = std::process::Command::new(std::env::current_exe().unwrap());
    cmd.arg(crate::common::test_name(module_path!(), "child_process_helper")).args([
        "--exact",
        "--nocapture",
        "--test-threads=1",
    ]);
    for (k, _) in std::env::vars_os() {
        if k.to_string_lossy().starts_with("EMU_") && k != "EMU_TARGET" {
            cmd.env_remove(k);
        }
    }
    cmd.env(CHILD_VAR, mode).envs(vars.iter().copied());
    let out = cmd.output().expect("the test binary can be re-run");
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    assert!(out.status.success(), "child {mode} failed:\n{stdout}\n{}", String::from_utf8_lossy(&out.stderr));
    assert_has(&stdout, &format!("CHILD-OK {mode}"));
    stdout
}

#[test]
fn sticky_errors_stay_sticky() {
    child("sticky", &[("EMU_STICKY_ERRORS", "1")]);
}

/// In the emulator. On the GPU a fault is always sticky, since CUDA contexts are: without
/// `EMU_STICKY_ERRORS` the child asserts that every later call still fails.
#[test]
fn without_sticky_errors_a_fault_is_returned_once() {
    child("not-sticky", &[]);
}

#[test]
fn emu_launch_blocking_makes_launches_synchronous() {
    child("launch-blocking", &[("EMU_LAUNCH_BLOCKING", "1")]);
}

#[test]
fn emu_default_stream_per_thread_is_read() {
    child("per-thread", &[("EMU_DEFAULT_STREAM", "per-thread")]);
}

/// Two emulated devices (`EMU_DEVICES=2`). On the GPU `device_count()` is the machine's (the
/// child checks it against `nvidia-smi -L` where that runs), the last device works, the next
/// number is `cudaErrorInvalidDevice`, and with two GPUs or more the emulator's two-device
/// scenario runs on the real ones.
#[test]
fn several_devices() {
    child("devices", &[("EMU_DEVICES", "2")]);
}

/// The number of GPUs `nvidia-smi -L` lists, where it runs.
fn nvidia_smi_count() -> Option<u32> {
    let out = std::process::Command::new("nvidia-smi").arg("-L").output().ok().filter(|o| o.status.success())?;
    Some(String::from_utf8_lossy(&out.stdout).lines().filter(|l| l.starts_with("GPU ")).count() as u32)
}

/// Devices 0 and 1: buffers, streams and events belong to their device; `copy_from_peer`
/// copies between them; each device has its own queues.
fn two_devices() {
    assert_eq!(deviceemu::get_device(), 0);
    let on0 = DeviceBuffer::from_slice(&[1u32; 256]).unwrap();
    set_device(1).unwrap();
    assert_eq!(deviceemu::get_device(), 1);
    let s1 = Stream::new().unwrap();
    assert_eq!(s1.device(), 1);
    let mut on1 = DeviceBuffer::<u32>::zeroed(256).unwrap();
    assert_eq!(on1.device(), 1);
    on1.copy_from_peer(&on0).unwrap();
    launch!(affine<<<1, 256, 0, &s1>>>(5, 0, &mut on1)).unwrap();
    // A buffer of device 0 on device 1's stream: refused at the launch.
    let e = launch!(copy_plus<<<1, 256, 0, &s1>>>(&on0, 1, &mut on1)).unwrap_err();
    assert_eq!(e.code(), 1);
    assert_has(&e.to_string(), "copy_from_peer");
    // An event of device 1 cannot be recorded on a stream of device 0.
    let ev1 = Event::new().unwrap();
    set_device(0).unwrap();
    let s0 = Stream::new().unwrap();
    assert_eq!(ev1.record(&s0).unwrap_err().code(), 400);
    let mut back = DeviceBuffer::<u32>::zeroed(256).unwrap();
    back.copy_from_peer(&on1).unwrap();
    assert_eq!(back.to_vec().unwrap(), vec![5; 256]);
    // Each device has its own queues: device 0's synchronize does not wait for device 1's
    // long kernel.
    set_device(1).unwrap();
    let mut w = DeviceBuffer::<u32>::zeroed(1).unwrap();
    let (_, end1) = long_kernel(&s1, &mut w);
    set_device(0).unwrap();
    device_synchronize().unwrap();
    assert!(!end1.query().unwrap());
    end1.synchronize().unwrap();
    let _ = get_last_error();
}

#[test]
fn child_process_helper() {
    let Ok(mode) = std::env::var(CHILD_VAR) else { return };
    match mode.as_str() {
        "fault-at-sync" => fault_at_sync(),
        "seed-000" => seed_000(),
        "query" => query_and_the_last_error(),
        "launch-blocking-config" => launch_blocking_in_code(),
        "sticky" | "not-sticky" if on_gpu() => {
            // On the GPU a fault is sticky with or without EMU_STICKY_ERRORS: the CUDA context
            // is unusable after it, and every later call returns it.
            let s = Stream::non_blocking().unwrap();
            let mut y = DeviceBuffer::<u32>::zeroed(32).unwrap();
            launch!(oob<<<1, 32, 0, &s>>>(&mut y)).unwrap(); // @oob-launch-5
            assert_gpu_fault(&s.synchronize().unwrap_err(), &[("oob", at("oob-launch-5"))]);
            assert_eq!(get_last_error().unwrap_err().code(), 719);
            let calls: Vec<(&str, Result<(), Error>)> = vec![
                ("synchronize", s.synchronize()),
                ("device_synchronize", device_synchronize()),
                ("zeroed", DeviceBuffer::<u32>::zeroed(4).map(drop)),
                ("launch", launch!(affine<<<1, 32>>>(1, 1, &mut y))),
                ("stream launch", launch!(affine<<<1, 32, 0, &s>>>(1, 1, &mut y))),
                ("to_vec", y.to_vec().map(drop)),
                ("Stream::new", Stream::new().map(drop)),
                ("Event::new", Event::new().map(drop)),
            ];
            for (what, r) in calls {
                let e = r.expect_err(what);
                assert_eq!(e.code(), 719, "{what}: {e}");
                if ["synchronize", "device_synchronize", "to_vec"].contains(&what) {
                    assert_gpu_fault(&e, &[("oob", at("oob-launch-5"))]);
                }
            }
            assert_eq!(get_last_error().unwrap_err().code(), 719);
        }
        "sticky" | "not-sticky" => {
            let sticky = mode == "sticky";
            let s = Stream::non_blocking().unwrap();
            let mut y = DeviceBuffer::<u32>::zeroed(32).unwrap();
            launch!(oob<<<1, 32, 0, &s>>>(&mut y)).unwrap();
            assert_eq!(s.synchronize().unwrap_err().code(), 700);
            assert_eq!(get_last_error().unwrap_err().code(), 700);
            // Every later call, of every kind, returns it (sticky) or works (not sticky).
            let calls: Vec<(&str, Result<(), Error>)> = vec![
                ("synchronize", s.synchronize()),
                ("device_synchronize", device_synchronize()),
                ("zeroed", DeviceBuffer::<u32>::zeroed(4).map(drop)),
                ("launch", launch!(affine<<<1, 32>>>(1, 1, &mut y))),
                ("stream launch", launch!(affine<<<1, 32, 0, &s>>>(1, 1, &mut y))),
                ("to_vec", y.to_vec().map(drop)),
                ("Stream::new", Stream::new().map(drop)),
                ("Event::new", Event::new().map(drop)),
            ];
            for (what, r) in calls {
                match r {
                    Err(e) if sticky => {
                        assert_eq!(e.code(), 700, "{what}");
                        assert_has(&e.to_string(), &at("oob"));
                    }
                    Ok(()) if !sticky => {}
                    other => panic!("{what} (sticky {sticky}): {other:?}"),
                }
            }
            if sticky {
                // The slot is cleared by one get_last_error, and refilled by the next call.
                assert_eq!(get_last_error().unwrap_err().code(), 700);
                assert!(get_last_error().is_ok());
                assert_eq!(DeviceBuffer::<u32>::zeroed(1).unwrap_err().code(), 700);
                assert_eq!(get_last_error().unwrap_err().code(), 700);
                assert!(STICKY_CODES.contains(&700) && STICKY_CODES.contains(&719));
            } else {
                // Both launches after the fault ran: y[0] (which `oob` does not write) is 0 + 1 + 1.
                assert_eq!(y.to_vec().unwrap()[0], 2);
            }
        }
        "launch-blocking" => {
            // EMU_LAUNCH_BLOCKING=1, honoured on the GPU too (the launch synchronises its
            // stream, as CUDA_LAUNCH_BLOCKING=1 does): a long kernel has ended when its launch
            // returns, and a fault comes from the launch itself.
            let s = Stream::non_blocking().unwrap();
            let mut w = DeviceBuffer::<u32>::zeroed(1).unwrap();
            launch!(busy<<<1, 1, 0, &s>>>(long_iters(), &mut w)).unwrap();
            assert!(s.query().unwrap(), "the launch returned before its kernel ended");
            let mut y = DeviceBuffer::<u32>::zeroed(32).unwrap();
            let e = launch!(oob<<<1, 32, 0, &s>>>(&mut y)).unwrap_err(); // @oob-launch-6
            if on_gpu() {
                assert_gpu_fault(&e, &[("oob", at("oob-launch-6"))]);
                assert_eq!(s.synchronize().unwrap_err().code(), 719, "sticky on the GPU");
            } else {
                assert_eq!(e.code(), 700);
                assert_has(&e.to_string(), &at("oob"));
                s.synchronize().unwrap();
            }
        }
        "per-thread" => {
            // Two threads' default streams: the second's short kernel ends first. Its buffer is
            // made first: in CUDA a device allocation may synchronise the device (the CUDA
            // guide's implicit synchronisation); the in-process test makes it after.
            let mut q = DeviceBuffer::<u32>::zeroed(1).unwrap();
            let (tx, rx) = std::sync::mpsc::channel::<()>();
            let long = std::thread::spawn(move || {
                let mut y = DeviceBuffer::<u32>::zeroed(1).unwrap();
                let (_, end) = long_kernel(&Stream::default_stream(), &mut y);
                tx.send(()).unwrap();
                end.synchronize().unwrap();
                end
            });
            rx.recv().unwrap();
            let d = Stream::default_stream();
            launch!(busy<<<1, 1, 0, &d>>>(1, &mut q)).unwrap();
            let e = Event::new().unwrap();
            e.record(&d).unwrap();
            e.synchronize().unwrap();
            let long_end = long.join().unwrap();
            assert!(Event::elapsed_time(&long_end, &e).unwrap() < 0.0);
        }
        "devices" if on_gpu() => {
            let n = device_count().unwrap();
            println!("device_count() on the GPU: {n}; nvidia-smi -L: {:?}", nvidia_smi_count());
            assert!(n >= 1);
            if let Some(listed) = nvidia_smi_count() {
                assert_eq!(n, listed, "device_count() is the machine's, not EMU_DEVICES's");
            }
            // The last device works: a buffer, a stream, an event and a launch on it.
            set_device(n - 1).unwrap();
            assert_eq!(deviceemu::get_device(), n - 1);
            let s = Stream::new().unwrap();
            assert_eq!(s.device(), n - 1);
            let mut y = DeviceBuffer::from_slice(&[1u32; 256]).unwrap();
            assert_eq!(y.device(), n - 1);
            launch!(affine<<<1, 256, 0, &s>>>(3, 1, &mut y)).unwrap();
            let e = Event::new().unwrap();
            e.record(&s).unwrap();
            e.synchronize().unwrap();
            assert_eq!(y.to_vec().unwrap(), vec![4; 256]);
            // The next number does not exist: cudaErrorInvalidDevice, and the device stays.
            let e = set_device(n).unwrap_err();
            assert_eq!((e.code(), e.name()), (101, "cudaErrorInvalidDevice"), "{e}");
            assert_eq!(get_last_error().unwrap_err().code(), 101);
            assert_eq!(deviceemu::get_device(), n - 1);
            set_device(0).unwrap();
            if n >= 2 {
                two_devices();
            }
        }
        "devices" => {
            assert_eq!(device_count().unwrap(), 2);
            two_devices();
            let e = set_device(2).unwrap_err();
            assert_eq!((e.code(), e.name()), (101, "cudaErrorInvalidDevice"), "{e}");
            assert_eq!(deviceemu::get_device(), 0);
            let _ = get_last_error();
        }
        other => panic!("unknown child mode {other}"),
    }
    println!("CHILD-OK {mode}");
}

/// Slices of buffers as arguments of a queued launch: the kernel sees the part, and the host
/// read of the whole buffer waits for it.
#[test]
fn queued_launches_take_slices() {
    let _g = serial();
    let x = DeviceBuffer::from_slice(&(0..64u32).collect::<Vec<_>>()).unwrap();
    let mut y = DeviceBuffer::<u32>::zeroed(64).unwrap();
    let s = Stream::new().unwrap();
    launch!(copy_plus<<<1, 16, 0, &s>>>(x.slice(8..24), 100, y.slice_mut(40..56))).unwrap();
    let got = y.to_vec().unwrap();
    let want: Vec<u32> = (0..64).map(|i| if (40..56).contains(&i) { (i - 32) as u32 + 100 } else { 0 }).collect();
    assert_eq!(got, want);
}
