//! Loop fission on the surface forms ported CUDA code takes (`emu-macros/src/fission/normalise.rs`,
//! issue 26), and the hazards of deep fission named by PoCL's kernel compiler documentation and
//! Meyer et al., "Barrier-aware loop fission" hazards (IWOCL 2023): barriers in loops whose
//! trip count is uniform only at run time, barriers under conditions fission cannot prove
//! uniform, threads that exit before a barrier, `break` out of a loop with barriers, and `for`
//! loops with per-thread bounds in region code.
//!
//! Each kernel runs on its default path and on the general path (`EMU_PATH=general`), and
//! both must agree with a plain Rust loop; each test also pins the path the default launch
//! takes, so that a hazard that should keep the general path fails here if fission ever
//! takes it.

// Kernels written as ported CUDA writes them: indexed loops, `IDX2!(2, a, 0)`, `tx >= 1 && tx < 7`.
#![allow(clippy::identity_op, clippy::needless_range_loop, clippy::manual_range_contains)]

use deviceemu::__private::last_path;
use deviceemu::prelude::*;
use deviceemu::{cg, with_config, Config, ExecPath};

/// Runs `launch` on the default path (returning that path and the output) and on the general
/// path, and checks both outputs against `want`.
fn both_paths<T: PartialEq + std::fmt::Debug>(want: &[T], mut launch: impl FnMut() -> Vec<T>) -> &'static str {
    let fast = launch();
    let path = last_path();
    let base = Config::from_env().unwrap();
    let general = with_config(base.path(ExecPath::General), &mut launch);
    assert_eq!(general, want, "the general path disagrees with the plain loop");
    assert_eq!(fast, want, "the default path ({path}) disagrees with the plain loop");
    path
}

fn inputs(n: usize) -> Vec<f32> {
    (0..n).map(|i| ((i * 7919) % 61) as f32 - 30.0).collect()
}

/// A plain block tree sum of 256-element blocks (the kernels' order of additions).
fn tree_sums(x: &[f32], block: usize) -> Vec<f32> {
    x.chunks(block)
        .map(|c| {
            let mut t = c.to_vec();
            t.resize(block, 0.0);
            let mut s = block / 2;
            while s > 0 {
                for i in 0..s {
                    t[i] += t[i + s];
                }
                s /= 2;
            }
            t[0]
        })
        .collect()
}

// ------------------------------------------------------------------ normalised forms

/// cuda-samples' style: a cooperative-groups block handle, `cta.sync()`, `thread_rank()`, a
/// `const` inside the body, a `let` without a value and a tuple `let`.
#[kernel]
fn cg_reduce(input: &[f32], out: &mut [f32]) {
    const B: u32 = 256;
    let cta = cg::this_thread_block();
    let sdata = shared_array![f32; 256];

    let tid: u32 = cta.thread_rank();
    let (i, n): (u32, u32) = (block_idx().x * B + tid, input.len() as u32);
    sdata[tid] = if i < n { input[i] } else { 0.0 };
    cta.sync();
    let mut s = B / 2;
    while s > 0 {
        if tid < s {
            sdata[tid] += sdata[tid + s];
        }
        cta.sync();
        s >>= 1;
    }
    if tid == 0 {
        out[block_idx().x] = sdata[0];
    }
}

#[test]
fn a_cooperative_groups_reduction_takes_regions() {
    let x = inputs(256 * 6 + 17);
    let want = tree_sums(&x, 256);
    let input = DeviceBuffer::from_slice(&x).unwrap();
    let path = both_paths(&want, || {
        let mut out = DeviceBuffer::<f32>::zeroed(want.len()).unwrap();
        launch!(cg_reduce<<<want.len() as u32, 256>>>(&input, &mut out)).unwrap();
        out.to_vec().unwrap()
    });
    assert_eq!(path, "regions");
}

/// A grid-stride `while` (it ends on the thread's own arithmetic), shadowing, and a
/// full-mask `sync_warp` between a warp's reads and writes (the Volta form of a
/// warp-synchronous tail).
#[kernel]
fn grid_stride_warp_tail(input: &[f32], out: &mut [f32]) {
    let sdata = shared_array![f32; 64];
    let tid = thread_idx().x as usize;
    let stride = (grid_dim().x * block_dim().x) as usize;
    let mut i = block_idx().x as usize * 64 + tid;
    let mut sum = 0.0f32;
    while i < input.len() {
        sum += input[i];
        i += stride;
    }
    let sum = sum * 1.0;
    sdata[tid] = sum;
    sync_threads();
    if tid < 32 {
        let mut v = sdata[tid];
        v += sdata[tid + 32];
        sync_warp(FULL_MASK);
        sdata[tid] = v;
        sync_warp(FULL_MASK);
        v += sdata[tid + 16];
        sync_warp(FULL_MASK);
        sdata[tid] = v;
        sync_warp(FULL_MASK);
    }
    sync_threads();
    if tid == 0 {
        let mut t = 0.0f32;
        for k in 0..16 {
            t += sdata[k];
        }
        out[block_idx().x as usize] = t;
    }
}

#[test]
fn a_grid_stride_loop_and_a_warp_tail_take_regions() {
    let x = inputs(64 * 4 * 3 + 5);
    let blocks = 4usize;
    let mut want = vec![0.0f32; blocks];
    for (b, w) in want.iter_mut().enumerate() {
        let mut s = [0.0f32; 64];
        for (t, st) in s.iter_mut().enumerate() {
            let mut i = b * 64 + t;
            while i < x.len() {
                *st += x[i];
                i += blocks * 64;
            }
        }
        let mut v: Vec<f32> = (0..32).map(|t| s[t] + s[t + 32]).collect();
        v = (0..32).map(|t| v[t] + if t < 16 { v[t + 16] } else { s[t + 16] }).collect();
        *w = v[..16].iter().fold(0.0, |a, b| a + b);
    }
    let input = DeviceBuffer::from_slice(&x).unwrap();
    let path = both_paths(&want, || {
        let mut out = DeviceBuffer::<f32>::zeroed(blocks).unwrap();
        launch!(grid_stride_warp_tail<<<blocks as u32, 64>>>(&input, &mut out)).unwrap();
        out.to_vec().unwrap()
    });
    assert_eq!(path, "regions");
}

// ------------------------------------------------------------------ hazards

/// A loop with a barrier whose condition reads shared memory, which thread 0 wrote before a
/// barrier: every thread reads the same value. Formerly kept on the general path (uniform
/// only at run time); the block computes the test right after the barrier, where no thread
/// code has stored shared memory since (`Program::shared_reads`), so it is uniform.
#[kernel]
fn loop_on_shared_flag(out: &mut [u32], rounds: u32) {
    let left = shared_array![u32; 1];
    let acc = shared_array![u32; 64];
    let tid = thread_idx().x as usize;
    acc[tid] = 0;
    if tid == 0 {
        left[0] = rounds;
    }
    sync_threads();
    while left[0] > 0 {
        acc[tid] += tid as u32 + left[0];
        sync_threads();
        if tid == 0 {
            left[0] -= 1;
        }
        sync_threads();
    }
    out[block_idx().x as usize * 64 + tid] = acc[tid];
}

#[test]
fn a_loop_on_a_shared_count_written_before_a_barrier_takes_regions() {
    let want: Vec<u32> = (0..2).flat_map(|_| (0..64u32).map(|t| (1..=5).map(|l| t + l).sum())).collect();
    let path = both_paths(&want, || {
        let mut out = DeviceBuffer::<u32>::zeroed(128).unwrap();
        launch!(loop_on_shared_flag<<<2, 64>>>(&mut out, 5)).unwrap();
        out.to_vec().unwrap()
    });
    assert_eq!(path, "regions");
}

/// Hazard: a barrier under a condition that depends on the thread (`tid < block_dim().x`,
/// true for all of them): legal, but not provably uniform.
#[kernel]
fn barrier_under_thread_condition(out: &mut [u32]) {
    let t = shared_array![u32; 32];
    let tid = thread_idx().x as usize;
    t[tid] = tid as u32 * 2;
    if tid < block_dim().x as usize {
        sync_threads();
    }
    out[tid] = t[(tid + 1) % 32];
}

#[test]
fn hazard_a_barrier_under_a_thread_condition_keeps_the_general_path() {
    let want: Vec<u32> = (0..32u32).map(|t| ((t + 1) % 32) * 2).collect();
    let path = both_paths(&want, || {
        let mut out = DeviceBuffer::<u32>::zeroed(32).unwrap();
        launch!(barrier_under_thread_condition<<<1, 32>>>(&mut out)).unwrap();
        out.to_vec().unwrap()
    });
    assert_eq!(path, "general");
}

/// Hazard: a loop with barriers whose trip count is computed per thread but equal for all
/// (`(n - tid + 63) / 64` rounds with `n` a multiple of 64): each thread enters it the same
/// number of times only at run time.
#[kernel]
fn per_thread_trip_count(input: &[u32], out: &mut [u32]) {
    let t = shared_array![u32; 64];
    let tid = thread_idx().x as usize;
    let mut i = tid;
    let mut sum = 0u32;
    while i < input.len() {
        t[tid] = input[i];
        sync_threads();
        sum += t[(tid + 1) % 64];
        sync_threads();
        i += 64;
    }
    out[tid] = sum;
}

#[test]
fn hazard_a_barrier_loop_with_a_per_thread_trip_count_keeps_the_general_path() {
    let x: Vec<u32> = (0..256u32).map(|i| i * 3 + 1).collect();
    let want: Vec<u32> = (0..64usize).map(|t| (0..4).map(|r| x[r * 64 + (t + 1) % 64]).sum()).collect();
    let input = DeviceBuffer::from_slice(&x).unwrap();
    let path = both_paths(&want, || {
        let mut out = DeviceBuffer::<u32>::zeroed(64).unwrap();
        launch!(per_thread_trip_count<<<1, 64>>>(&input, &mut out)).unwrap();
        out.to_vec().unwrap()
    });
    assert_eq!(path, "general");
}

/// Hazard: threads that exit before a barrier (legal since Volta: they count as arrived) and
/// a region whose per-thread values live across the barrier. Fission may run it, as long as
/// the exited threads run nothing after their `return`.
#[kernel]
fn early_exit_before_barrier(out: &mut [u32], live: u32) {
    let t = shared_array![u32; 64];
    let tid = thread_idx().x as usize;
    t[tid] = 1000;
    sync_threads();
    if tid as u32 >= live {
        return;
    }
    let mine = tid as u32 * 5;
    t[tid] = mine;
    sync_threads();
    out[tid] = mine + t[(tid + 1) % 64];
}

#[test]
fn hazard_threads_that_exit_before_a_barrier_stay_exited() {
    let live = 40usize;
    let want: Vec<u32> = (0..64usize)
        .map(|t| if t < live { t as u32 * 5 + if t + 1 < live { (t as u32 + 1) * 5 } else { 1000 } } else { 0 })
        .collect();
    let path = both_paths(&want, || {
        let mut out = DeviceBuffer::<u32>::zeroed(64).unwrap();
        launch!(early_exit_before_barrier<<<1, 64>>>(&mut out, live as u32)).unwrap();
        out.to_vec().unwrap()
    });
    assert!(["regions", "general"].contains(&path), "{path}");
}

/// `break` out of a loop with barriers on a value in shared memory, read right after a
/// barrier in a run that writes none of it: every thread loads what the block loads once
/// (`Program::shared_reads`), so the exit is block-uniform and the loop takes regions.
#[kernel]
fn break_out_of_barrier_loop(out: &mut [u32]) {
    let t = shared_array![u32; 32];
    let tid = thread_idx().x as usize;
    let mut k = 0u32;
    t[tid] = 0;
    sync_threads();
    for r in 0..10u32 {
        if tid == 0 {
            t[0] = r;
        }
        sync_threads();
        if t[0] == 3 {
            break;
        }
        k += t[0];
        sync_threads();
    }
    out[tid] = k;
}

#[test]
fn a_break_on_a_shared_value_read_after_a_barrier_takes_regions() {
    let want = vec![3u32; 32];
    let path = both_paths(&want, || {
        let mut out = DeviceBuffer::<u32>::zeroed(32).unwrap();
        launch!(break_out_of_barrier_loop<<<1, 32>>>(&mut out)).unwrap();
        out.to_vec().unwrap()
    });
    assert_eq!(path, "regions");
}

/// Hazard: a value loaded from shared memory in a run that also stores there (race-free in
/// a block of one thread, which loads what it stored). The block's one load, at the run's
/// start, would read what was there before the store: such a load is each thread's, and the
/// run keeps it (`Program::shared_reads`).
#[kernel]
fn loads_what_its_run_stored(out: &mut [u32]) {
    let s = shared_array![u32; 1];
    let tid = thread_idx().x as usize;
    s[0] = 1;
    sync_threads();
    if tid == 0 {
        s[0] = 7;
    }
    let x = s[0];
    out[tid] = x + tid as u32;
    sync_threads();
    out[tid] += s[0];
}

#[test]
fn hazard_a_load_in_a_run_that_stores_stays_each_threads() {
    let path = both_paths(&[14u32], || {
        let mut out = DeviceBuffer::<u32>::zeroed(1).unwrap();
        launch!(loads_what_its_run_stored<<<1, 1>>>(&mut out)).unwrap();
        out.to_vec().unwrap()
    });
    assert_eq!(path, "regions");
}

/// A `for` loop in region code whose bounds differ per thread (`0..tid`) ends on the
/// thread's own values, like a grid-stride `while`: region code, with a region progress point
/// at its head (the watchdog's tests: `scheduler::progress`).
#[kernel]
fn per_thread_for_bound(out: &mut [u32]) {
    let t = shared_array![u32; 32];
    let tid = thread_idx().x as usize;
    let mut s = 0u32;
    for j in 0..tid {
        s += j as u32;
    }
    t[tid] = s;
    sync_threads();
    out[tid] = t[31 - tid];
}

#[test]
fn a_for_loop_with_per_thread_bounds_takes_regions() {
    let want: Vec<u32> = (0..32u32).map(|t| (0..31 - t).sum()).collect();
    let path = both_paths(&want, || {
        let mut out = DeviceBuffer::<u32>::zeroed(32).unwrap();
        launch!(per_thread_for_bound<<<1, 32>>>(&mut out)).unwrap();
        out.to_vec().unwrap()
    });
    assert_eq!(path, "regions");
}

/// A `#[device]` helper with a grid-stride `for` from the thread's index (Parboil histo's
/// `clearMemory`): it does not wait, so the kernel that calls it keeps its region form.
#[device]
fn clear_strided(v: &mut [u32], n: usize) {
    let stride = (block_dim().x * grid_dim().x) as usize;
    for i in ((block_idx().x * block_dim().x + thread_idx().x) as usize..n).step_by(stride) {
        v[i] = 0;
    }
}

#[kernel]
fn clears_then_counts(v: &mut [u32], out: &mut [u32]) {
    let c = shared_array![u32; 64];
    let tid = thread_idx().x as usize;
    clear_strided(v, v.len());
    c[tid] = tid as u32 * 3;
    sync_threads();
    out[block_idx().x as usize * 64 + tid] = c[63 - tid];
}

#[test]
fn a_helper_with_a_grid_stride_for_keeps_the_region_form() {
    let blocks = 3usize;
    let want_out: Vec<u32> = (0..blocks * 64).map(|i| (63 - (i % 64)) as u32 * 3).collect();
    let path = both_paths(&want_out, || {
        let mut v = DeviceBuffer::from_slice(&vec![7u32; 1000]).unwrap();
        let mut out = DeviceBuffer::<u32>::zeroed(blocks * 64).unwrap();
        launch!(clears_then_counts<<<blocks as u32, 64>>>(&mut v, &mut out)).unwrap();
        assert!(v.to_vec().unwrap().iter().all(|&x| x == 0), "the grid-stride loop cleared everything");
        out.to_vec().unwrap()
    });
    assert_eq!(path, "regions");
}

/// A `while` that spins on memory another thread writes is never region code.
#[kernel]
fn spin_on_flag(flag: &mut [u32], out: &mut [u32]) {
    let tid = thread_idx().x as usize;
    if tid == 1 {
        flag[0] = 1;
    }
    let mut seen = 0u32;
    if tid == 0 {
        let mut v = flag.atomic_add(0, 0);
        while v == 0 {
            v = flag.atomic_add(0, 0);
        }
        seen = v;
    }
    out[tid] = seen;
}

#[test]
fn a_while_that_waits_on_memory_keeps_the_general_path() {
    let mut want = vec![0u32; 32];
    want[0] = 1;
    let path = both_paths(&want, || {
        let mut flag = DeviceBuffer::<u32>::zeroed(1).unwrap();
        let mut out = DeviceBuffer::<u32>::zeroed(32).unwrap();
        launch!(spin_on_flag<<<1, 32>>>(&mut flag, &mut out)).unwrap();
        out.to_vec().unwrap()
    });
    assert_eq!(path, "general");
}

// ------------------------------------------------------------------ helpers

/// A pure helper: it publishes that it does not wait, so its callers keep their region form.
#[device]
fn scaled(x: f32, k: f32) -> f32 {
    let mut s = 0.0f32;
    for j in 0..4 {
        s += x * k + j as f32;
    }
    s
}

/// A helper with a barrier: written out where a kernel of this file calls it as a statement
/// (`emu-macros/src/fission/inline.rs`), else its callers take the general path.
#[device]
fn staged(t: Shared<f32>, tid: usize, v: f32) -> f32 {
    t[tid] = v;
    sync_threads();
    t[(tid + 1) % 32]
}

/// A helper that reads a view and calls a pure helper.
#[device]
fn load_scaled(x: &[f32], i: usize) -> f32 {
    if i < x.len() {
        scaled(x[i], 0.5)
    } else {
        0.0
    }
}

#[kernel]
fn calls_pure_helpers(x: &[f32], out: &mut [f32]) {
    let t = shared_array![f32; 32];
    let tid = thread_idx().x as usize;
    t[tid] = load_scaled(x, tid);
    sync_threads();
    out[tid] = scaled(t[(tid + 1) % 32], 2.0);
}

#[kernel]
fn calls_a_waiting_helper(x: &[f32], out: &mut [f32]) {
    let t = shared_array![f32; 32];
    let tid = thread_idx().x as usize;
    let v = scaled(x[tid], 1.0);
    out[tid] = staged(t, tid, v);
}

/// The waiting helper inside an expression: not written out.
#[kernel]
fn calls_a_waiting_helper_in_an_expression(x: &[f32], out: &mut [f32]) {
    let t = shared_array![f32; 32];
    let tid = thread_idx().x as usize;
    let v = scaled(x[tid], 1.0);
    out[tid] = 0.5 * staged(t, tid, v);
}

/// A waiting helper with an early `return`: not written out.
#[device]
fn staged_or_not(t: Shared<f32>, tid: usize, v: f32, skip: bool) -> f32 {
    if skip {
        return v;
    }
    t[tid] = v;
    sync_threads();
    t[(tid + 1) % 32]
}

#[kernel]
fn calls_a_helper_that_returns_early(x: &[f32], out: &mut [f32]) {
    let t = shared_array![f32; 32];
    let tid = thread_idx().x as usize;
    let v = scaled(x[tid], 1.0);
    let r = staged_or_not(t, tid, v, false);
    out[tid] = r;
}

/// Helpers that wait, called in turn, with a shared view, a local array by reference, a
/// block handle and a parameter the body binds again: each written out, the kernel on regions.
#[device]
fn add_neighbour(t: Shared<u32>, acc: &mut [u32; 2], tid: usize, cta: cg::ThreadBlock) {
    t[tid] = acc[0];
    cta.sync();
    acc[1] += t[(tid + 1) % 64];
    cta.sync();
}

#[device]
fn twice_added(t: Shared<u32>, start: u32, tid: usize, cta: cg::ThreadBlock) -> u32 {
    let mut start = start;
    let mut acc = [start, 0];
    add_neighbour(t, &mut acc, tid, cta);
    acc[0] = acc[1];
    add_neighbour(t, &mut acc, tid, cta);
    start += acc[1];
    start
}

#[kernel]
fn calls_nested_waiting_helpers(x: &[u32], out: &mut [u32]) {
    let cta = cg::this_thread_block();
    let t = shared_array![u32; 64];
    let tid = thread_idx().x as usize;
    let start = x[tid];
    let r = twice_added(t, start, tid, cta) + 1;
    out[tid] = r;
}

/// Defined after its caller: not yet classified when the kernel is expanded, but read from
/// the file (`inline.rs`, `select`): its body cannot wait, so the kernel keeps its regions.
#[kernel]
fn calls_a_later_helper(x: &[f32], out: &mut [f32]) {
    let tid = thread_idx().x as usize;
    sync_threads();
    out[tid] = later(x[tid]);
}

#[device]
fn later(v: f32) -> f32 {
    v + 1.0
}

mod elsewhere {
    use deviceemu::prelude::*;
    /// A helper of another module, imported by name where it is called.
    #[device]
    pub(crate) fn twice(v: f32) -> f32 {
        v * 2.0
    }
}

mod caller {
    use super::elsewhere::twice;
    use deviceemu::prelude::*;
    /// Its helper's macro is not in textual scope: the import says "may wait".
    #[kernel]
    pub(crate) fn calls_an_imported_helper(x: &[f32], out: &mut [f32]) {
        let tid = thread_idx().x as usize;
        sync_threads();
        out[tid] = twice(x[tid]);
    }
}

mod caller_glob {
    use super::elsewhere::*;
    use deviceemu::prelude::*;
    /// The same through a glob import of the helper's module (its private `use` of the
    /// macro does not travel to a sibling): "may wait".
    #[kernel]
    pub(crate) fn calls_a_glob_imported_helper(x: &[f32], out: &mut [f32]) {
        let tid = thread_idx().x as usize;
        sync_threads();
        out[tid] = twice(x[tid]);
    }
}

mod child {
    use super::*;
    /// A module inside the helpers' one, with a glob import of it: the macros are in scope.
    #[kernel]
    pub(crate) fn calls_a_parent_helper(x: &[f32], out: &mut [f32]) {
        let tid = thread_idx().x as usize;
        sync_threads();
        out[tid] = scaled(x[tid], 3.0);
    }
}

mod child_path {
    use deviceemu::prelude::*;
    /// A module inside the helpers' one that calls a helper by path, the way around rustc's
    /// E0659 for `use super::scaled;` (troubleshooting guide): it compiles, and a path call
    /// counts as one that may wait.
    #[kernel]
    pub(crate) fn calls_a_parent_helper_by_path(x: &[f32], out: &mut [f32]) {
        let tid = thread_idx().x as usize;
        sync_threads();
        out[tid] = super::scaled(x[tid], 3.0);
    }
}

fn scaled_ref(x: f32, k: f32) -> f32 {
    let mut s = 0.0f32;
    for j in 0..4 {
        s += x * k + j as f32;
    }
    s
}

#[test]
fn helpers_that_do_not_wait_keep_the_region_form() {
    let x = inputs(32);
    let input = DeviceBuffer::from_slice(&x).unwrap();
    let want: Vec<f32> = (0..32).map(|t| scaled_ref(scaled_ref(x[(t + 1) % 32], 0.5), 2.0)).collect();
    let path = both_paths(&want, || {
        let mut out = DeviceBuffer::<f32>::zeroed(32).unwrap();
        launch!(calls_pure_helpers<<<1, 32>>>(&input, &mut out)).unwrap();
        out.to_vec().unwrap()
    });
    assert_eq!(path, "regions");
    let want: Vec<f32> = (0..32).map(|t| scaled_ref(x[t], 3.0)).collect();
    let path = both_paths(&want, || {
        let mut out = DeviceBuffer::<f32>::zeroed(32).unwrap();
        launch!(child::calls_a_parent_helper<<<1, 32>>>(&input, &mut out)).unwrap();
        out.to_vec().unwrap()
    });
    assert_eq!(path, "regions");
    let want: Vec<f32> = x.iter().map(|v| v + 1.0).collect();
    let path = both_paths(&want, || {
        let mut out = DeviceBuffer::<f32>::zeroed(32).unwrap();
        launch!(calls_a_later_helper<<<1, 32>>>(&input, &mut out)).unwrap();
        out.to_vec().unwrap()
    });
    assert_eq!(path, "regions");
}

#[test]
fn helpers_that_wait_or_are_not_known_keep_the_general_path() {
    let x = inputs(32);
    let input = DeviceBuffer::from_slice(&x).unwrap();
    let want: Vec<f32> = (0..32).map(|t| scaled_ref(x[(t + 1) % 32], 1.0)).collect();
    let path = both_paths(&want, || {
        let mut out = DeviceBuffer::<f32>::zeroed(32).unwrap();
        launch!(calls_a_waiting_helper<<<1, 32>>>(&input, &mut out)).unwrap();
        out.to_vec().unwrap()
    });
    // Written out: the assignment takes the helper's value.
    assert_eq!(path, "regions");
    let halves: Vec<f32> = want.iter().map(|v| 0.5 * v).collect();
    let path = both_paths(&halves, || {
        let mut out = DeviceBuffer::<f32>::zeroed(32).unwrap();
        launch!(calls_a_waiting_helper_in_an_expression<<<1, 32>>>(&input, &mut out)).unwrap();
        out.to_vec().unwrap()
    });
    assert_eq!(path, "general");
    let path = both_paths(&want, || {
        let mut out = DeviceBuffer::<f32>::zeroed(32).unwrap();
        launch!(calls_a_helper_that_returns_early<<<1, 32>>>(&input, &mut out)).unwrap();
        out.to_vec().unwrap()
    });
    assert_eq!(path, "general");
    let want: Vec<f32> = x.iter().map(|v| v * 2.0).collect();
    let path = both_paths(&want, || {
        let mut out = DeviceBuffer::<f32>::zeroed(32).unwrap();
        launch!(caller::calls_an_imported_helper<<<1, 32>>>(&input, &mut out)).unwrap();
        out.to_vec().unwrap()
    });
    assert_eq!(path, "general");
    let path = both_paths(&want, || {
        let mut out = DeviceBuffer::<f32>::zeroed(32).unwrap();
        launch!(caller_glob::calls_a_glob_imported_helper<<<1, 32>>>(&input, &mut out)).unwrap();
        out.to_vec().unwrap()
    });
    assert_eq!(path, "general");
    let want: Vec<f32> = (0..32).map(|t| scaled_ref(x[t], 3.0)).collect();
    let path = both_paths(&want, || {
        let mut out = DeviceBuffer::<f32>::zeroed(32).unwrap();
        launch!(child_path::calls_a_parent_helper_by_path<<<1, 32>>>(&input, &mut out)).unwrap();
        out.to_vec().unwrap()
    });
    assert_eq!(path, "general");
}

#[test]
fn waiting_helpers_called_as_statements_are_written_out() {
    let x: Vec<u32> = (0..64).map(|i| i * 7 + 3).collect();
    let input = DeviceBuffer::from_slice(&x).unwrap();
    let want: Vec<u32> = (0..64)
        .map(|t| {
            // First call: acc = [x[t], x[t+1]]; then acc[0] = x[t+1]; second: acc[1] += x[t+2].
            let second = x[(t + 1) % 64] + x[(t + 2) % 64];
            x[t] + second + 1
        })
        .collect();
    let path = both_paths(&want, || {
        let mut out = DeviceBuffer::<u32>::zeroed(64).unwrap();
        launch!(calls_nested_waiting_helpers<<<1, 64>>>(&input, &mut out)).unwrap();
        out.to_vec().unwrap()
    });
    assert_eq!(path, "regions");
    // Under a checker the general path runs, whose reports name the helpers' own lines.
    let racecheck = Config::from_env().unwrap().checks(deviceemu::Checks { racecheck: true, ..Default::default() });
    let mut out = DeviceBuffer::<u32>::zeroed(64).unwrap();
    with_config(racecheck, || launch!(calls_nested_waiting_helpers<<<1, 64>>>(&input, &mut out))).unwrap();
    assert_eq!(last_path(), "general");
    assert_eq!(out.to_vec().unwrap(), want);
}

/// CUB's `LoadDirectStriped`: a helper that takes a view and cannot wait. Written out in the
/// region form (`inline.rs`), its loads are the region's own, which the range proof takes.
#[device]
fn load_striped(tid: i32, src: &[i32], offset: i32, items: &mut [i32; 4]) {
    for k in 0..4i32 {
        items[k as usize] = src[offset + tid + k * 64];
    }
}

/// A helper that stores through a shared view it is given.
#[device]
fn publish_at(t: Shared<i32>, tid: i32, v: i32) {
    t[tid] = v;
}

/// CUB's shape: a shared array under a second name (a `TempStorage` union member, a copy
/// that `copies` in `fission/mod.rs` reads as the array itself), filled through helpers.
#[kernel]
fn loads_through_helpers(src: &[i32], out: &mut [i32]) {
    let storage = shared_array![i32; 64];
    let exchange = storage;
    let tid: i32 = thread_idx().x as i32;
    let mut items = [0i32; 4];
    load_striped(tid, src, block_idx().x as i32 * 256, &mut items);
    publish_at(exchange, tid, items[0] + items[1] + items[2] + items[3]);
    sync_threads();
    out[(block_idx().x * 64 + thread_idx().x) as usize] = storage[(63 - tid) as usize];
}

fn run_loads_through_helpers(src: &[i32]) -> (Vec<i32>, Result<(), deviceemu::Error>) {
    let input = DeviceBuffer::from_slice(src).unwrap();
    let mut out = DeviceBuffer::<i32>::zeroed(4 * 64).unwrap();
    let r = launch!(loads_through_helpers<<<4, 64>>>(&input, &mut out));
    (out.to_vec().unwrap(), r)
}

#[test]
fn helpers_that_take_views_are_written_out_and_their_accesses_proved() {
    let x: Vec<i32> = (0..1024).map(|i| (i * 37 % 101) - 50).collect();
    let want: Vec<i32> = (0..256)
        .map(|g| {
            let (b, t) = (g / 64, 63 - g % 64);
            (0..4).map(|k| x[b * 256 + t + k * 64]).sum()
        })
        .collect();
    let path = both_paths(&want, || run_loads_through_helpers(&x).0);
    assert_eq!(path, "regions");
    // Both regions of each of the 4 blocks: the loads of `load_striped`, the store of
    // `publish_at` through the copy, and the second region's accesses. Called, not written
    // out, the first region's accesses are the helpers' own and it has no proof.
    let proved = with_config(Config::default().verbose(true).blocks(deviceemu::BlockOrder::Serial), || {
        run_loads_through_helpers(&x).1.unwrap();
        (deviceemu::__private::last_proved(), deviceemu::__private::last_views())
    });
    assert_eq!(proved, (4 * 2, 0));
    // A source one element short: the last block's last load is out of bounds. Both paths
    // report it alike but for the line: the region form's, where the helper is written out,
    // names the line of the call in the kernel; the general path's the helper's own line.
    let short = &x[..1023];
    let fast = run_loads_through_helpers(short);
    let general = with_config(Config::from_env().unwrap().path(ExecPath::General), || run_loads_through_helpers(short));
    let (f, g) = (fast.1.unwrap_err().to_string(), general.1.unwrap_err().to_string());
    let line = |name: &str| {
        let text = include_str!("fission_normalise.rs");
        text.lines().position(|l| l.contains(name)).map(|k| format!("fission_normalise.rs:{}:", k + 1)).unwrap()
    };
    let (call, helper) = (line("    load_striped(tid, src,"), line("        items[k as usize] = src[offset"));
    assert!(g.contains(&helper), "{g}");
    if Config::from_env().unwrap().get_path() == ExecPath::Verify {
        // Under `EMU_PATH=verify` the general path's report stands, the two having agreed
        // but for that line (`verify.rs`, `Lines::CallsOfHelpers`).
        assert!(f.contains(&helper), "{f}");
        return;
    }
    assert!(f.contains(&call), "{f}");
    let without_lines =
        |r: &str| r.lines().filter(|l| !l.contains("fission_normalise.rs:")).collect::<Vec<_>>().join("\n");
    let without_addresses = |r: &str| {
        r.split_whitespace().filter(|w| !w.starts_with("0x") && !w.starts_with("(4092")).collect::<Vec<_>>().join(" ")
    };
    assert_eq!(without_addresses(&without_lines(&f)), without_addresses(&without_lines(&g)), "{f}");
    assert!(f.contains("block (3,0,0)") && f.contains("thread (63,0,0)") && f.contains("out of bounds"), "{f}");
}

#[derive(Clone, Copy, Debug, Default, DeviceCopy)]
#[repr(C)]
struct AB {
    a: u32,
    b: u32,
}

/// A helper that takes a view and destructures what it loads: written out, its `let` with a
/// struct pattern is one that region code cannot have, so the region form calls it instead
/// (`lower.rs` lowers it again with the waiting helpers alone written out).
#[device]
fn pair_sum(v: &[AB], i: usize) -> u32 {
    let AB { a, b } = v[i];
    a + 2 * b
}

#[kernel]
fn calls_a_helper_region_code_cannot_have(pairs: &[AB], out: &mut [u32]) {
    let t = shared_array![u32; 32];
    let tid = thread_idx().x as usize;
    let s = pair_sum(pairs, tid);
    t[tid] = s;
    sync_threads();
    out[tid] = t[31 - tid];
}

#[test]
fn a_helper_whose_written_out_body_region_code_cannot_have_is_called() {
    let pairs: Vec<AB> = (0..32).map(|i| AB { a: i * 3, b: i + 7 }).collect();
    let input = DeviceBuffer::from_slice(&pairs).unwrap();
    let want: Vec<u32> = (0..32).map(|t| pairs[31 - t].a + 2 * pairs[31 - t].b).collect();
    let path = both_paths(&want, || {
        let mut out = DeviceBuffer::<u32>::zeroed(32).unwrap();
        launch!(calls_a_helper_region_code_cannot_have<<<1, 32>>>(&input, &mut out)).unwrap();
        out.to_vec().unwrap()
    });
    assert_eq!(path, "regions");
}

// ------------------------------------------------------------------ functions of the kernel's file

/// A plain function (no `#[device]`), as ported code has for `max`-of-three and clamps.
fn max3(a: i32, b: i32, c: i32) -> i32 {
    a.max(b).max(c)
}

/// A plain function calling another, a standard associated function and a macro.
fn clamp_score(v: i32, lo: i32) -> i32 {
    debug_assert!(lo <= 0, "a floor above zero: {lo}");
    max3(v, lo, i32::min(lo, -1))
}

/// A binary search: a plain function's `while`, which no path gives a progress point.
fn rank_below(sorted: &[i32; 8], x: i32) -> usize {
    let (mut lo, mut hi) = (0usize, 8usize);
    while lo < hi {
        let mid = (lo + hi) / 2;
        if sorted[mid] < x {
            lo = mid + 1;
        } else {
            hi = mid;
        }
    }
    lo
}

#[derive(Clone, Copy, Debug, Default, DeviceCopy)]
#[repr(C)]
struct Cell2 {
    a: i32,
    b: i32,
}

impl Cell2 {
    fn new(a: i32, b: i32) -> Cell2 {
        Cell2 { a, b }
    }
    fn swapped(b: i32, a: i32) -> Cell2 {
        Self::new(a, b)
    }
    fn score(self, w: i32) -> i32 {
        self.a * w + self.b
    }
}

/// Needleman-Wunsch's shape: a wavefront over a shared tile whose cells take `max3` of their
/// neighbours, with `Cell2`'s constructor and method and a binary search in region code.
#[kernel]
fn calls_plain_functions(refm: &[i32], out: &mut [i32], penalty: i32) {
    let temp = shared_array![[i32; 17]; 17];
    let tx = thread_idx().x as usize;
    temp[tx + 1][0] = -((tx as i32) + 1) * penalty;
    temp[0][tx + 1] = -((tx as i32) + 1) * penalty;
    if tx == 0 {
        temp[0][0] = 0;
    }
    sync_threads();
    for m in 0..16 {
        if tx <= m {
            let (x, y) = (tx + 1, m - tx + 1);
            let diag = temp[y - 1][x - 1] + refm[(y - 1) * 16 + x - 1];
            temp[y][x] = clamp_score(max3(diag, temp[y][x - 1] - penalty, temp[y - 1][x] - penalty), -1000);
        }
        sync_threads();
    }
    for m in (0..15).rev() {
        if tx <= m {
            let (x, y) = (tx + 16 - m, 16 - tx);
            let diag = temp[y - 1][x - 1] + refm[(y - 1) * 16 + x - 1];
            temp[y][x] = clamp_score(max3(diag, temp[y][x - 1] - penalty, temp[y - 1][x] - penalty), -1000);
        }
        sync_threads();
    }
    let cuts = [-40, -20, -10, -5, 0, 5, 10, 20];
    let c = Cell2::swapped(rank_below(&cuts, temp[16][tx + 1]) as i32, temp[tx + 1][16]);
    out[tx] = c.score(3);
}

/// A plain function with a barrier, inside an expression: not written out, so the kernel
/// keeps the general path.
fn publish(s: Shared<i32>, t: usize, v: i32) -> i32 {
    s.store(t, v);
    sync_threads();
    s.load(15 - t)
}

/// One that calls it: waits too.
fn publish_twice(s: Shared<i32>, t: usize, v: i32) -> i32 {
    publish(s, t, v) * 2
}

#[kernel]
fn calls_a_plain_function_that_waits(x: &[i32], out: &mut [i32]) {
    let s = shared_array![i32; 16];
    let t = thread_idx().x as usize;
    sync_threads();
    out[t] = 1 + publish_twice(s, t, x[t]);
}

#[kernel]
fn calls_a_helper_that_spins(out: &mut [u32]) {
    let flag = shared_array![u32; 1];
    let t = thread_idx().x as usize;
    if t == 0 {
        flag[0] = 0;
    }
    sync_threads();
    if t == 15 {
        flag.atomic_add(0, 1);
    }
    out[t] = wait_for(flag);
}

/// A `#[device]` helper that spins on a flag: its loop is a progress point of the per-thread
/// forms, where the thread that sets the flag runs; a region would spin. Written
/// below its caller, so that the file's reading (`inline.rs`, `select`) judges it.
#[device]
fn wait_for(flag: Shared<u32>) -> u32 {
    while flag.atomic_load(0, std::sync::atomic::Ordering::Acquire) == 0 {}
    flag.atomic_load(0, std::sync::atomic::Ordering::Acquire)
}

fn nw_reference(refm: &[i32], penalty: i32) -> Vec<i32> {
    let mut t = [[0i32; 17]; 17];
    for i in 1..17 {
        t[i][0] = -(i as i32) * penalty;
        t[0][i] = -(i as i32) * penalty;
    }
    for y in 1..17 {
        for x in 1..17 {
            let diag = t[y - 1][x - 1] + refm[(y - 1) * 16 + x - 1];
            t[y][x] = clamp_score(max3(diag, t[y][x - 1] - penalty, t[y - 1][x] - penalty), -1000);
        }
    }
    let cuts = [-40, -20, -10, -5, 0, 5, 10, 20];
    (0..16).map(|tx| Cell2::swapped(rank_below(&cuts, t[16][tx + 1]) as i32, t[tx + 1][16]).score(3)).collect()
}

#[test]
fn plain_functions_and_impl_functions_of_the_file_keep_the_region_form() {
    let refm: Vec<i32> = (0..256).map(|i| (i * 7 % 11) - 5).collect();
    let input = DeviceBuffer::from_slice(&refm).unwrap();
    let want = nw_reference(&refm, 2);
    let path = both_paths(&want, || {
        let mut out = DeviceBuffer::<i32>::zeroed(16).unwrap();
        launch!(calls_plain_functions<<<1, 16>>>(&input, &mut out, 2)).unwrap();
        out.to_vec().unwrap()
    });
    assert_eq!(path, "regions");
}

#[test]
fn functions_of_the_file_that_wait_or_spin_keep_the_general_path() {
    let x: Vec<i32> = (0..16).map(|i| i * 3 - 7).collect();
    let input = DeviceBuffer::from_slice(&x).unwrap();
    let want: Vec<i32> = (0..16).map(|t| 1 + 2 * x[15 - t]).collect();
    let path = both_paths(&want, || {
        let mut out = DeviceBuffer::<i32>::zeroed(16).unwrap();
        launch!(calls_a_plain_function_that_waits<<<1, 16>>>(&input, &mut out)).unwrap();
        out.to_vec().unwrap()
    });
    assert_eq!(path, "general");
    let path = both_paths(&[1u32; 16], || {
        let mut out = DeviceBuffer::<u32>::zeroed(16).unwrap();
        launch!(calls_a_helper_that_spins<<<1, 16>>>(&mut out)).unwrap();
        out.to_vec().unwrap()
    });
    assert_eq!(path, "general");
}

// ------------------------------------------------------------------ index macros, plain blocks

/// `#define`s of index arithmetic ported as `macro_rules!` (Parboil's `Index3D`, cuda-samples'
/// `UMAD`/`UMUL`): fission writes them out (`emu-macros/src/local_macros.rs`).
macro_rules! IDX2 {
    ($w:expr, $r:expr, $c:expr) => {
        (($r) * ($w) + ($c))
    };
}
macro_rules! TWICE_PLUS {
    ($a:expr, $b:expr) => {
        (IDX2!(2, $a, 0) + ($b))
    };
}
/// A macro that binds a name: not one expression of its arguments, left to the general path.
macro_rules! SQUARE {
    ($a:expr) => {{
        let t = $a;
        t * t
    }};
}

#[kernel]
fn transposes_with_index_macros(x: &[u32], out: &mut [u32]) {
    let t = shared_array![u32; 64];
    let tx = thread_idx().x as usize;
    let ty = thread_idx().y as usize;
    t[IDX2!(8, ty, tx)] = x[IDX2!(8, ty, tx)] + TWICE_PLUS!(tx, 1) as u32;
    sync_threads();
    out[IDX2!(8, ty, tx)] = t[IDX2!(8, tx, ty)];
}

#[kernel]
fn squares_with_a_binding_macro(x: &[u32], out: &mut [u32]) {
    let t = shared_array![u32; 32];
    let tid = thread_idx().x as usize;
    t[tid] = SQUARE!(x[tid]);
    sync_threads();
    out[tid] = t[31 - tid];
}

#[test]
fn index_macros_of_the_kernels_file_are_written_out() {
    let x: Vec<u32> = (0..64).map(|i| i * 3 + 1).collect();
    let input = DeviceBuffer::from_slice(&x).unwrap();
    let mut want = vec![0u32; 64];
    for ty in 0..8 {
        for tx in 0..8 {
            // out[ty][tx] = t[tx][ty], where thread (x: c, y: r) wrote t[r][c] = x[r][c] + 2c + 1.
            want[ty * 8 + tx] = x[tx * 8 + ty] + (2 * ty + 1) as u32;
        }
    }
    let path = both_paths(&want, || {
        let mut out = DeviceBuffer::<u32>::zeroed(64).unwrap();
        launch!(transposes_with_index_macros<<<1, (8, 8)>>>(&input, &mut out)).unwrap();
        out.to_vec().unwrap()
    });
    assert_eq!(path, "regions");
    let x: Vec<u32> = (0..32).collect();
    let input = DeviceBuffer::from_slice(&x).unwrap();
    let want: Vec<u32> = (0..32u32).map(|t| (31 - t) * (31 - t)).collect();
    let path = both_paths(&want, || {
        let mut out = DeviceBuffer::<u32>::zeroed(32).unwrap();
        launch!(squares_with_a_binding_macro<<<1, 32>>>(&input, &mut out)).unwrap();
        out.to_vec().unwrap()
    });
    assert_eq!(path, "general");
}

/// A `#define` of statements that index shared memory, ported as a `macro_rules!` in the
/// body (Parboil's histo prescan: `#define SUM(stride__) if (threadIdx.x < stride__) {
/// Avg[threadIdx.x] += Avg[threadIdx.x + stride__]; .. }`): written out before the body is
/// rewritten, so its indexing is checked access and fission sees it (`local_macros::body`).
#[kernel]
fn tree_sum_with_a_body_macro(input: &[f32], out: &mut [f32]) {
    let sdata = shared_array![f32; 256];
    let tid = thread_idx().x as usize;
    sdata[tid] = input[block_idx().x as usize * 256 + tid];
    macro_rules! SUM {
        ($stride__:expr) => {
            if tid < $stride__ {
                sdata[tid] += sdata[tid + $stride__];
            }
        };
    }
    let mut s = 128;
    while s > 0 {
        sync_threads();
        // An argument of several tokens is one operand (`(s + 0)`), as in rustc's expansion.
        SUM!(s + 0);
        s >>= 1;
    }
    if tid == 0 {
        out[block_idx().x as usize] = sdata[0];
    }
}

/// A body macro that names a local the body binds again after the macro: rustc's hygiene
/// reads the first `k` in it, so it is left as a macro (writing it out would read the second).
#[kernel]
fn a_body_macro_keeps_its_definitions_binding(out: &mut [u32]) {
    let tid = thread_idx().x;
    let k = 3u32;
    macro_rules! ADD_K {
        ($v:expr) => {
            $v + k
        };
    }
    let k = 100u32;
    out[tid] = ADD_K!(tid) + k;
}

#[test]
fn a_body_macro_of_statements_that_index_views_is_written_out() {
    let x = inputs(256 * 3);
    let want = tree_sums(&x, 256);
    let input = DeviceBuffer::from_slice(&x).unwrap();
    let path = both_paths(&want, || {
        let mut out = DeviceBuffer::<f32>::zeroed(3).unwrap();
        launch!(tree_sum_with_a_body_macro<<<3, 256>>>(&input, &mut out)).unwrap();
        out.to_vec().unwrap()
    });
    assert_eq!(path, "regions");
    let want: Vec<u32> = (0..32).map(|t| t + 3 + 100).collect();
    both_paths(&want, || {
        let mut out = DeviceBuffer::<u32>::zeroed(32).unwrap();
        launch!(a_body_macro_keeps_its_definitions_binding<<<1, 32>>>(&mut out)).unwrap();
        out.to_vec().unwrap()
    });
}

/// A plain block around a loop with barriers (cuda-samples' bitonic sort scopes its last
/// merge loop so): its statements join the body's.
#[kernel]
fn scoped_tree_sum(input: &[f32], out: &mut [f32]) {
    let sdata = shared_array![f32; 256];
    let tid = thread_idx().x as usize;
    sdata[tid] = input[block_idx().x as usize * 256 + tid];
    {
        let mut s = 128;
        while s > 0 {
            sync_threads();
            if tid < s {
                sdata[tid] += sdata[tid + s];
            }
            s >>= 1;
        }
    }
    if tid == 0 {
        out[block_idx().x as usize] = sdata[0];
    }
}

#[test]
fn a_plain_block_with_barriers_is_flattened() {
    let x = inputs(256 * 3);
    let want = tree_sums(&x, 256);
    let input = DeviceBuffer::from_slice(&x).unwrap();
    let path = both_paths(&want, || {
        let mut out = DeviceBuffer::<f32>::zeroed(3).unwrap();
        launch!(scoped_tree_sum<<<3, 256>>>(&input, &mut out)).unwrap();
        out.to_vec().unwrap()
    });
    assert_eq!(path, "regions");
}

// ------------------------------------------------------------------ a loop's edge

/// Parboil's sgemm shape: thread code before a loop with barriers (zeroing a local array)
/// and at the start of its body (a tile load). The first stretch only computes the thread's
/// own values, so running it for every thread before the loads cannot be told apart.
#[kernel]
fn private_code_before_a_tiled_loop(x: &[f32], out: &mut [f32], tiles: u32) {
    let mut acc = [0.0f32; 4];
    for k in 0..4 {
        acc[k] = k as f32;
    }
    let tid = thread_idx().x as usize;
    let t = shared_array![f32; 32];
    for tile in 0..tiles as usize {
        t[tid] = x[tile * 32 + tid];
        sync_threads();
        for k in 0..4 {
            acc[k] += t[(tid + k) % 32];
        }
        sync_threads();
    }
    out[tid] = acc[0] + acc[1] * 2.0 + acc[2] * 3.0 + acc[3] * 4.0;
}

#[test]
fn private_code_at_a_loop_edge_takes_regions() {
    let tiles = 5usize;
    let x = inputs(32 * tiles);
    let input = DeviceBuffer::from_slice(&x).unwrap();
    let want: Vec<f32> = (0..32)
        .map(|tid| {
            let mut acc = [0.0f32, 1.0, 2.0, 3.0];
            for tile in 0..tiles {
                for (k, a) in acc.iter_mut().enumerate() {
                    *a += x[tile * 32 + (tid + k) % 32];
                }
            }
            acc[0] + acc[1] * 2.0 + acc[2] * 3.0 + acc[3] * 4.0
        })
        .collect();
    let path = both_paths(&want, || {
        let mut out = DeviceBuffer::<f32>::zeroed(32).unwrap();
        launch!(private_code_before_a_tiled_loop<<<1, 32>>>(&input, &mut out, tiles as u32)).unwrap();
        out.to_vec().unwrap()
    });
    assert_eq!(path, "regions");
}

/// Memory touched on both sides of a loop's edge: each thread stores to a shared slot and,
/// without a barrier between, reads it back at the start of the loop body. On the general
/// path each thread runs both stretches before the next starts, so it reads its own value;
/// as two region loops every thread would read the last thread's. (A race CUDA leaves open;
/// the region form must not pick another schedule than the general path's.)
#[kernel]
fn memory_on_both_sides_of_a_loop_edge(out: &mut [u32], rounds: u32) {
    let slot = shared_array![u32; 1];
    let tid = thread_idx().x;
    slot[0] = tid;
    for _ in 0..rounds {
        out[tid as usize] += slot[0];
        sync_threads();
    }
}

#[test]
fn memory_on_both_sides_of_a_loop_edge_keeps_the_general_path() {
    // Without checkers (racecheck would report the race, as it should).
    let (v, path) = with_config(Config::default(), || {
        let mut out = DeviceBuffer::<u32>::zeroed(32).unwrap();
        launch!(memory_on_both_sides_of_a_loop_edge<<<1, 32>>>(&mut out, 1)).unwrap();
        (out.to_vec().unwrap(), last_path())
    });
    assert_eq!(path, "general");
    assert_eq!(v, (0..32).collect::<Vec<u32>>());
}

// ------------------------------------------------------------------ warp-sized tiles

/// cuda-samples' reduce4 tail: a warp-sized tile of the block handle and its `shfl_down` in a
/// loop under `if cta.thread_rank() < 32` (fission reads the tile as the warp: the module doc
/// of `emu-macros/src/fission/normalise.rs`).
#[kernel]
fn tile_reduce(input: &[f32], out: &mut [f32]) {
    let cta = cg::this_thread_block();
    let sdata = shared_array![f32; 64];
    let tid = thread_idx().x as usize;
    let mut sum = input[block_idx().x as usize * 64 + tid];
    sdata[tid] = sum;
    cta.sync();
    let tile32 = cg::tiled_partition::<32>(&cta);
    if cta.thread_rank() < 32 {
        sum += sdata[tid + 32];
        let mut offset = tile32.size() / 2;
        while offset > 0 {
            sum += tile32.shfl_down(sum, offset);
            offset /= 2;
        }
    }
    if cta.thread_rank() == 0 {
        out[block_idx().x as usize] = sum;
    }
}

/// A tile used for its rank alone has no collective to read as the warp's: it is kept (and
/// the kernel keeps the general path).
#[kernel]
fn tile_rank_only(out: &mut [u32]) {
    let cta = cg::this_thread_block();
    let t = shared_array![u32; 64];
    let tile32 = cg::tiled_partition::<32>(&cta);
    let tid = thread_idx().x as usize;
    t[tid] = tile32.thread_rank();
    cta.sync();
    out[tid] = t[63 - tid];
}

/// SHOC's scan reduce writes the warp-aligned bound as `tid < warp_size() as i32`.
#[kernel]
fn warp_tail_with_a_cast_bound(input: &[f32], out: &mut [f32]) {
    let sdata = shared_array![f32; 64];
    let tid = thread_idx().x as i32;
    sdata[tid] = input[block_idx().x as usize * 64 + tid as usize];
    sync_threads();
    if tid < warp_size() as i32 {
        let mut v = sdata[tid] + sdata[tid + 32];
        v += shfl_down_sync(FULL_MASK, v, 16);
        v += shfl_down_sync(FULL_MASK, v, 8);
        v += shfl_down_sync(FULL_MASK, v, 4);
        v += shfl_down_sync(FULL_MASK, v, 2);
        v += shfl_down_sync(FULL_MASK, v, 1);
        if tid == 0 {
            out[block_idx().x as usize] = v;
        }
    }
}

/// The sums of 64-element blocks as a warp tree computes them: `x[t] + x[t + 32]` for each
/// lane, then shuffles down by 16, 8, 4, 2, 1 (lanes past 31 read their own value).
fn warp_tree_sums(x: &[f32]) -> Vec<f32> {
    x.chunks(64)
        .map(|c| {
            let mut v: Vec<f32> = (0..32).map(|t| c[t] + c[t + 32]).collect();
            let mut d = 16;
            while d > 0 {
                v = (0..32).map(|t| v[t] + if t + d < 32 { v[t + d] } else { v[t] }).collect();
                d /= 2;
            }
            v[0]
        })
        .collect()
}

#[test]
fn a_warp_sized_tile_is_read_as_the_warp() {
    let x = inputs(64 * 5);
    let want = warp_tree_sums(&x);
    let input = DeviceBuffer::from_slice(&x).unwrap();
    let path = both_paths(&want, || {
        let mut out = DeviceBuffer::<f32>::zeroed(5).unwrap();
        launch!(tile_reduce<<<5, 64>>>(&input, &mut out)).unwrap();
        out.to_vec().unwrap()
    });
    assert_eq!(path, "regions");
    let path = both_paths(&want, || {
        let mut out = DeviceBuffer::<f32>::zeroed(5).unwrap();
        launch!(warp_tail_with_a_cast_bound<<<5, 64>>>(&input, &mut out)).unwrap();
        out.to_vec().unwrap()
    });
    assert_eq!(path, "regions");
    let want: Vec<u32> = (0..64u32).map(|t| (63 - t) % 32).collect();
    let path = both_paths(&want, || {
        let mut out = DeviceBuffer::<u32>::zeroed(64).unwrap();
        launch!(tile_rank_only<<<1, 64>>>(&mut out)).unwrap();
        out.to_vec().unwrap()
    });
    assert_eq!(path, "general");
}

/// In a 2-D block the tile is still the warp of the linear index, but the region form of a
/// kernel with warp collectives runs 1-D blocks only: the launch takes the general path.
#[kernel]
fn tile_rank_2d(out: &mut [u32]) {
    let cta = cg::this_thread_block();
    let tile32 = cg::tiled_partition::<32>(&cta);
    let r = cta.thread_rank() as usize;
    let v = tile32.shfl_xor(r as u32, 1);
    out[r] = v + 1000 * tile32.thread_rank();
}

#[test]
fn a_warp_sized_tile_in_a_2d_block_keeps_the_general_path() {
    let want: Vec<u32> = (0..64u32).map(|r| (r ^ 1) + 1000 * (r % 32)).collect();
    let path = both_paths(&want, || {
        let mut out = DeviceBuffer::<u32>::zeroed(64).unwrap();
        launch!(tile_rank_2d<<<1, (8, 8)>>>(&mut out)).unwrap();
        out.to_vec().unwrap()
    });
    assert_eq!(path, "general");
    let path = both_paths(&want, || {
        let mut out = DeviceBuffer::<u32>::zeroed(64).unwrap();
        launch!(tile_rank_2d<<<1, 64>>>(&mut out)).unwrap();
        out.to_vec().unwrap()
    });
    // (The shuffle is a region boundary.)
    assert_eq!(path, "regions");
}

// ------------------------------------------------------------------ SHOC's bottom-scan shape

/// SHOC's bottom scan (`scan_kernel.h`) in small: a `let` without a value given in both
/// branches of an `if` (a load or a zero), a parameter rebound and divided (`n /= 2`), a
/// uniform bound chosen by an `if`, a view cast to pairs, a uniform step (`window += 64`)
/// between per-thread statements, and a loop edge with a store to one shared array (`seed`)
/// at its end and stores to another (`s`) at its start.
#[kernel]
fn windowed_pair_scan(x: &[f32], out: &mut [f32], n: i32) {
    let s = shared_array![f32; 64];
    let seed = shared_array![f32; 1];
    let pairs = x.cast::<[f32; 2]>();
    let sums = out.cast::<[f32; 2]>();
    let mut n = n;
    n /= 2;
    let stop: i32 = if grid_dim().x == 1 { n } else { 0 };
    let tid = thread_idx().x as i32;
    let mut i = tid;
    let mut window: i32 = 0;
    if tid == 0 {
        seed[0] = 0.0;
    }
    sync_threads();
    while window < stop {
        let mut v: [f32; 2];
        if i < stop {
            v = pairs[i];
        } else {
            v = [0.0, 0.0];
        }
        v[1] += v[0];
        s[tid] = v[1];
        sync_threads();
        let mut acc = seed[0];
        for k in 0..tid {
            acc += s[k];
        }
        if i < stop {
            sums[i] = [acc + v[0], acc + v[1]];
        }
        sync_threads();
        if tid == 63 {
            seed[0] = acc + v[1];
        }
        window += 64;
        i += 64;
    }
}

#[test]
fn the_bottom_scan_shape_takes_regions() {
    // Small integers: every partial sum is exact, whatever the order.
    let x: Vec<f32> = (0..400).map(|i| ((i * 37) % 11) as f32).collect();
    let n = 384; // 192 pairs: three windows of 64; the last 16 floats stay 0
    let mut want = vec![0.0f32; 400];
    let mut acc = 0.0;
    for k in 0..n {
        acc += x[k];
        want[k] = acc;
    }
    let input = DeviceBuffer::from_slice(&x).unwrap();
    let path = both_paths(&want, || {
        let mut out = DeviceBuffer::<f32>::zeroed(400).unwrap();
        launch!(windowed_pair_scan<<<1, 64>>>(&input, &mut out, n as i32)).unwrap();
        out.to_vec().unwrap()
    });
    assert_eq!(path, "regions");
}

/// Two views of the block's dynamic shared memory are one memory: a store through one at a
/// loop's end and a load through the other at its start race as in
/// `memory_on_both_sides_of_a_loop_edge`, and keep the general path's order.
#[kernel]
fn aliased_dynamic_views_at_a_loop_edge(out: &mut [u32], rounds: u32) {
    let a = dynamic_shared::<u32>();
    let b = dynamic_shared::<u32>();
    let tid = thread_idx().x;
    if tid == 0 {
        a[0] = 0;
    }
    sync_threads();
    for _ in 0..rounds {
        out[tid as usize] += b[0];
        sync_threads();
        a[0] = tid;
    }
}

#[test]
fn aliased_views_at_a_loop_edge_keep_the_general_path() {
    // Without checkers (racecheck would report the race, as it should).
    let (v, path) = with_config(Config::default(), || {
        let mut out = DeviceBuffer::<u32>::zeroed(32).unwrap();
        launch!(aliased_dynamic_views_at_a_loop_edge<<<1, 32, 4>>>(&mut out, 2)).unwrap();
        (out.to_vec().unwrap(), last_path())
    });
    assert_eq!(path, "general");
    // Round 1 reads 0; round 2 reads the thread's own store, as each thread runs its store
    // and its next load before the next thread runs.
    assert_eq!(v, (0..32).collect::<Vec<u32>>());
}

/// Uniform steps among thread code: `w += 1` may move past the thread code after it, but the
/// step after it reads `w` and is needed before the thread code that follows, so neither can
/// move without changing what the threads read (`fission::place`): both stay per thread.
#[kernel]
fn uniform_steps_among_thread_code(out: &mut [u32]) {
    let tid = thread_idx().x as usize;
    let mut w: u32 = 1;
    let mut u: u32 = 0;
    for _ in 0..3 {
        out[tid] += w;
        w += 1;
        u = w * 2;
        out[tid] += u;
        sync_threads();
    }
    out[tid] += u * 100;
}

#[test]
fn uniform_steps_that_depend_on_each_other_keep_their_order() {
    // (1 + 4) + (2 + 6) + (3 + 8), then 8 * 100.
    let want = vec![824u32; 64];
    let path = both_paths(&want, || {
        let mut out = DeviceBuffer::<u32>::zeroed(64).unwrap();
        launch!(uniform_steps_among_thread_code<<<1, 64>>>(&mut out)).unwrap();
        out.to_vec().unwrap()
    });
    assert_eq!(path, "regions");
}

// ------------------------------------------------------------------ warp reductions

/// CUB's `member_mask`: a constant of the file that is the full mask.
#[allow(non_upper_case_globals)]
const member_mask: u32 = 0xffffffff;

/// Every `__reduce_*_sync` at statement level, with the full mask written three ways, and
/// `deviceemu::lane_id()` by its path (CUB's block reduce, `WarpReduceShfl` for `int`).
#[kernel]
fn warp_reductions(x: &[i32], out: &mut [i32]) {
    let t = thread_idx().x as usize;
    let lane = deviceemu::lane_id() as i32;
    let v = x[t] - 40;
    let bits = (x[t] as u32).wrapping_mul(2654435761);
    let add = reduce_add_sync(member_mask, v);
    let min = reduce_min_sync(FULL_MASK, v);
    let max = reduce_max_sync(0xffffffff, v);
    let umin = reduce_min_sync(member_mask, bits);
    let and = reduce_and_sync(member_mask, bits);
    let or = reduce_or_sync(member_mask, bits);
    let xor = reduce_xor_sync(member_mask, bits);
    out[t * 8] = add;
    out[t * 8 + 1] = min;
    out[t * 8 + 2] = max;
    out[t * 8 + 3] = umin as i32;
    out[t * 8 + 4] = and as i32;
    out[t * 8 + 5] = or as i32;
    out[t * 8 + 6] = xor as i32;
    out[t * 8 + 7] = lane;
}

#[test]
fn warp_reductions_take_regions() {
    let x: Vec<i32> = (0..96).map(|i| i * 37 % 83).collect();
    let mut want = vec![0i32; 96 * 8];
    for w in 0..3 {
        let lanes = w * 32..w * 32 + 32;
        let v = || lanes.clone().map(|i| x[i] - 40);
        let bits = || lanes.clone().map(|i| (x[i] as u32).wrapping_mul(2654435761));
        let r = [
            v().fold(0i32, i32::wrapping_add),
            v().min().unwrap(),
            v().max().unwrap(),
            bits().min().unwrap() as i32,
            bits().fold(u32::MAX, |a, b| a & b) as i32,
            bits().fold(0, |a, b| a | b) as i32,
            bits().fold(0, |a, b| a ^ b) as i32,
        ];
        for t in lanes.clone() {
            want[t * 8..t * 8 + 7].copy_from_slice(&r);
            want[t * 8 + 7] = (t % 32) as i32;
        }
    }
    let input = DeviceBuffer::from_slice(&x).unwrap();
    let path = both_paths(&want, || {
        let mut out = DeviceBuffer::<i32>::zeroed(96 * 8).unwrap();
        launch!(warp_reductions<<<1, 96>>>(&input, &mut out)).unwrap();
        out.to_vec().unwrap()
    });
    assert_eq!(path, "regions");
}

/// A lane as the running thread's helper reads it (`warp::lane_id` at run time).
#[device]
fn lane_of_the_running_thread() -> u32 {
    lane_id()
}

/// `lane_id()` and a value an `if` picks from the indices, computed before a barrier and read
/// after it, in blocks of any shape: the body's `lane_id()` is arithmetic on the indices
/// (`host_body.rs`), which fission recomputes after the barrier instead of keeping.
#[kernel]
fn lanes_across_a_barrier(out: &mut [u32]) {
    let d = block_dim();
    let t: u32 = thread_idx().x + d.x * (thread_idx().y + d.y * thread_idx().z);
    let lane = lane_id();
    let warp: u32 = if warp_size() == 1 { t } else { t / 32 };
    let g = (block_idx().x * d.x * d.y * d.z + t) as usize;
    out[2 * g] = 1;
    sync_threads();
    out[2 * g] += lane * 1000 + warp;
    out[2 * g + 1] = lane_of_the_running_thread();
}

#[test]
fn lanes_and_picked_values_are_recomputed_across_barriers_in_any_block_shape() {
    for warp in [32u32, 1] {
        for shape in [Dim3::new(64, 1, 1), Dim3::new(8, 4, 2), Dim3::new(5, 3, 3), Dim3::new(48, 1, 1)] {
            let n = (shape.x * shape.y * shape.z) as usize;
            let want: Vec<u32> = (0..2 * n)
                .flat_map(|g| {
                    let t = (g % n) as u32;
                    let lane = t % warp;
                    let w = if warp == 1 { t } else { t / 32 };
                    [1 + lane * 1000 + w, lane]
                })
                .collect();
            for path in [ExecPath::Auto, ExecPath::General] {
                let got = with_config(Config::from_env().unwrap().warp_size(warp).path(path), || {
                    let mut out = DeviceBuffer::<u32>::zeroed(4 * n).unwrap();
                    launch!(lanes_across_a_barrier<<<2, shape>>>(&mut out)).unwrap();
                    out.to_vec().unwrap()
                });
                assert_eq!(got, want, "{path:?}, {shape:?}, warps of {warp}");
                let want_path = if path == ExecPath::Auto { "regions" } else { "general" };
                assert_eq!(last_path(), want_path, "{shape:?}, warps of {warp}");
            }
        }
    }
}

/// A warp reduction in a loop with a barrier: each pass hands over new values to the same
/// reduction, whose result every lane reads (the region form computes it once per warp and
/// pass, and must not keep the last pass's).
#[kernel]
fn warp_reductions_in_a_loop(x: &[i32], out: &mut [i32]) {
    let t = thread_idx().x as usize;
    let mut acc = 0i32;
    for k in 0..4 {
        let v = x[t] * (k + 1) - 40;
        let s = reduce_add_sync(member_mask, v);
        let m = reduce_max_sync(member_mask, v + k);
        acc = acc.wrapping_mul(31).wrapping_add(s ^ m);
        sync_threads();
    }
    out[t] = acc;
}

#[test]
fn warp_reductions_in_a_loop_read_each_pass_values() {
    // One warp (each pass's first lane reads right after the last pass's) and three.
    for n in [32usize, 96] {
        let x: Vec<i32> = (0..n as i32).map(|i| i * 37 % 83).collect();
        let mut want = vec![0i32; n];
        for (t, w) in want.iter_mut().enumerate() {
            let lanes = t / 32 * 32..t / 32 * 32 + 32;
            for k in 0..4 {
                let v = |i: usize| x[i] * (k + 1) - 40;
                let s = lanes.clone().map(v).fold(0i32, i32::wrapping_add);
                let m = lanes.clone().map(|i| v(i) + k).max().unwrap();
                *w = w.wrapping_mul(31).wrapping_add(s ^ m);
            }
        }
        let input = DeviceBuffer::from_slice(&x).unwrap();
        let path = both_paths(&want, || {
            let mut out = DeviceBuffer::<i32>::zeroed(n).unwrap();
            launch!(warp_reductions_in_a_loop<<<1, n as u32>>>(&input, &mut out)).unwrap();
            out.to_vec().unwrap()
        });
        assert_eq!(path, "regions");
    }
}

// ------------------------------------------------------------------ the file's constants

/// A bound computed from other constants of the file (CUB's `RAKING_THREADS`).
const WARP_LANES: i32 = 32;
const RAKING_LANES: i32 = if WARP_LANES * 2 > 64 { 64 } else { WARP_LANES * 2 / 2 };

/// A waiting helper that writes its result through `*total` (CUB's `*warp_aggregate = ..`).
#[device]
fn warp_total(v: i32, total: &mut i32) {
    let mut s = v;
    let mut d: u32 = 16;
    while d > 0 {
        s += shfl_down_sync(FULL_MASK, s, d);
        d /= 2;
    }
    *total = shfl_sync(FULL_MASK, s, 0);
}

#[kernel]
fn const_bound_warp_total(x: &[i32], out: &mut [i32]) {
    let tid = thread_idx().x as i32;
    let mut total = 0;
    if tid < RAKING_LANES {
        warp_total(x[tid as usize], &mut total);
    }
    out[tid as usize] = total;
}

#[test]
fn a_bound_of_the_files_constants_and_a_result_through_a_reference_take_regions() {
    let x: Vec<i32> = (0..96).map(|i| i * 7 % 13 - 6).collect();
    let sum: i32 = x[..32].iter().sum();
    let want: Vec<i32> = (0..96).map(|t| if t < 32 { sum } else { 0 }).collect();
    let input = DeviceBuffer::from_slice(&x).unwrap();
    let path = both_paths(&want, || {
        let mut out = DeviceBuffer::<i32>::zeroed(96).unwrap();
        launch!(const_bound_warp_total<<<1, 96>>>(&input, &mut out)).unwrap();
        out.to_vec().unwrap()
    });
    assert_eq!(path, "regions");
}

/// A waiting helper that keeps a reference through its parameter in a local: not written
/// out (the local would borrow the caller's array across the region form's loops).
#[device]
fn bump_first(v: &mut [u32; 2]) {
    let q = &mut v[0];
    *q += 1;
    sync_threads();
}

#[kernel]
fn calls_a_helper_that_keeps_a_reference(out: &mut [u32]) {
    let t = thread_idx().x as usize;
    let mut v = [t as u32, 0];
    bump_first(&mut v);
    out[t] = v[0];
}

#[test]
fn a_helper_that_keeps_a_reference_is_not_written_out() {
    let want: Vec<u32> = (1..=64).collect();
    let path = both_paths(&want, || {
        let mut out = DeviceBuffer::<u32>::zeroed(64).unwrap();
        launch!(calls_a_helper_that_keeps_a_reference<<<1, 64>>>(&mut out)).unwrap();
        out.to_vec().unwrap()
    });
    assert_eq!(path, "general");
}

// ------------------------------------------------------------------ atomics beside collectives

/// A warp reduction, then the block's extremes by `atomic_min`/`atomic_max` statements
/// (Parboil's histo prescan ends so): no thread reads what they return, and the last value
/// does not depend on the order they run in.
#[kernel]
fn warp_sums_then_extremes(x: &[u32], minmax: &mut [u32]) {
    let t = thread_idx().x as usize;
    let mut v = x[t];
    let mut d: u32 = 16;
    while d > 0 {
        v += shfl_down_sync(FULL_MASK, v, d);
        d /= 2;
    }
    if t % 32 == 0 {
        minmax.atomic_min(0, v);
        minmax.atomic_max(1, v);
    }
}

/// The same with an `atomic_add` whose result a thread keeps: the order shows.
#[kernel]
fn warp_sums_then_tickets(x: &[u32], tickets: &mut [u32]) {
    let t = thread_idx().x as usize;
    let mut v = x[t];
    let mut d: u32 = 16;
    while d > 0 {
        v += shfl_down_sync(FULL_MASK, v, d);
        d /= 2;
    }
    if t % 32 == 0 {
        let k = tickets.atomic_add(0, 1);
        tickets[1 + t / 32] = k;
        tickets[5 + t / 32] = v;
    }
}

#[test]
fn order_free_atomics_beside_warp_collectives_take_regions() {
    let x: Vec<u32> = (0..128).map(|i| i * 13 % 29).collect();
    let sums: Vec<u32> = x.chunks(32).map(|c| c.iter().sum()).collect();
    let want = vec![*sums.iter().min().unwrap(), *sums.iter().max().unwrap()];
    let input = DeviceBuffer::from_slice(&x).unwrap();
    let path = both_paths(&want, || {
        let mut mm = DeviceBuffer::from_slice(&[u32::MAX, 0]).unwrap();
        launch!(warp_sums_then_extremes<<<1, 128>>>(&input, &mut mm)).unwrap();
        mm.to_vec().unwrap()
    });
    assert_eq!(path, "regions");
    // With a result kept, the general path's order decides which warp gets which ticket.
    let mut tickets = DeviceBuffer::<u32>::zeroed(9).unwrap();
    with_config(Config::default(), || launch!(warp_sums_then_tickets<<<1, 128>>>(&input, &mut tickets))).unwrap();
    assert_eq!(last_path(), "general");
    let mut got = tickets.to_vec().unwrap();
    assert_eq!(got[0], 4);
    got[1..5].sort_unstable();
    assert_eq!(&got[1..5], &[0, 1, 2, 3]);
    assert_eq!(&got[5..], &sums[..]);
}

// ------------------------------------------------------------------ values kept in their slots

/// Adds `by` to `*v`.
#[device]
fn add_into(v: &mut i32, by: i32) {
    *v += by;
}

/// Per-thread `i32` locals that live across barriers, each changed after a barrier in one of
/// the ways Rust allows: a compound assignment, a destructuring assignment, a `&mut` handed to a
/// helper, `core::mem::swap`, a plain assignment inside a block. A region reads a `Copy`
/// local from its slot without taking it, and stores it back only when its code may change it
/// (`uniform::written_in`): each change must reach the last region.
#[kernel]
fn copies_changed_after_barriers(out: &mut [i32]) {
    let t: i32 = thread_idx().x as i32;
    let mut a: i32 = t;
    let mut b: i32 = 2 * t;
    let mut c: i32 = 3 * t;
    let mut d: i32 = 5;
    let mut e: i32 = 7;
    let mut f: i32 = 11;
    let s = shared_array![i32; 64];
    s[t] = a + b + c;
    sync_threads();
    a += s[(t + 1) % 64];
    sync_threads();
    (b, c) = (c, b + s[(t + 2) % 64]);
    sync_threads();
    add_into(&mut d, t);
    sync_threads();
    core::mem::swap(&mut e, &mut a);
    sync_threads();
    {
        f = f * 2 + c;
    }
    sync_threads();
    let base = (block_idx().x * 64) as i32 + t;
    out[base * 6] = a;
    out[base * 6 + 1] = b;
    out[base * 6 + 2] = c;
    out[base * 6 + 3] = d;
    out[base * 6 + 4] = e;
    out[base * 6 + 5] = f;
}

/// The same for arrays and tuples of primitives, which are `Copy` too: an element assigned
/// through an index, a tuple field through its number.
#[kernel]
fn copy_aggregates_changed_after_barriers(out: &mut [i32]) {
    let t: i32 = thread_idx().x as i32;
    let mut g: [i32; 3] = [t, 0, 0];
    let mut h = [1i32; 2];
    let mut p: (i32, i32) = (t, -t);
    sync_threads();
    g[1] = g[0] + 1;
    sync_threads();
    h[t as usize % 2] += 5;
    p.1 += 2;
    sync_threads();
    let base = (block_idx().x * 64) as i32 + t;
    out[base * 7] = g[0];
    out[base * 7 + 1] = g[1];
    out[base * 7 + 2] = g[2];
    out[base * 7 + 3] = h[0];
    out[base * 7 + 4] = h[1];
    out[base * 7 + 5] = p.0;
    out[base * 7 + 6] = p.1;
}

#[test]
fn copy_aggregates_changed_after_a_barrier_keep_each_change() {
    let blocks = 2usize;
    let want: Vec<i32> = (0..blocks * 64)
        .flat_map(|i| {
            let t = (i % 64) as i32;
            let mut h = [1, 1];
            h[t as usize % 2] += 5;
            [t, t + 1, 0, h[0], h[1], t, 2 - t]
        })
        .collect();
    let path = both_paths(&want, || {
        let mut out = DeviceBuffer::<i32>::zeroed(want.len()).unwrap();
        launch!(copy_aggregates_changed_after_barriers<<<blocks as u32, 64>>>(&mut out)).unwrap();
        out.to_vec().unwrap()
    });
    assert_eq!(path, "regions");
}

#[test]
fn copy_locals_changed_after_a_barrier_keep_each_change() {
    let blocks = 3usize;
    let mut want = vec![0i32; blocks * 64 * 6];
    for blk in 0..blocks {
        for t in 0..64i32 {
            let s = |u: i32| 6 * (u % 64);
            let mut a = t + s(t + 1);
            let (b, c) = (3 * t, 2 * t + s(t + 2));
            let d = 5 + t;
            let mut e = 7;
            core::mem::swap(&mut e, &mut a);
            let f = 11 * 2 + c;
            let base = blk * 64 + t as usize;
            want[base * 6..base * 6 + 6].copy_from_slice(&[a, b, c, d, e, f]);
        }
    }
    let path = both_paths(&want, || {
        let mut out = DeviceBuffer::<i32>::zeroed(want.len()).unwrap();
        launch!(copies_changed_after_barriers<<<blocks as u32, 64>>>(&mut out)).unwrap();
        out.to_vec().unwrap()
    });
    assert_eq!(path, "regions");
}

/// A `DeviceCopy` struct kept across barriers (`typed_slots`).
#[derive(Clone, Copy, DeviceCopy)]
#[repr(C)]
struct Pair {
    x: u32,
    y: u32,
}

/// Values kept across barriers in slots without tags, whose type the binding shows
/// (`emu-runtime/src/host/sched/regions/slots.rs`): a load of a `shared_array!`, of
/// `dynamic_shared` and of a cast view, a cast, a suffixed literal changed after a barrier,
/// an array of a cast, a comparison, a block index plus a load, an annotated `DeviceCopy`
/// struct; and a tuple, which keeps tagged slots. The shared memory they came from is
/// overwritten before they are read.
#[kernel]
fn typed_slots(out: &mut [i64]) {
    let s = shared_array![f32; 64];
    let d = dynamic_shared::<u32>();
    let t: u32 = thread_idx().x;
    s[t] = t as f32 * 0.5;
    d[t] = 3 * t + 1;
    sync_threads();
    let g = s[63 - t];
    let a = g as i64;
    let mut b = 3u8 + (d[t] % 7) as u8;
    let c = [g as f64; 2];
    let f = a < 10;
    let h = block_idx().x + d[t];
    let w = d.cast::<u16>();
    let q = w[2 * t] + 1;
    let k: [Pair; 2] = [Pair { x: h, y: t }; 2];
    let l: (u32, f32) = (t, g);
    sync_threads();
    s[t] = -1.0;
    d[t] = 0;
    b += 1;
    sync_threads();
    let base = ((block_idx().x * 64 + t) * 8) as usize;
    out[base] = a;
    out[base + 1] = b as i64;
    out[base + 2] = (c[1] * 4.0) as i64;
    out[base + 3] = f as i64;
    out[base + 4] = h as i64;
    out[base + 5] = q as i64;
    out[base + 6] = (k[1].x + k[0].y) as i64;
    out[base + 7] = l.0 as i64 + (l.1 * 2.0) as i64;
}

#[test]
fn values_kept_in_slots_without_tags_reach_later_regions() {
    let blocks = 2usize;
    let want: Vec<i64> = (0..blocks * 64)
        .flat_map(|i| {
            let (blk, t) = ((i / 64) as i64, (i % 64) as i64);
            let g = (63 - t) as f32 * 0.5;
            let a = g as i64;
            let d = 3 * t + 1;
            let h = blk + d;
            [a, 3 + d % 7 + 1, (g as f64 * 4.0) as i64, (a < 10) as i64, h, d + 1, h + t, t + (g * 2.0) as i64]
        })
        .collect();
    let path = both_paths(&want, || {
        let mut out = DeviceBuffer::<i64>::zeroed(want.len()).unwrap();
        launch!(typed_slots<<<blocks as u32, 64, 256>>>(&mut out)).unwrap();
        out.to_vec().unwrap()
    });
    assert_eq!(path, "regions");
}

// ------------------------------------------------------------------ exits of loops with barriers

/// The iteration of a relaxation over a 2-D shared tile as CUDA codes often write it: a
/// per-thread flag, and a block-uniform `break` between the two barriers of the last pass.
#[kernel]
fn tile_relax(src: &[f32], dst: &mut [f32], iterations: i32) {
    let on = shared_array![[f32; 8]; 8];
    let next = shared_array![[f32; 8]; 8];
    let tx = thread_idx().x as usize;
    let ty = thread_idx().y as usize;
    let idx = block_idx().x as usize * 64 + ty * 8 + tx;
    on[ty][tx] = src[idx];
    next[ty][tx] = src[idx];
    sync_threads();
    let mut computed = false;
    for i in 0..iterations {
        computed = false;
        if tx >= 1 && tx < 7 && ty >= 1 && ty < 7 {
            computed = true;
            next[ty][tx] = 0.25 * (on[ty - 1][tx] + on[ty + 1][tx] + on[ty][tx - 1] + on[ty][tx + 1]);
        }
        sync_threads();
        if i == iterations - 1 {
            break;
        }
        if computed {
            on[ty][tx] = next[ty][tx];
        }
        sync_threads();
    }
    dst[idx] = if computed { next[ty][tx] } else { on[ty][tx] };
}

#[test]
fn a_uniform_break_between_barriers_takes_regions() {
    let blocks = 3;
    let src: Vec<f32> = (0..blocks * 64).map(|i| ((i * 37) % 23) as f32).collect();
    for iterations in [0i32, 1, 2, 5] {
        let mut want = src.clone();
        for b in 0..blocks {
            let mut on: Vec<f32> = src[b * 64..b * 64 + 64].to_vec();
            let mut next = on.clone();
            let mut computed = false;
            for i in 0..iterations {
                for y in 1..7 {
                    for x in 1..7 {
                        next[y * 8 + x] =
                            0.25 * (on[(y - 1) * 8 + x] + on[(y + 1) * 8 + x] + on[y * 8 + x - 1] + on[y * 8 + x + 1]);
                    }
                }
                computed = true;
                if i == iterations - 1 {
                    break;
                }
                on = next.clone();
            }
            for y in 0..8 {
                for x in 0..8 {
                    let inner = (1..7).contains(&x) && (1..7).contains(&y);
                    want[b * 64 + y * 8 + x] = if computed && inner { next[y * 8 + x] } else { on[y * 8 + x] };
                }
            }
        }
        let input = DeviceBuffer::from_slice(&src).unwrap();
        let path = both_paths(&want, || {
            let mut out = DeviceBuffer::<f32>::zeroed(blocks * 64).unwrap();
            launch!(tile_relax<<<blocks as u32, (8, 8)>>>(&input, &mut out, iterations)).unwrap();
            out.to_vec().unwrap()
        });
        assert_eq!(path, "regions", "{iterations} iterations");
    }
}

/// A `while` with a `continue` and a `break`, then a `loop` that a uniform `break` ends.
#[kernel]
fn counted_passes(x: &[u32], out: &mut [u32], passes: u32) {
    let s = shared_array![u32; 64];
    let t = thread_idx().x as usize;
    s[t] = x[t];
    sync_threads();
    let mut p: u32 = 0;
    let mut acc: u32 = 0;
    while p < 100 {
        p += 1;
        if p % 3 == 0 {
            continue;
        }
        acc += s[(t + p as usize) % 64];
        sync_threads();
        if p >= passes {
            break;
        }
        s[t] = acc % 1000;
        sync_threads();
    }
    let mut q: u32 = 0;
    loop {
        sync_threads();
        q += 1;
        if q >= passes {
            break;
        }
        acc += s[(t + 1) % 64];
    }
    out[t] = acc + q;
}

#[test]
fn continue_break_and_a_loop_with_a_uniform_break_take_regions() {
    let x: Vec<u32> = (0..64).map(|i| (i * 71) % 997).collect();
    for passes in [1u32, 2, 4, 7] {
        let mut s = x.clone();
        let mut acc = [0u32; 64];
        let mut p = 0;
        while p < 100 {
            p += 1;
            if p % 3 == 0 {
                continue;
            }
            for t in 0..64 {
                acc[t] += s[(t + p as usize) % 64];
            }
            if p >= passes {
                break;
            }
            for t in 0..64 {
                s[t] = acc[t] % 1000;
            }
        }
        let mut q = 0;
        loop {
            q += 1;
            if q >= passes {
                break;
            }
            for t in 0..64 {
                acc[t] += s[(t + 1) % 64];
            }
        }
        let want: Vec<u32> = acc.iter().map(|a| a + q).collect();
        let input = DeviceBuffer::from_slice(&x).unwrap();
        let path = both_paths(&want, || {
            let mut out = DeviceBuffer::<u32>::zeroed(64).unwrap();
            launch!(counted_passes<<<1, 64>>>(&input, &mut out, passes)).unwrap();
            out.to_vec().unwrap()
        });
        assert_eq!(path, "regions", "{passes} passes");
    }
}

/// The exit in an `else`: `if p < limit { p += 1; } else { break; }` between barriers.
#[kernel]
fn else_exit(x: &[u32], out: &mut [u32], limit: u32) {
    let s = shared_array![u32; 64];
    let t = thread_idx().x as usize;
    s[t] = x[t];
    sync_threads();
    let mut p: u32 = 0;
    let mut acc: u32 = 0;
    for _ in 0..100 {
        acc += s[(t + p as usize) % 64];
        sync_threads();
        if p < limit {
            p += 1;
        } else {
            break;
        }
        s[t] = acc % 1000;
        sync_threads();
    }
    out[t] = acc + p;
}

#[test]
fn an_exit_in_an_else_takes_regions() {
    let x: Vec<u32> = (0..64).map(|i| (i * 53) % 211).collect();
    for limit in [0u32, 1, 5] {
        let (mut s, mut acc, mut p) = (x.clone(), [0u32; 64], 0u32);
        for _ in 0..100 {
            for t in 0..64 {
                acc[t] += s[(t + p as usize) % 64];
            }
            if p < limit {
                p += 1;
            } else {
                break;
            }
            for t in 0..64 {
                s[t] = acc[t] % 1000;
            }
        }
        let want: Vec<u32> = acc.iter().map(|a| a + p).collect();
        let input = DeviceBuffer::from_slice(&x).unwrap();
        let path = both_paths(&want, || {
            let mut out = DeviceBuffer::<u32>::zeroed(64).unwrap();
            launch!(else_exit<<<1, 64>>>(&input, &mut out, limit)).unwrap();
            out.to_vec().unwrap()
        });
        assert_eq!(path, "regions", "limit {limit}");
    }
}

/// Two loops that bind the same variable, each with a `let` of the same name (a wavefront's
/// two sweeps).
#[kernel]
fn two_sweeps(out: &mut [u32]) {
    let t = shared_array![u32; 32];
    let tx = thread_idx().x as usize;
    t[tx] = tx as u32;
    sync_threads();
    for m in 0..4 {
        let v = t[(tx + m) % 32];
        sync_threads();
        t[tx] = v + 1;
        sync_threads();
    }
    for m in 0..3 {
        let v = t[(tx + 31 * m) % 32];
        sync_threads();
        t[tx] = v * 2;
        sync_threads();
    }
    out[tx] = t[tx];
}

#[test]
fn loops_that_bind_the_same_variable_take_regions() {
    let mut t: Vec<u32> = (0..32).collect();
    for m in 0..4 {
        t = (0..32).map(|x| t[(x + m) % 32] + 1).collect();
    }
    for m in 0..3 {
        t = (0..32).map(|x| t[(x + 31 * m) % 32] * 2).collect();
    }
    let path = both_paths(&t, || {
        let mut out = DeviceBuffer::<u32>::zeroed(32).unwrap();
        launch!(two_sweeps<<<1, 32>>>(&mut out)).unwrap();
        out.to_vec().unwrap()
    });
    assert_eq!(path, "regions");
}

/// Odd-even transposition sort in one block that runs until a pass swaps nothing: each pass
/// counts its swaps in shared memory, and the loop ends on that count, read after a barrier
/// (`Program::shared_reads`). The shape of convergence loops (`while (changed)` on a
/// `__shared__` flag).
#[kernel]
fn sort_until_sorted(v: &mut [i32], passes: &mut [u32]) {
    let swaps = shared_array![u32; 1];
    let t = thread_idx().x as usize;
    let n = block_dim().x as usize;
    let mut pass = 0u32;
    loop {
        if t == 0 {
            swaps[0] = 0;
        }
        sync_threads();
        for phase in 0..2 {
            if t % 2 == phase && t + 1 < n && v[t] > v[t + 1] {
                let a = v[t];
                v[t] = v[t + 1];
                v[t + 1] = a;
                swaps.atomic_add(0, 1);
            }
            sync_threads();
        }
        pass += 1;
        if swaps[0] == 0 {
            break;
        }
        sync_threads();
    }
    if t == 0 {
        passes[0] = pass;
    }
}

#[test]
fn a_loop_that_ends_on_a_shared_count_takes_regions() {
    for n in [1usize, 2, 7, 64] {
        let x: Vec<i32> = (0..n as i32).map(|i| (i * 37 + 11) % 23 - 9).collect();
        let mut sorted = x.clone();
        let mut passes = 0u32;
        loop {
            let mut swaps = 0;
            for phase in 0..2 {
                for t in (phase..n.saturating_sub(1)).step_by(2) {
                    if sorted[t] > sorted[t + 1] {
                        sorted.swap(t, t + 1);
                        swaps += 1;
                    }
                }
            }
            passes += 1;
            if swaps == 0 {
                break;
            }
        }
        let mut want: Vec<i32> = sorted.clone();
        want.push(passes as i32);
        let path = both_paths(&want, || {
            let mut v = DeviceBuffer::from_slice(&x).unwrap();
            let mut p = DeviceBuffer::<u32>::zeroed(1).unwrap();
            launch!(sort_until_sorted<<<1, n as u32>>>(&mut v, &mut p)).unwrap();
            let mut out = v.to_vec().unwrap();
            out.push(p.to_vec().unwrap()[0] as i32);
            out
        });
        assert_eq!(path, "regions", "{n} threads");
    }
    // Under a checker each thread's load of the count is checked: the general path.
    let racecheck = Config::from_env().unwrap().checks(deviceemu::Checks { racecheck: true, ..Default::default() });
    let mut v = DeviceBuffer::from_slice(&[3, 1, 2, 0]).unwrap();
    let mut p = DeviceBuffer::<u32>::zeroed(1).unwrap();
    with_config(racecheck, || launch!(sort_until_sorted<<<1, 4>>>(&mut v, &mut p))).unwrap();
    assert_eq!(last_path(), "general");
    assert_eq!(v.to_vec().unwrap(), [0, 1, 2, 3]);
}

/// Breadth-first search in one block over a queue in shared memory (the shape of
/// work-list kernels): the loop runs while the queue's head is below its tail, both in shared
/// memory, and the block computes that test right after a barrier (`Program::shared_reads`).
#[kernel]
fn block_bfs(adj: &[u32], deg: &[u32], dist: &mut [u32]) {
    let queue = shared_array![u32; 64];
    let ends = shared_array![u32; 2];
    let t = thread_idx().x;
    if t == 0 {
        queue[0] = 0;
        ends[0] = 0;
        ends[1] = 1;
    }
    dist[t as usize] = if t == 0 { 0 } else { u32::MAX };
    sync_threads();
    while ends[0] < ends[1] {
        let (head, tail) = (ends[0], ends[1]);
        sync_threads();
        if head + t < tail {
            let v = queue[(head + t) as usize];
            for k in 0..deg[v as usize] {
                let w = adj[(v * 4 + k) as usize];
                if dist.atomic_cas(w as usize, u32::MAX, dist[v as usize] + 1) == u32::MAX {
                    let slot = ends.atomic_add(1, 1);
                    queue[slot as usize] = w;
                }
            }
        }
        sync_threads();
        if t == 0 {
            ends[0] = tail;
        }
        sync_threads();
    }
}

#[test]
fn a_loop_whose_head_reads_shared_memory_after_a_barrier_takes_regions() {
    // 64 vertices, each with edges to up to 4 others.
    let deg: Vec<u32> = (0..64).map(|v| 1 + v % 4).collect();
    let adj: Vec<u32> = (0..256u32).map(|i| (i / 4 * 5 + i % 4 * 11 + 1) % 64).collect();
    let mut want = vec![u32::MAX; 64];
    want[0] = 0;
    let mut frontier = std::collections::VecDeque::from([0u32]);
    while let Some(v) = frontier.pop_front() {
        for k in 0..deg[v as usize] {
            let w = adj[(v * 4 + k) as usize] as usize;
            if want[w] == u32::MAX {
                want[w] = want[v as usize] + 1;
                frontier.push_back(w as u32);
            }
        }
    }
    let (dadj, ddeg) = (DeviceBuffer::from_slice(&adj).unwrap(), DeviceBuffer::from_slice(&deg).unwrap());
    let path = both_paths(&want, || {
        let mut dist = DeviceBuffer::<u32>::zeroed(64).unwrap();
        launch!(block_bfs<<<1, 64>>>(&dadj, &ddeg, &mut dist)).unwrap();
        dist.to_vec().unwrap()
    });
    assert_eq!(path, "regions");
}

/// Per-thread loops in region code: a `while` whose values change by a pure `if` (Collatz
/// steps, which end on the thread's own arithmetic), and `for` loops over a local array's
/// elements through iterator adapters.
#[kernel]
fn per_thread_loops(x: &[u32], out: &mut [u32]) {
    let s = shared_array![u32; 64];
    let t = thread_idx().x as usize;
    s[t] = x[t];
    sync_threads();
    let mut v = s[63 - t];
    let mut steps = 0u32;
    while v != 1 && steps < 200 {
        v = if v % 2 == 0 { v / 2 } else { 3 * v + 1 };
        steps += 1;
    }
    let w = [3u32, 5, 7];
    let mut acc = 0u32;
    for (k, &wk) in w.iter().enumerate() {
        acc += wk * s[(t + k) % 64];
    }
    for (a, b) in w.iter().rev().zip(&w) {
        acc += a * b;
    }
    sync_threads();
    s[t] = steps * 1000 + acc;
    sync_threads();
    out[t] = s[(t + 1) % 64];
}

#[test]
fn per_thread_while_and_iterator_loops_take_regions() {
    let x: Vec<u32> = (1..65).map(|i| i * 7).collect();
    let value = |t: usize| {
        let mut v = x[63 - t];
        let mut steps = 0;
        while v != 1 && steps < 200 {
            v = if v % 2 == 0 { v / 2 } else { 3 * v + 1 };
            steps += 1;
        }
        let acc: u32 = (0..3).map(|k| [3, 5, 7][k] * x[(t + k) % 64]).sum::<u32>() + 3 * 7 + 5 * 5 + 7 * 3;
        steps * 1000 + acc
    };
    let want: Vec<u32> = (0..64).map(|t| value((t + 1) % 64)).collect();
    let input = DeviceBuffer::from_slice(&x).unwrap();
    let path = both_paths(&want, || {
        let mut out = DeviceBuffer::<u32>::zeroed(64).unwrap();
        launch!(per_thread_loops<<<1, 64>>>(&input, &mut out)).unwrap();
        out.to_vec().unwrap()
    });
    assert_eq!(path, "regions");
}

/// A neural-net layer's column sums (the shape of a backprop forward pass): a loop whose
/// bound and stride come from `deviceemu::math` calls of constants (`log2f`, `powf`), uniform
/// values like any arithmetic of them, and a `let _ = ..;` that binds nothing.
#[kernel]
fn layer_column_sums(input: &[f32], weights: &[f32], out: &mut [f32]) {
    let tx = thread_idx().x as usize;
    let ty = thread_idx().y as usize;
    let node = shared_array![f32; 16];
    let w = shared_array![[f32; 16]; 16];
    if tx == 0 {
        node[ty] = input[block_idx().y as usize * 16 + ty];
    }
    sync_threads();
    w[ty][tx] = weights[(block_idx().y as usize * 16 + ty) * 16 + tx] * node[ty];
    let _ = node[ty];
    sync_threads();
    let mut i = 1;
    while i <= deviceemu::math::log2f(16.0) as i32 {
        let power_two = deviceemu::math::powf(2.0, i as f32) as usize;
        if ty % power_two == 0 {
            w[ty][tx] += w[ty + power_two / 2][tx];
        }
        sync_threads();
        i += 1;
    }
    if ty == 0 {
        out[block_idx().y as usize * 16 + tx] = w[0][tx];
    }
}

#[test]
fn loops_bounded_by_math_of_constants_take_regions() {
    let input: Vec<f32> = (0..64).map(|i| (i % 5) as f32 - 2.0).collect();
    let weights: Vec<f32> = (0..1024).map(|i| ((i * 7) % 11) as f32 * 0.25).collect();
    let mut want = vec![0.0f32; 64];
    for b in 0..4 {
        for tx in 0..16 {
            // The same tree as the kernel's: pairs at distance 1, 2, 4, 8.
            let mut col: Vec<f32> = (0..16).map(|ty| weights[(b * 16 + ty) * 16 + tx] * input[b * 16 + ty]).collect();
            for i in 1..=4 {
                let p = 1 << i;
                for ty in (0..16).step_by(p) {
                    col[ty] += col[ty + p / 2];
                }
            }
            want[b * 16 + tx] = col[0];
        }
    }
    let (di, dw) = (DeviceBuffer::from_slice(&input).unwrap(), DeviceBuffer::from_slice(&weights).unwrap());
    let path = both_paths(&want, || {
        let mut out = DeviceBuffer::<f32>::zeroed(64).unwrap();
        launch!(layer_column_sums<<<(1, 4), (16, 16)>>>(&di, &dw, &mut out)).unwrap();
        out.to_vec().unwrap()
    });
    assert_eq!(path, "regions");
}

/// A neighbour list walked by a per-thread `while` whose bound and values are loads of
/// read-only buffers (`&[T]`): no thread of the launch writes them, so the loop ends on the
/// thread's own values and is region code. The same walk bounded by a writable buffer's
/// element may wait for another thread's store: the general path keeps it.
#[kernel]
fn neighbour_walk(start: &[u32], nbr: &[u32], pos: &[f32], out: &mut [f32]) {
    let s = shared_array![f32; 64];
    let i = thread_idx().x as usize;
    let mut acc = 0.0f32;
    let mut k = start[i] as usize;
    while k < start[i + 1] as usize {
        acc += pos[nbr[k] as usize];
        k += 1;
    }
    s[i] = acc;
    sync_threads();
    out[i] = s[63 - i];
}

#[kernel]
fn walk_bounded_by_a_writable_buffer(ends: &mut [u32], out: &mut [u32]) {
    let s = shared_array![u32; 64];
    let i = thread_idx().x as usize;
    let mut k = 0u32;
    while k < ends[i] {
        k += 1;
    }
    s[i] = k;
    sync_threads();
    out[i] = s[63 - i];
}

#[test]
fn a_walk_over_read_only_buffers_is_region_code() {
    let start: Vec<u32> = (0..65).map(|i| i * 2).collect();
    let nbr: Vec<u32> = (0..130).map(|i| (i * 7) % 64).collect();
    let pos: Vec<f32> = (0..64).map(|i| i as f32 * 0.5).collect();
    let sums: Vec<f32> =
        (0..64).map(|i| (start[i]..start[i + 1]).map(|k| pos[nbr[k as usize] as usize]).sum()).collect();
    let want: Vec<f32> = (0..64).map(|i| sums[63 - i]).collect();
    let (a, b, c) = (
        DeviceBuffer::from_slice(&start).unwrap(),
        DeviceBuffer::from_slice(&nbr).unwrap(),
        DeviceBuffer::from_slice(&pos).unwrap(),
    );
    let path = both_paths(&want, || {
        let mut out = DeviceBuffer::<f32>::zeroed(64).unwrap();
        launch!(neighbour_walk<<<1, 64>>>(&a, &b, &c, &mut out)).unwrap();
        out.to_vec().unwrap()
    });
    assert_eq!(path, "regions");
    let ends: Vec<u32> = (0..64).map(|i| i % 9).collect();
    let want: Vec<u32> = (0..64).map(|i| ends[63 - i]).collect();
    let path = both_paths(&want, || {
        let mut e = DeviceBuffer::from_slice(&ends).unwrap();
        let mut out = DeviceBuffer::<u32>::zeroed(64).unwrap();
        launch!(walk_bounded_by_a_writable_buffer<<<1, 64>>>(&mut e, &mut out)).unwrap();
        out.to_vec().unwrap()
    });
    assert_eq!(path, "general");
}

/// A `match` on a block-uniform value whose arms hold barriers (a `switch` over a step with a
/// `__syncthreads()` in each case): normalisation makes it an `if` chain (`match_chains`).
#[kernel]
fn staged_by_mode(x: &[f32], out: &mut [f32], mode: u32) {
    let s = shared_array![f32; 64];
    let t = thread_idx().x as usize;
    s[t] = x[t];
    sync_threads();
    match mode % 4 {
        0 => {
            let v = s[63 - t];
            sync_threads();
            s[t] = v;
        }
        1 | 2 => {
            let v = s[(t + mode as usize) % 64];
            sync_threads();
            s[t] = v * 2.0;
        }
        m => {
            let v = s[(t + 1) % 64] + m as f32;
            sync_threads();
            s[t] += v;
        }
    }
    sync_threads();
    out[t] = s[t];
}

#[test]
fn a_match_whose_arms_hold_barriers_takes_regions() {
    let x: Vec<f32> = (0..64).map(|i| (i * 3 % 17) as f32).collect();
    let input = DeviceBuffer::from_slice(&x).unwrap();
    for mode in 0..5u32 {
        let want: Vec<f32> = (0..64)
            .map(|t| match mode % 4 {
                0 => x[63 - t],
                1 | 2 => x[(t + mode as usize) % 64] * 2.0,
                m => x[t] + x[(t + 1) % 64] + m as f32,
            })
            .collect();
        let path = both_paths(&want, || {
            let mut out = DeviceBuffer::<f32>::zeroed(64).unwrap();
            launch!(staged_by_mode<<<1, 64>>>(&input, &mut out, mode)).unwrap();
            out.to_vec().unwrap()
        });
        assert_eq!(path, "regions", "mode {mode}");
    }
}

/// The same with guards, as a `switch` whose cases test a second value: an arm `k if k ==
/// shift`, and `1 | 2 if shift > 8` that falls through to the next arm when its guard fails.
#[kernel]
fn staged_by_guarded_mode(x: &[f32], out: &mut [f32], mode: u32, shift: u32) {
    let s = shared_array![f32; 64];
    let t = thread_idx().x as usize;
    s[t] = x[t];
    sync_threads();
    match mode % 4 {
        k if k == shift => {
            let v = s[63 - t];
            sync_threads();
            s[t] = v;
        }
        1 | 2 if shift > 8 => {
            let v = s[(t + shift as usize) % 64];
            sync_threads();
            s[t] = v * 2.0;
        }
        m => {
            let v = s[(t + 1) % 64] + m as f32;
            sync_threads();
            s[t] += v;
        }
    }
    sync_threads();
    out[t] = s[t];
}

#[test]
fn a_match_with_guards_whose_arms_hold_barriers_takes_regions() {
    let x: Vec<f32> = (0..64).map(|i| (i * 5 % 19) as f32).collect();
    let input = DeviceBuffer::from_slice(&x).unwrap();
    for mode in 0..4u32 {
        for shift in [0u32, 2, 9] {
            let want: Vec<f32> = (0..64)
                .map(|t| match mode % 4 {
                    k if k == shift => x[63 - t],
                    1 | 2 if shift > 8 => x[(t + shift as usize) % 64] * 2.0,
                    m => x[t] + x[(t + 1) % 64] + m as f32,
                })
                .collect();
            let path = both_paths(&want, || {
                let mut out = DeviceBuffer::<f32>::zeroed(64).unwrap();
                launch!(staged_by_guarded_mode<<<1, 64>>>(&input, &mut out, mode, shift)).unwrap();
                out.to_vec().unwrap()
            });
            assert_eq!(path, "regions", "mode {mode}, shift {shift}");
        }
    }
}

// ------------------------------------------------------------------ read-only loads as uniform values

/// Loops around barriers whose trip counts are elements of a read-only buffer at the block's
/// index (a neighbour list's length): the same for every thread, since no thread of the
/// launch writes a `&[T]` parameter.
#[kernel]
fn neighbour_sums(counts: &[u32], x: &[f32], out: &mut [f32]) {
    let s = shared_array![f32; 64];
    let t = thread_idx().x as usize;
    let b = block_idx().x as usize;
    let n = counts[b];
    let mut acc = 0.0f32;
    for k in 0..n {
        s[t] = x[((b + k as usize) % 4) * 64 + t];
        sync_threads();
        acc += s[63 - t];
        sync_threads();
    }
    for _ in 0..counts[(b + 1) % 4] {
        s[t] = acc;
        sync_threads();
        acc += s[(t + 1) % 64];
        sync_threads();
    }
    out[b * 64 + t] = acc;
}

/// The same first loop with the counts writable: another thread may store them, so the bound
/// is not uniform.
#[kernel]
fn neighbour_sums_writable(counts: &mut [u32], x: &[f32], out: &mut [f32]) {
    let s = shared_array![f32; 64];
    let t = thread_idx().x as usize;
    let b = block_idx().x as usize;
    let n = counts[b];
    let mut acc = 0.0f32;
    for k in 0..n {
        s[t] = x[((b + k as usize) % 4) * 64 + t];
        sync_threads();
        acc += s[63 - t];
        sync_threads();
    }
    out[b * 64 + t] = acc;
}

#[test]
fn a_loop_bound_loaded_from_a_read_only_buffer_is_uniform() {
    let counts = [3u32, 0, 5, 1];
    let x: Vec<f32> = (0..256).map(|i| ((i * 13) % 29) as f32 * 0.25).collect();
    let mut want = vec![0.0f32; 256];
    let mut first = vec![0.0f32; 256];
    for b in 0..4 {
        let mut acc = [0.0f32; 64];
        for k in 0..counts[b] as usize {
            let tile = &x[((b + k) % 4) * 64..((b + k) % 4) * 64 + 64];
            for t in 0..64 {
                acc[t] += tile[63 - t];
            }
        }
        first[b * 64..b * 64 + 64].copy_from_slice(&acc);
        for _ in 0..counts[(b + 1) % 4] {
            let s = acc;
            for t in 0..64 {
                acc[t] += s[(t + 1) % 64];
            }
        }
        want[b * 64..b * 64 + 64].copy_from_slice(&acc);
    }
    let dc = DeviceBuffer::from_slice(&counts).unwrap();
    let dx = DeviceBuffer::from_slice(&x).unwrap();
    let path = both_paths(&want, || {
        let mut out = DeviceBuffer::<f32>::zeroed(256).unwrap();
        launch!(neighbour_sums<<<4, 64>>>(&dc, &dx, &mut out)).unwrap();
        out.to_vec().unwrap()
    });
    assert_eq!(path, "regions");
    let path = both_paths(&first, || {
        let mut dc = DeviceBuffer::from_slice(&counts).unwrap();
        let mut out = DeviceBuffer::<f32>::zeroed(256).unwrap();
        launch!(neighbour_sums_writable<<<4, 64>>>(&mut dc, &dx, &mut out)).unwrap();
        out.to_vec().unwrap()
    });
    assert_eq!(path, "general");
}

/// Hazard (Meyer et al.): a `break` out of a loop with barriers on the thread's own index, so
/// that threads leave the loop at different passes while the others wait at its second
/// barrier: a barrier that some lanes of a warp skip. Normalisation makes the exit a flag,
/// which is per thread, so fission declines the loop; the general path runs it and synccheck
/// reports the divergent barrier, as compute-sanitizer does.
#[kernel]
fn divergent_break(out: &mut [u32]) {
    let s = shared_array![u32; 32];
    let tid = thread_idx().x as usize;
    let mut k = 0u32;
    for r in 0..4u32 {
        s[tid] = r + tid as u32;
        sync_threads();
        k += s[(tid + 1) % 32];
        if tid as u32 == r {
            break;
        }
        sync_threads();
    }
    out[tid] = k;
}

#[test]
fn hazard_a_break_on_the_thread_index_keeps_the_general_path() {
    for path in [ExecPath::Auto, ExecPath::General] {
        let r = with_config(Config::from_env().unwrap().path(path), || {
            let mut out = DeviceBuffer::<u32>::zeroed(32).unwrap();
            deviceemu::quietly(|| launch!(divergent_break<<<1, 32>>>(&mut out)))
        });
        let e = r.expect_err("a barrier some lanes skip").to_string();
        assert!(e.contains("Divergent thread(s) in warp"), "{path:?}: {e}");
        assert_eq!(last_path(), "general", "{path:?}");
    }
}
