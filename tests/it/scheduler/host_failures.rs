//! Host failures inside a launch are errors, never aborts (issue 10, item 4): memory the host
//! cannot allocate (shared-memory arenas, racecheck's shadows, fiber stacks) is error 2 with a
//! message naming what and the setting to lower; a stack overflow under `EMU_SCHEDULE=threads`
//! is reported as with fibers (719); kernel panic reports keep their message and location
//! whatever panic hook the user installs (in a child process, so that the hooks and the "first
//! launch" are this test's alone); a `launch!` inside a running kernel returns 801 and leaves
//! the running launch alone. Each failure is followed by a correct launch in the same process.
//!
//! The huge requests are refused before anything is touched (they exceed the machine's
//! memory), so these tests use almost no real memory, in parallel with the others.

use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::Mutex;

use crate::common::{assert_has, marked_line};
use deviceemu::prelude::*;
use deviceemu::{with_config, Checks, Config, Finding, Schedule};

const SRC: &str = include_str!("host_failures.rs");

fn line_of(marker: &str) -> usize {
    marked_line(SRC, &format!("// @{marker}"))
}

/// A kernel that always works.
#[kernel]
fn fill(v: u32, out: &mut [u32]) {
    let i = (block_idx().x * block_dim().x + thread_idx().x) as usize;
    if i < out.len() {
        out[i] = v + i as u32;
    }
}

/// A correct launch under `config`: the emulator recovered.
fn assert_next_launch_works(config: Config) {
    let mut out = DeviceBuffer::<u32>::zeroed(1000).unwrap();
    with_config(config, || launch!(fill<<<4, 256>>>(7, &mut out)))
        .expect("a correct launch after a failed one must succeed");
    assert_eq!(out.to_vec().unwrap(), (7..1007).collect::<Vec<u32>>());
}

fn both_schedules() -> [Config; 2] {
    [Config::default(), Config::default().schedule(Schedule::Threads)]
}

// ---------------------------------------------------------------------------------------------
// Out of host memory (2)
// ---------------------------------------------------------------------------------------------

#[test]
fn a_shared_memory_limit_the_host_cannot_allocate_is_error_2() {
    for config in both_schedules() {
        let mut out = DeviceBuffer::<u32>::zeroed(1000).unwrap();
        let huge = config.clone().max_shared_bytes(1 << 40);
        let err = with_config(huge, || launch!(fill<<<4, 256>>>(7, &mut out))).unwrap_err();
        assert_eq!(err.code(), 2, "{err}");
        assert_eq!(err.name(), "cudaErrorMemoryAllocation");
        let text = err.to_string();
        assert_has(&text, "could not allocate 1099511627776 bytes for a worker's shared-memory arena");
        assert_has(&text, "lower Config::max_shared_bytes");
        assert!(err.report().is_none());
        assert_next_launch_works(config);
    }
}

#[test]
fn a_stack_size_the_host_cannot_map_is_error_2() {
    for config in both_schedules() {
        let mut out = DeviceBuffer::<u32>::zeroed(1000).unwrap();
        let huge = config.clone().stack_size(100 << 40);
        let err = with_config(huge, || launch!(fill<<<4, 256>>>(7, &mut out))).unwrap_err();
        assert_eq!(err.code(), 2, "{err}");
        let text = err.to_string();
        assert_has(
            &text,
            &format!("could not allocate {} bytes for a {}-byte stack for a GPU thread", 100u64 << 40, 100u64 << 40),
        );
        assert_has(&text, "lower EMU_STACK_SIZE");
        assert_eq!(deviceemu::get_last_error().unwrap_err().code(), 2);
        assert_next_launch_works(config);
    }
}

#[kernel]
fn touch_one(out: &mut [u8]) {
    if thread_idx().x == 0 {
        out[0] = 1;
    }
}

#[test]
fn racecheck_on_a_4_gib_buffer_shadows_only_the_pages_it_touches() {
    // The buffer is zeroed lazily (calloc), so it costs no real memory; racecheck's shadow is
    // allocated a page (4096 records) at a time, on first use, so a launch that touches one
    // element of it needs one page (a page that cannot be allocated is error 2).
    let mut big = DeviceBuffer::<u8>::zeroed(4 << 30).unwrap();
    let race = Config::default().checks(Checks { racecheck: true, ..Checks::default() });
    with_config(race.clone(), || launch!(touch_one<<<1, 32>>>(&mut big))).unwrap();
    drop(big);
    let mut small = DeviceBuffer::<u8>::zeroed(64).unwrap();
    with_config(race.clone(), || launch!(touch_one<<<1, 32>>>(&mut small))).unwrap();
    assert_eq!(small.to_vec().unwrap()[0], 1);
    assert_next_launch_works(race);
}

#[kernel]
fn shared_writer(out: &mut [u32]) {
    let s = shared_array![u32; 64];
    let t = thread_idx().x as usize;
    s[t] = t as u32;
    out[block_idx().x as usize * 64 + t] = s[t];
}

#[test]
fn racecheck_of_a_huge_shared_memory_limit_is_error_2() {
    // A 1 GiB arena is mapped lazily; racecheck's shadow of it (one record per byte) would not
    // fit the machine: refused when the first shared access needs it.
    let race = Config::default().checks(Checks { racecheck: true, ..Checks::default() });
    let mut out = DeviceBuffer::<u32>::zeroed(128).unwrap();
    let err = with_config(race.clone().max_shared_bytes(1 << 30), || launch!(shared_writer<<<2, 64>>>(&mut out)))
        .unwrap_err();
    assert_eq!(err.code(), 2, "{err}");
    let text = err.to_string();
    assert_has(&text, "racecheck's shadow of 1073741824 bytes of shared memory");
    assert_has(&text, "lower Config::max_shared_bytes");
    with_config(race.clone(), || launch!(shared_writer<<<2, 64>>>(&mut out))).unwrap();
    assert_eq!(out.to_vec().unwrap(), (0..128).map(|i| i % 64).collect::<Vec<u32>>());
    assert_next_launch_works(race);
}

// ---------------------------------------------------------------------------------------------
// Stack overflow under EMU_SCHEDULE=threads (719)
// ---------------------------------------------------------------------------------------------

#[device]
fn recurse(n: u64) -> u64 {
    let a = [n; 64];
    if n == 0 {
        0
    } else {
        core::hint::black_box(a)[3] + recurse(n - 1)
    }
}

#[kernel]
fn deep_recursion(depth: u64, out: &mut [u64]) {
    let tid = thread_idx().x as usize;
    out[tid] = recurse(depth);
}

#[test]
fn stack_overflow_under_threads_is_reported_as_with_fibers() {
    for config in both_schedules() {
        let mut out = DeviceBuffer::<u64>::zeroed(4).unwrap();
        let err = with_config(config.clone(), || launch!(deep_recursion<<<1, 4>>>(10_000_000, &mut out))).unwrap_err();
        assert_eq!(err.code(), 719, "{err}");
        let text = err.to_string();
        assert_has(&text, "Stack overflow in deep_recursion");
        assert_has(&text, "by thread (0,0,0) in block (0,0,0)");
        assert_has(&text, "EMU_STACK_SIZE");
        assert_has(&text, "ERROR SUMMARY: 1 error");
        assert!(matches!(err.report().unwrap().findings()[0], Finding::StackOverflow { .. }));
        // A shallow recursion on the same schedule works.
        with_config(config.clone(), || launch!(deep_recursion<<<1, 4>>>(10, &mut out))).unwrap();
        assert_eq!(out.to_vec().unwrap(), vec![55; 4]);
        assert_next_launch_works(config);
    }
}

// ---------------------------------------------------------------------------------------------
// A launch! inside a running kernel (801)
// ---------------------------------------------------------------------------------------------

static NESTED_RAN: AtomicU32 = AtomicU32::new(0);
static NESTED_ERROR: Mutex<Option<(i32, String)>> = Mutex::new(None);

#[kernel]
fn nested_child(out: &mut [u32]) {
    out[0] = 1;
}

/// The host side of [`try_nested_launch`].
fn nested_launch() -> u32 {
    let mut out = DeviceBuffer::<u32>::zeroed(1).unwrap();
    let r = launch!(nested_child<<<1, 1>>>(&mut out));
    NESTED_RAN.fetch_add(out.to_vec().unwrap()[0], Ordering::Relaxed);
    match r {
        Ok(()) => 0,
        Err(e) => {
            let code = e.code();
            *NESTED_ERROR.lock().unwrap() = Some((code, e.to_string()));
            code as u32
        }
    }
}

#[device]
fn try_nested_launch() -> u32 {
    #[cfg(not(target_arch = "nvptx64"))]
    return nested_launch();
    #[cfg(target_arch = "nvptx64")]
    return 0;
}

/// Thread 0 of each block launches from inside the kernel; then every thread passes a barrier
/// and reads what another thread wrote before it.
#[kernel]
fn nested_parent(out: &mut [u32], codes: &mut [u32]) {
    let s = shared_array![u32; 64];
    let t = thread_idx().x as usize;
    let b = block_idx().x as usize;
    s[t] = (b * 64 + t) as u32;
    if t == 0 {
        codes[b] = try_nested_launch();
    }
    sync_threads();
    out[b * 64 + t] = s[63 - t] + 1;
}

#[test]
fn a_launch_inside_a_kernel_returns_801_and_the_parent_goes_on() {
    for config in both_schedules() {
        NESTED_RAN.store(0, Ordering::Relaxed);
        let mut out = DeviceBuffer::<u32>::zeroed(2 * 64).unwrap();
        let mut codes = DeviceBuffer::<u32>::zeroed(2).unwrap();
        with_config(config.clone(), || launch!(nested_parent<<<2, 64>>>(&mut out, &mut codes)))
            .expect("the parent launch is not disturbed by the nested one");
        assert_eq!(codes.to_vec().unwrap(), vec![801, 801]);
        let expect: Vec<u32> = (0..2u32).flat_map(|b| (0..64u32).map(move |t| b * 64 + (63 - t) + 1)).collect();
        assert_eq!(out.to_vec().unwrap(), expect);
        assert_eq!(NESTED_RAN.load(Ordering::Relaxed), 0, "the nested kernel did not run");
        let (code, text) = NESTED_ERROR.lock().unwrap().clone().unwrap();
        assert_eq!(code, 801);
        assert_has(&text, "`launch!` of kernel `nested_child` from inside a running kernel");
        assert_has(
            &text,
            "with host buffers: a launch made by host code that a kernel calls is not a device-side launch",
        );
        assert_next_launch_works(config);
    }
}

// ---------------------------------------------------------------------------------------------
// Panic reports whatever hook the user installs (in a child process)
// ---------------------------------------------------------------------------------------------

const CHILD_VAR: &str = "DEVICEEMU_HOST_FAILURES_CHILD";

#[kernel]
fn panics_at_5(out: &mut [u32]) {
    let t = thread_idx().x as usize;
    let v: Option<u32> = if t == 5 { None } else { Some(1) };
    out[t] = v.expect("thread five has no value"); // @hook-panic
}

static USER_HOOK_SAW: Mutex<Vec<String>> = Mutex::new(Vec::new());

fn set_user_hook() {
    std::panic::set_hook(Box::new(|info| {
        let msg = info.payload().downcast_ref::<&str>().map(|s| s.to_string()).unwrap_or_default();
        USER_HOOK_SAW.lock().unwrap().push(msg);
    }));
}

/// In the child: a kernel panic's report, then a panic outside kernels, then a correct launch.
fn panic_then_outside_panic() {
    let mut out = DeviceBuffer::<u32>::zeroed(64).unwrap();
    let err = with_config(Config::default(), || launch!(panics_at_5<<<1, 64>>>(&mut out))).unwrap_err();
    let text = err.to_string();
    let has_msg = text.contains("Kernel panic: thread five has no value");
    let has_line = text.contains(&format!("tests/it/scheduler/host_failures.rs:{}:", line_of("hook-panic")));
    let _ = std::panic::catch_unwind(|| panic!("outside any kernel"));
    let saw = USER_HOOK_SAW.lock().unwrap().clone();
    let user_saw_outside = saw.iter().any(|m| m == "outside any kernel");
    let user_saw_kernel = saw.iter().any(|m| m.contains("five"));
    with_config(Config::default(), || launch!(fill<<<4, 256>>>(7, &mut DeviceBuffer::<u32>::zeroed(1000).unwrap())))
        .unwrap();
    println!(
        "CHILD-RESULT code={} msg={has_msg} line={has_line} user_outside={user_saw_outside} user_kernel={user_saw_kernel}",
        err.code()
    );
}

/// Runs only inside the child process [`child`] starts; in a normal test run it does nothing.
#[test]
fn hook_child_process_helper() {
    match std::env::var(CHILD_VAR).as_deref() {
        Ok("before") => {
            // The user's hook is in place before the process's first launch.
            set_user_hook();
            panic_then_outside_panic();
        }
        Ok("after") => {
            // A first launch installs deviceemu's hook; the user's then replaces it.
            assert_next_launch_works(Config::default());
            set_user_hook();
            panic_then_outside_panic();
        }
        _ => {}
    }
}

fn child(mode: &str) -> String {
    let mut cmd = std::process::Command::new(std::env::current_exe().unwrap());
    cmd.arg(crate::common::test_name(module_path!(), "hook_child_process_helper")).args([
        "--exact",
        "--nocapture",
        "--test-threads=1",
    ]);
    cmd.env(CHILD_VAR, mode);
    let output = cmd.output().expect("the test binary can be re-run");
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(output.status.success(), "child failed:\n{stdout}\n{}", String::from_utf8_lossy(&output.stderr));
    stdout
        .lines()
        .find_map(|l| l.find("CHILD-RESULT").map(|i| l[i..].to_owned()))
        .unwrap_or_else(|| panic!("the child did not run the helper:\n{stdout}"))
}

#[test]
fn a_user_hook_set_before_the_first_launch_keeps_reports_whole() {
    assert_eq!(child("before"), "CHILD-RESULT code=719 msg=true line=true user_outside=true user_kernel=false");
}

#[test]
fn a_user_hook_set_after_the_first_launch_keeps_reports_whole() {
    assert_eq!(child("after"), "CHILD-RESULT code=719 msg=true line=true user_outside=true user_kernel=false");
}
