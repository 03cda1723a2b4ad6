//! Scoped read-modify-write atomics (`atomic_add_scoped(i, v, Scope::Block)`, CUDA's
//! `atomicAdd_block` / `atomicAdd_system` and the like) on global and shared memory: results
//! that do not depend on the order threads run in, against the CPU, for every scope. On the
//! GPU they are `atom.relaxed.cta` / `atom.relaxed.sys`; `tests/ptx.rs` runs ptxas on them.

use crate::common::model;
use deviceemu::prelude::*;
use deviceemu::with_config;

/// Every scoped atomic at `scope` (0 block, 1 device, 2 system) on `g` (global) and on a
/// shared copy, written out by thread 0 of each block into `out[block * 11 ..]`.
#[kernel]
fn scoped_all(scope: u32, x: &[u32], g: &mut [u32], out: &mut [u32]) {
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

#[test]
fn scoped_atomics_match_the_cpu_for_every_scope() {
    // Two blocks of two warps: enough for block scope against device scope, and small enough
    // for racecheck, which orders every pair of contended atomics (4 x 128 took 84 s in CI).
    let (blocks, threads) = (2usize, 64usize);
    let x: Vec<u32> = (0..blocks * threads).map(|i| ((i * 2_654_435_761usize) >> 5) as u32 % 5000).collect();
    let xb = DeviceBuffer::from_slice(&x).unwrap();
    let fold = |xs: &[u32], init: [u32; 11]| {
        let mut r = init;
        for &v in xs {
            r[0] = r[0].wrapping_add(v);
            r[1] = r[1].wrapping_sub(1);
            r[2] = r[2].min(v);
            r[3] = r[3].max(v);
            r[4] &= v | 0x100;
            r[5] |= v;
            r[6] ^= v;
            r[7] += 1;
            r[8] = if r[8] == 0 { u32::MAX } else { r[8] - 1 };
            r[9] = 7;
            r[10] += 1;
        }
        r
    };
    let init = [0, 1000, u32::MAX, 0, 0xffff_ffff, 0, 0, 0, 0, 0, 0];
    model().fibers_only().check_with(|config| {
        for scope in 0..3 {
            let mut g = DeviceBuffer::from_slice(&init).unwrap();
            let mut out = DeviceBuffer::<u32>::zeroed(blocks * 11).unwrap();
            with_config(
                config.clone(),
                || launch!(scoped_all<<<blocks as u32, threads as u32>>>(scope, &xb, &mut g, &mut out)),
            )
            .unwrap();
            assert_eq!(g.to_vec().unwrap(), fold(&x, init), "global, scope {scope} {config:?}");
            let out = out.to_vec().unwrap();
            for b in 0..blocks {
                assert_eq!(
                    &out[b * 11..b * 11 + 11],
                    &fold(&x[b * threads..(b + 1) * threads], init),
                    "shared, block {b} scope {scope} {config:?}"
                );
            }
        }
    });
}
