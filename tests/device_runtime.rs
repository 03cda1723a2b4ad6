//! The device runtime (dynamic parallelism), emulated: kernels that launch kernels.
//!
//! ARCHITECTURE.md, *The device runtime*, describes the model; tools/probes/RESULTS.md p7 has
//! the H200's answers the limits follow.

mod common;

use common::{assert_has, assert_lacks, marked_line, Rng};
use deviceemu::prelude::*;
use deviceemu::{get_last_error, peek_at_last_error, with_config, BlockOrder, Config, DeviceRuntime, Error};

const SRC: &str = include_str!("device_runtime.rs");
const FILE: &str = "tests/device_runtime.rs";

/// `tests/device_runtime.rs:LINE` of the line that ends with `// @marker`.
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
