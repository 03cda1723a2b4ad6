//! The device runtime (dynamic parallelism), emulated: kernels that launch kernels.
//!
//! ARCHITECTURE.md, *The device runtime*, describes the model; tools/probes/RESULTS.md p7 has
//! the H200's answers the limits follow.
//!
//! # On the GPU
//!
//! Built with `--features gpu` on a machine with a GPU, `Config::default()` targets the GPU,
//! and the kernels here run there through the CUDA device runtime (emu-runtime/src/gpu/link.rs).
//! Only these tests are GPU tests (they assert what the GPU does too); run them one per
//! process (`--exact NAME`), since a GPU fault is sticky for the process's CUDA context:
//!
//! - `children_see_the_parents_writes_and_the_host_sees_the_childrens`
//! - `a_recursive_quicksort_sorts_like_the_cpu_in_both_profiles`
//! - `the_quicksort_depth_limit_falls_back_to_selection_sort`
//! - `an_adaptive_mandelbrot_subdivides_like_the_cpu_in_both_profiles`
//! - `sm_90_has_no_nesting_depth_error_at_depth_200`
//! - `fire_and_forget_launches_never_fail`
//! - `a_device_helper_launches_children`
//! - `a_tail_launch_runs_after_the_grid_and_its_other_children`
//! - `device_synchronize_in_a_kernel_is_an_error_on_sm_90` (on the GPU: 801 in the kernel, no
//!   report)
//! - `a_kernel_that_launches_kernels_runs_on_the_gpu_target`
//! - `the_2049th_tail_launch_fails_with_69_at_the_default_limit`
//! - `the_2049th_tail_launch_fails_with_69_and_the_grid_goes_on` (with a limit set through
//!   `Config::pending_launch_limit`, which the GPU launch applies with `cuCtxSetLimit`: passed
//!   on the H200 in session 8, tools/probes/logs/s8_gpu_tests2.log)
//!
//! `launches_into_one_stream_from_several_threads_run_in_the_blocks_launch_order` and
//! `null_and_named_stream_launches_count_only_unfinished_children` compare the emulator's
//! order and counts with what the GPU happens to do; they are run on the GPU as observations,
//! not counted as GPU passes. All other tests are emulator-only by nature: they assert the
//! emulator's reports (misuse, faults, checkers, `emu-where`), the cdp1 profile (which has no
//! sm_90 GPU counterpart), `Config` limits, or the emulator's scheduling.

use crate::common;

use crate::common::{assert_has, assert_lacks, marked_line, Rng};
use deviceemu::prelude::*;
use deviceemu::{get_last_error, peek_at_last_error, with_config, BlockOrder, Config, DeviceRuntime, Error};

const SRC: &str = include_str!("device_runtime.rs");
const FILE: &str = "tests/it/scheduler/device_runtime.rs";

/// `tests/it/scheduler/device_runtime.rs:LINE` of the line that ends with `// @marker`.
fn at(marker: &str) -> String {
    format!("{FILE}:{}", marked_line(SRC, &format!("// @{marker}")))
}

fn cdp1() -> Config {
    Config::default().device_runtime(DeviceRuntime::Cdp1)
}

fn cdp2() -> Config {
    Config::default()
}

fn both_profiles() -> [Config; 2] {
    [cdp2(), cdp1()]
}

// ---------------------------------------------------------------------------------------------
// A child sees the parent's writes; the host sees the children's
// ---------------------------------------------------------------------------------------------

#[kernel]
fn add_one(data: &mut [u32]) {
    let i = (block_idx().x * block_dim().x + thread_idx().x) as usize;
    if i < data.len() {
        data[i] += 1;
    }
}

#[kernel]
fn fill_then_launch(data: &mut [u32]) {
    let i = (block_idx().x * block_dim().x + thread_idx().x) as usize;
    data[i] = i as u32 * 10;
    sync_threads();
    if thread_idx().x == 0 {
        let b = block_idx().x;
        // The child covers this block's part only.
        launch!(add_block<<<1, 64>>>(data, b)).unwrap();
    }
}

#[kernel]
fn add_block(data: &mut [u32], b: u32) {
    let i = (b * 64 + thread_idx().x) as usize;
    data[i] += 1;
}

#[test]
fn children_see_the_parents_writes_and_the_host_sees_the_childrens() {
    for config in both_profiles() {
        let mut data = DeviceBuffer::<u32>::zeroed(4 * 64).unwrap();
        with_config(config, || launch!(fill_then_launch<<<4, 64>>>(&mut data))).unwrap();
        let want: Vec<u32> = (0..256).map(|i| i * 10 + 1).collect();
        assert_eq!(data.to_vec().unwrap(), want);
    }
}

// ---------------------------------------------------------------------------------------------
// A recursive quicksort, as CUDA's cdpSimpleQuicksort: partition, two children per segment,
// a depth limit and a selection-sort fallback
// ---------------------------------------------------------------------------------------------

const QS_MAX_DEPTH: u32 = 16;
const QS_SELECTION: i32 = 32;

#[device]
fn selection_sort(data: &mut [u32], left: i32, right: i32) {
    let mut i = left;
    while i <= right {
        let mut min = data[i as usize];
        let mut min_at = i;
        let mut j = i + 1;
        while j <= right {
            if data[j as usize] < min {
                min = data[j as usize];
                min_at = j;
            }
            j += 1;
        }
        if min_at != i {
            data[min_at as usize] = data[i as usize];
            data[i as usize] = min;
        }
        i += 1;
    }
}

#[kernel]
fn quicksort(data: &mut [u32], left: i32, right: i32, depth: u32) {
    if depth >= QS_MAX_DEPTH || right - left <= QS_SELECTION {
        selection_sort(data, left, right);
        return;
    }
    let pivot = data[((left + right) / 2) as usize];
    let (mut l, mut r) = (left, right);
    while l <= r {
        while data[l as usize] < pivot {
            l += 1;
        }
        while data[r as usize] > pivot {
            r -= 1;
        }
        if l <= r {
            let t = data[l as usize];
            data[l as usize] = data[r as usize];
            data[r as usize] = t;
            l += 1;
            r -= 1;
        }
    }
    if left < r {
        let s = DeviceStream::non_blocking();
        launch!(quicksort<<<1, 1, 0, &s>>>(data, left, r, depth + 1)).unwrap();
    }
    if l < right {
        let s = DeviceStream::non_blocking();
        launch!(quicksort<<<1, 1, 0, &s>>>(data, l, right, depth + 1)).unwrap();
    }
}

#[test]
fn a_recursive_quicksort_sorts_like_the_cpu_in_both_profiles() {
    let mut rng = Rng::new(14);
    for config in both_profiles() {
        for n in [1usize, 33, 500, 4000] {
            let input: Vec<u32> = (0..n).map(|_| rng.below(1000) as u32).collect();
            let mut data = DeviceBuffer::from_slice(&input).unwrap();
            with_config(config.clone(), || launch!(quicksort<<<1, 1>>>(&mut data, 0, n as i32 - 1, 0))).unwrap();
            let mut want = input.clone();
            want.sort_unstable();
            assert_eq!(data.to_vec().unwrap(), want, "n = {n}, {:?}", config.get_device_runtime());
        }
    }
}

/// Sorted input drives the recursion to its depth limit: the selection-sort fallback at depth
/// 16 must finish the job.
#[test]
fn the_quicksort_depth_limit_falls_back_to_selection_sort() {
    for config in both_profiles() {
        // Many equal keys and a sawtooth: unbalanced partitions.
        let input: Vec<u32> = (0..3000u32).map(|i| (i % 7) * 1000 + (i / 7) % 3).collect();
        let mut data = DeviceBuffer::from_slice(&input).unwrap();
        with_config(config, || launch!(quicksort<<<1, 1>>>(&mut data, 0, 2999, 0))).unwrap();
        let mut want = input.clone();
        want.sort_unstable();
        assert_eq!(data.to_vec().unwrap(), want);
    }
}

// ---------------------------------------------------------------------------------------------
// A recursive subdivision: the Mariani-Silver adaptive Mandelbrot (as CUDA's
// cdpAdvancedQuicksort's sibling sample, Mandelbrot with dynamic parallelism)
// ---------------------------------------------------------------------------------------------

const MB_W: u32 = 128;
const MB_MAX_DWELL: u32 = 64;
const MB_MIN_SIZE: u32 = 8;
const MB_SUBDIV: u32 = 2;
const MB_MAX_DEPTH: u32 = 5;

#[device]
fn dwell(x: u32, y: u32) -> u32 {
    let cx = -2.0f32 + 3.0f32 * x as f32 / MB_W as f32;
    let cy = -1.5f32 + 3.0f32 * y as f32 / MB_W as f32;
    let (mut zx, mut zy) = (0.0f32, 0.0f32);
    let mut d = 0u32;
    while d < MB_MAX_DWELL && zx * zx + zy * zy < 4.0 {
        let t = zx * zx - zy * zy + cx;
        zy = 2.0 * zx * zy + cy;
        zx = t;
        d += 1;
    }
    d
}

/// One block per square region: the block computes the dwell of the region's border; a
/// uniform border fills the region, otherwise thread 0 subdivides it into children (or, small
/// or deep enough, every pixel is computed).
#[kernel]
fn mandelbrot(out: &mut [u32], x0: u32, y0: u32, size: u32, depth: u32) {
    let flags = shared_array![u32; 2];
    let t = thread_idx().x;
    let n = block_dim().x;
    if t == 0 {
        flags[0] = dwell(x0, y0);
        flags[1] = 1;
    }
    sync_threads();
    let first = flags[0];
    let mut p = t;
    while p < 4 * size {
        let (x, y) = match p / size {
            0 => (x0 + p % size, y0),
            1 => (x0 + p % size, y0 + size - 1),
            2 => (x0, y0 + p % size),
            _ => (x0 + size - 1, y0 + p % size),
        };
        if dwell(x, y) != first {
            flags[1] = 0;
        }
        p += n;
    }
    sync_threads();
    let uniform = flags[1] == 1;
    if uniform {
        let mut p = t;
        while p < size * size {
            out[((y0 + p / size) * MB_W + x0 + p % size) as usize] = first;
            p += n;
        }
    } else if size <= MB_MIN_SIZE || depth >= MB_MAX_DEPTH {
        let mut p = t;
        while p < size * size {
            let (x, y) = (x0 + p % size, y0 + p / size);
            out[(y * MB_W + x) as usize] = dwell(x, y);
            p += n;
        }
    } else if t == 0 {
        let half = size / MB_SUBDIV;
        let mut q = 0;
        while q < MB_SUBDIV * MB_SUBDIV {
            let (cx, cy) = (x0 + (q % MB_SUBDIV) * half, y0 + (q / MB_SUBDIV) * half);
            launch!(mandelbrot<<<1, 32>>>(out, cx, cy, half, depth + 1)).unwrap();
            q += 1;
        }
    }
}

fn dwell_cpu(x: u32, y: u32) -> u32 {
    let cx = -2.0f32 + 3.0f32 * x as f32 / MB_W as f32;
    let cy = -1.5f32 + 3.0f32 * y as f32 / MB_W as f32;
    let (mut zx, mut zy) = (0.0f32, 0.0f32);
    let mut d = 0u32;
    while d < MB_MAX_DWELL && zx * zx + zy * zy < 4.0 {
        let t = zx * zx - zy * zy + cx;
        zy = 2.0 * zx * zy + cy;
        zx = t;
        d += 1;
    }
    d
}

static CPU_SUBDIVISIONS: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(0);

/// The same subdivision, recursively on the CPU.
fn mandelbrot_cpu(out: &mut [u32], x0: u32, y0: u32, size: u32, depth: u32) {
    let first = dwell_cpu(x0, y0);
    let border = (0..size).flat_map(|i| [(x0 + i, y0), (x0 + i, y0 + size - 1), (x0, y0 + i), (x0 + size - 1, y0 + i)]);
    let uniform = border.into_iter().all(|(x, y)| dwell_cpu(x, y) == first);
    if uniform {
        for y in y0..y0 + size {
            for x in x0..x0 + size {
                out[(y * MB_W + x) as usize] = first;
            }
        }
    } else if size <= MB_MIN_SIZE || depth >= MB_MAX_DEPTH {
        for y in y0..y0 + size {
            for x in x0..x0 + size {
                out[(y * MB_W + x) as usize] = dwell_cpu(x, y);
            }
        }
    } else {
        CPU_SUBDIVISIONS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        let half = size / MB_SUBDIV;
        for q in 0..MB_SUBDIV * MB_SUBDIV {
            mandelbrot_cpu(out, x0 + (q % MB_SUBDIV) * half, y0 + (q / MB_SUBDIV) * half, half, depth + 1);
        }
    }
}

#[test]
fn an_adaptive_mandelbrot_subdivides_like_the_cpu_in_both_profiles() {
    let mut want = vec![u32::MAX; (MB_W * MB_W) as usize];
    mandelbrot_cpu(&mut want, 0, 0, MB_W, 0);
    assert!(want.iter().all(|&d| d != u32::MAX));
    // The image is not trivial: the recursion subdivided more than one level.
    assert!(CPU_SUBDIVISIONS.load(std::sync::atomic::Ordering::Relaxed) > 4);
    for config in both_profiles() {
        let mut out = DeviceBuffer::from_slice(&vec![u32::MAX; (MB_W * MB_W) as usize]).unwrap();
        with_config(config, || launch!(mandelbrot<<<1, 32>>>(&mut out, 0, 0, MB_W, 0))).unwrap();
        assert_eq!(out.to_vec().unwrap(), want);
    }
}

// ---------------------------------------------------------------------------------------------
// The order of child launches into one stream from several threads of a block
// ---------------------------------------------------------------------------------------------

#[kernel]
fn log_child(ran: &mut [u32], tag: u32) {
    let k = ran.atomic_add(0, 1) as usize;
    ran[k + 1] = tag;
}

/// Each thread launches a child into the block's null stream (and, with `barrier`, a second
/// one after a `sync_threads`); `launched` records the order in which the launches happened.
#[kernel]
fn launch_in_order(launched: &mut [u32], ran: &mut [u32], barrier: bool) {
    let t = thread_idx().x;
    let k = launched.atomic_add(0, 1) as usize;
    launched[k + 1] = t;
    launch!(log_child<<<1, 1>>>(ran, t)).unwrap();
    if barrier {
        sync_threads();
        let k = launched.atomic_add(0, 1) as usize;
        launched[k + 1] = 100 + t;
        launch!(log_child<<<1, 1>>>(ran, 100 + t)).unwrap();
    }
}

#[test]
fn launches_into_one_stream_from_several_threads_run_in_the_blocks_launch_order() {
    for seed in [None, Some(1), Some(7), Some(42)] {
        for barrier in [false, true] {
            let config = match seed {
                Some(s) => Config::default().seed(s),
                None => Config::default(),
            };
            let n = 16u32;
            let len = 1 + 2 * n as usize;
            let mut launched = DeviceBuffer::<u32>::zeroed(len).unwrap();
            let mut ran = DeviceBuffer::<u32>::zeroed(len).unwrap();
            with_config(config, || launch!(launch_in_order<<<1, n>>>(&mut launched, &mut ran, barrier))).unwrap();
            let (launched, ran) = (launched.to_vec().unwrap(), ran.to_vec().unwrap());
            let count = if barrier { 2 * n } else { n };
            assert_eq!(launched[0], count);
            assert_eq!(ran[..=count as usize], launched[..=count as usize], "seed {seed:?}, barrier {barrier}");
            if barrier {
                // Every launch before the barrier ran before every launch after it.
                assert!(ran[1..=n as usize].iter().all(|&t| t < 100), "{ran:?}");
                assert!(ran[n as usize + 1..=count as usize].iter().all(|&t| t >= 100), "{ran:?}");
            }
            let mut tags: Vec<u32> = ran[1..=count as usize].to_vec();
            tags.sort_unstable();
            let mut want: Vec<u32> = (0..n).collect();
            if barrier {
                want.extend((0..n).map(|t| 100 + t));
            }
            assert_eq!(tags, want);
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Misuse that seed 004 calls undefined, reported with kernel, block, thread and line
// ---------------------------------------------------------------------------------------------

fn code(r: Result<(), Error>) -> i32 {
    r.err().map_or(0, |e| e.code())
}

/// Thread 0 of each block launches `add_block` into a named stream: its own block's
/// (`bad` = false), or the one block 0 created and stored in memory (`bad`).
#[kernel]
fn share_stream(streams: &mut [DeviceStream], data: &mut [u32], codes: &mut [i32], bad: bool) {
    let b = block_idx().x as usize;
    if thread_idx().x == 0 {
        if b == 0 || !bad {
            streams[b] = DeviceStream::non_blocking(); // @stream_created
        }
        let s = if bad { streams[0] } else { streams[b] };
        codes[b] = code(launch!(add_block<<<1, 64, 0, &s>>>(data, b as u32))); // @stream_used
    }
}

#[test]
fn a_stream_used_by_a_block_that_did_not_create_it_is_reported() {
    let serial = Config::default().blocks(BlockOrder::Serial);
    // Without the bug: each block uses its own stream.
    let mut streams = DeviceBuffer::<DeviceStream>::zeroed(2).unwrap();
    let mut data = DeviceBuffer::<u32>::zeroed(128).unwrap();
    let mut codes = DeviceBuffer::<i32>::zeroed(2).unwrap();
    with_config(serial.clone(), || launch!(share_stream<<<2, 32>>>(&mut streams, &mut data, &mut codes, false)))
        .unwrap();
    assert_eq!(codes.to_vec().unwrap(), vec![0, 0]);
    assert_eq!(data.to_vec().unwrap(), vec![1; 128]);
    // With it: block 1 uses block 0's stream.
    let mut data = DeviceBuffer::<u32>::zeroed(128).unwrap();
    let e = with_config(serial, || launch!(share_stream<<<2, 32>>>(&mut streams, &mut data, &mut codes, true)))
        .unwrap_err();
    assert_eq!(e.code(), 719);
    assert_eq!(codes.to_vec().unwrap(), vec![0, 400]);
    let text = e.to_string();
    assert_has(&text, "Device runtime error: a device-side launch! was given a stream created by another block");
    assert_has(&text, &format!("at share_stream in {}", at("stream_used")));
    assert_has(&text, "by thread (0,0,0) in block (1,0,0)");
    assert_has(&text, &format!("created by thread (0,0,0) in block (0,0,0) at {}", at("stream_created")));
    // Block 1's child did not run; block 0's did.
    let d = data.to_vec().unwrap();
    assert_eq!(&d[..64], &[1; 64][..]);
    assert_eq!(&d[64..], &[0; 64][..]);
}

/// A stream handle read from zeroed memory: no thread created it.
#[kernel]
fn zero_stream(streams: &[DeviceStream], data: &mut [u32], codes: &mut [i32]) {
    let s = streams[0];
    codes[0] = code(launch!(add_block<<<1, 64, 0, &s>>>(data, 0)));
}

#[test]
fn a_stream_no_thread_created_is_reported() {
    let streams = DeviceBuffer::<DeviceStream>::zeroed(1).unwrap();
    let mut data = DeviceBuffer::<u32>::zeroed(64).unwrap();
    let mut codes = DeviceBuffer::<i32>::zeroed(1).unwrap();
    let e = launch!(zero_stream<<<1, 1>>>(&streams, &mut data, &mut codes)).unwrap_err();
    assert_eq!(codes.to_vec().unwrap(), vec![400]);
    assert_has(&e.to_string(), "was given a stream handle that no thread created");
}

/// The parent records an event and passes it to a child (`bad`), which waits for it: an event
/// used across grids. Without the bug the child makes its own.
#[kernel(host_only)]
fn pass_event(codes: &mut [i32], bad: bool) {
    let s = DeviceStream::non_blocking();
    let ev = DeviceEvent::without_timing();
    codes[0] = code(ev.record(&s));
    codes[1] = code(launch!(wait_child<<<1, 1, 0, &s>>>(codes, ev, bad)));
}

// Uses the device runtime's streams and events (or a host static): the emulator only.
#[kernel(host_only)]
fn wait_child(codes: &mut [i32], parent_event: DeviceEvent, bad: bool) {
    let s = DeviceStream::non_blocking();
    let ev = if bad { parent_event } else { DeviceEvent::without_timing() };
    if !bad {
        codes[2] = code(ev.record(&s));
    }
    codes[3] = code(s.wait_event(&ev)); // @event_wait
}

#[test]
fn an_event_used_across_grids_is_reported() {
    let mut codes = DeviceBuffer::<i32>::from_slice(&[9; 4]).unwrap();
    launch!(pass_event<<<1, 1>>>(&mut codes, false)).unwrap();
    assert_eq!(codes.to_vec().unwrap(), vec![0, 0, 0, 0]);
    let mut codes = DeviceBuffer::<i32>::from_slice(&[9; 4]).unwrap();
    let e = launch!(pass_event<<<1, 1>>>(&mut codes, true)).unwrap_err();
    assert_eq!(e.code(), 719);
    assert_eq!(codes.to_vec().unwrap(), vec![0, 0, 9, 400]);
    let text = e.to_string();
    assert_has(&text, "Device runtime error: DeviceStream::wait_event was given an event created by another grid");
    assert_has(&text, &format!("in {}", at("event_wait")));
    // The report names the child and the thread and block that launched it.
    assert_has(
        &text,
        "wait_child (a child grid, depth 1, launched by thread (0,0,0) in block (0,0,0) of kernel pass_event",
    );
}

/// Block 0 creates an event and stores it; block 1 records it (`bad`) or its own.
// Uses the device runtime's streams and events (or a host static): the emulator only.
#[kernel(host_only)]
fn share_event(events: &mut [DeviceEvent], codes: &mut [i32], bad: bool) {
    let b = block_idx().x as usize;
    if b == 0 || !bad {
        events[b] = DeviceEvent::without_timing();
    }
    let ev = if bad { events[0] } else { events[b] };
    let s = DeviceStream::non_blocking();
    codes[b] = code(ev.record(&s));
}

#[test]
fn an_event_used_by_a_block_that_did_not_create_it_is_reported() {
    let serial = Config::default().blocks(BlockOrder::Serial);
    let mut events = DeviceBuffer::<DeviceEvent>::zeroed(2).unwrap();
    let mut codes = DeviceBuffer::<i32>::zeroed(2).unwrap();
    with_config(serial.clone(), || launch!(share_event<<<2, 1>>>(&mut events, &mut codes, false))).unwrap();
    assert_eq!(codes.to_vec().unwrap(), vec![0, 0]);
    let e = with_config(serial, || launch!(share_event<<<2, 1>>>(&mut events, &mut codes, true))).unwrap_err();
    assert_eq!(codes.to_vec().unwrap(), vec![0, 400]);
    assert_has(&e.to_string(), "DeviceEvent::record was given an event created by another block");
}

// ---------------------------------------------------------------------------------------------
// device_synchronize() in a kernel: an error on sm_90, the legacy semantics in cdp1
// ---------------------------------------------------------------------------------------------

#[kernel]
fn write_tag(data: &mut [u32], i: u32, v: u32) {
    data[i as usize] = v;
}

/// Threads 0..4 launch a child each; after a barrier, thread 0 alone (divergent code) calls
/// `device_synchronize()` and sums what the children wrote.
#[kernel]
fn sync_children(data: &mut [u32], out: &mut [i32]) {
    let t = thread_idx().x;
    if t < 4 {
        launch!(write_tag<<<1, 1>>>(data, t, t + 1)).unwrap();
    }
    sync_threads();
    if t == 0 {
        out[0] = code(device_synchronize()); // @devsync
        out[1] = (data[0] + data[1] + data[2] + data[3]) as i32;
        // A second call finds nothing left to wait for.
        out[2] = code(device_synchronize());
    }
}

#[test]
fn device_synchronize_in_a_kernel_is_an_error_on_sm_90() {
    let mut data = DeviceBuffer::<u32>::zeroed(4).unwrap();
    let mut out = DeviceBuffer::<i32>::zeroed(3).unwrap();
    let r = with_config(cdp2(), || launch!(sync_children<<<1, 8>>>(&mut data, &mut out)));
    if on_gpu() {
        // The GPU build's device_synchronize() returns 801 at once (sm_90 has none), with no
        // report; the children ran after the grid.
        r.unwrap();
        assert_eq!(out.to_vec().unwrap()[0], 801);
        assert_eq!(out.to_vec().unwrap()[2], 801);
        assert_eq!(data.to_vec().unwrap(), vec![1, 2, 3, 4]);
        return;
    }
    let e = r.unwrap_err();
    assert_eq!(e.code(), 719);
    assert_eq!(out.to_vec().unwrap()[0], 801);
    let text = e.to_string();
    assert_has(&text, "Device runtime error: device_synchronize() in a kernel is not available on sm_90 (CDP2)");
    assert_has(&text, &format!("at sync_children in {}", at("devsync")));
    assert_has(&text, "DeviceStream::tail_launch()");
    assert_has(&text, "EMU_DEVICE_RUNTIME=cdp1");
    // The children still ran, after the grid.
    assert_eq!(data.to_vec().unwrap(), vec![1, 2, 3, 4]);
}

#[test]
fn device_synchronize_in_cdp1_waits_for_what_any_thread_of_the_block_launched() {
    let mut data = DeviceBuffer::<u32>::zeroed(4).unwrap();
    let mut out = DeviceBuffer::<i32>::zeroed(3).unwrap();
    with_config(cdp1(), || launch!(sync_children<<<1, 8>>>(&mut data, &mut out))).unwrap();
    assert_eq!(out.to_vec().unwrap(), vec![0, 10, 0]);
}

#[kernel]
fn write_tag_in_block_0(data: &mut [u32], i: u32, v: u32) {
    if block_idx().x == 0 && thread_idx().x == 0 {
        data[i as usize] = v;
    }
}

/// Many blocks on the worker pool, every thread 0 waiting for its child: the children run on
/// device-runtime threads, so no worker waits for work only it could do.
#[kernel]
fn many_waiters(data: &mut [u32], out: &mut [u32]) {
    let b = block_idx().x;
    if thread_idx().x % 2 == 0 {
        if thread_idx().x == 0 {
            // A child of several blocks: its blocks must not wait for a busy worker.
            launch!(write_tag_in_block_0<<<4, 8>>>(data, b, b + 1)).unwrap();
        }
        device_synchronize().unwrap();
        if thread_idx().x == 0 {
            out[b as usize] = data[b as usize];
        }
    }
}

#[test]
fn parents_waiting_for_children_do_not_hang() {
    let blocks = 64u32;
    let got = common::on_new_thread(120, move || {
        let mut data = DeviceBuffer::<u32>::zeroed(blocks as usize).unwrap();
        let mut out = DeviceBuffer::<u32>::zeroed(blocks as usize).unwrap();
        with_config(cdp1(), || launch!(many_waiters<<<blocks, 32>>>(&mut data, &mut out))).unwrap();
        out.to_vec().unwrap()
    });
    assert_eq!(got, (1..=blocks).collect::<Vec<_>>());
}

// ---------------------------------------------------------------------------------------------
// Limits: the nesting depth (cdp1) and the pending-launch limit, by stream kind (p7)
// ---------------------------------------------------------------------------------------------

#[kernel]
fn deep(reached: &mut [u32], codes: &mut [u32], target: u32, depth: u32) {
    reached.atomic_max(0, depth);
    if depth < target {
        if let Err(e) = launch!(deep<<<1, 1>>>(reached, codes, target, depth + 1)) {
            codes[0] = e.code() as u32;
            codes[1] = depth + 1;
        }
    }
}

#[test]
fn cdp1_refuses_a_launch_deeper_than_24_levels_with_65() {
    let mut reached = DeviceBuffer::<u32>::zeroed(1).unwrap();
    let mut codes = DeviceBuffer::<u32>::zeroed(2).unwrap();
    with_config(cdp1(), || launch!(deep<<<1, 1>>>(&mut reached, &mut codes, 30, 0))).unwrap();
    assert_eq!(reached.to_vec().unwrap(), vec![24]);
    assert_eq!(codes.to_vec().unwrap(), vec![65, 25]);
}

#[test]
fn sm_90_has_no_nesting_depth_error_at_depth_200() {
    let mut reached = DeviceBuffer::<u32>::zeroed(1).unwrap();
    let mut codes = DeviceBuffer::<u32>::zeroed(2).unwrap();
    with_config(cdp2(), || launch!(deep<<<1, 1>>>(&mut reached, &mut codes, 200, 0))).unwrap();
    assert_eq!(reached.to_vec().unwrap(), vec![200]);
    assert_eq!(codes.to_vec().unwrap(), vec![0, 0]);
}

#[kernel]
fn count_child(counts: &mut [u32]) {
    counts.atomic_add(0, 1);
}

/// One thread launches `n` children into `kind` (0 null, 1 named, 2 tail, 3 fire-and-forget);
/// `stats` gets the first failing index (or u32::MAX), the failures, the first code, and what
/// the kernel's `get_last_error()` / `peek_at_last_error()` said after the first failure.
#[kernel]
fn many_launches(counts: &mut [u32], stats: &mut [u32], n: u32, kind: u32) {
    let named = DeviceStream::non_blocking();
    let s = match kind {
        1 => named,
        2 => DeviceStream::tail_launch(),
        _ => DeviceStream::fire_and_forget(),
    };
    stats[0] = u32::MAX;
    let mut i = 0;
    while i < n {
        let r = if kind == 0 {
            launch!(count_child<<<1, 1>>>(counts))
        } else {
            launch!(count_child<<<1, 1, 0, &s>>>(counts))
        };
        if let Err(e) = r {
            if stats[1] == 0 {
                stats[0] = i;
                stats[2] = e.code() as u32;
                stats[3] = code(peek_at_last_error()) as u32;
                stats[4] = code(get_last_error()) as u32;
                stats[5] = code(get_last_error()) as u32;
            }
            stats[1] += 1;
        }
        i += 1;
    }
}

fn launches(config: Config, n: u32, kind: u32) -> (u32, Vec<u32>) {
    let mut counts = DeviceBuffer::<u32>::zeroed(1).unwrap();
    let mut stats = DeviceBuffer::<u32>::zeroed(6).unwrap();
    with_config(config, || launch!(many_launches<<<1, 1>>>(&mut counts, &mut stats, n, kind))).unwrap();
    (counts.to_vec().unwrap()[0], stats.to_vec().unwrap())
}

#[test]
fn the_2049th_tail_launch_fails_with_69_and_the_grid_goes_on() {
    // The H200's default (p7): 3048 tail launches, index 2048 is the first failure.
    let (ran, stats) = launches(Config::default(), 3048, 2);
    assert_eq!(ran, 2048);
    assert_eq!(stats, vec![2048, 1000, 69, 69, 69, 0]);
    // A limit set through `Config`.
    let (ran, stats) = launches(Config::default().pending_launch_limit(100), 150, 2);
    assert_eq!(ran, 100);
    assert_eq!(&stats[..3], &[100, 50, 69]);
}

#[test]
fn null_and_named_stream_launches_count_only_unfinished_children() {
    // 3048 launches from one thread pass the 2048 limit: pending children are run first (p7).
    for kind in [0, 1] {
        let (ran, stats) = launches(Config::default(), 3048, kind);
        assert_eq!(ran, 3048, "kind {kind}");
        assert_eq!(stats[..2], [u32::MAX, 0], "kind {kind}");
    }
}

#[test]
fn fire_and_forget_launches_never_fail() {
    let (ran, stats) = launches(Config::default().pending_launch_limit(10), 500, 3);
    assert_eq!(ran, 500);
    assert_eq!(stats[..2], [u32::MAX, 0]);
}

/// Block 0 fills the pending count; block 1's null-stream launch then fails with 69, since
/// the unfinished children are not its own.
#[kernel]
fn fill_pending(counts: &mut [u32], codes: &mut [u32]) {
    let b = block_idx().x;
    let tries = if b == 0 { 4 } else { 1 };
    let mut i = 0;
    while i < tries {
        if let Err(e) = launch!(count_child<<<1, 1>>>(counts)) {
            codes[b as usize] = e.code() as u32;
        }
        i += 1;
    }
}

#[test]
fn a_null_stream_launch_fails_with_69_when_other_blocks_hold_the_pending_launches() {
    let mut counts = DeviceBuffer::<u32>::zeroed(1).unwrap();
    let mut codes = DeviceBuffer::<u32>::zeroed(2).unwrap();
    let config = Config::default().pending_launch_limit(4).blocks(BlockOrder::Serial);
    with_config(config, || launch!(fill_pending<<<2, 1>>>(&mut counts, &mut codes))).unwrap();
    assert_eq!(codes.to_vec().unwrap(), vec![0, 69]);
    assert_eq!(counts.to_vec().unwrap(), vec![4]);
}

// ---------------------------------------------------------------------------------------------
// Checkers and debuggers see child grids
// ---------------------------------------------------------------------------------------------

#[kernel]
fn oob_child(data: &mut [u32]) {
    let i = data.len() + thread_idx().x as usize;
    data[i] = 1; // @oob
}

#[kernel]
fn oob_parent(data: &mut [u32]) {
    if block_idx().x == 1 && thread_idx().x == 3 {
        launch!(oob_child<<<1, 2>>>(data)).unwrap(); // @oob_launch
    }
}

#[test]
fn a_fault_in_a_child_names_the_child_and_its_parents_block_and_thread() {
    let mut data = DeviceBuffer::<u32>::zeroed(8).unwrap();
    let e = launch!(oob_parent<<<2, 4>>>(&mut data)).unwrap_err();
    assert_eq!(e.code(), 700);
    let text = e.to_string();
    assert_has(&text, "Invalid __global__ write of size 4 bytes");
    assert_has(&text, &format!("in {}", at("oob")));
    assert_has(
        &text,
        &format!(
            "oob_child (a child grid, depth 1, launched by thread (3,0,0) in block (1,0,0) of kernel oob_parent at {})",
            at("oob_launch")
        ),
    );
    // The next launch works.
    launch!(add_one<<<1, 8>>>(&mut data)).unwrap();
    assert_eq!(data.to_vec().unwrap(), vec![1; 8]);
}

#[test]
fn racecheck_and_initcheck_see_child_grids() {
    // A child that reads memory nothing wrote: initcheck reports it in the child.
    let mut data = DeviceBuffer::<u32>::uninit(64).unwrap();
    let config = Config::default().checks(deviceemu::Checks::all());
    let e = with_config(config.clone(), || launch!(uninit_parent<<<1, 1>>>(&mut data))).unwrap_err();
    let text = e.to_string();
    assert_has(&text, "Uninitialized __global__ memory read");
    assert_has(&text, "add_one (a child grid, depth 1");
    // Written by the parent before the launch: nothing to report.
    let mut data = DeviceBuffer::<u32>::uninit(64).unwrap();
    with_config(config, || launch!(init_then_child<<<1, 64>>>(&mut data))).unwrap();
    assert_eq!(data.to_vec().unwrap(), vec![8; 64]);
}

#[kernel]
fn uninit_parent(data: &mut [u32]) {
    launch!(add_one<<<1, 64>>>(data)).unwrap();
}

#[kernel]
fn init_then_child(data: &mut [u32]) {
    data[thread_idx().x as usize] = 7;
    sync_threads();
    if thread_idx().x == 0 {
        launch!(add_one<<<1, 64>>>(data)).unwrap();
    }
}

static WHERE: std::sync::Mutex<Vec<String>> = std::sync::Mutex::new(Vec::new());

// Uses the device runtime's streams and events (or a host static): the emulator only.
#[kernel(host_only)]
fn where_grandchild() {
    WHERE.lock().unwrap().push(deviceemu::__private::debugger_where());
}

#[kernel(host_only)]
fn where_child() {
    launch!(where_grandchild<<<1, 1>>>()).unwrap(); // @where_child
}

#[kernel(host_only)]
fn where_parent() {
    if block_idx().x == 2 {
        launch!(where_child<<<1, 1>>>()).unwrap(); // @where_parent
    }
}

#[test]
fn emu_where_shows_the_nesting() {
    launch!(where_parent<<<3, 1>>>()).unwrap();
    let w = WHERE.lock().unwrap().clone();
    assert_eq!(w.len(), 1);
    let w = &w[0];
    assert_has(w, "kernel where_grandchild, block (0,0,0), thread (0,0,0)");
    assert_has(
        w,
        &format!("launched (depth 2) by kernel where_child, block (0,0,0), thread (0,0,0), at {}", at("where_child")),
    );
    assert_has(
        w,
        &format!("launched (depth 1) by kernel where_parent, block (2,0,0), thread (0,0,0), at {}", at("where_parent")),
    );
    assert_lacks(w, "depth 3");
}

// ---------------------------------------------------------------------------------------------
// Launches from `#[device]` helpers, streams across grids, the threads schedule
// ---------------------------------------------------------------------------------------------

/// A helper that launches (on the GPU too).
#[device]
fn spawn_add(data: &mut [u32], b: u32, s: DeviceStream) -> i32 {
    code(launch!(add_block<<<1, 64, 0, &s>>>(data, b)))
}

/// Calls a launching helper.
#[kernel]
fn helper_launches(data: &mut [u32], codes: &mut [i32]) {
    if thread_idx().x == 0 {
        let b = block_idx().x;
        codes[b as usize] = spawn_add(data, b, DeviceStream::fire_and_forget());
    }
}

#[test]
fn a_device_helper_launches_children() {
    let mut data = DeviceBuffer::<u32>::zeroed(3 * 64).unwrap();
    let mut codes = DeviceBuffer::<i32>::from_slice(&[9; 3]).unwrap();
    launch!(helper_launches<<<3, 8>>>(&mut data, &mut codes)).unwrap();
    assert_eq!(codes.to_vec().unwrap(), vec![0; 3]);
    assert_eq!(data.to_vec().unwrap(), vec![1; 3 * 64]);
}

/// The parent passes its stream to the child (`bad`), which launches into it.
#[kernel]
fn pass_stream(data: &mut [u32], codes: &mut [i32], bad: bool) {
    let s = DeviceStream::non_blocking();
    codes[0] = code(launch!(stream_child<<<1, 1, 0, &s>>>(data, codes, s, bad)));
}

#[kernel]
fn stream_child(data: &mut [u32], codes: &mut [i32], parent_stream: DeviceStream, bad: bool) {
    let s = if bad { parent_stream } else { DeviceStream::non_blocking() };
    codes[1] = code(launch!(add_block<<<1, 64, 0, &s>>>(data, 0))); // @stream_child
}

#[test]
fn a_stream_passed_to_a_child_grid_is_reported() {
    let mut data = DeviceBuffer::<u32>::zeroed(64).unwrap();
    let mut codes = DeviceBuffer::<i32>::from_slice(&[9; 2]).unwrap();
    launch!(pass_stream<<<1, 1>>>(&mut data, &mut codes, false)).unwrap();
    assert_eq!(codes.to_vec().unwrap(), vec![0, 0]);
    assert_eq!(data.to_vec().unwrap(), vec![1; 64]);
    let e = launch!(pass_stream<<<1, 1>>>(&mut data, &mut codes, true)).unwrap_err();
    assert_eq!(codes.to_vec().unwrap(), vec![0, 400]);
    let text = e.to_string();
    assert_has(&text, "a device-side launch! was given a stream created by another grid");
    assert_has(
        &text,
        "at stream_child (a child grid, depth 1, launched by thread (0,0,0) in block (0,0,0) of kernel pass_stream",
    );
    assert_has(&text, &format!("in {}", at("stream_child")));
    // The grandchild did not run.
    assert_eq!(data.to_vec().unwrap(), vec![1; 64]);
}

#[test]
fn device_side_launches_work_with_an_os_thread_per_gpu_thread_and_under_the_checkers() {
    let configs = [
        Config::default().schedule(deviceemu::Schedule::Threads),
        cdp1().schedule(deviceemu::Schedule::Threads),
        Config::default().checks(deviceemu::Checks::all()),
        cdp1().checks(deviceemu::Checks::all()).blocks(BlockOrder::Serial),
    ];
    let mut rng = Rng::new(5);
    for config in configs {
        let input: Vec<u32> = (0..300).map(|_| rng.below(50) as u32).collect();
        let mut data = DeviceBuffer::from_slice(&input).unwrap();
        with_config(config.clone(), || launch!(quicksort<<<1, 1>>>(&mut data, 0, 299, 0))).unwrap();
        let mut want = input;
        want.sort_unstable();
        assert_eq!(data.to_vec().unwrap(), want, "{config:?}");
        let mut d = DeviceBuffer::<u32>::zeroed(4).unwrap();
        let mut out = DeviceBuffer::<i32>::zeroed(3).unwrap();
        let r = with_config(config.clone(), || launch!(sync_children<<<1, 8>>>(&mut d, &mut out)));
        match config.get_device_runtime() {
            DeviceRuntime::Cdp1 => {
                r.unwrap();
                assert_eq!(out.to_vec().unwrap(), vec![0, 10, 0]);
            }
            DeviceRuntime::Cdp2 => assert_eq!(r.unwrap_err().code(), 719),
        }
    }
}

/// cdp1: each level launches the next and waits for it with `device_synchronize()`, then
/// adds one to what the child wrote: the waits nest, each on a thread of its own.
#[kernel]
fn sync_chain(data: &mut [u32], depth: u32, max: u32) {
    if depth == max {
        data[depth as usize] = 1;
        return;
    }
    launch!(sync_chain<<<1, 1>>>(data, depth + 1, max)).unwrap();
    device_synchronize().unwrap();
    data[depth as usize] = data[depth as usize + 1] + 1;
}

#[test]
fn nested_device_synchronize_calls_in_cdp1_do_not_hang() {
    for config in [cdp1(), cdp1().blocks(BlockOrder::Serial), cdp1().schedule(deviceemu::Schedule::Threads)] {
        let got = common::on_new_thread(120, move || {
            let mut data = DeviceBuffer::<u32>::zeroed(21).unwrap();
            with_config(config, || launch!(sync_chain<<<1, 1>>>(&mut data, 0, 20))).unwrap();
            data.to_vec().unwrap()
        });
        assert_eq!(got, (1..=21).rev().collect::<Vec<u32>>());
    }
}

/// Block 0's thread 0 tail-launches `snapshot` first; afterwards every block writes, and block
/// 1 launches a null-stream child that writes too. The tail launch runs after the grid and
/// its other children, so it sees all of it (as on the H200, p7: a tail-launched child saw a
/// write made 200 µs after its launch).
#[kernel]
fn tail_after_all(data: &mut [u32], out: &mut [u32]) {
    let b = block_idx().x;
    if b == 0 && thread_idx().x == 0 {
        launch!(snapshot<<<1, 4, 0, &DeviceStream::tail_launch()>>>(data, out)).unwrap();
    }
    data[b as usize] = 10 + b;
    if b == 1 {
        launch!(write_tag<<<1, 1>>>(data, 3, 99)).unwrap();
    }
}

#[kernel]
fn snapshot(data: &[u32], out: &mut [u32]) {
    let t = thread_idx().x as usize;
    out[t] = data[t];
}

#[test]
fn a_tail_launch_runs_after_the_grid_and_its_other_children() {
    for config in both_profiles() {
        let mut data = DeviceBuffer::<u32>::zeroed(4).unwrap();
        let mut out = DeviceBuffer::<u32>::zeroed(4).unwrap();
        with_config(config, || launch!(tail_after_all<<<3, 1>>>(&mut data, &mut out))).unwrap();
        assert_eq!(out.to_vec().unwrap(), vec![10, 11, 12, 99]);
    }
}

// ---------------------------------------------------------------------------------------------
// The GPU: kernels that launch kernels run there, linked with the device runtime
// ---------------------------------------------------------------------------------------------

/// Whether the tests' configurations (`Config::default()`) run on the GPU.
fn on_gpu() -> bool {
    Config::default().get_target() == deviceemu::Target::Gpu
}

#[test]
fn a_kernel_that_launches_kernels_runs_on_the_gpu_target() {
    let mut data = DeviceBuffer::from_slice(&[3u32, 1, 2, 9, 0, 5]).unwrap();
    let gpu = Config::default().target(deviceemu::Target::Gpu);
    let r = with_config(gpu, || launch!(quicksort<<<1, 1>>>(&mut data, 0, 5, 0)));
    if on_gpu() {
        r.unwrap();
        assert_eq!(data.to_vec().unwrap(), vec![0, 1, 2, 3, 5, 9]);
    } else {
        // No GPU here: the same refusal as any kernel's, nothing about the device runtime.
        let e = r.unwrap_err();
        assert!(matches!(e.code(), 100 | 801), "{e}");
        assert_lacks(&e.to_string(), "dynamic parallelism");
        assert_eq!(data.to_vec().unwrap(), vec![3, 1, 2, 9, 0, 5]);
    }
}

/// The default pending-launch limit for tail launches (p7): the GPU test of the limit.
#[test]
fn the_2049th_tail_launch_fails_with_69_at_the_default_limit() {
    let (ran, stats) = launches(Config::default(), 3048, 2);
    assert_eq!(ran, 2048);
    assert_eq!(stats, vec![2048, 1000, 69, 69, 69, 0]);
}

/// One thread launches a child of 16 blocks over the whole buffer.
#[kernel]
fn launch_wide(data: &mut [u32]) {
    launch!(add_one<<<16, 16>>>(data)).unwrap();
}

/// Host launches made from rayon's workers, more than there are workers: each waits for its
/// children, whose blocks must then not need a worker (they would all be waiting).
#[test]
fn host_launches_from_every_rayon_worker_run_their_children() {
    use rayon::prelude::*;
    let tasks = 4 * rayon::current_num_threads();
    let ok = common::on_new_thread(60, move || {
        (0..tasks).into_par_iter().all(|_| {
            let mut data = DeviceBuffer::<u32>::zeroed(256).unwrap();
            launch!(launch_wide<<<1, 1>>>(&mut data)).unwrap();
            data.to_vec().unwrap() == vec![1; 256]
        })
    });
    assert!(ok);
}
