//! Element accesses to device memory, and `atomic_add`. (The bounds report is memcheck's,
//! `check/memcheck.rs`.)
//!
//! # The invariant that keeps racy kernels defined
//!
//! Blocks run in parallel on several host threads, and a buggy kernel may have two blocks
//! write the same global element. On the host that must not be undefined behaviour. So every
//! element access made through a [`View`](crate::device::View) is a **relaxed atomic** load or
//! store of the element's bytes ([`load_relaxed`], [`store_relaxed`]); no `&T` or `&mut T` into
//! device memory is ever created while a kernel runs. Elements of 1, 2, 4 or 8 bytes with
//! matching alignment take one atomic instruction (a plain `mov` on x86-64); larger elements
//! are copied as a sequence of atomic words, so a racing reader may see a torn element, which
//! is what a GPU may show too, but never undefined behaviour.

use core::mem::{align_of, size_of, transmute_copy, MaybeUninit};
use core::sync::atomic::{AtomicU16, AtomicU32, AtomicU64, AtomicU8, Ordering::Relaxed};

use crate::device::backend::AtomicAddImpl;
use crate::device::{DeviceCopy, Space};
use crate::host::mem::atomic::rmw;

/// Loads a `T` with relaxed atomic word loads.
///
/// # Safety
///
/// `p` must be valid for reads of a `T` and aligned for `T`, `T` must have no padding bytes
/// (a [`DeviceCopy`] type, or a part of one: a field, an element of an array field), and the
/// memory must only be written concurrently through [`store_relaxed`] or atomics.
#[inline(always)]
pub(crate) unsafe fn load_relaxed<T: Copy>(p: *const T) -> T {
    // SAFETY (all arms): `p` is valid and aligned for `T` (caller); each arm reinterprets it as
    // an atomic of exactly `T`'s size only when `T`'s alignment is at least the atomic's, and
    // `T` has no padding (caller), so every byte read is initialised.
    unsafe {
        match size_of::<T>() {
            0 => core::ptr::read(p),
            1 => transmute_copy(&(*(p as *const AtomicU8)).load(Relaxed)),
            2 if align_of::<T>() >= 2 => transmute_copy(&(*(p as *const AtomicU16)).load(Relaxed)),
            4 if align_of::<T>() >= 4 => transmute_copy(&(*(p as *const AtomicU32)).load(Relaxed)),
            8 if align_of::<T>() >= 8 => transmute_copy(&(*(p as *const AtomicU64)).load(Relaxed)),
            _ => load_words(p),
        }
    }
}

/// Stores a `T` with relaxed atomic word stores.
///
/// # Safety
///
/// `p` must be valid for writes of a `T` and aligned for `T`, `T` must have no padding bytes
/// (as for [`load_relaxed`]), and the memory must only be accessed concurrently through
/// [`load_relaxed`], [`store_relaxed`] or atomics.
#[inline(always)]
pub(crate) unsafe fn store_relaxed<T: Copy>(p: *mut T, v: T) {
    // SAFETY: as in `load_relaxed`.
    unsafe {
        match size_of::<T>() {
            0 => {}
            1 => (*(p as *const AtomicU8)).store(transmute_copy(&v), Relaxed),
            2 if align_of::<T>() >= 2 => (*(p as *const AtomicU16)).store(transmute_copy(&v), Relaxed),
            4 if align_of::<T>() >= 4 => (*(p as *const AtomicU32)).store(transmute_copy(&v), Relaxed),
            8 if align_of::<T>() >= 8 => (*(p as *const AtomicU64)).store(transmute_copy(&v), Relaxed),
            _ => store_words(p, v),
        }
    }
}

/// Copies `n` elements from device memory at `src` to `dst`, as a lane loop stages a chunk of
/// a view ([`__private::lane_load`](crate::__private::lane_load)).
///
/// On x86-64 the bulk goes in 16-byte SSE moves written in inline assembly, which LLVM cannot
/// fuse with the kernel's arithmetic but which cost a fraction of one atomic per element. The
/// racy-kernel invariant holds as for the relaxed atomics: the assembly is outside Rust's
/// memory model (as the atomics make the access defined, so does the assembly, whose effects
/// the compiler must assume happen as written). A racing write is seen whole or not at all
/// for elements of up to 8 bytes in practice (CPUs split a 16-byte move at 8-byte or
/// cache-line boundaries, both multiples of such an element's alignment); a wider element may
/// tear, as it may with [`load_relaxed`]. A torn element is never undefined behaviour: its
/// bytes all come from values of its type, and 1-byte types such as `bool` cannot tear. The tail, other element sizes, other targets and miri take
/// [`load_relaxed`] per element.
///
/// # Safety
///
/// `src` must be valid for reads of `n` `T`s and aligned for `T`, with its memory written
/// concurrently only through [`store_relaxed`], [`copy_to_device`] or atomics; `dst` must be
/// valid for writes of `n` `T`s and not overlap it.
#[inline(always)]
pub(crate) unsafe fn copy_from_device<T: DeviceCopy>(src: *const T, dst: *mut T, n: usize) {
    // SAFETY: the caller's contract.
    let mut k = unsafe { bulk_elements(src, dst, n) };
    while k < n {
        // SAFETY: `k < n`: inside both ranges (the caller's contract).
        unsafe { dst.add(k).write(load_relaxed(src.add(k))) };
        k += 1;
    }
}

/// Copies `n` elements from `src` to device memory at `dst`: the store half of
/// [`copy_from_device`], with the same invariant.
///
/// # Safety
///
/// `dst` must be valid for writes of `n` `T`s and aligned for `T`, with its memory accessed
/// concurrently only through [`load_relaxed`], [`store_relaxed`], these copies or atomics;
/// `src` must be valid for reads of `n` `T`s and not overlap it.
#[inline(always)]
pub(crate) unsafe fn copy_to_device<T: DeviceCopy>(dst: *mut T, src: *const T, n: usize) {
    // SAFETY: the caller's contract.
    let mut k = unsafe { bulk_elements(src, dst, n) };
    while k < n {
        // SAFETY: `k < n`: inside both ranges (the caller's contract).
        unsafe { store_relaxed(dst.add(k), src.add(k).read()) };
        k += 1;
    }
}

/// Copies the first elements of `src` to `dst` with [`bulk_copy`]'s moves where that copies
/// whole elements, and returns how many it copied (none on other targets and under miri).
///
/// # Safety
///
/// Both ranges must be valid for `n` `T`s, aligned, and not overlap.
#[inline(always)]
#[allow(unused_variables)]
unsafe fn bulk_elements<T>(src: *const T, dst: *mut T, n: usize) -> usize {
    #[cfg(all(target_arch = "x86_64", not(miri)))]
    if sse_copies::<T>() {
        // SAFETY: the caller's contract; `bulk_copy` copies whole elements (see `sse_copies`).
        return unsafe { bulk_copy(src as *const u8, dst as *mut u8, n * size_of::<T>()) } / size_of::<T>();
    }
    0
}

/// Whether 16-byte moves copy `T`s whole: a multiple of 16 bytes then ends at an element's
/// end, and no element is split across two moves unless it is wider than one.
#[cfg(all(target_arch = "x86_64", not(miri)))]
#[inline(always)]
const fn sse_copies<T>() -> bool {
    let size = size_of::<T>();
    size != 0 && (16 % size == 0 || size % 16 == 0)
}

/// Copies the largest multiple of 16 bytes not above `bytes` from `src` to `dst` with SSE
/// moves (64 bytes a turn, then 16), in one loop of assembly, and returns how many bytes that
/// was.
///
/// # Safety
///
/// Both ranges must be valid for `bytes` bytes and not overlap.
#[cfg(all(target_arch = "x86_64", not(miri)))]
#[inline(always)]
unsafe fn bulk_copy(src: *const u8, dst: *mut u8, bytes: usize) -> usize {
    let done = bytes & !15;
    if bytes >= 128 && std::arch::is_x86_feature_detected!("avx") {
        // SAFETY: the caller's contract; AVX is present.
        let big = unsafe { bulk_copy_avx(src, dst, bytes) };
        // SAFETY: the rest, `[big, done)`, lies inside both ranges.
        unsafe { sse_tail(src, dst, big, done) };
        return done;
    }
    let big = bytes & !63;
    if big != 0 {
        // SAFETY: the loop reads `[src, src + big)` and writes `[dst, dst + big)`, inside both
        // ranges (`big <= bytes`); `big` is a non-zero multiple of 64.
        unsafe {
            core::arch::asm!(
                "2:",
                "movups {a}, [{s}]",
                "movups {b}, [{s} + 16]",
                "movups {c}, [{s} + 32]",
                "movups {d}, [{s} + 48]",
                "movups [{t}], {a}",
                "movups [{t} + 16], {b}",
                "movups [{t} + 32], {c}",
                "movups [{t} + 48], {d}",
                "add {s}, 64",
                "add {t}, 64",
                "sub {n}, 64",
                "jnz 2b",
                s = inout(reg) src => _,
                t = inout(reg) dst => _,
                n = inout(reg) big => _,
                a = out(xmm_reg) _,
                b = out(xmm_reg) _,
                c = out(xmm_reg) _,
                d = out(xmm_reg) _,
                options(nostack),
            )
        };
    }
    // SAFETY: `[big, done)` lies inside both ranges.
    unsafe { sse_tail(src, dst, big, done) };
    done
}

/// Copies bytes `[from, to)` (a multiple of 16 apart) with 16-byte SSE moves.
///
/// # Safety
///
/// Both ranges must be valid for `to` bytes and not overlap.
#[cfg(all(target_arch = "x86_64", not(miri)))]
#[inline(always)]
unsafe fn sse_tail(src: *const u8, dst: *mut u8, from: usize, to: usize) {
    let mut o = from;
    while o < to {
        // SAFETY: `o + 16 <= to`: inside both ranges.
        unsafe {
            core::arch::asm!(
                "movups {a}, [{s}]",
                "movups [{t}], {a}",
                s = in(reg) src.add(o),
                t = in(reg) dst.add(o),
                a = out(xmm_reg) _,
                options(nostack, preserves_flags),
            )
        };
        o += 16;
    }
}

/// [`bulk_copy`] with 32-byte AVX moves, 128 bytes a turn: copies the largest multiple of 128
/// bytes not above `bytes` and returns how many bytes that was.
///
/// # Safety
///
/// As [`bulk_copy`], and the CPU must have AVX.
#[cfg(all(target_arch = "x86_64", not(miri)))]
#[target_feature(enable = "avx")]
unsafe fn bulk_copy_avx(src: *const u8, dst: *mut u8, bytes: usize) -> usize {
    let big = bytes & !127;
    if big != 0 {
        // SAFETY: the loop reads `[src, src + big)` and writes `[dst, dst + big)`, inside both
        // ranges; `big` is a non-zero multiple of 128. It ends with `vzeroupper`: called from
        // code compiled without AVX, as most callers are, it would otherwise leave the upper
        // halves of `ymm0` to `ymm3` in use, and every SSE instruction the thread runs after it
        // would pay for that state (a serial matrix product ran 2.4x slower after a launch;
        // `a_copy_leaves_the_upper_halves_of_the_ymm_registers_clean`). `vzeroupper` writes
        // the upper halves of all sixteen `ymm` registers, so the asm declares them all
        // written: inlined into AVX2 code (`fast::run_wide`), the compiler keeps the caller's
        // live values elsewhere across it (`a_copy_leaves_the_callers_ymm_registers_alone`).
        unsafe {
            core::arch::asm!(
                "2:",
                "vmovups ymm0, [{s}]",
                "vmovups ymm1, [{s} + 32]",
                "vmovups ymm2, [{s} + 64]",
                "vmovups ymm3, [{s} + 96]",
                "vmovups [{t}], ymm0",
                "vmovups [{t} + 32], ymm1",
                "vmovups [{t} + 64], ymm2",
                "vmovups [{t} + 96], ymm3",
                "add {s}, 128",
                "add {t}, 128",
                "sub {n}, 128",
                "jnz 2b",
                "vzeroupper",
                s = inout(reg) src => _,
                t = inout(reg) dst => _,
                n = inout(reg) big => _,
                out("ymm0") _, out("ymm1") _, out("ymm2") _, out("ymm3") _,
                out("ymm4") _, out("ymm5") _, out("ymm6") _, out("ymm7") _,
                out("ymm8") _, out("ymm9") _, out("ymm10") _, out("ymm11") _,
                out("ymm12") _, out("ymm13") _, out("ymm14") _, out("ymm15") _,
                options(nostack),
            )
        };
    }
    big
}

/// Whether the upper halves of this thread's `ymm` registers are in use (bit 2, AVX, of
/// XINUSE, which `xgetbv` reads with `ecx = 1`), or `None` where the CPU cannot say. For tests:
/// a copy, and so a launch, must leave them clean ([`bulk_copy_avx`]).
#[cfg(all(target_arch = "x86_64", not(miri)))]
#[doc(hidden)]
pub fn ymm_upper_in_use() -> Option<bool> {
    if core::arch::x86_64::__cpuid_count(0xd, 1).eax & 4 == 0 {
        return None;
    }
    let lo: u32;
    // SAFETY: the CPU has `xgetbv` with `ecx = 1` (CPUID leaf 0xD, sub-leaf 1, EAX bit 2),
    // which reads XINUSE and writes only `eax` and `edx`.
    unsafe {
        core::arch::asm!("xgetbv", in("ecx") 1u32, out("eax") lo, out("edx") _, options(nomem, nostack, preserves_flags))
    };
    Some(lo & 4 != 0)
}

/// Clears the upper halves of this thread's `ymm` registers (`vzeroupper`) where the CPU has
/// AVX, for tests that then watch [`ymm_upper_in_use`]. It writes nothing that code compiled
/// without AVX keeps, which is all code that calls it.
#[cfg(all(target_arch = "x86_64", not(miri)))]
#[doc(hidden)]
pub fn clear_ymm_upper() {
    if std::arch::is_x86_feature_detected!("avx") {
        // SAFETY: the CPU has AVX; `vzeroupper` writes only the upper halves of the `ymm`
        // registers, in which this function's callers (compiled without AVX) keep nothing.
        unsafe { core::arch::asm!("vzeroupper", options(nomem, nostack, preserves_flags)) };
    }
}

macro_rules! word_loop {
    ($p:expr, $out:expr, $atomic:ty, $word:ty, load) => {{
        let n = size_of::<T>() / size_of::<$word>();
        for k in 0..n {
            // SAFETY: word `k` lies inside the `T` at `$p` and is aligned (checked by caller).
            let w = unsafe { (*($p as *const $atomic).add(k)).load(Relaxed) };
            // SAFETY: as above, inside `$out`.
            unsafe { ($out as *mut $word).add(k).write(w) };
        }
    }};
    ($p:expr, $src:expr, $atomic:ty, $word:ty, store) => {{
        let n = size_of::<T>() / size_of::<$word>();
        for k in 0..n {
            // SAFETY: word `k` lies inside both `T`s and is aligned (checked by caller).
            unsafe { (*($p as *const $atomic).add(k)).store(*($src as *const $word).add(k), Relaxed) };
        }
    }};
}

/// # Safety
/// As [`load_relaxed`].
#[inline]
unsafe fn load_words<T: Copy>(p: *const T) -> T {
    let mut out = MaybeUninit::<T>::uninit();
    let o = out.as_mut_ptr();
    let (size, align) = (size_of::<T>(), align_of::<T>());
    if align >= 8 && size % 8 == 0 {
        word_loop!(p, o, AtomicU64, u64, load);
    } else if align >= 4 && size % 4 == 0 {
        word_loop!(p, o, AtomicU32, u32, load);
    } else if align >= 2 && size % 2 == 0 {
        word_loop!(p, o, AtomicU16, u16, load);
    } else {
        word_loop!(p, o, AtomicU8, u8, load);
    }
    // SAFETY: every byte of `out` was written above with bytes of a valid `T`.
    unsafe { out.assume_init() }
}

/// # Safety
/// As [`store_relaxed`].
#[inline]
unsafe fn store_words<T: Copy>(p: *mut T, v: T) {
    let s = &v as *const T;
    let (size, align) = (size_of::<T>(), align_of::<T>());
    if align >= 8 && size % 8 == 0 {
        word_loop!(p, s, AtomicU64, u64, store);
    } else if align >= 4 && size % 4 == 0 {
        word_loop!(p, s, AtomicU32, u32, store);
    } else if align >= 2 && size % 2 == 0 {
        word_loop!(p, s, AtomicU16, u16, store);
    } else {
        word_loop!(p, s, AtomicU8, u8, store);
    }
}

macro_rules! int_atomic_add {
    ($($t:ty => $atomic:ty),*) => { $(
        impl AtomicAddImpl for $t {
            #[inline(always)]
            unsafe fn atomic_add_raw(p: *mut Self, v: Self, space: Space) -> Self {
                let v = v as _;
                // SAFETY: same size and alignment as the atomic type; valid per the contract.
                rmw!($atomic, p, space, |old| old.wrapping_add(v), unsafe { (*(p as *const $atomic)).fetch_add(v, Relaxed) }) as $t
            }
        }
    )* };
}
int_atomic_add!(u32 => AtomicU32, i32 => AtomicU32, u64 => AtomicU64, i64 => AtomicU64);

/// The device's canonical NaN for `f32`.
const CANONICAL_NAN_F32: u32 = 0x7fff_ffff;
/// The device's canonical NaN for `f64`.
const CANONICAL_NAN_F64: u64 = 0x7fff_ffff_ffff_ffff;

fn flush_f32(x: f32) -> f32 {
    if x.is_subnormal() {
        f32::from_bits(x.to_bits() & 0x8000_0000)
    } else {
        x
    }
}

/// `atom.add.f32`: round to nearest even, flush subnormal inputs and results to zero of the
/// same sign, canonical NaN.
pub(crate) fn device_add_f32(a: f32, b: f32) -> f32 {
    let r = flush_f32(flush_f32(a) + flush_f32(b));
    if r.is_nan() {
        f32::from_bits(CANONICAL_NAN_F32)
    } else {
        r
    }
}

fn device_add_f64(a: f64, b: f64) -> f64 {
    let r = a + b;
    if r.is_nan() {
        f64::from_bits(CANONICAL_NAN_F64)
    } else {
        r
    }
}

impl AtomicAddImpl for f32 {
    #[inline(always)]
    unsafe fn atomic_add_raw(p: *mut Self, v: Self, space: Space) -> Self {
        let add = |bits: u32| device_add_f32(f32::from_bits(bits), v).to_bits();
        let old = rmw!(AtomicU32, p, space, |bits| add(bits), {
            // SAFETY: `f32` and `AtomicU32` have the same size and alignment; valid per contract.
            let a = unsafe { &*(p as *const AtomicU32) };
            a.fetch_update(Relaxed, Relaxed, |bits| Some(add(bits))).unwrap_or_else(|bits| bits)
        });
        f32::from_bits(old)
    }
}

impl AtomicAddImpl for f64 {
    #[inline(always)]
    unsafe fn atomic_add_raw(p: *mut Self, v: Self, space: Space) -> Self {
        let add = |bits: u64| device_add_f64(f64::from_bits(bits), v).to_bits();
        let old = rmw!(AtomicU64, p, space, |bits| add(bits), {
            // SAFETY: `f64` and `AtomicU64` have the same size and alignment; valid per contract.
            let a = unsafe { &*(p as *const AtomicU64) };
            a.fetch_update(Relaxed, Relaxed, |bits| Some(add(bits))).unwrap_or_else(|bits| bits)
        });
        f64::from_bits(old)
    }
}

/// Folds the `len` bytes at `p` into the hash `h` (the watchdog's fingerprint of device
/// memory, `fingerprint.rs`): relaxed atomic loads, eight bytes at a time where aligned.
///
/// # Safety
///
/// `p` must be valid for reads of `len` bytes, written concurrently only through
/// [`store_relaxed`], [`copy_to_device`] or atomics.
pub(crate) unsafe fn fingerprint(p: *const u8, len: usize, mut h: u64) -> u64 {
    let mix = |h: u64, w: u64| (h.rotate_left(5) ^ w).wrapping_mul(0x517C_C1B7_2722_0A95);
    let head = p.align_offset(8).min(len);
    let words = (len - head) / 8;
    // SAFETY (all three loops): every address read lies in `p..p + len` (caller), with the
    // atomic's alignment: bytes anywhere, words from the first 8-aligned address on.
    unsafe {
        for i in 0..head {
            h = mix(h, u64::from((*(p.add(i) as *const AtomicU8)).load(Relaxed)));
        }
        let w = p.add(head) as *const AtomicU64;
        for i in 0..words {
            h = mix(h, (*w.add(i)).load(Relaxed));
        }
        for i in head + words * 8..len {
            h = mix(h, u64::from((*(p.add(i) as *const AtomicU8)).load(Relaxed)));
        }
    }
    mix(h, len as u64)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The copies' assembly writes no `ymm` register but its own: a 256-bit value live across
    /// a copy inlined into AVX2 code keeps its upper half. A `vzeroupper` in the copy cleared
    /// it (found when a row of `Regions::each_row_chunk` lost its lanes' index ends).
    #[cfg(all(target_arch = "x86_64", not(miri)))]
    #[test]
    fn a_copy_leaves_the_callers_ymm_registers_alone() {
        use core::arch::x86_64::{__m256i, _mm256_add_epi32, _mm256_loadu_si256, _mm256_storeu_si256};
        /// # Safety
        ///
        /// The CPU has AVX2.
        #[target_feature(enable = "avx2")]
        unsafe fn across_a_copy(lanes: &[i32; 8]) -> [i32; 8] {
            let src = [1.5f32; 64];
            let mut dst = [0f32; 64];
            // SAFETY: `lanes` holds 8 `i32`s; loads and stores of it need no alignment.
            let v = unsafe { _mm256_loadu_si256(std::hint::black_box(lanes).as_ptr() as *const __m256i) };
            // SAFETY: both arrays hold 64 elements (256 bytes: the 128-byte AVX moves) and
            // do not overlap.
            unsafe { copy_from_device(src.as_ptr(), dst.as_mut_ptr(), 64) };
            // Used after the copy, so that `v` stays in a register across it.
            let w = _mm256_add_epi32(v, v);
            let mut out = [0i32; 8];
            // SAFETY: `out` holds 8 `i32`s.
            unsafe { _mm256_storeu_si256(out.as_mut_ptr() as *mut __m256i, w) };
            assert_eq!(dst, src);
            out
        }
        assert!(std::arch::is_x86_feature_detected!("avx2"), "the machines here have AVX2");
        let lanes = [1, 2, 3, 4, 5, 6, 7, 8];
        // SAFETY: the CPU has AVX2 (asserted above).
        assert_eq!(unsafe { across_a_copy(&lanes) }, [2, 4, 6, 8, 10, 12, 14, 16]);
    }

    /// A copy called from code compiled without AVX leaves no `ymm` register's upper half in
    /// use. Before `vzeroupper` ended the AVX moves, it left four: every SSE instruction the
    /// thread ran after it paid for that, and a serial matrix product timed after a launch of
    /// cuda-samples' matrixMul ran in 37 ms instead of 15 (BENCHMARKS.md).
    #[cfg(all(target_arch = "x86_64", not(miri)))]
    #[test]
    fn a_copy_leaves_the_upper_halves_of_the_ymm_registers_clean() {
        let in_use = || ymm_upper_in_use().expect("the machines here have `xgetbv` with `ecx = 1`");
        assert!(std::arch::is_x86_feature_detected!("avx"), "the machines here have AVX");
        let src = [1.5f32; 64];
        let mut dst = [0f32; 64];
        clear_ymm_upper();
        assert!(!in_use(), "clean before the copy");
        // SAFETY: both arrays hold 64 elements (256 bytes: the 128-byte AVX moves) and do
        // not overlap.
        unsafe { copy_from_device(src.as_ptr(), dst.as_mut_ptr(), 64) };
        assert!(!in_use(), "the copy left the upper halves of ymm registers in use");
        assert_eq!(dst, src);
    }

    /// `copy_from_device` then `copy_to_device` of `n` elements (from 1 byte to 12, and
    /// lengths that leave tails after the 128-, 64- and 16-byte moves) give back the source
    /// and touch nothing past the `n` elements.
    fn lane_copies_roundtrip<T: DeviceCopy + PartialEq + core::fmt::Debug>(make: impl Fn(usize) -> T) {
        for n in [0usize, 1, 3, 15, 16, 17, 33, 64, 100, 129, 256, 301] {
            let src: Vec<T> = (0..n).map(&make).collect();
            let mut staged: Vec<T> = (0..n + 2).map(|_| crate::device::copy::zero()).collect();
            // SAFETY: `src` holds `n` elements and `staged` `n + 2`, both aligned, distinct.
            unsafe { copy_from_device(src.as_ptr(), staged.as_mut_ptr(), n) };
            assert_eq!(&staged[..n], &src[..], "n = {n}");
            let zero: T = crate::device::copy::zero();
            assert_eq!(&staged[n..], &[zero, zero], "past the end, n = {n}");
            let mut back: Vec<T> = (0..n + 1).map(|_| crate::device::copy::zero()).collect();
            // SAFETY: as above.
            unsafe { copy_to_device(back.as_mut_ptr(), staged.as_ptr(), n) };
            assert_eq!(&back[..n], &src[..], "n = {n}");
            assert_eq!(back[n], zero, "past the end, n = {n}");
        }
    }

    #[test]
    fn lane_copies_of_every_element_size() {
        lane_copies_roundtrip(|i| i as u8);
        lane_copies_roundtrip(|i| i as u16 * 3);
        lane_copies_roundtrip(|i| i as f32 * 0.5);
        lane_copies_roundtrip(|i| i as u64 * 0x1_0000_0001);
        lane_copies_roundtrip(|i| [i as u32, !(i as u32), 7]);
        lane_copies_roundtrip(|i| [i as f64, -(i as f64)]);
    }

    #[test]
    fn relaxed_roundtrip_all_sizes() {
        let mut a = [0u8; 64];
        let p = a.as_mut_ptr();
        // SAFETY: the buffer is large enough and aligned for each type used (u8 array: we use
        // unaligned-safe sizes only where alignment 1).
        unsafe {
            store_relaxed(p, 7u8);
            assert_eq!(load_relaxed(p), 7u8);
            store_relaxed(p as *mut [u8; 3], [1, 2, 3]);
            assert_eq!(load_relaxed(p as *const [u8; 3]), [1, 2, 3]);
        }
        let mut w = [0u64; 8];
        let q = w.as_mut_ptr();
        // SAFETY: u64 buffer, aligned to 8.
        unsafe {
            store_relaxed(q as *mut f32, 1.5f32);
            assert_eq!(load_relaxed(q as *const f32), 1.5);
            store_relaxed(q as *mut [f32; 3], [1.0, 2.0, 3.0]);
            assert_eq!(load_relaxed(q as *const [f32; 3]), [1.0, 2.0, 3.0]);
            store_relaxed(q as *mut [f64; 4], [1.0, 2.0, 3.0, 4.0]);
            assert_eq!(load_relaxed(q as *const [f64; 4]), [1.0, 2.0, 3.0, 4.0]);
            store_relaxed(q as *mut u16, 0xBEEF);
            assert_eq!(load_relaxed(q as *const u16), 0xBEEF);
        }
    }

    #[test]
    fn atomic_add_f32_flushes_subnormals_and_canonicalises_nan() {
        let tiny = f32::from_bits(1); // smallest subnormal
        assert_eq!(device_add_f32(tiny, 0.0).to_bits(), 0);
        assert_eq!(device_add_f32(-tiny, -0.0).to_bits(), 0x8000_0000);
        assert_eq!(device_add_f32(f32::MIN_POSITIVE, -f32::from_bits(0x0080_0001)).to_bits() & 0x7fff_ffff, 0);
        assert_eq!(device_add_f32(f32::from_bits(0x7fc0_1234), 1.0).to_bits(), CANONICAL_NAN_F32);
        assert_eq!(device_add_f32(1.0, 2.0), 3.0);
    }
}
