//! NVIDIA's simpleAtomicIntrinsics, the kernel of the contended-atomics tests
//! (`racecheck_atomics.rs`) and of `benches/checkers.rs`, which includes this file.

use deviceemu::prelude::*;

/// NVIDIA's simpleAtomicIntrinsics (cuda-samples, `Samples/0_Introduction/
/// simpleAtomicIntrinsics/simpleAtomicIntrinsics_kernel.cuh`), as written: every thread of the
/// grid applies ten atomics to ten locations. `g_odata` is `unsigned int` here (the sample casts
/// to it for `atomicInc` and `atomicDec`; every value it stores is non-negative), and `1 << tid`
/// is 0 for `tid >= 32`, as PTX's `shl.b32` gives (C leaves it undefined). With `peek`, thread 0
/// also reads `g_odata[0]` plainly, which races with the other blocks' adds.
#[kernel]
pub fn simple_atomic_intrinsics(g_odata: &mut [u32], out: &mut [u32], peek: bool) {
    let tid = block_dim().x * block_idx().x + thread_idx().x;
    g_odata.atomic_add(0, 10); // SAMPLE ATOMIC ADD
    g_odata.atomic_exch(1, tid);
    g_odata.atomic_max(2, tid);
    g_odata.atomic_min(3, tid);
    g_odata.atomic_inc(4, 17);
    g_odata.atomic_dec(5, 137);
    g_odata.atomic_cas(6, tid.wrapping_sub(1), tid);
    g_odata.atomic_and(7, 2 * tid + 7);
    g_odata.atomic_or(8, if tid < 32 { 1 << tid } else { 0 });
    g_odata.atomic_xor(9, tid);
    if peek && tid == 0 {
        out[0] = g_odata[0]; // SAMPLE PLAIN READ
    }
}
