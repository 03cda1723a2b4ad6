//! The atomics beyond `atomic_add` (`tests/it/api/results.rs` covers that one), on global and shared
//! memory, for every element type each supports:
//!
//! * Sequential semantics: each thread runs a script of atomics on its own element and records
//!   every returned old value; the script's olds and final value are compared with a host
//!   model, for `sub min max exch and or xor cas add` on `i32 u32 i64 u64`, `inc dec` on `u32`
//!   (limits of 0, wrap-around, values above the limit), `exch` on `f32 f64` (NaN payloads
//!   and signed zeros kept bit for bit) and `cas` on `u16`. Arguments are random with edge
//!   values (0, 1, all ones, MIN, MAX) mixed in; `cas` succeeds for half the cases.
//! * Contention, where the result does not depend on the order: all threads `sub min max and
//!   or xor` one element; `inc`/`dec` with a limit wrap as counting implies, and their olds
//!   are each count exactly once; an `exch` chain returns every value exactly once; the first
//!   thread to `cas` 0 -> id wins, exactly one per element; a `cas` loop multiplies.
//! * An out-of-bounds atomic is reported with code 700 at its line, in global and in shared
//!   memory.

use crate::common;

use crate::common::{assert_has, marked_line, Rng};
use deviceemu::prelude::*;
use deviceemu::{with_config, AtomicAdd, AtomicBitwise, AtomicCas, AtomicExch, AtomicMinMax, AtomicSub};
use deviceemu::{DeviceCopy, Error};

const SRC: &str = include_str!("atomics.rs");
const FILE: &str = "tests/it/memory/atomics.rs";

/// Threads per block of every launch here (shared arrays are sized for it).
const BLOCK: usize = 64;
/// Blocks per launch.
const GRID: usize = 6;
/// Threads per launch.
const N: usize = BLOCK * GRID;
/// Atomics in the integer script (and old values it records per thread).
const STEPS: usize = 10;
/// Arguments of the integer script per thread.
const ARGS: usize = 11;

// ---------------------------------------------------------------------------------------------
// Sequential semantics: one element per thread, every old value recorded
// ---------------------------------------------------------------------------------------------

/// The integer script on element `i` of a global view, with arguments `a[ARGS*i..]`; olds go
/// to `olds[STEPS*i..]`.
#[device]
fn script_global<T: AtomicAdd + AtomicSub + AtomicMinMax + AtomicExch + AtomicBitwise + AtomicCas>(
    x: GlobalMut<T>,
    i: usize,
    a: Global<T>,
    olds: GlobalMut<T>,
) {
    let (k, o) = (ARGS * i, STEPS * i);
    olds[o] = x.atomic_sub(i, a[k]);
    olds[o + 1] = x.atomic_min(i, a[k + 1]);
    olds[o + 2] = x.atomic_max(i, a[k + 2]);
    olds[o + 3] = x.atomic_exch(i, a[k + 3]);
    olds[o + 4] = x.atomic_and(i, a[k + 4]);
    olds[o + 5] = x.atomic_or(i, a[k + 5]);
    olds[o + 6] = x.atomic_xor(i, a[k + 6]);
    olds[o + 7] = x.atomic_cas(i, a[k + 7], a[k + 8]);
    let current = x[i];
    olds[o + 8] = x.atomic_cas(i, current, a[k + 9]);
    olds[o + 9] = x.atomic_add(i, a[k + 10]);
}

/// [`script_global`] on slot `t` of a shared array (element `i` of the launch).
#[device]
fn script_shared<T: AtomicAdd + AtomicSub + AtomicMinMax + AtomicExch + AtomicBitwise + AtomicCas>(
    x: Shared<T>,
    t: usize,
    i: usize,
    a: Global<T>,
    olds: GlobalMut<T>,
) {
    let (k, o) = (ARGS * i, STEPS * i);
    olds[o] = x.atomic_sub(t, a[k]);
    olds[o + 1] = x.atomic_min(t, a[k + 1]);
    olds[o + 2] = x.atomic_max(t, a[k + 2]);
    olds[o + 3] = x.atomic_exch(t, a[k + 3]);
    olds[o + 4] = x.atomic_and(t, a[k + 4]);
    olds[o + 5] = x.atomic_or(t, a[k + 5]);
    olds[o + 6] = x.atomic_xor(t, a[k + 6]);
    olds[o + 7] = x.atomic_cas(t, a[k + 7], a[k + 8]);
    let current = x[t];
    olds[o + 8] = x.atomic_cas(t, current, a[k + 9]);
    olds[o + 9] = x.atomic_add(t, a[k + 10]);
}

#[kernel]
fn script_i32(shared: bool, x: &mut [i32], a: &[i32], olds: &mut [i32]) {
    let (t, i) = (thread_idx().x as usize, (block_idx().x * block_dim().x + thread_idx().x) as usize);
    if shared {
        let s = shared_array![i32; BLOCK];
        s[t] = x[i];
        script_shared(s, t, i, a, olds);
        x[i] = s[t];
    } else {
        script_global(x, i, a, olds);
    }
}

#[kernel]
fn script_u32(shared: bool, x: &mut [u32], a: &[u32], olds: &mut [u32]) {
    let (t, i) = (thread_idx().x as usize, (block_idx().x * block_dim().x + thread_idx().x) as usize);
    if shared {
        let s = shared_array![u32; BLOCK];
        s[t] = x[i];
        script_shared(s, t, i, a, olds);
        x[i] = s[t];
    } else {
        script_global(x, i, a, olds);
    }
}

#[kernel]
fn script_i64(shared: bool, x: &mut [i64], a: &[i64], olds: &mut [i64]) {
    let (t, i) = (thread_idx().x as usize, (block_idx().x * block_dim().x + thread_idx().x) as usize);
    if shared {
        let s = shared_array![i64; BLOCK];
        s[t] = x[i];
        script_shared(s, t, i, a, olds);
        x[i] = s[t];
    } else {
        script_global(x, i, a, olds);
    }
}

#[kernel]
fn script_u64(shared: bool, x: &mut [u64], a: &[u64], olds: &mut [u64]) {
    let (t, i) = (thread_idx().x as usize, (block_idx().x * block_dim().x + thread_idx().x) as usize);
    if shared {
        let s = shared_array![u64; BLOCK];
        s[t] = x[i];
        script_shared(s, t, i, a, olds);
        x[i] = s[t];
    } else {
        script_global(x, i, a, olds);
    }
}

/// `inc`/`dec` with limits `a[6*i..]`, and `exch` on floats and `cas` on `u16` with arguments
/// `fa[2*i..]`, `da[2*i..]`, `ha[2*i..]`; every old value is recorded. In shared memory when
/// `shared`.
#[kernel]
#[allow(clippy::too_many_arguments)]
fn script_misc(
    shared: bool,
    x: &mut [u32],
    a: &[u32],
    olds: &mut [u32],
    f: &mut [f32],
    fa: &[f32],
    d: &mut [f64],
    da: &[f64],
    h: &mut [u16],
    ha: &[u16],
) {
    let (t, i) = (thread_idx().x as usize, (block_idx().x * block_dim().x + thread_idx().x) as usize);
    let (k, o) = (6 * i, 8 * i);
    if shared {
        let (sx, sf, sd, sh) = (
            shared_array![u32; BLOCK],
            shared_array![f32; BLOCK],
            shared_array![f64; BLOCK],
            shared_array![u16; BLOCK],
        );
        sx[t] = x[i];
        sf[t] = f[i];
        sd[t] = d[i];
        sh[t] = h[i];
        olds[o] = sx.atomic_inc(t, a[k]);
        olds[o + 1] = sx.atomic_inc(t, a[k + 1]);
        olds[o + 2] = sx.atomic_dec(t, a[k + 2]);
        olds[o + 3] = sx.atomic_dec(t, a[k + 3]);
        olds[o + 4] = sx.atomic_inc(t, a[k + 4]);
        olds[o + 5] = sx.atomic_dec(t, a[k + 5]);
        olds[o + 6] = sf.atomic_exch(t, fa[2 * i]).to_bits();
        olds[o + 7] = sf.atomic_exch(t, fa[2 * i + 1]).to_bits();
        let old_d = sd.atomic_exch(t, da[2 * i]);
        let old_h = sh.atomic_cas(t, ha[2 * i], ha[2 * i + 1]);
        x[i] = sx[t];
        f[i] = sf[t];
        d[i] = old_d;
        h[i] = old_h;
        // The values left in shared memory, after the olds.
        d[N + i] = sd[t];
        h[N + i] = sh[t];
    } else {
        olds[o] = x.atomic_inc(i, a[k]);
        olds[o + 1] = x.atomic_inc(i, a[k + 1]);
        olds[o + 2] = x.atomic_dec(i, a[k + 2]);
        olds[o + 3] = x.atomic_dec(i, a[k + 3]);
        olds[o + 4] = x.atomic_inc(i, a[k + 4]);
        olds[o + 5] = x.atomic_dec(i, a[k + 5]);
        olds[o + 6] = f.atomic_exch(i, fa[2 * i]).to_bits();
        olds[o + 7] = f.atomic_exch(i, fa[2 * i + 1]).to_bits();
        d[i] = d.atomic_exch(N + i, da[2 * i]);
        h[i] = h.atomic_cas(N + i, ha[2 * i], ha[2 * i + 1]);
    }
}

/// The integer element types, for the host model.
trait Int:
    DeviceCopy
    + Ord
    + std::fmt::Debug
    + std::ops::BitAnd<Output = Self>
    + std::ops::BitOr<Output = Self>
    + std::ops::BitXor<Output = Self>
{
    const EDGES: [Self; 5];
    fn from_bits(b: u64) -> Self;
    fn wrapping_sub(self, o: Self) -> Self;
    fn wrapping_add(self, o: Self) -> Self;
}

macro_rules! int {
    ($($t:ty),*) => { $(
        impl Int for $t {
            const EDGES: [Self; 5] = [0, 1, !0, <$t>::MIN, <$t>::MAX];
            fn from_bits(b: u64) -> Self {
                b as $t
            }
            fn wrapping_sub(self, o: Self) -> Self {
                <$t>::wrapping_sub(self, o)
            }
            fn wrapping_add(self, o: Self) -> Self {
                <$t>::wrapping_add(self, o)
            }
        }
    )* };
}
int!(i32, u32, i64, u64);

/// A random value, an edge value one time in four.
fn value<T: Int>(rng: &mut Rng) -> T {
    if rng.below(4) == 0 {
        T::EDGES[rng.below(5) as usize]
    } else {
        T::from_bits(rng.next_u64())
    }
}

/// Initial values, arguments, and the olds and finals the script must give (the host model).
struct Script<T> {
    x0: Vec<T>,
    args: Vec<T>,
    olds: Vec<T>,
    finals: Vec<T>,
}

impl<T: Int> Script<T> {
    /// Checks a launch's old values (`got`) and final values against the model, thread by
    /// thread; `what` names the launch in a failure.
    fn check(&self, got: &[T], finals: &[T], what: &str) {
        for i in 0..N {
            let r = i * STEPS..(i + 1) * STEPS;
            assert_eq!(
                got[r.clone()],
                self.olds[r],
                "olds of thread {i} ({what}), x0 {:?}, args {:?}",
                self.x0[i],
                &self.args[i * ARGS..(i + 1) * ARGS]
            );
        }
        assert_eq!(finals, self.finals, "final values ({what})");
    }
}

fn script_case<T: Int>(seed: u64) -> Script<T> {
    let mut rng = Rng::new(seed);
    let mut s = Script { x0: Vec::new(), args: Vec::new(), olds: Vec::new(), finals: Vec::new() };
    for i in 0..N {
        let mut a: Vec<T> = (0..ARGS).map(|_| value(&mut rng)).collect();
        let mut x = value::<T>(&mut rng);
        s.x0.push(x);
        let olds = &mut s.olds;
        let mut step = |x: &mut T, op: &dyn Fn(T) -> T| {
            olds.push(*x);
            *x = op(*x);
        };
        step(&mut x, &|x| x.wrapping_sub(a[0]));
        step(&mut x, &|x| x.min(a[1]));
        step(&mut x, &|x| x.max(a[2]));
        step(&mut x, &|_| a[3]);
        step(&mut x, &|x| x & a[4]);
        step(&mut x, &|x| x | a[5]);
        step(&mut x, &|x| x ^ a[6]);
        if i % 2 == 0 {
            a[7] = x; // this cas succeeds
        }
        step(&mut x, &|x| if x == a[7] { a[8] } else { x });
        step(&mut x, &|_| a[9]); // compares with the value just loaded
        step(&mut x, &|x| x.wrapping_add(a[10]));
        s.finals.push(x);
        s.args.extend(a);
    }
    s
}

macro_rules! script_test {
    ($name:ident, $t:ty, $kernel:ident, $seed:expr) => {
        #[test]
        fn $name() -> Result<(), Error> {
            for shared in [false, true] {
                let s = script_case::<$t>($seed + shared as u64);
                let mut x = DeviceBuffer::from_slice(&s.x0)?;
                let a = DeviceBuffer::from_slice(&s.args)?;
                let mut olds = DeviceBuffer::<$t>::zeroed(N * STEPS)?;
                launch!($kernel<<<GRID as u32, BLOCK as u32>>>(shared, &mut x, &a, &mut olds))?;
                s.check(&olds.to_vec()?, &x.to_vec()?, &format!("shared: {shared}"));
            }
            Ok(())
        }
    };
}
script_test!(script_i32_matches_the_model, i32, script_i32, 10);
script_test!(script_u32_matches_the_model, u32, script_u32, 20);
script_test!(script_i64_matches_the_model, i64, script_i64, 30);
script_test!(script_u64_matches_the_model, u64, script_u64, 40);

/// CUDA's `atomicInc`.
fn inc(old: u32, limit: u32) -> u32 {
    if old >= limit {
        0
    } else {
        old + 1
    }
}

/// CUDA's `atomicDec`.
fn dec(old: u32, limit: u32) -> u32 {
    if old == 0 || old > limit {
        limit
    } else {
        old - 1
    }
}

/// One thread's case of `script_misc`'s `inc`/`dec` steps: its start (to `x0`), its six limits
/// (to `a`), the old value each step returns (to `want_olds`) and its final value (to
/// `want_x`). Small values and limits, so that wrapping, limit 0 and values above the limit all
/// happen; sometimes the full range.
fn inc_dec_case(rng: &mut Rng, x0: &mut Vec<u32>, a: &mut Vec<u32>, want_olds: &mut Vec<u32>, want_x: &mut Vec<u32>) {
    let small = |rng: &mut Rng| {
        if rng.below(8) == 0 {
            [0, u32::MAX, u32::MAX - 1][rng.below(3) as usize]
        } else {
            rng.below(6) as u32
        }
    };
    let mut x = small(rng);
    x0.push(x);
    let limits: Vec<u32> = (0..6).map(|_| small(rng)).collect();
    for (k, &l) in limits.iter().enumerate() {
        want_olds.push(x);
        x = if matches!(k, 0 | 1 | 4) { inc(x, l) } else { dec(x, l) };
    }
    want_x.push(x);
    a.extend(limits);
}

#[test]
fn inc_dec_float_exch_and_u16_cas_match_the_model() -> Result<(), Error> {
    let floats =
        [0.0f32, -0.0, 1.5, f32::from_bits(0x7fc0_1234), f32::from_bits(0xffa0_0001), f32::INFINITY, f32::from_bits(1)];
    let doubles = [
        0.0f64,
        -0.0,
        -2.25,
        f64::from_bits(0x7ff8_0000_0000_beef),
        f64::from_bits(0xfff0_0000_0000_0001),
        f64::from_bits(1),
    ];
    for shared in [false, true] {
        let mut rng = Rng::new(7 + shared as u64);
        let (mut x0, mut a, mut want_olds, mut want_x) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
        let (mut f0, mut fa, mut want_f) = (Vec::new(), Vec::new(), Vec::new());
        let (mut d0, mut da) = (vec![0.0f64; 2 * N], Vec::new());
        let (mut h0, mut ha, mut want_h) = (vec![0u16; 2 * N], Vec::new(), Vec::new());
        for i in 0..N {
            inc_dec_case(&mut rng, &mut x0, &mut a, &mut want_olds, &mut want_x);
            let pick = |rng: &mut Rng| floats[rng.below(floats.len() as u64) as usize];
            let (f_start, f1, f2) = (pick(&mut rng), pick(&mut rng), pick(&mut rng));
            f0.push(f_start);
            fa.extend([f1, f2]);
            want_olds.extend([f_start.to_bits(), f1.to_bits()]);
            want_f.push(f2);
            let pick = |rng: &mut Rng| doubles[rng.below(doubles.len() as u64) as usize];
            let (d_start, d1) = (pick(&mut rng), pick(&mut rng));
            if shared {
                d0[i] = d_start
            } else {
                d0[N + i] = d_start
            }
            da.extend([d1, 0.0]);
            let h = rng.below(4) as u16 * 0x5555;
            if shared {
                h0[i] = h
            } else {
                h0[N + i] = h
            }
            let (cmp, new) = (if i % 2 == 0 { h } else { rng.next_u64() as u16 }, rng.next_u64() as u16);
            ha.extend([cmp, new]);
            want_h.push((h, if cmp == h { new } else { h }));
        }
        let mut x = DeviceBuffer::from_slice(&x0)?;
        let ab = DeviceBuffer::from_slice(&a)?;
        let mut olds = DeviceBuffer::<u32>::zeroed(8 * N)?;
        let mut f = DeviceBuffer::from_slice(&f0)?;
        let fab = DeviceBuffer::from_slice(&fa)?;
        let mut d = DeviceBuffer::from_slice(&d0)?;
        let dab = DeviceBuffer::from_slice(&da)?;
        let mut h = DeviceBuffer::from_slice(&h0)?;
        let hab = DeviceBuffer::from_slice(&ha)?;
        launch!(script_misc<<<GRID as u32, BLOCK as u32>>>(shared, &mut x, &ab, &mut olds, &mut f, &fab, &mut d, &dab, &mut h, &hab))?;
        let got = olds.to_vec()?;
        for i in 0..N {
            let r = 8 * i..8 * (i + 1);
            assert_eq!(
                got[r.clone()],
                want_olds[r],
                "inc/dec limits {:?} from {} and f32 exch (shared: {shared})",
                &a[6 * i..6 * i + 6],
                x0[i]
            );
        }
        assert_eq!(x.to_vec()?, want_x, "inc/dec finals (shared: {shared})");
        let fb: Vec<u32> = f.to_vec()?.iter().map(|v| v.to_bits()).collect();
        assert_eq!(fb, want_f.iter().map(|v| v.to_bits()).collect::<Vec<_>>(), "f32 exch (shared: {shared})");
        let (dv, hv) = (d.to_vec()?, h.to_vec()?);
        for i in 0..N {
            let d_start = if shared { d0[i] } else { d0[N + i] };
            assert_eq!(
                (dv[i].to_bits(), dv[N + i].to_bits()),
                (d_start.to_bits(), da[2 * i].to_bits()),
                "f64 exch {i} (shared: {shared})"
            );
            assert_eq!(
                (hv[i], hv[N + i]),
                want_h[i],
                "u16 cas {i} with {:?} (shared: {shared})",
                &ha[2 * i..2 * i + 2]
            );
        }
    }
    Ok(())
}

// ---------------------------------------------------------------------------------------------
// Contention: many threads on one element, results that do not depend on the order
// ---------------------------------------------------------------------------------------------

/// `x[base..base + 6]` gets `sub min max and or xor` of `v`.
#[device]
fn fold_global<T: AtomicSub + AtomicMinMax + AtomicBitwise>(x: GlobalMut<T>, base: usize, v: T) {
    x.atomic_sub(base, v);
    x.atomic_min(base + 1, v);
    x.atomic_max(base + 2, v);
    x.atomic_and(base + 3, v);
    x.atomic_or(base + 4, v);
    x.atomic_xor(base + 5, v);
}

/// [`fold_global`] on a shared array of 6.
#[device]
fn fold_shared<T: AtomicSub + AtomicMinMax + AtomicBitwise>(x: Shared<T>, v: T) {
    x.atomic_sub(0, v);
    x.atomic_min(1, v);
    x.atomic_max(2, v);
    x.atomic_and(3, v);
    x.atomic_or(4, v);
    x.atomic_xor(5, v);
}

/// Every thread folds `vals[i]` into elements `0..6` of each buffer (global memory).
#[kernel]
fn fold_all_global(vals: &[u64], s: &mut [i32], u: &mut [u32], l: &mut [i64], q: &mut [u64]) {
    let i = (block_idx().x * block_dim().x + thread_idx().x) as usize;
    let v = vals[i];
    fold_global(s, 0, v as i32);
    fold_global(u, 0, v as u32);
    fold_global(l, 0, v as i64);
    fold_global(q, 0, v);
}

/// Each block folds its threads' `vals` into shared arrays that start as elements `0..6` of
/// each buffer, and writes them to elements `6 * (block + 1)..`.
#[kernel]
fn fold_all_shared(vals: &[u64], s: &mut [i32], u: &mut [u32], l: &mut [i64], q: &mut [u64]) {
    let (ss, su, sl, sq) = (shared_array![i32; 6], shared_array![u32; 6], shared_array![i64; 6], shared_array![u64; 6]);
    let t = thread_idx().x as usize;
    if t < 6 {
        ss[t] = s[t];
        su[t] = u[t];
        sl[t] = l[t];
        sq[t] = q[t];
    }
    sync_threads();
    let v = vals[(block_idx().x * block_dim().x) as usize + t];
    fold_shared(ss, v as i32);
    fold_shared(su, v as u32);
    fold_shared(sl, v as i64);
    fold_shared(sq, v);
    sync_threads();
    if t < 6 {
        let out = 6 * (block_idx().x as usize + 1) + t;
        s[out] = ss[t];
        u[out] = su[t];
        l[out] = sl[t];
        q[out] = sq[t];
    }
}

/// `init` folded with `vals` as `fold_global` does.
fn fold_model<T: Int>(init: &[T], vals: impl Iterator<Item = T>) -> Vec<T> {
    let mut x = init.to_vec();
    for v in vals {
        x[0] = x[0].wrapping_sub(v);
        x[1] = x[1].min(v);
        x[2] = x[2].max(v);
        x[3] = x[3] & v;
        x[4] = x[4] | v;
        x[5] = x[5] ^ v;
    }
    x
}

fn fold_init<T: Int>(rng: &mut Rng) -> Vec<T> {
    // Identities for min, max, and, or; random starts for sub and xor.
    let e = T::EDGES;
    vec![value(rng), e[4], e[3], e[2], e[0], value(rng)]
}

/// `init` once for the initial values and once per block for the results.
fn per_block_copies<T: Int>(init: &[T]) -> Vec<T> {
    init.iter().copied().cycle().take(6 * (GRID + 1)).collect()
}

#[test]
fn sub_min_max_and_or_xor_under_contention() -> Result<(), Error> {
    let mut rng = Rng::new(99);
    // Random values (both signs in every width) with one bit always set and one always clear
    // in each half, so that `and` and `or` are not trivially 0 and all ones.
    let vals: Vec<u64> = (0..N).map(|_| (rng.next_u64() | 0x0010_0000_0010_0000) & !0x0800_0000_0800_0000).collect();
    let (s0, u0, l0, q0) = (
        fold_init::<i32>(&mut rng),
        fold_init::<u32>(&mut rng),
        fold_init::<i64>(&mut rng),
        fold_init::<u64>(&mut rng),
    );
    let vb = DeviceBuffer::from_slice(&vals)?;
    // Global: every thread of the grid on the same six elements.
    let (mut s, mut u) = (DeviceBuffer::from_slice(&s0)?, DeviceBuffer::from_slice(&u0)?);
    let (mut l, mut q) = (DeviceBuffer::from_slice(&l0)?, DeviceBuffer::from_slice(&q0)?);
    launch!(fold_all_global<<<GRID as u32, BLOCK as u32>>>(&vb, &mut s, &mut u, &mut l, &mut q))?;
    assert_eq!(s.to_vec()?, fold_model(&s0, vals.iter().map(|&v| v as i32)), "i32");
    assert_eq!(u.to_vec()?, fold_model(&u0, vals.iter().map(|&v| v as u32)), "u32");
    assert_eq!(l.to_vec()?, fold_model(&l0, vals.iter().map(|&v| v as i64)), "i64");
    assert_eq!(q.to_vec()?, fold_model(&q0, vals.iter().copied()), "u64");
    // Shared: each block on its own six elements, starting from the same values.
    let (mut s, mut u) =
        (DeviceBuffer::from_slice(&per_block_copies(&s0))?, DeviceBuffer::from_slice(&per_block_copies(&u0))?);
    let (mut l, mut q) =
        (DeviceBuffer::from_slice(&per_block_copies(&l0))?, DeviceBuffer::from_slice(&per_block_copies(&q0))?);
    launch!(fold_all_shared<<<GRID as u32, BLOCK as u32>>>(&vb, &mut s, &mut u, &mut l, &mut q))?;
    let (s, u, l, q) = (s.to_vec()?, u.to_vec()?, l.to_vec()?, q.to_vec()?);
    for b in 0..GRID {
        let (r, block) = (6 * (b + 1)..6 * (b + 2), &vals[b * BLOCK..(b + 1) * BLOCK]);
        assert_eq!(s[r.clone()], fold_model(&s0, block.iter().map(|&v| v as i32)), "i32 block {b}");
        assert_eq!(u[r.clone()], fold_model(&u0, block.iter().map(|&v| v as u32)), "u32 block {b}");
        assert_eq!(l[r.clone()], fold_model(&l0, block.iter().map(|&v| v as i64)), "i64 block {b}");
        assert_eq!(q[r], fold_model(&q0, block.iter().copied()), "u64 block {b}");
    }
    Ok(())
}

/// Every thread increments `c[0]` (wrapping past `inc_limit`) and decrements `c[1]`
/// (wrapping to `dec_limit`), recording both olds. In shared counters (starting at `c[0..2]`,
/// results to `c[2 * (block + 1)..]`) when `shared`.
#[kernel]
fn count(shared: bool, inc_limit: u32, dec_limit: u32, c: &mut [u32], olds: &mut [u32]) {
    let t = thread_idx().x as usize;
    let i = (block_idx().x * block_dim().x) as usize + t;
    let sc = shared_array![u32; 2];
    if shared && t < 2 {
        sc[t] = c[t];
    }
    sync_threads();
    if shared {
        olds[2 * i] = sc.atomic_inc(0, inc_limit);
        olds[2 * i + 1] = sc.atomic_dec(1, dec_limit);
    } else {
        olds[2 * i] = c.atomic_inc(0, inc_limit);
        olds[2 * i + 1] = c.atomic_dec(1, dec_limit);
    }
    sync_threads();
    if shared && t < 2 {
        c[2 * (block_idx().x as usize + 1) + t] = sc[t];
    }
}

#[test]
fn inc_and_dec_wrap_and_hand_out_each_count_once() -> Result<(), Error> {
    let (inc_limit, dec_limit) = (9u32, 36u32);
    for shared in [false, true] {
        let mut c = DeviceBuffer::<u32>::zeroed(2 * (GRID + 1))?;
        let mut olds = DeviceBuffer::<u32>::zeroed(2 * N)?;
        launch!(count<<<GRID as u32, BLOCK as u32>>>(shared, inc_limit, dec_limit, &mut c, &mut olds))?;
        let (c, olds) = (c.to_vec()?, olds.to_vec()?);
        // From 0, `n` incs count 0, 1, .., limit, 0, ..; `n` decs count 0, limit, limit - 1, ...
        let groups: Vec<(std::ops::Range<usize>, usize)> = if shared {
            (0..GRID).map(|b| (b * BLOCK..(b + 1) * BLOCK, 2 * (b + 1))).collect()
        } else {
            vec![(0..N, 0)]
        };
        for (threads, at) in groups {
            let n = threads.len() as u32;
            assert_eq!(c[at], n % (inc_limit + 1), "inc final (shared: {shared})");
            assert_eq!(
                c[at + 1],
                (dec_limit + 1 - n % (dec_limit + 1)) % (dec_limit + 1),
                "dec final (shared: {shared})"
            );
            let mut incs: Vec<u32> = threads.clone().map(|i| olds[2 * i]).collect();
            let mut decs: Vec<u32> = threads.map(|i| olds[2 * i + 1]).collect();
            incs.sort_unstable();
            decs.sort_unstable();
            let mut want_incs: Vec<u32> = (0..n).map(|k| k % (inc_limit + 1)).collect();
            let mut want_decs: Vec<u32> =
                (0..n).map(|k| (dec_limit + 1 - k % (dec_limit + 1)) % (dec_limit + 1)).collect();
            want_incs.sort_unstable();
            want_decs.sort_unstable();
            assert_eq!(incs, want_incs, "inc olds (shared: {shared})");
            assert_eq!(decs, want_decs, "dec olds (shared: {shared})");
        }
    }
    Ok(())
}

/// Every thread exchanges its value into `x[0]` (global `u64`) and into a shared `f32` per
/// block; olds to `olds`/`fold`, the block's last shared value to `flast[block]`.
#[kernel]
fn exch_chain(vals: &[u64], x: &mut [u64], olds: &mut [u64], fvals: &[f32], fold: &mut [f32], flast: &mut [f32]) {
    let t = thread_idx().x as usize;
    let i = (block_idx().x * block_dim().x) as usize + t;
    let sf = shared_array![f32; 1];
    if t == 0 {
        sf[0] = -1.0;
    }
    sync_threads();
    olds[i] = x.atomic_exch(0, vals[i]);
    fold[i] = sf.atomic_exch(0, fvals[i]);
    sync_threads();
    if t == 0 {
        flast[block_idx().x as usize] = sf[0];
    }
}

#[test]
fn an_exch_chain_returns_every_value_once() -> Result<(), Error> {
    let mut rng = Rng::new(5);
    let vals: Vec<u64> = (0..N as u64).map(|i| (i << 32) | rng.below(1 << 32)).collect();
    let fvals: Vec<f32> = (0..N).map(|i| i as f32 * 0.5).collect();
    let (vb, fb) = (DeviceBuffer::from_slice(&vals)?, DeviceBuffer::from_slice(&fvals)?);
    let mut x = DeviceBuffer::from_slice(&[u64::MAX])?;
    let mut olds = DeviceBuffer::<u64>::zeroed(N)?;
    let (mut fold, mut flast) = (DeviceBuffer::<f32>::zeroed(N)?, DeviceBuffer::<f32>::zeroed(GRID)?);
    launch!(exch_chain<<<GRID as u32, BLOCK as u32>>>(&vb, &mut x, &mut olds, &fb, &mut fold, &mut flast))?;
    let mut seen = olds.to_vec()?;
    seen.extend(x.to_vec()?);
    seen.sort_unstable();
    let mut want = vals.clone();
    want.push(u64::MAX);
    want.sort_unstable();
    assert_eq!(seen, want, "global u64: the olds and the final value are the initial value and every thread's");
    let (fold, flast) = (fold.to_vec()?, flast.to_vec()?);
    for b in 0..GRID {
        let mut seen: Vec<u32> =
            fold[b * BLOCK..(b + 1) * BLOCK].iter().chain([&flast[b]]).map(|v| v.to_bits()).collect();
        let mut want: Vec<u32> = fvals[b * BLOCK..(b + 1) * BLOCK].iter().chain([&-1.0]).map(|v| v.to_bits()).collect();
        seen.sort_unstable();
        want.sort_unstable();
        assert_eq!(seen, want, "shared f32, block {b}");
    }
    Ok(())
}

/// The first thread to `cas` 0 -> its id + 1 owns the element: globally (`u32`, `i64`) and per
/// block in shared memory (`u16`, `i32`). `won[4 * i + k]` says whether thread `i` won race `k`;
/// the owners of the shared races go to `owners[2 * block..]`.
#[kernel]
fn cas_race(g32: &mut [u32], g64: &mut [i64], won: &mut [u32], owners: &mut [i32]) {
    let t = thread_idx().x as usize;
    let i = (block_idx().x * block_dim().x) as usize + t;
    let (s16, s32) = (shared_array![u16; 1], shared_array![i32; 1]);
    if t == 0 {
        s16[0] = 0;
        s32[0] = 0;
    }
    sync_threads();
    won[4 * i] = (g32.atomic_cas(0, 0, i as u32 + 1) == 0) as u32;
    won[4 * i + 1] = (g64.atomic_cas(0, 0, -(i as i64) - 1) == 0) as u32;
    won[4 * i + 2] = (s16.atomic_cas(0, 0, t as u16 + 1) == 0) as u32;
    won[4 * i + 3] = (s32.atomic_cas(0, 0, -(t as i32) - 1) == 0) as u32;
    sync_threads();
    if t == 0 {
        owners[2 * block_idx().x as usize] = s16[0] as i32;
        owners[2 * block_idx().x as usize + 1] = s32[0];
    }
}

#[test]
fn the_first_thread_to_cas_wins_and_only_it() -> Result<(), Error> {
    let (mut g32, mut g64) = (DeviceBuffer::<u32>::zeroed(1)?, DeviceBuffer::<i64>::zeroed(1)?);
    let (mut won, mut owners) = (DeviceBuffer::<u32>::zeroed(4 * N)?, DeviceBuffer::<i32>::zeroed(2 * GRID)?);
    launch!(cas_race<<<GRID as u32, BLOCK as u32>>>(&mut g32, &mut g64, &mut won, &mut owners))?;
    let (won, owners) = (won.to_vec()?, owners.to_vec()?);
    let winners = |k: usize, threads: std::ops::Range<usize>| -> Vec<usize> {
        threads.filter(|&i| won[4 * i + k] == 1).collect()
    };
    let w = winners(0, 0..N);
    assert_eq!(w.len(), 1, "u32 winners {w:?}");
    assert_eq!(g32.to_vec()?, vec![w[0] as u32 + 1]);
    let w = winners(1, 0..N);
    assert_eq!(w.len(), 1, "i64 winners {w:?}");
    assert_eq!(g64.to_vec()?, vec![-(w[0] as i64) - 1]);
    for b in 0..GRID {
        let w = winners(2, b * BLOCK..(b + 1) * BLOCK);
        assert_eq!(w.len(), 1, "u16 winners of block {b}: {w:?}");
        assert_eq!(owners[2 * b], (w[0] - b * BLOCK) as i32 + 1);
        let w = winners(3, b * BLOCK..(b + 1) * BLOCK);
        assert_eq!(w.len(), 1, "i32 winners of block {b}: {w:?}");
        assert_eq!(owners[2 * b + 1], -((w[0] - b * BLOCK) as i32) - 1);
    }
    Ok(())
}

/// An atomic multiply built from a `cas` loop (retry until no other thread intervened), on a
/// global `u32` and, per block, a shared `u64`. The first read of each loop is an atomic load:
/// a plain read there races with the other threads' `atomic_cas` (PTX's memory model; racecheck
/// reports it).
#[kernel]
fn cas_multiply(factors: &[u32], g: &mut [u32], per_block: &mut [u64]) {
    let t = thread_idx().x as usize;
    let i = (block_idx().x * block_dim().x) as usize + t;
    let s = shared_array![u64; 1];
    if t == 0 {
        s[0] = 1;
    }
    sync_threads();
    let m = factors[i];
    let mut seen = g.atomic_load(0, core::sync::atomic::Ordering::Relaxed);
    loop {
        let old = g.atomic_cas(0, seen, seen.wrapping_mul(m));
        if old == seen {
            break;
        }
        seen = old;
    }
    let mut seen = s.atomic_load(0, core::sync::atomic::Ordering::Relaxed);
    loop {
        let old = s.atomic_cas(0, seen, seen.wrapping_mul(m as u64));
        if old == seen {
            break;
        }
        seen = old;
    }
    sync_threads();
    if t == 0 {
        per_block[block_idx().x as usize] = s[0];
    }
}

#[test]
fn a_cas_loop_multiplies_atomically() -> Result<(), Error> {
    let mut rng = Rng::new(3);
    let factors: Vec<u32> = (0..N).map(|_| rng.next_u64() as u32 | 1).collect();
    let fb = DeviceBuffer::from_slice(&factors)?;
    let mut g = DeviceBuffer::from_slice(&[3u32])?;
    let mut per_block = DeviceBuffer::<u64>::zeroed(GRID)?;
    launch!(cas_multiply<<<GRID as u32, BLOCK as u32>>>(&fb, &mut g, &mut per_block))?;
    assert_eq!(g.to_vec()?, vec![factors.iter().fold(3u32, |p, &f| p.wrapping_mul(f))]);
    let want: Vec<u64> = factors.chunks(BLOCK).map(|c| c.iter().fold(1u64, |p, &f| p.wrapping_mul(f as u64))).collect();
    assert_eq!(per_block.to_vec()?, want);
    Ok(())
}

// ---------------------------------------------------------------------------------------------
// Out of bounds
// ---------------------------------------------------------------------------------------------

/// The 1-based line of this file that ends with the comment `// @<marker>`.
fn line_of(marker: &str) -> usize {
    marked_line(SRC, &format!("// @{marker}"))
}

#[kernel]
fn oob_global_max(v: &mut [i64]) {
    let i = thread_idx().x as usize;
    v.atomic_max(i, 5); // @oob-max
}

#[test]
fn an_out_of_bounds_global_atomic_is_reported() {
    // A test of the emulator's own semantics or reports: in the emulator also under
    // EMU_TARGET=gpu (on a GPU this kernel traps, hangs or has no such mode).
    common::in_emulator(|| {
        let mut v = DeviceBuffer::from_slice(&[-1i64; 6]).unwrap();
        // Default settings: threads start in index order, so thread 6 is the first to fail.
        let err = with_config(common::emulator(), || launch!(oob_global_max<<<1, 32>>>(&mut v))).unwrap_err();
        assert_eq!(err.code(), 700, "{err}");
        let text = err.to_string();
        assert_has(&text, "Invalid __global__ atomic of size 8 bytes");
        assert_has(&text, &format!("at oob_global_max in {FILE}:{}:", line_of("oob-max")));
        assert_has(&text, "by thread (6,0,0) in block (0,0,0)");
        assert_has(&text, "index 6 is past the end of `v`, which has 6 elements");
        assert_eq!(v.to_vec().unwrap(), vec![5; 6]);
    })
}

#[kernel]
fn oob_shared_cas(out: &mut [u32]) {
    let s = shared_array![u32; 16];
    let t = thread_idx().x as usize;
    if t < 16 {
        s[t] = 0;
    }
    sync_threads();
    out[t] = s.atomic_cas(t, 0, 1); // @oob-cas
}

#[test]
fn an_out_of_bounds_shared_atomic_is_reported() {
    // A test of the emulator's own semantics or reports: in the emulator also under
    // EMU_TARGET=gpu (on a GPU this kernel traps, hangs or has no such mode).
    common::in_emulator(|| {
        let mut out = DeviceBuffer::<u32>::zeroed(32).unwrap();
        let err = with_config(common::emulator(), || launch!(oob_shared_cas<<<1, 32>>>(&mut out))).unwrap_err();
        assert_eq!(err.code(), 700, "{err}");
        let text = err.to_string();
        assert_has(&text, "Invalid __shared__ atomic of size 4 bytes");
        assert_has(&text, &format!("at oob_shared_cas in {FILE}:{}:", line_of("oob-cas")));
        assert_has(&text, "by thread (16,0,0) in block (0,0,0)");
        assert_has(&text, "index 16 is past the end of __shared__ array declared at");
    })
}

// ---------------------------------------------------------------------------------------------
// In barrier regions: a block's shared memory is its host thread's alone
// ---------------------------------------------------------------------------------------------
//
// Between barriers, a block without clusters runs every thread on one host thread, and no other
// block can reach its shared memory: its shared atomics are a relaxed load and store there
// (`host/mem/atomic.rs`, `rmw!`). The same scripts, in kernels with barriers, must give what the
// model gives, and the launch must have taken barrier regions.

/// Checks that the last launch took barrier regions, unless `EMU_PATH` chose a path for every
/// launch or the launches ran on the GPU.
fn took_regions() {
    if std::env::var_os("EMU_PATH").is_none() && std::env::var("EMU_TARGET").as_deref() != Ok("gpu") {
        assert_eq!(deviceemu::__private::last_path(), "regions");
    }
}

#[kernel]
fn script_regions_i32(x: &mut [i32], a: &[i32], olds: &mut [i32]) {
    let (t, i) = (thread_idx().x as usize, (block_idx().x * block_dim().x + thread_idx().x) as usize);
    let s = shared_array![i32; BLOCK];
    s[t] = x[i];
    sync_threads();
    script_shared(s, t, i, a, olds);
    sync_threads();
    x[i] = s[t];
}

#[kernel]
fn script_regions_u64(x: &mut [u64], a: &[u64], olds: &mut [u64]) {
    let (t, i) = (thread_idx().x as usize, (block_idx().x * block_dim().x + thread_idx().x) as usize);
    let s = shared_array![u64; BLOCK];
    s[t] = x[i];
    sync_threads();
    script_shared(s, t, i, a, olds);
    sync_threads();
    x[i] = s[t];
}

macro_rules! script_regions_test {
    ($name:ident, $t:ty, $kernel:ident, $seed:expr) => {
        #[test]
        fn $name() -> Result<(), Error> {
            let s = script_case::<$t>($seed);
            let mut x = DeviceBuffer::from_slice(&s.x0)?;
            let a = DeviceBuffer::from_slice(&s.args)?;
            let mut olds = DeviceBuffer::<$t>::zeroed(N * STEPS)?;
            launch!($kernel<<<GRID as u32, BLOCK as u32>>>(&mut x, &a, &mut olds))?;
            took_regions();
            s.check(&olds.to_vec()?, &x.to_vec()?, "in barrier regions");
            Ok(())
        }
    };
}
script_regions_test!(script_i32_in_barrier_regions_matches_the_model, i32, script_regions_i32, 50);
script_regions_test!(script_u64_in_barrier_regions_matches_the_model, u64, script_regions_u64, 60);

/// `script_misc`'s shared arm between barriers, and `atomic_add` on `f32` and `f64` (the
/// device's rounding: subnormals flushed, canonical NaN) on each thread's shared slot.
#[kernel]
#[allow(clippy::too_many_arguments)]
fn script_misc_regions(
    x: &mut [u32],
    a: &[u32],
    olds: &mut [u32],
    f: &mut [f32],
    fa: &[f32],
    d: &mut [f64],
    da: &[f64],
    h: &mut [u16],
    ha: &[u16],
) {
    let (t, i) = (thread_idx().x as usize, (block_idx().x * block_dim().x + thread_idx().x) as usize);
    let (k, o) = (6 * i, 8 * i);
    let (sx, sf, sd, sh) =
        (shared_array![u32; BLOCK], shared_array![f32; BLOCK], shared_array![f64; BLOCK], shared_array![u16; BLOCK]);
    sx[t] = x[i];
    sf[t] = f[i];
    sd[t] = d[i];
    sh[t] = h[i];
    sync_threads();
    olds[o] = sx.atomic_inc(t, a[k]);
    olds[o + 1] = sx.atomic_inc(t, a[k + 1]);
    olds[o + 2] = sx.atomic_dec(t, a[k + 2]);
    olds[o + 3] = sx.atomic_dec(t, a[k + 3]);
    olds[o + 4] = sx.atomic_inc(t, a[k + 4]);
    olds[o + 5] = sx.atomic_dec(t, a[k + 5]);
    olds[o + 6] = sf.atomic_exch(t, fa[2 * i]).to_bits();
    olds[o + 7] = sf.atomic_add(t, fa[2 * i + 1]).to_bits();
    let old_d = sd.atomic_exch(t, da[2 * i]);
    let old_d2 = sd.atomic_add(t, da[2 * i + 1]);
    let old_h = sh.atomic_cas(t, ha[2 * i], ha[2 * i + 1]);
    sync_threads();
    x[i] = sx[t];
    f[i] = sf[t];
    d[i] = old_d;
    d[N + i] = old_d2;
    d[2 * N + i] = sd[t];
    h[i] = old_h;
    h[N + i] = sh[t];
}

/// `atom.add.f32` on the host model: subnormal inputs and results flushed to zero of their
/// sign, a NaN result the canonical NaN.
fn device_add_f32(a: f32, b: f32) -> f32 {
    let flush = |x: f32| if x.is_subnormal() { f32::from_bits(x.to_bits() & 0x8000_0000) } else { x };
    let r = flush(flush(a) + flush(b));
    if r.is_nan() {
        f32::from_bits(0x7fff_ffff)
    } else {
        r
    }
}

/// `atom.add.f64`: IEEE addition, a NaN result the canonical NaN.
fn device_add_f64(a: f64, b: f64) -> f64 {
    let r = a + b;
    if r.is_nan() {
        f64::from_bits(0x7fff_ffff_ffff_ffff)
    } else {
        r
    }
}

#[test]
fn inc_dec_exch_float_adds_and_u16_cas_in_barrier_regions_match_the_model() -> Result<(), Error> {
    let floats = [
        0.0f32,
        -0.0,
        1.5,
        -3.25,
        f32::from_bits(0x7fc0_1234),
        f32::INFINITY,
        f32::NEG_INFINITY,
        f32::from_bits(1),
        f32::from_bits(0x8000_0003),
        f32::MIN_POSITIVE,
    ];
    let doubles = [
        0.0f64,
        -0.0,
        -2.25,
        7.5,
        f64::from_bits(0x7ff8_0000_0000_beef),
        f64::INFINITY,
        f64::NEG_INFINITY,
        f64::from_bits(1),
    ];
    let mut rng = Rng::new(77);
    let (mut x0, mut a, mut want_olds, mut want_x) = (Vec::new(), Vec::new(), Vec::new(), Vec::new());
    let (mut f0, mut fa, mut want_f) = (Vec::new(), Vec::new(), Vec::new());
    let (mut d0, mut da, mut want_d) = (Vec::new(), Vec::new(), vec![0u64; 3 * N]);
    let (mut h0, mut ha, mut want_h) = (Vec::new(), Vec::new(), vec![0u16; 2 * N]);
    for i in 0..N {
        inc_dec_case(&mut rng, &mut x0, &mut a, &mut want_olds, &mut want_x);
        let pick = |rng: &mut Rng| floats[rng.below(floats.len() as u64) as usize];
        let (f_start, f1, f2) = (pick(&mut rng), pick(&mut rng), pick(&mut rng));
        f0.push(f_start);
        fa.extend([f1, f2]);
        want_olds.extend([f_start.to_bits(), f1.to_bits()]);
        want_f.push(device_add_f32(f1, f2).to_bits());
        let pick = |rng: &mut Rng| doubles[rng.below(doubles.len() as u64) as usize];
        let (d_start, d1, d2) = (pick(&mut rng), pick(&mut rng), pick(&mut rng));
        d0.push(d_start);
        da.extend([d1, d2]);
        want_d[i] = d_start.to_bits();
        want_d[N + i] = d1.to_bits();
        want_d[2 * N + i] = device_add_f64(d1, d2).to_bits();
        let h = rng.below(4) as u16 * 0x5555;
        h0.push(h);
        let (cmp, new) = (if i % 2 == 0 { h } else { rng.next_u64() as u16 }, rng.next_u64() as u16);
        ha.extend([cmp, new]);
        want_h[i] = h;
        want_h[N + i] = if cmp == h { new } else { h };
    }
    let mut x = DeviceBuffer::from_slice(&x0)?;
    let ab = DeviceBuffer::from_slice(&a)?;
    let mut olds = DeviceBuffer::<u32>::zeroed(8 * N)?;
    let mut f = DeviceBuffer::from_slice(&f0)?;
    let fab = DeviceBuffer::from_slice(&fa)?;
    d0.resize(3 * N, 0.0);
    let mut d = DeviceBuffer::from_slice(&d0)?;
    let dab = DeviceBuffer::from_slice(&da)?;
    h0.resize(2 * N, 0);
    let mut h = DeviceBuffer::from_slice(&h0)?;
    let hab = DeviceBuffer::from_slice(&ha)?;
    launch!(script_misc_regions<<<GRID as u32, BLOCK as u32>>>(&mut x, &ab, &mut olds, &mut f, &fab, &mut d, &dab, &mut h, &hab))?;
    took_regions();
    let got = olds.to_vec()?;
    for i in 0..N {
        let r = 8 * i..8 * (i + 1);
        assert_eq!(got[r.clone()], want_olds[r], "inc/dec limits {:?} from {}, f32 exch", &a[6 * i..6 * i + 6], x0[i]);
    }
    assert_eq!(x.to_vec()?, want_x, "inc/dec finals");
    let fb: Vec<u32> = f.to_vec()?.iter().map(|v| v.to_bits()).collect();
    assert_eq!(fb, want_f, "f32 add after exch");
    let db: Vec<u64> = d.to_vec()?.iter().map(|v| v.to_bits()).collect();
    assert_eq!(db, want_d, "f64 exch and add");
    assert_eq!(h.to_vec()?, want_h, "u16 cas");
    Ok(())
}

/// `fold_all_shared` (barriers around the atomics) takes barrier regions: the contention test
/// above covers its atomics there.
#[test]
fn the_shared_contention_kernel_takes_barrier_regions() -> Result<(), Error> {
    let vals: Vec<u64> = (0..N as u64).map(|v| v * 0x9e37_79b9).collect();
    let vb = DeviceBuffer::from_slice(&vals)?;
    let (mut s, mut u) = (DeviceBuffer::<i32>::zeroed(6 * (GRID + 1))?, DeviceBuffer::<u32>::zeroed(6 * (GRID + 1))?);
    let (mut l, mut q) = (DeviceBuffer::<i64>::zeroed(6 * (GRID + 1))?, DeviceBuffer::<u64>::zeroed(6 * (GRID + 1))?);
    launch!(fold_all_shared<<<GRID as u32, BLOCK as u32>>>(&vb, &mut s, &mut u, &mut l, &mut q))?;
    took_regions();
    let q = q.to_vec()?;
    for b in 0..GRID {
        let block = vals[b * BLOCK..(b + 1) * BLOCK].iter().copied();
        assert_eq!(q[6 * (b + 1)..6 * (b + 2)], fold_model(&[0u64; 6], block), "u64 block {b}");
    }
    Ok(())
}
