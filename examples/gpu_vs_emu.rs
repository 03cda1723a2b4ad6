//! Runs the example kernels on the GPU and in the emulator with the same inputs and compares
//! the results bit for bit (NaN compared as a class for plain arithmetic). Atomics are compared
//! through a kernel whose results do not depend on the order threads run in (`atomics_mix`), and
//! ordered and volatile loads and stores through a chained scan across blocks (`chained_scan`),
//! and the memory API (constant memory, device globals, slices, casts) through
//! `memory_api/kernels.rs`.
//! Warp intrinsics and cooperative groups (issues 12 and 15): the shuffles' width, shuffles
//! from lanes that take no part (the H200 gives 0; the emulator gives 0 and reports, so those
//! launches fail in the emulator on purpose: their values are still compared), reduce7, the
//! sm_80 reductions, the sm_70 matches, tiles, coalesced groups, `cg::reduce` and the scans.
//!
//! `cargo run --release --example gpu_vs_emu --features gpu` (needs an NVIDIA GPU).

#[path = "cg_reduction.rs"]
#[allow(dead_code)]
mod cg_reduction_example;
#[path = "cg_scan.rs"]
#[allow(dead_code)]
mod cg_scan_example;
#[path = "fp_sweep/kernels.rs"]
mod fp_sweep;
#[path = "histogram.rs"]
#[allow(dead_code)]
mod histogram_example;
#[path = "fp_sweep/math.rs"]
mod math_sweep;
#[path = "matmul.rs"]
#[allow(dead_code)]
mod matmul_example;
#[path = "memory_api/kernels.rs"]
mod memory_api;
#[path = "reduction.rs"]
#[allow(dead_code)]
mod reduction_example;
#[path = "saxpy.rs"]
#[allow(dead_code)]
mod saxpy_example;
#[path = "textures.rs"]
#[allow(dead_code)]
mod textures_example;
#[path = "warps.rs"]
#[allow(dead_code)]
mod warps_example;

use core::sync::atomic::Ordering::{Acquire, Relaxed, Release};

use deviceemu::prelude::*;
use deviceemu::{copy_from_symbol_at, copy_to_symbol_at, Config, Error, Target};

/// A double-buffered 1-D stencil in shared memory: `steps` smoothing passes over one block.
#[kernel]
pub fn stencil(steps: u32, input: &[f32], output: &mut [f32]) {
    let a = shared_array![f32; 258];
    let b = shared_array![f32; 258];
    let t = thread_idx().x as usize;
    let n = block_dim().x as usize;
    let base = block_idx().x as usize * n;
    a[t + 1] = input[base + t];
    if t == 0 {
        a[0] = 0.0;
        a[n + 1] = 0.0;
        b[0] = 0.0;
        b[n + 1] = 0.0;
    }
    sync_threads();
    let mut step = 0;
    while step < steps {
        let (src, dst) = if step % 2 == 0 { (a, b) } else { (b, a) };
        dst[t + 1] = 0.25 * src[t] + 0.5 * src[t + 1] + 0.25 * src[t + 2];
        sync_threads();
        step += 1;
    }
    let last = if steps % 2 == 0 { a } else { b };
    output[base + t] = last[t + 1];
}

/// Spin-waits (independent thread scheduling): in every block, thread 0 spins on a shared flag
/// that thread `setter` sets, and thread 0 of block `b` then waits for block `b - 1`'s
/// published prefix (decoupled look-back) before publishing its own.
#[kernel]
pub fn spin_waits(setter: u32, flags: &mut [u32], out: &mut [u32]) {
    let mut flag = shared_array![u32; 1];
    let t = thread_idx().x;
    let b = block_idx().x as usize;
    if t == 0 {
        flag[0] = 0;
    }
    sync_threads();
    if t == setter {
        flag.atomic_exch(0, 1000 + t);
    }
    if t == 0 {
        let mut seen = flag.atomic_or(0, 0);
        while seen == 0 {
            seen = flag.atomic_or(0, 0);
        }
        let prefix = if b == 0 {
            0
        } else {
            let mut v = flags.atomic_or(b - 1, 0);
            while v == 0 {
                v = flags.atomic_or(b - 1, 0);
            }
            v
        };
        out[2 * b] = seen;
        out[2 * b + 1] = prefix;
        thread_fence();
        flags.atomic_exch(b, prefix + 1);
    }
}

/// Plain f32 arithmetic on arbitrary bit patterns: `+ - * /`, and `deviceemu::math`'s `sqrtf`, `fmaf`.
#[kernel]
pub fn arith(x: &[u32], y: &[u32], out: &mut [u32]) {
    let i = (block_idx().x * block_dim().x + thread_idx().x) as usize;
    if i < x.len() {
        let (a, b) = (f32::from_bits(x[i]), f32::from_bits(y[i]));
        let k = i * 6;
        out[k] = (a + b).to_bits();
        out[k + 1] = (a - b).to_bits();
        out[k + 2] = (a * b).to_bits();
        out[k + 3] = (a / b).to_bits();
        out[k + 4] = deviceemu::math::sqrtf(a).to_bits();
        out[k + 5] = deviceemu::math::fmaf(a, b, a).to_bits();
    }
}

/// Every shuffle mode on 64-bit and 32-bit values with lane arguments 0..70 (the low five bits
/// count on the GPU), varied per lane, in full warps; then shuffles under a half-warp mask, and
/// votes. `out` gets `SHUFFLE_OUTPUTS` values per thread.
#[kernel]
pub fn shuffle_sweep(values: &[u64], out: &mut [u64]) {
    let t = (block_idx().x * block_dim().x + thread_idx().x) as usize;
    let lane = lane_id();
    let v = values[t];
    let base = t * SHUFFLE_OUTPUTS;
    let mut k = 0;
    let mut arg = 0u32;
    while arg < 70 {
        let a = arg.wrapping_add(lane % 3);
        out[base + k] = shfl_sync(FULL_MASK, v, a);
        out[base + k + 1] = shfl_up_sync(FULL_MASK, v, a);
        out[base + k + 2] = shfl_down_sync(FULL_MASK, v, a);
        out[base + k + 3] = shfl_xor_sync(FULL_MASK, v, a) ^ shfl_xor_sync(FULL_MASK, v as u32, a) as u64;
        out[base + k + 4] = shfl_down_sync(FULL_MASK, f32::from_bits(v as u32), a).to_bits() as u64;
        k += 5;
        arg += 1;
    }
    if lane < 16 {
        out[base + k] = shfl_sync(0xffff, v, lane ^ 7) ^ shfl_xor_sync(0xffff, v, (v as u32) & 15);
    }
    let p = v % 3 == 0;
    out[base + k + 1] = ballot_sync(FULL_MASK, p) as u64
        | (all_sync(FULL_MASK, p) as u64) << 32
        | (any_sync(FULL_MASK, p) as u64) << 33
        | (all_sync(FULL_MASK, v != 1) as u64) << 34;
    sync_warp(FULL_MASK);
}

/// Outputs per thread of `shuffle_sweep`.
pub const SHUFFLE_OUTPUTS: usize = 70 * 5 + 2;

/// Votes in warps with missing or exited lanes: lanes from `cut` on return first; the block's
/// last warp is partial when the block size is not a multiple of 32.
#[kernel]
pub fn votes_with_exits(cut: u32, values: &[u32], out: &mut [u32]) {
    let t = thread_idx().x as usize;
    if lane_id() >= cut {
        return;
    }
    let p = values[t] % 5 < 2;
    out[t * 3] = ballot_sync(FULL_MASK, p);
    out[t * 3 + 1] = all_sync(FULL_MASK, p) as u32 | (any_sync(FULL_MASK, p) as u32) << 1;
    out[t * 3 + 2] = shfl_xor_sync(FULL_MASK, values[t], 1) & if (lane_id() ^ 1) < cut { u32::MAX } else { 0 };
}

/// Atomics whose results do not depend on the order threads run in, so that the GPU and the
/// emulator must agree exactly: min/max/and/or/xor reductions, `inc`/`dec` counts (and the sum
/// of the tickets `inc` hands out, a fixed multiset), `sub` on `i64`, `exch` of arbitrary
/// `f32` bits into distinct slots (the old value goes next to it), and one `cas` winner per
/// block (who wins depends on the order, so only that there is one is kept). Float
/// `atomic_add` is left out: its rounding depends on the order.
#[kernel]
pub fn atomics_mix(x: &[u32], acc: &mut [u32], wide: &mut [i64], slots: &mut [f32], per_block: &mut [u32]) {
    let t = thread_idx().x as usize;
    let (b, n) = (block_idx().x as usize, x.len());
    let i = b * block_dim().x as usize + t;
    let s = shared_array![u32; 3];
    if t == 0 {
        s[0] = u32::MAX;
        s[1] = 0;
        s[2] = 0;
    }
    sync_threads();
    let v = x[i];
    s.atomic_min(0, v);
    let ticket = s.atomic_inc(1, 40);
    let won = s.atomic_cas(2, 0, t as u32 + 1) == 0;
    acc.atomic_max(0, v);
    acc.atomic_and(1, v | 0x8421_8421);
    acc.atomic_or(2, v & 0x00ff_ff00);
    acc.atomic_xor(3, v);
    acc.atomic_dec(4, 999);
    acc.atomic_add(5, ticket);
    acc.atomic_add(6, won as u32);
    wide.atomic_min(0, v as i32 as i64 * 3);
    wide.atomic_sub(1, v as i64);
    slots[n + i] = slots.atomic_exch(i, f32::from_bits(v));
    sync_threads();
    if t == 0 {
        per_block[2 * b] = s[0];
        per_block[2 * b + 1] = s[1];
    }
}

/// A chained sum across blocks with ordered and volatile accesses: each block takes a ticket
/// (its place in the chain, in the order blocks start, so that it only ever waits for a block
/// that is running), sums its chunk in shared memory, and its thread 0 spins with acquire
/// loads until the block with the previous ticket has published its inclusive sum
/// (`status[k] = sum << 1 | 1`, a release store), then publishes its own. Every thread then
/// reads the block's exclusive prefix from shared memory (a release store and acquire loads
/// across the barrier) and writes its inclusive scan with a volatile store. The results do not
/// depend on the order blocks run in.
#[kernel]
pub fn chained_scan(x: &[u32], ticket: &mut [u32], status: &mut [u64], scan: &mut [u64]) {
    let s = shared_array![u64; 3];
    let part = shared_array![u32; 256];
    let t = thread_idx().x as usize;
    let n = block_dim().x as usize;
    if t == 0 {
        s.atomic_store_scoped(0, ticket.atomic_add(0, 1) as u64, Relaxed, Scope::Block);
        s.atomic_store(1, 0, Relaxed);
    }
    sync_threads();
    let k = s.atomic_load_scoped(0, Relaxed, Scope::Block) as usize;
    let v = x[k * n + t];
    part[t] = v;
    s.atomic_add(1, v as u64);
    sync_threads();
    if t == 0 {
        let mut before = 0;
        if k > 0 {
            let mut st = status.atomic_load(k - 1, Acquire);
            while st & 1 == 0 {
                st = status.atomic_load(k - 1, Acquire);
            }
            before = st >> 1;
        }
        status.atomic_store_scoped(k, (before + s.atomic_load(1, Relaxed)) << 1 | 1, Release, Scope::System);
        s.atomic_store(2, before, Release);
    }
    sync_threads();
    let mut own = s.atomic_load(2, Acquire);
    let mut j = 0;
    while j <= t {
        own += part[j] as u64;
        j += 1;
    }
    scan.volatile_store(k * n + t, own);
}

/// `active_mask()` in the two branches of a divergent `if`, after the lanes from 28 on exited.
/// The GPU's answer is whatever lanes run together (converged lanes of each branch in
/// practice); the emulator's is the lanes at the same call site.
#[kernel]
pub fn branch_masks(out: &mut [u32]) {
    let t = thread_idx().x as usize;
    let lane = lane_id();
    if lane >= 28 {
        return;
    }
    out[t] = if lane < 10 { active_mask() } else { active_mask() | 1 << 31 };
}

/// Reads one element past the end of `x` in thread 0 (to see the GPU's error for a bounds
/// trap).
#[kernel]
pub fn read_past_end(x: &[f32], out: &mut [f32]) {
    if thread_idx().x == 0 {
        out[0] = x[x.len()];
    }
}

use deviceemu::cg;

/// Every shuffle mode at a width (issue 15): block `c` runs case `c` of `cases` (mode, lane
/// argument, width), 32 lanes, full mask, on `1000 + lane` and on a 64-bit value.
#[kernel]
pub fn width_shuffles(cases: &[u32], out: &mut [u32]) {
    let t = thread_idx().x as usize;
    let c = block_idx().x as usize;
    let (mode, arg, width) = (cases[c * 3], cases[c * 3 + 1], cases[c * 3 + 2]);
    let v = 1000 + lane_id();
    let w = (v as u64) << 32 | (v as u64 ^ 0xabcd);
    let (a, b) = match mode {
        0 => (shfl_sync_width(FULL_MASK, v, arg, width), shfl_sync_width(FULL_MASK, w, arg, width)),
        1 => (shfl_up_sync_width(FULL_MASK, v, arg, width), shfl_up_sync_width(FULL_MASK, w, arg, width)),
        2 => (shfl_down_sync_width(FULL_MASK, v, arg, width), shfl_down_sync_width(FULL_MASK, w, arg, width)),
        _ => (shfl_xor_sync_width(FULL_MASK, v, arg, width), shfl_xor_sync_width(FULL_MASK, w, arg, width)),
    };
    out[(c * 32 + t) * 3] = a;
    out[(c * 32 + t) * 3 + 1] = b as u32;
    out[(c * 32 + t) * 3 + 2] = (b >> 32) as u32;
}

/// Shuffles whose source lane takes no part (issue 12; RESULTS.md probes 1 and 3), one block
/// of 32 per shape: the H200 returns 0 from such a lane.
#[kernel]
pub fn absent_sources(out: &mut [u32]) {
    let t = thread_idx().x as usize;
    let b = block_idx().x;
    let lane = lane_id();
    let i = b as usize * 64 + t * 2;
    let v = 1000 + lane;
    if b == 0 {
        // p1a: lanes 8-31 return, lanes 0-7 read lane + 16.
        if lane >= 8 {
            return;
        }
        out[i] = shfl_down_sync(0xff, v, 16);
    } else if b == 1 {
        // p1c: idx from lane + 16 with mask 0xffff, lanes 16-31 return.
        if lane >= 16 {
            return;
        }
        out[i] = shfl_sync(0xffff, v, lane + 16);
    } else if b == 2 {
        // p3 mode 1: lanes 16-31 are named, write and run on.
        if lane < 16 {
            out[i] = shfl_down_sync(FULL_MASK, v, 1);
        } else {
            out[i] = 0xffff_fffe;
        }
    } else if b == 3 {
        // p1c 64-bit: down(16) with mask 0xffff, lanes 16-31 return.
        if lane >= 16 {
            return;
        }
        let w = shfl_down_sync(0xffff, ((v as u64) << 32) | (9000 + v as u64), 16);
        out[i] = w as u32;
        out[i + 1] = (w >> 32) as u32;
    } else {
        // p1c complementary masks: down(16) by both halves, each with its own mask.
        let w = if lane < 16 { shfl_down_sync(0xffff, v, 16) } else { shfl_down_sync(0xffff_0000, v, 16) };
        out[i] = w;
    }
}

/// NVIDIA's reduce7 (reduction_kernel.cu, nIsPow2): the second warp reduction shuffles from
/// lanes outside `ballot` (right on the H200 because they read 0). With `fixed`, tile 0
/// reduces with the full mask and zeros.
#[kernel]
pub fn reduce7_sample(input: &[u32], out: &mut [u32], fixed: bool) {
    let sdata = shared_array![u32; 32];
    let tid = thread_idx().x;
    let bs = block_dim().x;
    let grid = bs * 2 * grid_dim().x;
    let n = input.len() as u32;
    let mut i = block_idx().x * bs * 2 + tid;
    let mut sum = 0u32;
    while i < n {
        sum += input[i as usize];
        if i + bs < n {
            sum += input[(i + bs) as usize];
        }
        i += grid;
    }
    let mut offset = 16;
    while offset > 0 {
        sum += shfl_down_sync(FULL_MASK, sum, offset);
        offset /= 2;
    }
    if tid % 32 == 0 {
        sdata[(tid / 32) as usize] = sum;
    }
    sync_threads();
    let warps = bs / 32;
    let ballot = ballot_sync(FULL_MASK, tid < warps);
    if fixed {
        if tid < 32 {
            sum = if tid < warps { sdata[tid as usize] } else { 0 };
            let mut offset = 16;
            while offset > 0 {
                sum += shfl_down_sync(FULL_MASK, sum, offset);
                offset /= 2;
            }
        }
    } else if tid < warps {
        sum = sdata[tid as usize];
        let mut offset = 16;
        while offset > 0 {
            sum += shfl_down_sync(ballot, sum, offset);
            offset /= 2;
        }
    }
    if tid == 0 {
        out[block_idx().x as usize] = sum;
    }
}

/// The sm_80 reductions over `masks[block]`: lanes outside the mask return first.
#[kernel]
pub fn redux_all(masks: &[u32], x: &[i32], out: &mut [i32]) {
    let t = (block_idx().x * block_dim().x + thread_idx().x) as usize;
    let mask = masks[block_idx().x as usize];
    if mask & (1 << lane_id()) == 0 {
        return;
    }
    let v = x[t];
    let u = v as u32;
    out[t * 9] = reduce_add_sync(mask, v);
    out[t * 9 + 1] = reduce_min_sync(mask, v);
    out[t * 9 + 2] = reduce_max_sync(mask, v);
    out[t * 9 + 3] = reduce_add_sync(mask, u) as i32;
    out[t * 9 + 4] = reduce_min_sync(mask, u) as i32;
    out[t * 9 + 5] = reduce_max_sync(mask, u) as i32;
    out[t * 9 + 6] = reduce_and_sync(mask, u) as i32;
    out[t * 9 + 7] = reduce_or_sync(mask, u) as i32;
    out[t * 9 + 8] = reduce_xor_sync(mask, u) as i32;
}

/// The sm_70 matches over `masks[block]`, on 32- and 64-bit values.
#[kernel]
pub fn match_all_kinds(masks: &[u32], x: &[u64], out: &mut [u32]) {
    let t = (block_idx().x * block_dim().x + thread_idx().x) as usize;
    let mask = masks[block_idx().x as usize];
    if mask & (1 << lane_id()) == 0 {
        return;
    }
    let v = x[t];
    out[t * 6] = match_any_sync(mask, v as u32);
    let (m, p) = match_all_sync(mask, v as u32);
    out[t * 6 + 1] = m;
    out[t * 6 + 2] = p as u32;
    out[t * 6 + 3] = match_any_sync(mask, v);
    let (m, p) = match_all_sync(mask, v);
    out[t * 6 + 4] = m;
    out[t * 6 + 5] = p as u32;
}

/// Every scoped atomic at `scope` (0 block, 1 device, 2 system) on `g` (global) and on a
/// shared copy, written out by thread 0 of each block into `out[block * 11 ..]`.
#[kernel]
pub fn scoped_all(scope: u32, x: &[u32], g: &mut [u32], out: &mut [u32]) {
    let s = shared_array![u32; 11];
    let t = thread_idx().x as usize;
    let sc = match scope {
        0 => Scope::Block,
        1 => Scope::Device,
        _ => Scope::System,
    };
    if t < 11 {
        s[t] = [0, 1000, u32::MAX, 0, 0xffff_ffff, 0, 0, 0, 0, 0, 0][t];
    }
    sync_threads();
    let v = x[block_idx().x as usize * block_dim().x as usize + t];
    // The same on global memory, then on shared memory (written out twice: kernels compiled
    // for the GPU cannot use a local macro).
    g.atomic_add_scoped(0, v, sc);
    g.atomic_sub_scoped(1, 1, sc);
    g.atomic_min_scoped(2, v, sc);
    g.atomic_max_scoped(3, v, sc);
    g.atomic_and_scoped(4, v | 0x100, sc);
    g.atomic_or_scoped(5, v, sc);
    g.atomic_xor_scoped(6, v, sc);
    g.atomic_inc_scoped(7, u32::MAX, sc);
    g.atomic_dec_scoped(8, u32::MAX, sc);
    g.atomic_exch_scoped(9, 7, sc);
    // A CAS loop: each thread adds 1 to element 10.
    let mut old = g.atomic_add_scoped(10, 0, sc);
    loop {
        let seen = g.atomic_cas_scoped(10, old, old + 1, sc);
        if seen == old {
            break;
        }
        old = seen;
    }
    s.atomic_add_scoped(0, v, sc);
    s.atomic_sub_scoped(1, 1, sc);
    s.atomic_min_scoped(2, v, sc);
    s.atomic_max_scoped(3, v, sc);
    s.atomic_and_scoped(4, v | 0x100, sc);
    s.atomic_or_scoped(5, v, sc);
    s.atomic_xor_scoped(6, v, sc);
    s.atomic_inc_scoped(7, u32::MAX, sc);
    s.atomic_dec_scoped(8, u32::MAX, sc);
    s.atomic_exch_scoped(9, 7, sc);
    // A CAS loop: each thread adds 1 to element 10.
    let mut old = s.atomic_add_scoped(10, 0, sc);
    loop {
        let seen = s.atomic_cas_scoped(10, old, old + 1, sc);
        if seen == old {
            break;
        }
        old = seen;
    }
    sync_threads();
    if t < 11 {
        out[block_idx().x as usize * 11 + t] = s[t];
    }
}

/// Outputs per thread of `cg_tiles`.
const CG_TILE_OUT: usize = 16;

/// Every tile query and collective for one tile size.
fn cg_tile_row<const N: u32>(v: u32, a: u32) -> [u32; CG_TILE_OUT] {
    let b = cg::this_thread_block();
    let t = cg::tiled_partition::<N>(&b);
    let p = v % 3 == 0;
    let f = (v % 1013) as f32 * 0.37 - 3.0;
    t.sync();
    [
        t.thread_rank() | t.meta_group_rank() << 8 | t.meta_group_size() << 16,
        t.shfl(v, a),
        t.shfl_up(v, a),
        t.shfl_down(v, a),
        t.shfl_xor(v, a & (N - 1)),
        t.any(p) as u32 | (t.all(p) as u32) << 1,
        t.ballot(p),
        t.match_any(v % 4),
        cg::reduce(&t, v, cg::plus()),
        cg::reduce(&t, v, cg::greater()),
        cg::inclusive_scan(&t, v, cg::plus()),
        cg::exclusive_scan(&t, v, cg::bit_or()),
        cg::reduce(&t, f, cg::plus()).to_bits(),
        cg::inclusive_scan(&t, f, cg::plus()).to_bits(),
        cg::exclusive_scan(&t, f, cg::plus()).to_bits(),
        cg::reduce(&t, f, cg::less()).to_bits(),
    ]
}

/// Tiles of `1 << block_idx().x` threads (1 to 32), shuffle argument `a`.
#[kernel]
pub fn cg_tiles(x: &[u32], a: u32, out: &mut [u32]) {
    let t = (block_idx().x * block_dim().x + thread_idx().x) as usize;
    let v = x[t];
    let row = match block_idx().x {
        0 => cg_tile_row::<1>(v, a),
        1 => cg_tile_row::<2>(v, a),
        2 => cg_tile_row::<4>(v, a),
        3 => cg_tile_row::<8>(v, a),
        4 => cg_tile_row::<16>(v, a),
        _ => cg_tile_row::<32>(v, a),
    };
    for (k, r) in row.iter().enumerate() {
        out[t * CG_TILE_OUT + k] = *r;
    }
}

/// Coalesced groups of lanes `lane % 3 == 0` (11, not a power of two) and `lane % 4 == 1`
/// (8, a power of two), and the partitions of the warp.
#[kernel]
pub fn cg_coalesced(x: &[u32], out: &mut [u32]) {
    let t = (block_idx().x * block_dim().x + thread_idx().x) as usize;
    let v = x[t];
    let lane = lane_id();
    let f = (v % 1013) as f32 * 0.37 - 3.0;
    let add = cg::op(|a: f32, b: f32| a + b);
    if lane % 3 == 0 || lane % 4 == 1 {
        let g = cg::coalesced_threads();
        out[t * 12] = g.size() | g.thread_rank() << 8;
        out[t * 12 + 1] = g.shfl(v, 2);
        out[t * 12 + 2] = g.shfl_down(v, 1);
        out[t * 12 + 3] = g.shfl_up(v, 2);
        out[t * 12 + 4] = g.ballot(v % 2 == 0);
        out[t * 12 + 5] = cg::reduce(&g, v, cg::plus());
        out[t * 12 + 6] = cg::reduce(&g, f, add).to_bits();
        out[t * 12 + 7] = cg::inclusive_scan(&g, f, add).to_bits();
        out[t * 12 + 8] = cg::exclusive_scan(&g, v, cg::plus());
    }
    let w = cg::tiled_partition::<32>(&cg::this_thread_block());
    let by_label = cg::labeled_partition(&w, v % 5);
    let by_pred = cg::binary_partition(&w, v % 2 == 0);
    out[t * 12 + 9] = by_label.mask();
    out[t * 12 + 10] = cg::reduce(&by_label, f, cg::plus()).to_bits();
    out[t * 12 + 11] = by_pred.mask() ^ cg::inclusive_scan(&by_pred, v, cg::plus());
}

/// The same definitions as `tools/probes/p10_cg.cu`'s CUDA C kernel, to compare with
/// CUDA's own `cg::reduce` and scans (see RESULTS.md probe 10): per thread, six float results.
#[kernel]
pub fn cg_cuda_ref(x: &[f32], out: &mut [u32]) {
    let t = thread_idx().x as usize;
    let v = x[t];
    let b = cg::this_thread_block();
    let t32 = cg::tiled_partition::<32>(&b);
    let t8 = cg::tiled_partition::<8>(&b);
    let t16 = cg::tiled_partition::<16>(&b);
    out[t] = cg::reduce(&t32, v, cg::plus()).to_bits();
    out[64 + t] = cg::reduce(&t8, v, cg::plus()).to_bits();
    out[128 + t] = cg::inclusive_scan(&t32, v, cg::plus()).to_bits();
    out[192 + t] = cg::exclusive_scan(&t16, v, cg::plus()).to_bits();
    if lane_id() % 3 == 0 {
        let g = cg::coalesced_threads();
        out[256 + t] = cg::reduce(&g, v, cg::plus()).to_bits();
        out[320 + t] = cg::inclusive_scan(&g, v, cg::plus()).to_bits();
    }
}

// ---- issue 15, this session: multi-warp tiles, f16 atomics, grid sync, clusters, symbols ----

#[path = "cg_big/kernels.rs"]
#[allow(unreachable_pub)] // pub for the test that includes it too
mod cg_big; // p13's kernel: cg::reduce and the scans on multi-warp tiles

/// `gpu_vs_emu cgbig`: the emulator's results in p13's line format, and the GPU against the
/// emulator.
fn cg_big_rows() -> Result<usize, Error> {
    let emu = on(Target::Emulator, cg_big::run)?;
    for (k, row) in emu.chunks(1024).enumerate() {
        let hex: Vec<String> = row.iter().map(|b| format!("{b:08x}")).collect();
        println!("cgbig {} {} {}", cg_big::SIZES[k / cg_big::OUT], k % cg_big::OUT, hex.join(" "));
    }
    compare("cg_big_scan", cg_big::run, |p, q| p == q)
}

/// Outputs per thread of `cg_big_tiles`.
const BIG_TILE_OUT: usize = 8;

/// A multi-warp tile's collectives for one size; values cross warps through shared memory
/// between two `tile.sync()`s.
#[device]
fn cg_big_tile_row<const N: u32>(v: u32, a: u32, s: Shared<u32>) -> [u32; BIG_TILE_OUT] {
    let b = cg::this_thread_block();
    let t = cg::tiled_partition::<N>(&b);
    let r = b.thread_rank();
    let f = (v % 1013) as f32 * 0.37 - 3.0;
    s[r as usize] = v;
    t.sync();
    let base = r - t.thread_rank();
    let neighbour = s[(base + (t.thread_rank() + 37) % N) as usize];
    t.sync();
    [
        t.thread_rank() | t.meta_group_rank() << 12 | t.meta_group_size() << 20,
        t.shfl(v, (a + t.meta_group_rank()) % N),
        t.any(v % 97 == a) as u32 | (t.all(v % 97 != a) as u32) << 1,
        cg::reduce(&t, v, cg::plus()),
        cg::reduce(&t, v, cg::less()),
        cg::reduce(&t, f, cg::plus()).to_bits(),
        t.shfl(f64::from(f) * 3.0, N - 1 - a % N).to_bits() as u32,
        neighbour,
    ]
}

/// Tiles of 64, 128, 256, 512 or 1024 threads (`n`) in blocks of 1024.
#[kernel]
pub fn cg_big_tiles(n: u32, x: &[u32], a: u32, out: &mut [u32]) {
    let s = shared_array![u32; 1024];
    let t = (block_idx().x * block_dim().x + thread_idx().x) as usize;
    let v = x[t];
    let row = match n {
        64 => cg_big_tile_row::<64>(v, a, s),
        128 => cg_big_tile_row::<128>(v, a, s),
        256 => cg_big_tile_row::<256>(v, a, s),
        512 => cg_big_tile_row::<512>(v, a, s),
        _ => cg_big_tile_row::<1024>(v, a, s),
    };
    let mut k = 0;
    while k < BIG_TILE_OUT {
        out[t * BIG_TILE_OUT + k] = row[k];
        k += 1;
    }
}

/// `acc[i] += b[i]` atomically for each 16-bit type, on global memory and (block 0's first
/// 64 elements) through shared memory, whose sums go to `old[acc.len()..]`; the old values too.
#[kernel]
pub fn half_atomics(
    acc: &mut [f16],
    b: &[f16],
    old: &mut [f16],
    bacc: &mut [bf16],
    bb: &[bf16],
    bold: &mut [bf16],
    pacc: &mut [Half2],
    pb: &[Half2],
    qacc: &mut [Bfloat162],
    qb: &[Bfloat162],
) {
    let i = (block_idx().x * block_dim().x + thread_idx().x) as usize;
    let sh = shared_array![f16; 64];
    let t = thread_idx().x as usize;
    if i < acc.len() {
        old[i] = acc.atomic_add(i, b[i]);
        bold[i] = bacc.atomic_add_scoped(i, bb[i], Scope::Block);
    }
    if i < pacc.len() {
        pacc.atomic_add_scoped(i, pb[i], Scope::System);
        qacc.atomic_add(i, qb[i]);
    }
    if t < 64 {
        sh[t] = b[t];
    }
    sync_threads();
    if t < 64 && i < acc.len() {
        sh.atomic_add(t, acc[i]);
    }
    sync_threads();
    if block_idx().x == 0 && t < 64 {
        old[acc.len() + t] = sh[t];
    }
}

/// A grid-synchronised sum in one cooperative launch (`this_grid().sync()`).
#[kernel]
pub fn grid_sum_coop(x: &[u32], partial: &mut [u32], out: &mut [u32]) {
    let grid = this_grid();
    let rank = grid.thread_rank() as usize;
    let size = grid.size() as usize;
    let mut s = 0u32;
    let mut i = rank;
    while i < x.len() {
        s = s.wrapping_add(x[i]);
        i += size;
    }
    partial[rank] = s;
    grid.sync();
    if rank == 0 {
        let mut total = 0u32;
        let mut k = 0;
        while k < size {
            total = total.wrapping_add(partial[k]);
            k += 1;
        }
        out[0] = total;
    }
    grid.sync();
    partial[rank] = out[0] ^ rank as u32;
}

/// A cluster histogram in distributed shared memory: each block of a cluster of 4 owns 16
/// bins; threads add to the owner's bins (`map_shared_rank` + `atomic_add`) and read their
/// neighbour's first bin.
#[kernel(cluster(4, 1, 1))]
pub fn cluster_hist(data: &[u32], hist: &mut [u32], peek: &mut [u32]) {
    let cluster = this_cluster();
    let part = shared_array![u32; 16];
    let t = thread_idx().x as usize;
    if t < 16 {
        part[t] = 0;
    }
    cluster.sync();
    let i = (block_idx().x * block_dim().x) as usize + t;
    if i < data.len() {
        let bin = data[i] as usize % 64;
        let owner = cluster.map_shared_rank(&part, (bin / 16) as u32);
        owner.atomic_add(bin % 16, 1);
    }
    cluster.sync();
    if t < 16 {
        hist[block_idx().x as usize * 16 + t] = part[t];
        let next = cluster.map_shared_rank(&part, (cluster.block_rank() + 1) % cluster.num_blocks());
        peek[block_idx().x as usize * 16 + t] = next.load(t) | cluster.block_rank() << 24;
    }
    cluster.sync();
}

/// Filter taps in constant memory, partly copied at an offset (`copy_to_symbol_at`).
#[constant]
static TAPS_AT: [f32; 8] = [0.0; 8];

#[kernel]
pub fn taps_at(out: &mut [f32]) {
    let i = thread_idx().x as usize;
    if i < 8 {
        out[i] = TAPS_AT[i] * 2.0;
    }
}

fn on<R>(target: Target, f: impl FnOnce() -> Result<R, Error>) -> Result<R, Error> {
    deviceemu::with_config(Config::default().target(target), f)
}

/// Runs `f` on both targets and counts differing elements (`same` decides equality).
fn compare<T: Copy + std::fmt::Debug>(
    name: &str,
    f: impl Fn() -> Result<Vec<T>, Error>,
    same: impl Fn(&T, &T) -> bool,
) -> Result<usize, Error> {
    // `GPU_VS_EMU_ONLY=a,b` runs only the rows named (each in its own process, a row that hangs
    // or faults on the GPU cannot hide the others: a trap is sticky for the whole context).
    if let Ok(only) = std::env::var("GPU_VS_EMU_ONLY") {
        if !only.split(',').any(|r| r == name) {
            return Ok(0);
        }
    }
    let gpu = on(Target::Gpu, &f)?;
    let emu = on(Target::Emulator, &f)?;
    assert_eq!(gpu.len(), emu.len());
    let diffs: Vec<usize> = (0..gpu.len()).filter(|&i| !same(&gpu[i], &emu[i])).collect();
    println!("{name:<12} {:>10} values  {:>6} differences", gpu.len(), diffs.len());
    for &i in diffs.iter().take(5) {
        println!("    [{i}] gpu {:?} emulator {:?}", gpu[i], emu[i]);
    }
    Ok(diffs.len())
}

/// Deterministic pseudo-random bits (splitmix64).
fn bits(n: usize, seed: u64) -> Vec<u32> {
    let mut s = seed;
    (0..n)
        .map(|_| {
            s = s.wrapping_add(0x9E37_79B9_7F4A_7C15);
            let mut z = s;
            z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
            (z ^ (z >> 31)) as u32
        })
        .collect()
}

fn floats(n: usize, seed: u64) -> Vec<f32> {
    bits(n, seed).into_iter().map(|b| (b >> 8) as f32 / (1 << 24) as f32 * 2.0 - 1.0).collect()
}

fn f32_bits_equal(a: &f32, b: &f32) -> bool {
    a.to_bits() == b.to_bits()
}

/// The texture rows: `tex1Dfetch` on linear memory, `tex1D` on 1-D arrays and `tex2D` on 2-D
/// arrays and pitched memory, in every addressing mode, filter and normalisation, with 1, 2
/// and 4 channels; coordinates on a 1/16-texel grid, random ones and special values.
/// `compare` for f32 rows, which also writes the GPU's bits to `$GPU_VS_EMU_DUMP/NAME.gpu`
/// (little-endian u32s) when that variable is set; with `$GPU_VS_EMU_REPLAY` set it reads the
/// GPU's results from such a file instead of running the GPU (to check a changed emulator
/// against a recorded run).
fn tcompare(
    name: &str,
    f: impl Fn() -> Result<Vec<f32>, Error>,
    same: impl Fn(&f32, &f32) -> bool,
) -> Result<usize, Error> {
    let file = |dir: &std::ffi::OsStr| std::path::Path::new(dir).join(format!("{name}.gpu"));
    if let Some(dir) = std::env::var_os("GPU_VS_EMU_REPLAY") {
        let bytes = std::fs::read(file(&dir)).map_err(|e| Error::InvalidValue { message: format!("{name}: {e}") })?;
        let gpu: Vec<f32> =
            bytes.chunks_exact(4).map(|c| f32::from_bits(u32::from_le_bytes([c[0], c[1], c[2], c[3]]))).collect();
        let emu = on(Target::Emulator, &f)?;
        assert_eq!(gpu.len(), emu.len(), "{name}: the recorded run has another length");
        let diffs: Vec<usize> = (0..gpu.len()).filter(|&i| !same(&gpu[i], &emu[i])).collect();
        println!("{name:<12} {:>10} values  {:>6} differences (recorded GPU run)", gpu.len(), diffs.len());
        for &i in diffs.iter().take(5) {
            println!("    [{i}] gpu {:?} emulator {:?}", gpu[i], emu[i]);
        }
        return Ok(diffs.len());
    }
    if let Some(dir) = std::env::var_os("GPU_VS_EMU_DUMP") {
        let gpu = on(Target::Gpu, &f)?;
        let bytes: Vec<u8> = gpu.iter().flat_map(|v| v.to_bits().to_le_bytes()).collect();
        let _ = std::fs::write(file(&dir), bytes);
    }
    compare(name, f, same)
}

/// A row's differences, or 1 (and the error printed) when it failed, so that one failing row
/// does not hide the others.
fn survive(name: &str, r: Result<usize, Error>) -> usize {
    r.unwrap_or_else(|e| {
        println!("{name:<12} FAILED: {e}");
        1
    })
}

fn texture_rows() -> Result<usize, Error> {
    use deviceemu::texture::{AddressMode as A, FilterMode as F};
    use textures_example::*;
    let modes = [A::Wrap, A::Clamp, A::Mirror, A::Border];
    let mut descs = Vec::new();
    for normalized in [false, true] {
        for filter in [F::Point, F::Linear] {
            for m in modes {
                descs.push(
                    TextureDesc::new()
                        .address(m)
                        .filter(filter)
                        .normalized(normalized)
                        .border([7.25, -3.5, 0.125, 1000.0]),
                );
            }
            descs.push(
                TextureDesc::new()
                    .address_xy(A::Wrap, A::Border)
                    .filter(filter)
                    .normalized(normalized)
                    .border([-1.5; 4]),
            );
        }
    }
    let specials =
        [0.0f32, -0.0, f32::NAN, f32::INFINITY, f32::NEG_INFINITY, f32::MAX, -f32::MAX, 1e10, -1e10, 1e-30, 0.5, 1.0];
    // Coordinates over [-2n, 3n] (or [-2, 3] normalised): a 1/16 grid, random, special.
    let coords = |n: usize, normalized: bool, seed: u64| -> Vec<f32> {
        let mut v: Vec<f32> = (-32 * n as i32..=48 * n as i32).map(|k| k as f32 / 16.0).collect();
        v.extend(floats(2048, seed).into_iter().map(|r| (r * 2.5 + 0.5) * n as f32));
        if normalized {
            v.iter_mut().for_each(|x| *x /= n as f32);
        }
        v.extend(specials);
        v
    };
    let mut total = 0;
    let lin: Vec<f32> = floats(1000, 40).into_iter().map(|v| v * 100.0).collect();
    total += survive(
        "tex1Dfetch",
        tcompare(
            "tex1Dfetch",
            || {
                let buf = DeviceBuffer::from_slice(&lin)?;
                let t = TextureObject::linear(&buf, TextureDesc::new())?;
                let mut out = DeviceBuffer::<f32>::zeroed(1100)?;
                launch!(fetch_each<<<5, 256>>>(t.texture(), -50, &mut out))?;
                out.to_vec()
            },
            f32_bits_equal,
        ),
    );
    let t37: Vec<f32> = floats(37, 41).into_iter().map(|v| v * 100.0).collect();
    total += survive(
        "tex1D",
        tcompare(
            "tex1D",
            || {
                let mut all = Vec::new();
                for d in &descs {
                    let xs = coords(37, d.normalized, 42);
                    let t = TextureObject::array_1d(&t37, *d)?;
                    let xb = DeviceBuffer::from_slice(&xs)?;
                    let mut out = DeviceBuffer::<f32>::zeroed(xs.len())?;
                    launch!(sample_each_1d<<<(xs.len() as u32).div_ceil(256), 256>>>(t.texture(), &xb, &mut out))?;
                    all.extend(out.to_vec()?);
                }
                Ok(all)
            },
            f32_bits_equal,
        ),
    );
    let (w, h) = (9usize, 7usize);
    let t97: Vec<f32> = floats(w * h, 43).into_iter().map(|v| v * 100.0).collect();
    let pairs = |normalized: bool, seed: u64| -> (Vec<f32>, Vec<f32>) {
        let mut xs = coords(w, normalized, seed);
        let mut ys = coords(h, normalized, seed + 1);
        let n = xs.len().min(ys.len());
        xs.truncate(n);
        ys.truncate(n);
        ys.reverse();
        (xs, ys)
    };
    let row_2d = |name: &str, pitched: bool| {
        tcompare(
            name,
            || {
                let mut all = Vec::new();
                let pitch = deviceemu::pitch_for::<f32>(w);
                let mut padded = vec![-999.0f32; pitch * h];
                for j in 0..h {
                    padded[j * pitch..j * pitch + w].copy_from_slice(&t97[j * w..(j + 1) * w]);
                }
                let buf = DeviceBuffer::from_slice(&padded)?;
                for d in &descs {
                    let (xs, ys) = pairs(d.normalized, 44);
                    let t = if pitched {
                        TextureObject::pitch_2d(&buf, w, h, pitch, *d)?
                    } else {
                        TextureObject::array_2d(w, h, &t97, *d)?
                    };
                    let (xb, yb) = (DeviceBuffer::from_slice(&xs)?, DeviceBuffer::from_slice(&ys)?);
                    let mut out = DeviceBuffer::<f32>::zeroed(xs.len())?;
                    launch!(sample_each_2d<<<(xs.len() as u32).div_ceil(256), 256>>>(t.texture(), &xb, &yb, &mut out))?;
                    all.extend(out.to_vec()?);
                }
                Ok(all)
            },
            f32_bits_equal,
        )
    };
    total += survive("tex2D", row_2d("tex2D", false));
    total += survive("tex2D_pitch", row_2d("tex2D_pitch", true));
    let t4: Vec<[f32; 4]> =
        floats(w * h * 4, 45).chunks(4).map(|c| [c[0] * 100.0, c[1], c[2] * 1e-3, c[3] * 1e4]).collect();
    total += survive(
        "tex2D_float4",
        tcompare(
            "tex2D_float4",
            || {
                let mut all = Vec::new();
                for d in descs.iter().filter(|d| d.filter == F::Linear) {
                    let (xs, ys) = pairs(d.normalized, 46);
                    let t = TextureObject::array_2d(w, h, &t4, *d)?;
                    let (xb, yb) = (DeviceBuffer::from_slice(&xs)?, DeviceBuffer::from_slice(&ys)?);
                    let mut out = DeviceBuffer::<[f32; 4]>::zeroed(xs.len())?;
                    launch!(sample_each_2d_x4<<<(xs.len() as u32).div_ceil(256), 256>>>(t.texture(), &xb, &yb, &mut out))?;
                    all.extend(out.to_vec()?.into_iter().flatten());
                }
                Ok(all)
            },
            f32_bits_equal,
        ),
    );
    let t2: Vec<[f32; 2]> = floats(22, 47).chunks(2).map(|c| [c[0] * 10.0, c[1] * 1e3]).collect();
    total += survive(
        "tex1D_float2",
        tcompare(
            "tex1D_float2",
            || {
                let mut all = Vec::new();
                for d in &descs {
                    let xs = coords(11, d.normalized, 48);
                    let t = TextureObject::array_1d(&t2, *d)?;
                    let xb = DeviceBuffer::from_slice(&xs)?;
                    let mut out = DeviceBuffer::<[f32; 2]>::zeroed(xs.len())?;
                    launch!(sample_each_1d_x2<<<(xs.len() as u32).div_ceil(256), 256>>>(t.texture(), &xb, &mut out))?;
                    all.extend(out.to_vec()?.into_iter().flatten());
                }
                Ok(all)
            },
            f32_bits_equal,
        ),
    );
    // Texels of every magnitude: random bit patterns with all exponents (subnormals and
    // zeros of both signs included), bilinear in every mode; then infinities and NaN among
    // them (NaN compared as a class).
    let wide_texels = |specials: bool| -> Vec<f32> {
        bits(w * h, 49)
            .into_iter()
            .enumerate()
            .map(|(k, b)| match (specials, k % 9) {
                (true, 2) => f32::INFINITY,
                (true, 5) => f32::NAN,
                (true, 7) => f32::NEG_INFINITY,
                (_, 4) => f32::from_bits(b & 0x807f_ffff),
                (_, 8) => {
                    if b & 1 == 0 {
                        0.0
                    } else {
                        -0.0
                    }
                }
                _ => {
                    let x = f32::from_bits(b);
                    if x.is_finite() {
                        x
                    } else {
                        f32::from_bits(b & 0xbfff_ffff)
                    }
                }
            })
            .collect()
    };
    for (name, specials) in [("tex2D_wide", false), ("tex2D_inf_nan", true)] {
        let texels = wide_texels(specials);
        total += survive(
            name,
            tcompare(
                name,
                || {
                    let mut all = Vec::new();
                    for d in &descs {
                        let (xs, ys) = pairs(d.normalized, 50);
                        let t = TextureObject::array_2d(w, h, &texels, *d)?;
                        let (xb, yb) = (DeviceBuffer::from_slice(&xs)?, DeviceBuffer::from_slice(&ys)?);
                        let mut out = DeviceBuffer::<f32>::zeroed(xs.len())?;
                        launch!(sample_each_2d<<<(xs.len() as u32).div_ceil(256), 256>>>(t.texture(), &xb, &yb, &mut out))?;
                        all.extend(out.to_vec()?);
                    }
                    Ok(all)
                },
                |p, q| p.to_bits() == q.to_bits() || (p.is_nan() && q.is_nan()),
            ),
        );
    }
    Ok(total)
}

fn main() -> Result<(), Error> {
    // `gpu_vs_emu textures`: the texture rows alone (also without a GPU, replaying a recorded
    // run with GPU_VS_EMU_REPLAY=dir).
    let replay = std::env::var_os("GPU_VS_EMU_REPLAY").is_some();
    if !replay && !deviceemu::gpu::available() {
        println!("SKIPPED: no CUDA device or driver here; gpu_vs_emu needs an NVIDIA GPU");
        return Ok(());
    }
    if std::env::var_os("GPU_VS_EMU_MISALIGNED").is_some() {
        return memory_api::misaligned_on_both();
    }
    if std::env::args().nth(1).as_deref() == Some("cgbig") {
        let total = cg_big_rows()?;
        println!("TOTAL: {total} differences");
        std::process::exit(if total == 0 { 0 } else { 1 });
    }
    if std::env::args().nth(1).as_deref() == Some("textures") {
        let total = texture_rows()?;
        println!("TOTAL: {total} differences");
        std::process::exit(if total == 0 { 0 } else { 1 });
    }
    let mut total = 0;
    let n = 1 << 20;
    let x = floats(n, 1);
    let y0 = floats(n, 2);
    total += compare(
        "saxpy",
        || {
            let xb = DeviceBuffer::from_slice(&x)?;
            let mut yb = DeviceBuffer::from_slice(&y0)?;
            launch!(saxpy_example::saxpy<<<(n as u32).div_ceil(256), 256>>>(1.5, &xb, &mut yb))?;
            yb.to_vec()
        },
        f32_bits_equal,
    )?;
    total += compare(
        "block_sum",
        || {
            let xb = DeviceBuffer::from_slice(&x)?;
            let mut partial = DeviceBuffer::<f32>::zeroed(n / 256)?;
            launch!(reduction_example::block_sum<<<(n / 256) as u32, 256>>>(&xb, &mut partial))?;
            let mut total = DeviceBuffer::<f32>::zeroed(1)?;
            launch!(reduction_example::final_sum<<<1, 256>>>(&partial, &mut total))?;
            let mut v = partial.to_vec()?;
            v.extend(total.to_vec()?);
            Ok(v)
        },
        f32_bits_equal,
    )?;
    let (m, k, nn) = (300usize, 200usize, 250usize);
    let a = floats(m * k, 3);
    let b = floats(k * nn, 4);
    total += compare(
        "matmul",
        || {
            let ab = DeviceBuffer::from_slice(&a)?;
            let bb = DeviceBuffer::from_slice(&b)?;
            let mut cb = DeviceBuffer::<f32>::zeroed(m * nn)?;
            let grid = ((nn as u32).div_ceil(16), (m as u32).div_ceil(16));
            launch!(matmul_example::matmul<<<grid, (16, 16)>>>(m as u32, k as u32, nn as u32, &ab, &bb, &mut cb))?;
            cb.to_vec()
        },
        f32_bits_equal,
    )?;
    let data: Vec<u8> = bits(n, 5).into_iter().map(|b| (b % 251) as u8).collect();
    total += compare(
        "histogram",
        || {
            let db = DeviceBuffer::from_slice(&data)?;
            let mut hb = DeviceBuffer::<u32>::zeroed(256)?;
            launch!(histogram_example::histogram<<<256, 256>>>(&db, &mut hb))?;
            hb.to_vec()
        },
        |p, q| p == q,
    )?;
    total += compare(
        "stencil",
        || {
            let xb = DeviceBuffer::from_slice(&x[..256 * 64])?;
            let mut ob = DeviceBuffer::<f32>::zeroed(256 * 64)?;
            launch!(stencil<<<64, 256>>>(7, &xb, &mut ob))?;
            ob.to_vec()
        },
        f32_bits_equal,
    )?;
    let xs = bits(n, 6);
    let ys = bits(n, 7);
    total += compare(
        "arith",
        || {
            let xb = DeviceBuffer::from_slice(&xs)?;
            let yb = DeviceBuffer::from_slice(&ys)?;
            let mut ob = DeviceBuffer::<u32>::zeroed(n * 6)?;
            launch!(arith<<<(n as u32).div_ceil(256), 256>>>(&xb, &yb, &mut ob))?;
            ob.to_vec()
        },
        // NaN as a class: the GPU returns the canonical NaN, x86 keeps payloads.
        |p, q| p == q || (f32::from_bits(*p).is_nan() && f32::from_bits(*q).is_nan()),
    )?;
    total += compare(
        "warp_sum",
        || {
            let xb = DeviceBuffer::from_slice(&x)?;
            let mut partial = DeviceBuffer::<f32>::zeroed(n / 256)?;
            launch!(warps_example::warp_block_sum<<<(n / 256) as u32, 256>>>(&xb, &mut partial))?;
            partial.to_vec()
        },
        f32_bits_equal,
    )?;
    let ks: Vec<u32> = bits(n, 8).into_iter().map(|b| b % 1000).collect();
    total += compare(
        "warp_scan",
        || {
            let kb = DeviceBuffer::from_slice(&ks)?;
            let mut ob = DeviceBuffer::<u32>::zeroed(n)?;
            launch!(warps_example::warp_block_scan<<<(n / 256) as u32, 256>>>(&kb, &mut ob))?;
            ob.to_vec()
        },
        |p, q| p == q,
    )?;
    total += compare(
        "ballot",
        || {
            let xb = DeviceBuffer::from_slice(&x)?;
            let mut cb = DeviceBuffer::<u32>::zeroed(n / 32)?;
            launch!(warps_example::count_above<<<(n / 256) as u32, 256>>>(0.25, &xb, &mut cb))?;
            cb.to_vec()
        },
        |p, q| p == q,
    )?;
    let wide: Vec<u64> = bits(2 * 64 * 8, 9).chunks(2).map(|c| (c[0] as u64) << 32 | c[1] as u64).collect();
    total += compare(
        "shuffles",
        || {
            let vb = DeviceBuffer::from_slice(&wide)?;
            let mut ob = DeviceBuffer::<u64>::zeroed(wide.len() * SHUFFLE_OUTPUTS)?;
            launch!(shuffle_sweep<<<8, 64>>>(&vb, &mut ob))?;
            ob.to_vec()
        },
        |p, q| p == q,
    )?;
    let small = bits(80, 10);
    total += compare(
        "vote_exits",
        || {
            let mut all = Vec::new();
            for cut in [32u32, 31, 17, 1] {
                let vb = DeviceBuffer::from_slice(&small)?;
                let mut ob = DeviceBuffer::<u32>::zeroed(80 * 3)?;
                // With an odd cut the last live lane shuffles from an exited one: the emulator
                // reports that (719) and gives the H200's 0, which the kernel masks anyway.
                let r = deviceemu::quietly(|| launch!(votes_with_exits<<<1, 80>>>(cut, &vb, &mut ob)));
                if let Err(e) = r {
                    assert!(cut % 2 == 1 && e.code() == 719, "votes_with_exits cut {cut}: {e}");
                }
                all.extend(ob.to_vec()?);
            }
            Ok(all)
        },
        |p, q| p == q,
    )?;
    total += compare(
        "active_mask",
        || {
            let mut ob = DeviceBuffer::<u32>::zeroed(96)?;
            launch!(branch_masks<<<1, 96>>>(&mut ob))?;
            ob.to_vec()
        },
        |p, q| p == q,
    )?;
    let xs_atomic = bits(1 << 16, 8);
    total += compare(
        "atomics",
        || {
            let n = xs_atomic.len();
            let xb = DeviceBuffer::from_slice(&xs_atomic)?;
            let mut acc = DeviceBuffer::from_slice(&[0, u32::MAX, 0, 0, 0, 0, 0])?;
            let mut wide = DeviceBuffer::from_slice(&[i64::MAX, 0])?;
            let mut slots = DeviceBuffer::from_slice(&(0..2 * n).map(|k| k as f32).collect::<Vec<_>>())?;
            let mut per_block = DeviceBuffer::<u32>::zeroed(2 * n / 256)?;
            launch!(atomics_mix<<<(n / 256) as u32, 256>>>(&xb, &mut acc, &mut wide, &mut slots, &mut per_block))?;
            let mut v: Vec<u64> = acc.to_vec()?.into_iter().map(u64::from).collect();
            v.extend(wide.to_vec()?.into_iter().map(|w| w as u64));
            v.extend(per_block.to_vec()?.into_iter().map(u64::from));
            v.extend(slots.to_vec()?.into_iter().map(|f| u64::from(f.to_bits())));
            Ok(v)
        },
        |p, q| p == q,
    )?;
    for setter in [7u32, 200] {
        total += compare(
            &format!("spin_waits{setter}"),
            || {
                let blocks = 4096;
                let mut flags = DeviceBuffer::<u32>::zeroed(blocks)?;
                let mut out = DeviceBuffer::<u32>::zeroed(2 * blocks)?;
                launch!(spin_waits<<<blocks as u32, 256>>>(setter, &mut flags, &mut out))?;
                let mut v = out.to_vec()?;
                v.extend(flags.to_vec()?);
                Ok(v)
            },
            |p, q| p == q,
        )?;
    }
    let xs_chain: Vec<u32> = bits(1 << 16, 11).into_iter().map(|b| b >> 12).collect();
    total += compare(
        "ordered",
        || {
            let n = xs_chain.len();
            let xb = DeviceBuffer::from_slice(&xs_chain)?;
            let mut ticket = DeviceBuffer::<u32>::zeroed(1)?;
            let mut status = DeviceBuffer::<u64>::zeroed(n / 256)?;
            let mut scan = DeviceBuffer::<u64>::zeroed(n)?;
            launch!(chained_scan<<<(n / 256) as u32, 256>>>(&xb, &mut ticket, &mut status, &mut scan))?;
            let mut v = scan.to_vec()?;
            v.extend(status.to_vec()?);
            Ok(v)
        },
        |p, q| p == q,
    )?;
    // The memory API: constant memory, device globals, slices as arguments and partial copies,
    // casts (`examples/memory_api/kernels.rs`).
    let xm = floats(5000, 12);
    let ym = floats(5000, 13);
    let classes = bits(10_000, 14);
    let cast_words = bits(256 * 8, 15);
    let cast_bytes: Vec<u8> = bits(4096, 16).into_iter().map(|b| b as u8).collect();
    total += compare("constant", || memory_api::constant_row(&xm), |p, q| p == q)?;
    total += compare("dev_global", || memory_api::device_global_row(&classes), |p, q| p == q)?;
    total += compare("slices", || memory_api::slices_row(&xm, &ym), |p, q| p == q)?;
    total += compare("casts", || memory_api::casts_row(&cast_words, &cast_bytes), |p, q| p == q)?;
    // ---- warp intrinsics and cooperative groups (issues 12 and 15) ----
    let mut cases = Vec::new();
    for mode in 0..4u32 {
        for width in [1u32, 2, 4, 8, 16, 32] {
            for arg in [0u32, 1, 3, 8, 10, 16, 31] {
                cases.extend([mode, arg, width]);
            }
        }
    }
    total += compare(
        "shfl_width",
        || {
            let cb = DeviceBuffer::from_slice(&cases)?;
            let mut ob = DeviceBuffer::<u32>::zeroed(cases.len() / 3 * 96)?;
            launch!(width_shuffles<<<(cases.len() / 3) as u32, 32>>>(&cb, &mut ob))?;
            ob.to_vec()
        },
        |p, q| p == q,
    )?;
    total += compare(
        "shfl_absent",
        || {
            let mut ob = DeviceBuffer::from_slice(&vec![0xdead_beefu32; 5 * 64])?;
            // The emulator reports these shuffles (error 719) and gives the H200's values.
            let r = deviceemu::quietly(|| launch!(absent_sources<<<5, 32>>>(&mut ob)));
            println!("    absent_sources launch: {:?}", r.err().map(|e| e.code()));
            ob.to_vec()
        },
        |p, q| p == q,
    )?;
    let xs7: Vec<u32> = (0..1u32 << 18).map(|i| (i * 7 + 3) % 13).collect();
    total += compare(
        "reduce7",
        || {
            let xb = DeviceBuffer::from_slice(&xs7)?;
            let mut v = Vec::new();
            for bs in [64u32, 256] {
                for fixed in [false, true] {
                    let mut ob = DeviceBuffer::<u32>::zeroed(64)?;
                    let r = deviceemu::quietly(|| launch!(reduce7_sample<<<64, bs>>>(&xb, &mut ob, fixed)));
                    println!("    reduce7 block {bs} fixed {fixed} launch: {:?}", r.err().map(|e| e.code()));
                    v.extend(ob.to_vec()?);
                }
            }
            Ok(v)
        },
        |p, q| p == q,
    )?;
    let masks = [0xffff_ffffu32, 0x0000_ffff, 0x5555_5555, 0x8000_0001, 0x0000_0100, 0xaaaa_aaaa];
    let xr: Vec<i32> = bits(masks.len() * 32, 12).into_iter().map(|b| (b % 200) as i32 - 100).collect();
    total += compare(
        "redux",
        || {
            let mb = DeviceBuffer::from_slice(&masks)?;
            let xb = DeviceBuffer::from_slice(&xr)?;
            let mut ob = DeviceBuffer::<i32>::zeroed(xr.len() * 9)?;
            launch!(redux_all<<<masks.len() as u32, 32>>>(&mb, &xb, &mut ob))?;
            ob.to_vec()
        },
        |p, q| p == q,
    )?;
    let xm: Vec<u64> = bits(masks.len() * 32, 13)
        .into_iter()
        .enumerate()
        .map(|(i, b)| if i % 7 == 0 { 5 } else { (b % 3) as u64 | ((b % 2) as u64) << 40 })
        .collect();
    total += compare(
        "match",
        || {
            let mb = DeviceBuffer::from_slice(&masks)?;
            let xb = DeviceBuffer::from_slice(&xm)?;
            let mut ob = DeviceBuffer::<u32>::zeroed(xm.len() * 6)?;
            launch!(match_all_kinds<<<masks.len() as u32, 32>>>(&mb, &xb, &mut ob))?;
            ob.to_vec()
        },
        |p, q| p == q,
    )?;
    let xt = bits(6 * 64, 14);
    total += compare(
        "cg_tiles",
        || {
            let xb = DeviceBuffer::from_slice(&xt)?;
            let mut v = Vec::new();
            for a in [0u32, 1, 3, 5] {
                let mut ob = DeviceBuffer::<u32>::zeroed(xt.len() * CG_TILE_OUT)?;
                launch!(cg_tiles<<<6, 64>>>(&xb, a, &mut ob))?;
                v.extend(ob.to_vec()?);
            }
            Ok(v)
        },
        |p, q| p == q,
    )?;
    total += compare(
        "cg_coalesced",
        || {
            let xb = DeviceBuffer::from_slice(&xt)?;
            let mut ob = DeviceBuffer::<u32>::zeroed(xt.len() * 12)?;
            launch!(cg_coalesced<<<6, 64>>>(&xb, &mut ob))?;
            ob.to_vec()
        },
        |p, q| p == q,
    )?;
    total += compare(
        "cg_reduction",
        || {
            let xb = DeviceBuffer::from_slice(&x)?;
            let mut partial = DeviceBuffer::<f32>::zeroed(n / 256)?;
            launch!(cg_reduction_example::cg_block_sum<<<(n / 256) as u32, 256>>>(&xb, &mut partial))?;
            partial.to_vec()
        },
        f32_bits_equal,
    )?;
    total += compare(
        "cg_scan",
        || {
            let kb = DeviceBuffer::from_slice(&ks)?;
            let mut ob = DeviceBuffer::<u32>::zeroed(n)?;
            launch!(cg_scan_example::cg_block_scan<<<(n / 256) as u32, 256>>>(&kb, &mut ob))?;
            let mut kept = DeviceBuffer::<u32>::zeroed(n)?;
            let mut labels = DeviceBuffer::<u32>::zeroed(n)?;
            launch!(cg_scan_example::cg_compact<<<(n / 256) as u32, 256>>>(500, &kb, &mut kept, &mut labels))?;
            let mut v = ob.to_vec()?;
            v.extend(kept.to_vec()?);
            v.extend(labels.to_vec()?);
            Ok(v)
        },
        |p, q| p == q,
    )?;
    let x_sc: Vec<u32> = bits(4 * 128, 15).into_iter().map(|b| b % 5000).collect();
    total += compare(
        "scoped_atom",
        || {
            let xb = DeviceBuffer::from_slice(&x_sc)?;
            let mut v = Vec::new();
            for scope in 0..3 {
                let mut g = DeviceBuffer::from_slice(&[0, 1000, u32::MAX, 0, 0xffff_ffff, 0, 0, 0, 0, 0, 0u32])?;
                let mut out = DeviceBuffer::<u32>::zeroed(4 * 11)?;
                launch!(scoped_all<<<4, 128>>>(scope, &xb, &mut g, &mut out))?;
                v.extend(g.to_vec()?);
                v.extend(out.to_vec()?);
            }
            Ok(v)
        },
        |p, q| p == q,
    )?;
    // Issue 15, this session (built, not yet run on an H200).
    let xbig = bits(2048, 16);
    total += compare(
        "cg_big_tiles",
        || {
            let xb = DeviceBuffer::from_slice(&xbig)?;
            let mut v = Vec::new();
            for (n, a) in [(64u32, 0u32), (128, 5), (256, 96), (512, 7), (1024, 300)] {
                let mut ob = DeviceBuffer::<u32>::zeroed(xbig.len() * BIG_TILE_OUT)?;
                launch!(cg_big_tiles<<<2, 1024>>>(n, &xb, a, &mut ob))?;
                v.extend(ob.to_vec()?);
            }
            Ok(v)
        },
        |p, q| p == q,
    )?;
    // Special 16-bit patterns and random ones, as pairs (a, b).
    let specials: [u16; 16] = [
        0x0000, 0x8000, 0x0001, 0x8001, 0x03ff, 0x0400, 0x3c00, 0xbc00, 0x7bff, 0xfbff, 0x7c00, 0xfc00, 0x7e00, 0x007f,
        0x7f7f, 0x7f80,
    ];
    let mut ha = Vec::new();
    let mut hb = Vec::new();
    for &p in &specials {
        for &q in &specials {
            ha.push(p);
            hb.push(q);
        }
    }
    for w in bits(4096 - 256, 17) {
        ha.push(w as u16);
        hb.push((w >> 16) as u16);
    }
    total += compare(
        "half_atomic",
        || {
            let f = |v: &[u16]| v.iter().map(|&b| f16::from_bits(b)).collect::<Vec<_>>();
            let bf = |v: &[u16]| v.iter().map(|&b| bf16::from_bits(b)).collect::<Vec<_>>();
            let n = ha.len();
            let mut acc = DeviceBuffer::from_slice(&f(&ha))?;
            let b = DeviceBuffer::from_slice(&f(&hb))?;
            let mut old = DeviceBuffer::<f16>::zeroed(n + 64)?;
            let mut bacc = DeviceBuffer::from_slice(&bf(&ha))?;
            let bb = DeviceBuffer::from_slice(&bf(&hb))?;
            let mut bold = DeviceBuffer::<bf16>::zeroed(n)?;
            let pairs = |v: &[u16]| {
                v.chunks(2).map(|c| Half2::new(f16::from_bits(c[0]), f16::from_bits(c[1]))).collect::<Vec<_>>()
            };
            let qpairs = |v: &[u16]| {
                v.chunks(2).map(|c| Bfloat162::new(bf16::from_bits(c[0]), bf16::from_bits(c[1]))).collect::<Vec<_>>()
            };
            let mut pacc = DeviceBuffer::from_slice(&pairs(&ha))?;
            let pb = DeviceBuffer::from_slice(&pairs(&hb))?;
            let mut qacc = DeviceBuffer::from_slice(&qpairs(&ha))?;
            let qb = DeviceBuffer::from_slice(&qpairs(&hb))?;
            launch!(half_atomics<<<(n as u32).div_ceil(256), 256>>>(&mut acc, &b, &mut old, &mut bacc, &bb, &mut bold, &mut pacc, &pb, &mut qacc, &qb))?;
            let mut v: Vec<u32> = Vec::new();
            v.extend(acc.to_vec()?.iter().map(|x| x.to_bits() as u32));
            v.extend(old.to_vec()?.iter().map(|x| x.to_bits() as u32));
            v.extend(bacc.to_vec()?.iter().map(|x| x.to_bits() as u32));
            v.extend(bold.to_vec()?.iter().map(|x| x.to_bits() as u32));
            v.extend(pacc.to_vec()?.iter().map(|x| x.to_bits()));
            v.extend(qacc.to_vec()?.iter().map(|x| x.to_bits()));
            Ok(v)
        },
        |p, q| p == q,
    )?;
    let xg = bits(1 << 16, 18);
    total += compare(
        "grid_sync",
        || {
            let xb = DeviceBuffer::from_slice(&xg)?;
            let mut partial = DeviceBuffer::<u32>::zeroed(64 * 256)?;
            let mut out = DeviceBuffer::<u32>::zeroed(1)?;
            launch_cooperative!(grid_sum_coop<<<64, 256>>>(&xb, &mut partial, &mut out))?;
            let mut v = out.to_vec()?;
            v.extend(partial.to_vec()?);
            // Too large to be resident: 720 on both targets.
            let big = launch_cooperative!(grid_sum_coop<<<100_000, 1024>>>(&xb, &mut partial, &mut out));
            v.push(big.err().map_or(0, |e| e.code() as u32));
            Ok(v)
        },
        |p, q| p == q,
    )?;
    let xh: Vec<u32> = bits(16 * 128, 19);
    total += compare(
        "cluster_dsmem",
        || {
            let xb = DeviceBuffer::from_slice(&xh)?;
            let mut hist = DeviceBuffer::<u32>::zeroed(16 * 16)?;
            let mut peek = DeviceBuffer::<u32>::zeroed(16 * 16)?;
            launch!(cluster_hist<<<16, 128>>>(&xb, &mut hist, &mut peek))?;
            let mut v = hist.to_vec()?;
            v.extend(peek.to_vec()?);
            // A grid that is not a whole number of clusters: 912 on both targets.
            let bad = launch!(cluster_hist<<<6, 128>>>(&xb, &mut hist, &mut peek));
            v.push(bad.err().map_or(0, |e| e.code() as u32));
            Ok(v)
        },
        |p, q| p == q,
    )?;
    total += compare(
        "symbol_at",
        || {
            copy_to_symbol(&TAPS_AT, &[1.0; 8])?;
            copy_to_symbol_at(&TAPS_AT, 3 * 4, &[5.0, 6.0, 7.0])?;
            let mut out = DeviceBuffer::<f32>::zeroed(8)?;
            launch!(taps_at<<<1, 32>>>(&mut out))?;
            let mut v = out.to_vec()?;
            let mut back = [0.0f32; 2];
            copy_from_symbol_at(&mut back, &TAPS_AT, 6 * 4)?;
            v.extend(back);
            v.push(copy_to_symbol_at(&TAPS_AT, 7 * 4, &[1.0, 2.0]).err().map_or(0.0, |e| e.code() as f32));
            Ok(v)
        },
        f32_bits_equal,
    )?;
    // CUDA C's own cg::reduce and scans on the same input (tools/probes/p10_cg.cu prints the
    // same lines): each line is 64 values per result, as hex bits.
    let xc: Vec<f32> = (0..64).map(|i| ((i * 7919 % 1013) as f32) * 0.01 - 5.0).collect();
    for target in [Target::Gpu, Target::Emulator] {
        let v = on(target, || {
            let xb = DeviceBuffer::from_slice(&xc)?;
            let mut ob = DeviceBuffer::<u32>::zeroed(6 * 64)?;
            launch!(cg_cuda_ref<<<1, 64>>>(&xb, &mut ob))?;
            ob.to_vec()
        })?;
        for (k, row) in v.chunks(64).enumerate() {
            let hex: Vec<String> = row.iter().map(|b| format!("{b:08x}")).collect();
            println!("cgref {target:?} {k} {}", hex.join(" "));
        }
    }
    total += compare("cg_big_scan", cg_big::run, |p, q| p == q)?;
    total += fp_sweep::fp_sweep_run_all(1 << 16)?;
    total += math_sweep::math_sweep_run_all(1 << 16)?;
    total += texture_rows()?;
    #[path = "multi_stream/kernels.rs"]
    mod multi_stream; // two streams, events, pinned async copies (issue 11)
    total += compare("streams", || multi_stream::row(&floats(1 << 16, 21)), |p, q| p == q)?;
    println!("TOTAL: {total} differences");
    // Last, since a trap leaves the GPU context unusable (CUDA's errors are sticky).
    let trap = on(Target::Gpu, || {
        let xb = DeviceBuffer::from_slice(&[1.0f32; 4])?;
        let mut ob = DeviceBuffer::<f32>::zeroed(1)?;
        launch!(read_past_end<<<1, 32>>>(&xb, &mut ob))
    });
    match trap {
        Err(e) => println!("out-of-bounds read on the GPU: code {} ({e})", e.code()),
        Ok(()) => println!("out-of-bounds read on the GPU: no error (bounds checks are off?)"),
    }
    if total != 0 {
        std::process::exit(1);
    }
    Ok(())
}
