//! Ordered and volatile loads and stores (`atomic_load`, `atomic_store`, their `_scoped` forms,
//! `volatile_load`, `volatile_store`), on global and shared memory:
//!
//! * Values: each thread stores random bits (edge values and, for floats, NaN payloads, signed
//!   zeros, subnormals and infinities mixed in) with every store form and reads each back with
//!   every load form, for `u8 i8 u16 i16 u32 i32 u64 i64 f32 f64`; every bit must come back.
//! * A `&[T]` parameter loads atomically and volatilely.
//! * Out of bounds: an ordered load, store and a volatile store are reported with code 700 at
//!   their line, as reads and writes of their size, in global and shared memory.
//! * An ordering a load or store cannot take (a `Release` load, an `Acquire` store) is a kernel
//!   panic at its line.
//! * Spin-waits that complete with today's scheduler: on a flag set by an earlier thread of the
//!   block (same warp and another warp, shared and global, acquire and volatile), and a chain
//!   across blocks in which each block waits for the one that took the ticket before it
//!   (decoupled look-back's order, without the look-back window), under every block order,
//!   seed and schedule.
//! * initcheck sees an ordered load as a read (an unwritten element is reported) and an ordered
//!   store as a write (a load after it is clean); racecheck does not report the flag protocol.

use core::sync::atomic::Ordering;
use core::sync::atomic::Ordering::{AcqRel, Acquire, Relaxed, Release, SeqCst};

use crate::common::{assert_has, assert_lacks, marked_line, on_new_thread, Rng};
use deviceemu::prelude::*;
use deviceemu::{with_config, AtomicLoadStore, Checks, Config, Error};

const SRC: &str = include_str!("atomics_ordered.rs");
const FILE: &str = "tests/it/memory/atomics_ordered.rs";

/// Threads per block of the value tests (shared arrays are sized for it).
const BLOCK: usize = 64;
/// Blocks of the value tests.
const GRID: usize = 3;
/// Threads of the value tests.
const N: usize = BLOCK * GRID;
/// Store forms and load forms: 9 scoped (3 orders x 3 scopes), 3 at device scope, volatile.
const FORMS: usize = 13;

const LOAD_ORDERS: [Ordering; 3] = [Relaxed, Acquire, SeqCst];
const STORE_ORDERS: [Ordering; 3] = [Relaxed, Release, SeqCst];
const SCOPES: [Scope; 3] = [Scope::Block, Scope::Device, Scope::System];

// ---------------------------------------------------------------------------------------------
// Values: every store form, then every load form
// ---------------------------------------------------------------------------------------------

// Store form `k` and load form `k` on each kind of view (written out: the PTX build keeps
// `#[kernel]` and `#[device]` items of a kernel file, not `macro_rules!`).

#[device]
fn store_global<T: AtomicLoadStore>(v: GlobalMut<T>, i: usize, x: T, k: usize) {
    match k {
        0..=8 => v.atomic_store_scoped(i, x, STORE_ORDERS[k / 3], SCOPES[k % 3]),
        9..=11 => v.atomic_store(i, x, STORE_ORDERS[k - 9]),
        _ => v.volatile_store(i, x),
    }
}

#[device]
fn load_global<T: AtomicLoadStore>(v: GlobalMut<T>, i: usize, k: usize) -> T {
    match k {
        0..=8 => v.atomic_load_scoped(i, LOAD_ORDERS[k / 3], SCOPES[k % 3]),
        9..=11 => v.atomic_load(i, LOAD_ORDERS[k - 9]),
        _ => v.volatile_load(i),
    }
}

#[device]
fn store_shared<T: AtomicLoadStore>(v: Shared<T>, i: usize, x: T, k: usize) {
    match k {
        0..=8 => v.atomic_store_scoped(i, x, STORE_ORDERS[k / 3], SCOPES[k % 3]),
        9..=11 => v.atomic_store(i, x, STORE_ORDERS[k - 9]),
        _ => v.volatile_store(i, x),
    }
}

#[device]
fn load_shared<T: AtomicLoadStore>(v: Shared<T>, i: usize, k: usize) -> T {
    match k {
        0..=8 => v.atomic_load_scoped(i, LOAD_ORDERS[k / 3], SCOPES[k % 3]),
        9..=11 => v.atomic_load(i, LOAD_ORDERS[k - 9]),
        _ => v.volatile_load(i),
    }
}

/// Thread `i` stores `vals[FORMS*i + st]` with store form `st` into its element (of `x`, or of
/// the block's shared array `s`) and reads it back with every load form into `out`.
#[device]
fn roundtrip<T: AtomicLoadStore>(shared: bool, x: GlobalMut<T>, s: Shared<T>, vals: Global<T>, out: GlobalMut<T>) {
    let t = thread_idx().x as usize;
    let i = block_idx().x as usize * block_dim().x as usize + t;
    let mut st = 0;
    while st < FORMS {
        let v = vals[FORMS * i + st];
        if shared {
            store_shared(s, t, v, st);
        } else {
            store_global(x, i, v, st);
        }
        let mut ld = 0;
        while ld < FORMS {
            out[(FORMS * i + st) * FORMS + ld] = if shared { load_shared(s, t, ld) } else { load_global(x, i, ld) };
            ld += 1;
        }
        st += 1;
    }
}

#[kernel]
fn roundtrip_u8(shared: bool, x: &mut [u8], vals: &[u8], out: &mut [u8]) {
    roundtrip(shared, x, shared_array![u8; BLOCK], vals, out);
}
#[kernel]
fn roundtrip_i8(shared: bool, x: &mut [i8], vals: &[i8], out: &mut [i8]) {
    roundtrip(shared, x, shared_array![i8; BLOCK], vals, out);
}
#[kernel]
fn roundtrip_u16(shared: bool, x: &mut [u16], vals: &[u16], out: &mut [u16]) {
    roundtrip(shared, x, shared_array![u16; BLOCK], vals, out);
}
#[kernel]
fn roundtrip_i16(shared: bool, x: &mut [i16], vals: &[i16], out: &mut [i16]) {
    roundtrip(shared, x, shared_array![i16; BLOCK], vals, out);
}
#[kernel]
fn roundtrip_u32(shared: bool, x: &mut [u32], vals: &[u32], out: &mut [u32]) {
    roundtrip(shared, x, shared_array![u32; BLOCK], vals, out);
}
#[kernel]
fn roundtrip_i32(shared: bool, x: &mut [i32], vals: &[i32], out: &mut [i32]) {
    roundtrip(shared, x, shared_array![i32; BLOCK], vals, out);
}
#[kernel]
fn roundtrip_u64(shared: bool, x: &mut [u64], vals: &[u64], out: &mut [u64]) {
    roundtrip(shared, x, shared_array![u64; BLOCK], vals, out);
}
#[kernel]
fn roundtrip_i64(shared: bool, x: &mut [i64], vals: &[i64], out: &mut [i64]) {
    roundtrip(shared, x, shared_array![i64; BLOCK], vals, out);
}
#[kernel]
fn roundtrip_f32(shared: bool, x: &mut [f32], vals: &[f32], out: &mut [f32]) {
    roundtrip(shared, x, shared_array![f32; BLOCK], vals, out);
}
#[kernel]
fn roundtrip_f64(shared: bool, x: &mut [f64], vals: &[f64], out: &mut [f64]) {
    roundtrip(shared, x, shared_array![f64; BLOCK], vals, out);
}

/// The element types, as bits (a test-side view: the kernels never see it).
trait Bits: AtomicLoadStore + std::fmt::Debug {
    /// The low `size_of::<Self>()` bytes of `b`.
    fn from_bits64(b: u64) -> Self;
    fn bits64(self) -> u64;
    /// Values that must survive bit for bit besides random ones.
    const EDGES: &'static [u64];
}

macro_rules! int_bits {
    ($($t:ty => $u:ty),*) => { $(
        impl Bits for $t {
            fn from_bits64(b: u64) -> Self {
                b as $u as $t
            }
            fn bits64(self) -> u64 {
                self as $u as u64
            }
            const EDGES: &'static [u64] = &[0, 1, <$u>::MAX as u64, <$u>::MAX as u64 >> 1, (<$u>::MAX as u64 >> 1) + 1];
        }
    )* };
}
int_bits!(u8 => u8, i8 => u8, u16 => u16, i16 => u16, u32 => u32, i32 => u32, u64 => u64, i64 => u64);

impl Bits for f32 {
    fn from_bits64(b: u64) -> Self {
        f32::from_bits(b as u32)
    }
    fn bits64(self) -> u64 {
        self.to_bits() as u64
    }
    // A quiet NaN with a payload, a signalling NaN, -0, the smallest subnormals, -inf.
    const EDGES: &'static [u64] = &[0x7fc0_1234, 0x7f80_0001, 0x8000_0000, 1, 0x8000_0001, 0x007f_ffff, 0xff80_0000];
}

impl Bits for f64 {
    fn from_bits64(b: u64) -> Self {
        f64::from_bits(b)
    }
    fn bits64(self) -> u64 {
        self.to_bits()
    }
    const EDGES: &'static [u64] = &[
        0x7ff8_0000_dead_beef,
        0x7ff0_0000_0000_0001,
        0x8000_0000_0000_0000,
        1,
        0x000f_ffff_ffff_ffff,
        0xfff0_0000_0000_0000,
    ];
}

/// `FORMS` values per thread: edge values first (in every thread, shifted), random bits after.
fn values<T: Bits>(seed: u64) -> Vec<T> {
    let mut rng = Rng::new(seed);
    (0..N * FORMS)
        .map(|k| {
            let e = T::EDGES;
            if k % 3 == 0 {
                T::from_bits64(e[(k / 3) % e.len()])
            } else {
                T::from_bits64(rng.next_u64())
            }
        })
        .collect()
}

/// Runs `launch` (a roundtrip kernel) on global and on shared memory and checks that every load
/// form returned every stored value's bits.
fn check_roundtrip<T: Bits>(
    seed: u64,
    launch: impl Fn(bool, &mut DeviceBuffer<T>, &DeviceBuffer<T>, &mut DeviceBuffer<T>) -> Result<(), Error>,
) -> Result<(), Error> {
    let vals = values::<T>(seed);
    for shared in [false, true] {
        let mut x = DeviceBuffer::<T>::zeroed(N)?;
        let vb = DeviceBuffer::from_slice(&vals)?;
        let mut out = DeviceBuffer::<T>::zeroed(N * FORMS * FORMS)?;
        launch(shared, &mut x, &vb, &mut out)?;
        let out = out.to_vec()?;
        for i in 0..N {
            for st in 0..FORMS {
                let want = vals[FORMS * i + st].bits64();
                for ld in 0..FORMS {
                    let got = out[(FORMS * i + st) * FORMS + ld].bits64();
                    assert_eq!(
                        got,
                        want,
                        "{}: thread {i}, store form {st}, load form {ld}, shared {shared}",
                        std::any::type_name::<T>()
                    );
                }
            }
        }
        if !shared {
            let last: Vec<u64> = x.to_vec()?.into_iter().map(Bits::bits64).collect();
            let want: Vec<u64> = (0..N).map(|i| vals[FORMS * i + FORMS - 1].bits64()).collect();
            assert_eq!(last, want, "the last (volatile) store stays in global memory");
        }
    }
    Ok(())
}

macro_rules! roundtrip_tests {
    ($($name:ident: $t:ty => $kernel:ident, $seed:expr);* $(;)?) => { $(
        #[test]
        fn $name() -> Result<(), Error> {
            check_roundtrip::<$t>($seed, |shared, x, v, o| {
                launch!($kernel<<<GRID as u32, BLOCK as u32>>>(shared, x, v, o))
            })
        }
    )* };
}
roundtrip_tests! {
    every_form_keeps_u8: u8 => roundtrip_u8, 1;
    every_form_keeps_i8: i8 => roundtrip_i8, 2;
    every_form_keeps_u16: u16 => roundtrip_u16, 3;
    every_form_keeps_i16: i16 => roundtrip_i16, 4;
    every_form_keeps_u32: u32 => roundtrip_u32, 5;
    every_form_keeps_i32: i32 => roundtrip_i32, 6;
    every_form_keeps_u64: u64 => roundtrip_u64, 7;
    every_form_keeps_i64: i64 => roundtrip_i64, 8;
    every_form_keeps_f32_bits: f32 => roundtrip_f32, 9;
    every_form_keeps_f64_bits: f64 => roundtrip_f64, 10;
}

/// Loads from a read-only parameter: every load form on `x[i]`.
#[kernel]
fn read_only_loads(x: &[f32], out: &mut [u32]) {
    let i = thread_idx().x as usize;
    out[4 * i] = x.atomic_load(i, Relaxed).to_bits();
    out[4 * i + 1] = x.atomic_load(i, Acquire).to_bits();
    out[4 * i + 2] = x.atomic_load_scoped(i, SeqCst, Scope::System).to_bits();
    out[4 * i + 3] = x.volatile_load(i).to_bits();
}

#[test]
fn a_read_only_parameter_loads() -> Result<(), Error> {
    let bits: Vec<u32> = vec![0x7fc0_0001, 0x8000_0000, 3, 0x3f80_0000];
    let x = DeviceBuffer::from_slice(&bits.iter().map(|&b| f32::from_bits(b)).collect::<Vec<_>>())?;
    let mut out = DeviceBuffer::<u32>::zeroed(16)?;
    launch!(read_only_loads<<<1, 4>>>(&x, &mut out))?;
    let want: Vec<u32> = bits.iter().flat_map(|&b| [b; 4]).collect();
    assert_eq!(out.to_vec()?, want);
    Ok(())
}

// ---------------------------------------------------------------------------------------------
// Out of bounds and orderings that do not exist
// ---------------------------------------------------------------------------------------------

/// The 1-based line of this file that ends with the comment `// @<marker>`.
fn line_of(marker: &str) -> usize {
    marked_line(SRC, &format!("// @{marker}"))
}

#[kernel]
fn oob_load(x: &[u32], out: &mut [u32]) {
    let t = thread_idx().x as usize;
    out[t] = x.atomic_load(t, Acquire); // @oob-load
}

#[kernel]
fn oob_shared_store(out: &mut [u64]) {
    let s = shared_array![u64; 16];
    let t = thread_idx().x as usize;
    s.atomic_store_scoped(t, 1, Release, Scope::Block); // @oob-store
    out[t] = 1;
}

#[kernel]
fn oob_volatile_store(x: &mut [u16]) {
    let t = thread_idx().x as usize;
    x.volatile_store(t, 7); // @oob-volatile
}

#[test]
fn an_out_of_bounds_ordered_load_is_an_invalid_read() {
    let x = DeviceBuffer::from_slice(&[1u32; 6]).unwrap();
    let mut out = DeviceBuffer::<u32>::zeroed(32).unwrap();
    let err = with_config(Config::default(), || launch!(oob_load<<<1, 32>>>(&x, &mut out))).unwrap_err();
    assert_eq!(err.code(), 700, "{err}");
    let text = err.to_string();
    assert_has(&text, "Invalid __global__ read of size 4 bytes");
    assert_has(&text, &format!("at oob_load in {FILE}:{}:", line_of("oob-load")));
    assert_has(&text, "by thread (6,0,0) in block (0,0,0)");
    assert_has(&text, "index 6 is past the end of `x`, which has 6 elements");
}

#[test]
fn an_out_of_bounds_shared_ordered_store_is_an_invalid_write() {
    let mut out = DeviceBuffer::<u64>::zeroed(32).unwrap();
    let err = with_config(Config::default(), || launch!(oob_shared_store<<<1, 32>>>(&mut out))).unwrap_err();
    assert_eq!(err.code(), 700, "{err}");
    let text = err.to_string();
    assert_has(&text, "Invalid __shared__ write of size 8 bytes");
    assert_has(&text, &format!("at oob_shared_store in {FILE}:{}:", line_of("oob-store")));
    assert_has(&text, "by thread (16,0,0) in block (0,0,0)");
    assert_has(&text, "index 16 is past the end of __shared__ array declared at");
}

#[test]
fn an_out_of_bounds_volatile_store_is_an_invalid_write() {
    let mut x = DeviceBuffer::<u16>::zeroed(10).unwrap();
    let err = with_config(Config::default(), || launch!(oob_volatile_store<<<1, 32>>>(&mut x))).unwrap_err();
    assert_eq!(err.code(), 700, "{err}");
    let text = err.to_string();
    assert_has(&text, "Invalid __global__ write of size 2 bytes");
    assert_has(&text, &format!("at oob_volatile_store in {FILE}:{}:", line_of("oob-volatile")));
    assert_has(&text, "by thread (10,0,0) in block (0,0,0)");
    assert_eq!(x.to_vec().unwrap(), vec![7; 10], "the threads in bounds stored");
}

#[kernel]
fn bad_orders(which: u32, x: &mut [u32]) {
    if which == 0 {
        x.atomic_load(0, Release); // @release-load
    } else if which == 1 {
        x.atomic_store(0, 1, Acquire); // @acquire-store
    } else {
        x.atomic_load_scoped(0, AcqRel, Scope::Block); // @acqrel-load
    }
}

#[test]
fn an_ordering_a_load_or_store_cannot_take_is_a_panic_at_its_line() {
    let cases = [
        (0, "release-load", "atomic_load with Ordering::Release"),
        (1, "acquire-store", "atomic_store with Ordering::Acquire"),
        (2, "acqrel-load", "atomic_load with Ordering::AcqRel"),
    ];
    for (which, marker, message) in cases {
        let mut x = DeviceBuffer::<u32>::zeroed(1).unwrap();
        let err = with_config(Config::default(), || launch!(bad_orders<<<1, 1>>>(which, &mut x))).unwrap_err();
        assert_eq!(err.code(), 719, "{err}");
        let text = err.to_string();
        assert_has(&text, &format!("Kernel panic: {message}"));
        assert_has(&text, &format!("at bad_orders in {FILE}:{}:", line_of(marker)));
        assert_eq!(x.to_vec().unwrap(), vec![0]);
    }
}

// ---------------------------------------------------------------------------------------------
// Spin-waits
// ---------------------------------------------------------------------------------------------

/// Thread 0 publishes a value and raises flags; every other thread of the block spins until it
/// sees each flag, then reads the value: through a shared flag with acquire/release, through a
/// global flag with volatile accesses, and through a global flag with SeqCst at system scope.
/// Threads 1..31 wait in thread 0's warp, the others in other warps.
#[kernel]
fn spin_in_block(value: u32, flags: &mut [u32], seen: &mut [u32]) {
    let s = shared_array![u32; 2];
    let t = thread_idx().x as usize;
    let b = block_idx().x as usize;
    // Shared memory starts undefined: clear the flag before anyone can spin on it (under a
    // seed a spinner may run before thread 0; initcheck reports the read otherwise).
    if t == 0 {
        s.atomic_store(0, 0, Relaxed);
    }
    sync_threads();
    if t == 0 {
        s.atomic_store(1, value + b as u32, Relaxed);
        s.atomic_store(0, 1, Release);
        flags.volatile_store(2 * b, 1);
        flags.atomic_store_scoped(2 * b + 1, 1, SeqCst, Scope::System);
    } else {
        while s.atomic_load(0, Acquire) == 0 {}
        while flags.volatile_load(2 * b) == 0 {}
        while flags.atomic_load_scoped(2 * b + 1, SeqCst, Scope::System) == 0 {}
        seen[b * block_dim().x as usize + t] = s.atomic_load(1, Relaxed);
    }
    sync_threads();
}

/// Every setting a spin must finish under: both block orders, seeds (a seed shuffles the start
/// order, so the spinner may run first and must yield: `host/progress.rs`), both warp sizes,
/// both schedules and every checker (`deviceemu::testing`).
fn spin_configs() -> Vec<Config> {
    deviceemu::testing::Model::new().configs()
}

#[test]
fn a_spin_on_a_flag_an_earlier_thread_set_completes() -> Result<(), Error> {
    for config in spin_configs() {
        let (grid, block) = (4usize, 96usize);
        let c = config.clone();
        let seen = on_new_thread(60, move || {
            with_config(c, || {
                let mut flags = DeviceBuffer::<u32>::zeroed(2 * grid)?;
                let mut seen = DeviceBuffer::<u32>::zeroed(grid * block)?;
                launch!(spin_in_block<<<grid as u32, block as u32>>>(40, &mut flags, &mut seen))?;
                seen.to_vec()
            })
        })?;
        for b in 0..grid {
            for t in 1..block {
                assert_eq!(seen[b * block + t], 40 + b as u32, "block {b} thread {t} under {config:?}");
            }
        }
    }
    Ok(())
}

/// Threads per block of the chain.
const CHAIN_BLOCK: usize = 64;

/// A chained sum across blocks, as a single-pass scan orders its blocks: each block takes a
/// ticket (its place in the chain, in the order blocks start), sums its chunk of `x` in shared
/// memory, and its thread 0 spins until the block with the previous ticket has published its
/// inclusive sum (`status[k] = sum << 1 | 1`, a release store; read with acquire loads), then
/// publishes its own. `sums[k]` gets the inclusive sum up to chunk `k`.
#[kernel]
fn chained_sum(x: &[u32], ticket: &mut [u32], status: &mut [u64], sums: &mut [u64]) {
    let s = shared_array![u64; 2];
    let t = thread_idx().x as usize;
    let n = block_dim().x as usize;
    if t == 0 {
        s.atomic_store(0, ticket.atomic_add(0, 1) as u64, Relaxed);
        s.atomic_store(1, 0, Relaxed);
    }
    sync_threads();
    let k = s.atomic_load(0, Relaxed) as usize;
    s.atomic_add(1, x[k * n + t] as u64);
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
        let total = before + s.atomic_load(1, Relaxed);
        status.atomic_store(k, total << 1 | 1, Release);
        sums[k] = total;
    }
}

#[test]
fn a_chain_of_blocks_each_waiting_for_the_previous_completes() -> Result<(), Error> {
    let grid = 40usize;
    let mut rng = Rng::new(11);
    let x: Vec<u32> = (0..grid * CHAIN_BLOCK).map(|_| rng.below(1 << 20) as u32).collect();
    let mut want = Vec::new();
    let mut acc = 0u64;
    for k in 0..grid {
        acc += x[k * CHAIN_BLOCK..(k + 1) * CHAIN_BLOCK].iter().map(|&v| v as u64).sum::<u64>();
        want.push(acc);
    }
    for config in spin_configs() {
        let x = x.clone();
        let c = config.clone();
        let got = on_new_thread(60, move || {
            with_config(c, || {
                let xb = DeviceBuffer::from_slice(&x)?;
                let mut ticket = DeviceBuffer::<u32>::zeroed(1)?;
                let mut status = DeviceBuffer::<u64>::zeroed(grid)?;
                let mut sums = DeviceBuffer::<u64>::zeroed(grid)?;
                launch!(chained_sum<<<grid as u32, CHAIN_BLOCK as u32>>>(&xb, &mut ticket, &mut status, &mut sums))?;
                sums.to_vec()
            })
        })?;
        assert_eq!(got, want, "under {config:?}");
    }
    Ok(())
}

// ---------------------------------------------------------------------------------------------
// The checkers
// ---------------------------------------------------------------------------------------------

/// Thread `t` ordered-loads `x[t]`; the threads below `stored` stored it first.
#[kernel]
fn load_after_store(stored: u32, x: &mut [u32], out: &mut [u32]) {
    let t = thread_idx().x as usize;
    if (t as u32) < stored {
        x.atomic_store(t, t as u32, Release);
    }
    out[t] = x.atomic_load(t, Acquire); // @init-load
}

#[test]
fn initcheck_sees_ordered_loads_as_reads_and_stores_as_writes() -> Result<(), Error> {
    let config = Config::default().checks(Checks::all());
    // Every element stored before it is loaded: clean.
    let mut x = DeviceBuffer::<u32>::uninit(8)?;
    let mut out = DeviceBuffer::<u32>::zeroed(8)?;
    with_config(config.clone(), || launch!(load_after_store<<<1, 8>>>(8, &mut x, &mut out)))?;
    assert_eq!(out.to_vec()?, (0..8).collect::<Vec<u32>>());
    // Threads 5..7 load elements nothing wrote.
    let mut x = DeviceBuffer::<u32>::uninit(8)?;
    let err = with_config(config, || launch!(load_after_store<<<1, 8>>>(5, &mut x, &mut out))).unwrap_err();
    let text = err.to_string();
    assert_has(&text, "Uninitialized __global__ memory read of size 4 bytes");
    assert_has(&text, &format!("{FILE}:{}:", line_of("init-load")));
    assert_has(&text, "by thread (5,0,0) in block (0,0,0)");
    assert_lacks(&text, "Race reported");
    Ok(())
}

// ---------------------------------------------------------------------------------------------
// PTX (tests/ptx.rs reads this kernel's PTX)
// ---------------------------------------------------------------------------------------------

/// Each form once with constant arguments, on global `u32` and shared `u64`, for tests/ptx.rs
/// to find its PTX instruction; and a spin on a plain-looking flag that must stay in the loop.
#[kernel]
fn ptx_forms(g: &mut [u32], out: &mut [u64]) {
    let s = shared_array![u64; 4];
    let t = thread_idx().x as usize;
    g.atomic_store(0, 1, Relaxed);
    g.atomic_store(1, 2, Release);
    g.atomic_store(2, 3, SeqCst);
    g.atomic_store_scoped(3, 4, Release, Scope::Block);
    g.atomic_store_scoped(4, 5, Relaxed, Scope::System);
    g.volatile_store(5, 6);
    s.atomic_store(t % 4, 7, Release);
    s.atomic_store_scoped(t % 4, 8, SeqCst, Scope::Block);
    s.volatile_store(t % 4, 9);
    let mut acc = g.atomic_load(0, Relaxed) as u64;
    acc += g.atomic_load(1, Acquire) as u64;
    acc += g.atomic_load(2, SeqCst) as u64;
    acc += g.atomic_load_scoped(3, Acquire, Scope::Block) as u64;
    acc += g.atomic_load_scoped(4, Relaxed, Scope::System) as u64;
    acc += g.volatile_load(5) as u64;
    acc += s.atomic_load(0, Acquire);
    acc += s.atomic_load_scoped(1, Relaxed, Scope::Block);
    acc += s.volatile_load(2);
    while g.atomic_load(6, Acquire) == 0 {}
    out[t] = acc;
}
