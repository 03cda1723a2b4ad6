//! Items the macros' expansions use. Not a public API: names and signatures may change in any
//! release.

pub use crate::device::backend::{
    AtomicAddImpl, AtomicBitwiseImpl, AtomicCasImpl, AtomicExchImpl, AtomicIncDecImpl, AtomicLoadStoreImpl, AtomicMinMaxImpl,
    AtomicSubImpl,
};
#[cfg(not(target_arch = "nvptx64"))]
pub use crate::host::check::view_meta::{MetaPtr, ViewMeta};
pub use crate::device::backend::BarrierOp;
pub use crate::device::part::{part, part_offset, val, FinishKind, Part, PartMut, Val};
pub use crate::device::{Constant, DeviceCopy, DeviceGlobal, Dim3, Global, GlobalMut, Shared, SymbolDef, View, ViewKind, Writable};

#[cfg(not(target_arch = "nvptx64"))]
pub use crate::host::{
    mem::buffer::DeviceBuffer,
    mem::slice::{KernelArg, KernelArgMut},
    launch_desc::{GpuArg, KernelInfo, LaunchConfig},
    sched::launch::{launch, launch_on_gpu, launch_tasks},
    sched::devrt::{device_launch, DeviceArg, DeviceArgMut, DeviceStream},
    config::Checks,
    mem::shared_mem::SharedSite,
    sched::regions::{announce_general, last_path, last_proved, last_vectorised, launch_lanes, launch_regions, launch_regions_warps, region_progress_point, Exchange, LaneCursor, Lanes, Regions, Turn},
    sched::verify::{inject_fast_path_fault, Written},

};
#[cfg(not(target_arch = "nvptx64"))]
pub use crate::host::stream::{
    launch::{launch_on_gpu_stream, on_default_stream, Queued},
    Stream,
};


/// racecheck's accounting of its global-memory shadows, for tests: the bytes that the shadows
/// dropped since the last [`reset_race_shadow_peak`] held at their end (the resident pages of
/// their records and their out-of-line entries; the process-wide table of access states is
/// [`race_states`]), and the bytes reserved against `EMU_RACECHECK_SHADOW` now.
#[cfg(not(target_arch = "nvptx64"))]
pub fn race_shadow_bytes() -> (usize, usize) {
    crate::host::check::racecheck::global_shadow_bytes()
}

/// racecheck's pool of the mappings of ended shadows, for tests: the bytes it keeps reserved
/// against `EMU_RACECHECK_SHADOW` (the pages earlier launches touched, which the next shadow
/// of the same size zeroes as it touches them again) and how many mappings it holds. The live
/// shadows' reservations, [`race_shadow_bytes`]' second figure, do not include them.
#[cfg(not(target_arch = "nvptx64"))]
pub fn race_shadow_pool() -> (usize, usize) {
    crate::host::check::racecheck::global_shadow_pool()
}

/// Turns racecheck's accounting on and starts a new sum for [`race_shadow_bytes`].
#[cfg(not(target_arch = "nvptx64"))]
pub fn reset_race_shadow_peak() {
    crate::host::check::racecheck::reset_global_shadow_peak()
}

/// How many access states racecheck has interned in the process (about 40 bytes each).
#[cfg(not(target_arch = "nvptx64"))]
pub fn race_states() -> usize {
    crate::host::check::racecheck::interned_states()
}

#[cfg(not(target_arch = "nvptx64"))]
use core::panic::Location;

pub use crate::device::print::kprint_args;
#[cfg(target_arch = "nvptx64")]
pub use crate::device::devrt::{DeviceArg, DeviceArgMut, DeviceStream, ParamBuffer};

/// The integer types an index of device memory may have (`v[i]`, `t[r][c]`), as CUDA code
/// writes them: every primitive integer. A non-negative index that fits in `usize` is that
/// `usize`; a negative one becomes its two's complement (`i as isize as usize`, the address
/// it would touch, below the view's start), and a value too large for `usize` becomes
/// `usize::MAX`: both are out of bounds for every view, and the report of a negative index
/// shows its value (`index -1 is before the start of ...`). For `usize` it is the identity.
#[diagnostic::on_unimplemented(
    message = "device memory cannot be indexed by `{Self}`",
    label = "not a primitive integer",
    note = "an index of a view is a primitive integer (`u32`, `i32`, `usize`, `i64`, ...)"
)]
pub trait Index: Copy {
    /// The index as a `usize`.
    fn to_index(self) -> usize;
}

impl Index for usize {
    #[inline(always)]
    fn to_index(self) -> usize {
        self
    }
}

macro_rules! index_impls {
    (unsigned: $($u:ty),*; signed: $($s:ty),*) => {
        $(impl Index for $u {
            #[inline(always)]
            fn to_index(self) -> usize {
                // Lossless for the types narrower than `usize`; a `u128` (or a `u64` on a
                // 32-bit target) too large for `usize` is out of bounds anyway.
                usize::try_from(self).unwrap_or(usize::MAX)
            }
        })*
        $(impl Index for $s {
            #[inline(always)]
            fn to_index(self) -> usize {
                // Sign-extended: a negative index wraps below the view's start (at least
                // `usize::MAX / 2 + 1`, past the end of every view); an `i128` beyond `isize`
                // saturates.
                match isize::try_from(self) {
                    Ok(i) => i as usize,
                    Err(_) if self < 0 => isize::MIN as usize,
                    Err(_) => usize::MAX,
                }
            }
        })*
    };
}

index_impls!(unsigned: u8, u16, u32, u64, u128; signed: i8, i16, i32, i64, i128, isize);

/// A bound of `thread_idx().x` (`if tid < s`) as a `usize` for `Regions::each_below`:
/// negative values are 0, values beyond `usize` are `usize::MAX`, so that the threads it skips
/// are exactly those the comparison would leave out.
#[cfg(not(target_arch = "nvptx64"))]
#[inline(always)]
pub fn region_bound<I: RegionBound>(bound: I) -> usize {
    bound.to_bound()
}

/// Integers [`region_bound`] takes.
#[cfg(not(target_arch = "nvptx64"))]
pub trait RegionBound: Copy {
    /// The bound, saturated into `usize`.
    fn to_bound(self) -> usize;
}

#[cfg(not(target_arch = "nvptx64"))]
macro_rules! bound_impls {
    ($($t:ty),*) => {
        $(impl RegionBound for $t {
            #[inline(always)]
            fn to_bound(self) -> usize {
                #[allow(unused_comparisons)]
                if self < 0 as $t { 0 } else { usize::try_from(self).unwrap_or(usize::MAX) }
            }
        })*
    };
}
#[cfg(not(target_arch = "nvptx64"))]
bound_impls!(u8, u16, u32, u64, u128, usize, i8, i16, i32, i64, i128, isize);

/// `v[i]` in a region or lane loop whose indices the launch proved in bounds
/// (`emu-macros/src/fission/`): the relaxed atomic load `load` makes, so a racy kernel is
/// still no undefined behaviour.
///
/// The proof is not trusted: the index is checked here too, in every build. Where the proof
/// holds the check is one well-predicted comparison, which the compiler drops where it can see
/// the proof's bound; where it does not (a bug in the proof), the access takes the checked
/// path, which reports the index as the general path would.
///
/// The view's liveness (`host/mem/stamp.rs`) is checked once per region run instead, by the
/// region's guard: every guard that leads to these accessors asks [`view_aligned`] of each
/// view they take, which holds only for global memory and for the shared memory of the block
/// the region runs for. That memory can neither move on to another block nor be freed while
/// the region runs (`mem::stamp::Running`), so the accesses need not look again.
#[cfg(not(target_arch = "nvptx64"))]
#[inline(always)]
#[track_caller]
pub fn load_in_bounds<T: DeviceCopy, K: ViewKind>(v: &View<T, K>, i: usize) -> T {
    if i >= v.len() {
        return unproved_load(*v, i);
    }
    // SAFETY: `i < len` (checked above), and a view's pointer is valid for `len` elements: a
    // global view's while its launch runs (the only time a kernel has one), a shared view's
    // always, since arena memory is never freed (`mem/shared_mem.rs`, `pool`). Whether a shared
    // view is still its block's is the guard's question (`view_aligned`), not memory safety's.
    unsafe { crate::host::mem::memory::load_relaxed(v.raw_ptr().add(i)) }
}

/// `v[i] = value` in a region or lane loop whose indices were proved in bounds (checked
/// here too, see [`load_in_bounds`]).
#[cfg(not(target_arch = "nvptx64"))]
#[inline(always)]
#[track_caller]
pub fn store_in_bounds<T: DeviceCopy, K: Writable>(v: &View<T, K>, i: usize, value: T) {
    if i >= v.len() {
        return unproved_store(*v, i, value);
    }
    // SAFETY: as in `load_in_bounds`; `K: Writable` views point into writable memory.
    unsafe { crate::host::mem::memory::store_relaxed(v.raw_ptr().add(i), value) }
}

/// `t[r][c]` in a region whose indices were proved in bounds (`fission/ranges.rs`; checked
/// here too, see [`load_in_bounds`]).
#[cfg(not(target_arch = "nvptx64"))]
#[inline(always)]
#[track_caller]
pub fn load_row_in_bounds<T: DeviceCopy, const N: usize, K: ViewKind>(t: &View<[T; N], K>, r: usize, c: usize) -> T {
    if r >= t.len() || c >= N {
        return unproved_load(t.row(r), c);
    }
    // SAFETY: row `r` is inside the view and element `c` inside the row (checked above); the
    // rows are `[T; N]`, laid out as `N` consecutive `T`s.
    unsafe { crate::host::mem::memory::load_relaxed(t.raw_ptr().add(r).cast::<T>().add(c)) }
}

/// `t[r][c] = value` in a region whose indices were proved in bounds (checked here too, see
/// [`load_in_bounds`]).
#[cfg(not(target_arch = "nvptx64"))]
#[inline(always)]
#[track_caller]
pub fn store_row_in_bounds<T: DeviceCopy, const N: usize, K: Writable>(t: &View<[T; N], K>, r: usize, c: usize, value: T) {
    if r >= t.len() || c >= N {
        return unproved_store(t.row_for(r, crate::device::backend::AccessKind::Write), c, value);
    }
    // SAFETY: as in `load_row_in_bounds`; `K: Writable` views point into writable memory.
    unsafe { crate::host::mem::memory::store_relaxed(t.raw_ptr().add(r).cast::<T>().add(c), value) }
}

/// A proved access whose index or view failed the check: the checked access, which reports
/// it (kept out of line, so the proved path stays small enough to inline). The view comes by
/// value: a reference would let the call reach the caller's view, which the compiler must then
/// load again after every access instead of keeping its pointer and length in registers.
#[cfg(not(target_arch = "nvptx64"))]
#[cold]
#[inline(never)]
#[track_caller]
fn unproved_load<T: DeviceCopy, K: ViewKind>(v: View<T, K>, i: usize) -> T {
    v.load(i)
}

/// See [`unproved_load`].
#[cfg(not(target_arch = "nvptx64"))]
#[cold]
#[inline(never)]
#[track_caller]
fn unproved_store<T: DeviceCopy, K: Writable>(v: View<T, K>, i: usize, value: T) {
    v.store(i, value)
}

/// The length of a row of `t` (`N`), for a region's proof.
#[inline(always)]
pub fn row_len<T, const N: usize, K: ViewKind>(_t: &View<[T; N], K>) -> usize {
    N
}

/// An integer a region's proof adds with overflow checked (`fission/ranges.rs`).
pub trait RangeInt: Index {
    /// `self + other`, or `None` on overflow.
    fn checked(self, other: Self) -> Option<Self>;
    /// `self * other`, or `None` on overflow or when either is below 0.
    fn checked_mul_nonneg(self, other: Self) -> Option<Self>;
}

macro_rules! range_ints {
    ($($t:ty),*) => {
        $(impl RangeInt for $t {
            #[inline(always)]
            fn checked(self, other: Self) -> Option<Self> {
                self.checked_add(other)
            }
            #[inline(always)]
            #[allow(unused_comparisons)]
            fn checked_mul_nonneg(self, other: Self) -> Option<Self> {
                if self < 0 || other < 0 {
                    return None;
                }
                self.checked_mul(other)
            }
        })*
    };
}

range_ints!(u8, u16, u32, u64, u128, usize, i8, i16, i32, i64, i128, isize);

/// The product of two ends of index ranges, `None` if either is, is below 0, or the product
/// overflows.
#[inline(always)]
pub fn range_mul<T: RangeInt>(a: Option<T>, b: Option<T>) -> Option<T> {
    a?.checked_mul_nonneg(b?)
}

/// The sum of two ends of index ranges, `None` if either is or the sum overflows.
#[inline(always)]
pub fn range_add<T: RangeInt>(a: Option<T>, b: Option<T>) -> Option<T> {
    a?.checked(b?)
}

/// Whether `v` starts aligned for `T` and is of global memory or of the shared memory of the
/// block the region runs for: part of every proved region's guard (hoisted, range-proved and
/// vectorised regions, and hoisted lane loops), since only the checked accesses report (and
/// skip) a misaligned view (`View::cast`) or a view kept past its block (`mem/stamp.rs`).
/// That check, once per view and region run, stands for the stamp check of each of the
/// region's proved accesses ([`load_in_bounds`]); any other view takes the checked accesses.
#[cfg(not(target_arch = "nvptx64"))]
#[inline(always)]
pub fn view_aligned<T, K: ViewKind>(v: &View<T, K>) -> bool {
    v.is_aligned() && v.is_running_blocks()
}

/// The bits of the fast-path tiers a region form's guards ask `Regions::tier` about
/// (`EMU_TIERS_OFF`).
#[cfg(not(target_arch = "nvptx64"))]
pub const TIER_HOISTED: u32 = crate::host::config::Tier::Hoisted.bit();
/// See [`TIER_HOISTED`].
#[cfg(not(target_arch = "nvptx64"))]
pub const TIER_VECTOR: u32 = crate::host::config::Tier::Vector.bit();
/// See [`TIER_HOISTED`].
#[cfg(not(target_arch = "nvptx64"))]
pub const TIER_RANGES: u32 = crate::host::config::Tier::Ranges.bit();
/// See [`TIER_HOISTED`].
#[cfg(not(target_arch = "nvptx64"))]
pub const TIER_TURN: u32 = crate::host::config::Tier::Turn.bit();
/// See [`TIER_HOISTED`].
#[cfg(not(target_arch = "nvptx64"))]
pub const TIER_INTERLEAVE: u32 = crate::host::config::Tier::Interleave.bit();

/// The fewest threads a vectorised barrier region stages (`fission/vector.rs`): below it the
/// staging copies cost more than running the threads one by one.
#[cfg(not(target_arch = "nvptx64"))]
pub const VECTOR_MIN: usize = 16;

/// How many consecutive threads a vectorised lane loop stages at a time
/// ([`Regions::each_chunk`]).
#[cfg(not(target_arch = "nvptx64"))]
pub const LANE_CHUNK: usize = 256;

/// One view's elements for a chunk of lanes of a vectorised lane loop: lane `k` of the chunk
/// reads and writes its `v[i]` as `get(k)` and `set(k, ..)`, so that the loop over the chunk
/// is plain arithmetic over a local array, which LLVM vectorises. [`lane_load`] fills it from
/// the view; [`lane_store`] writes it back. It starts uninitialised (clearing it would cost
/// more than the kernel's arithmetic): only elements loaded or set may be read.
#[cfg(not(target_arch = "nvptx64"))]
pub struct LaneBuf<T, const C: usize> {
    vals: core::mem::MaybeUninit<[T; C]>,
}

#[cfg(not(target_arch = "nvptx64"))]
impl<T, const C: usize> core::fmt::Debug for LaneBuf<T, C> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("LaneBuf").field("lanes", &C).finish_non_exhaustive()
    }
}

#[cfg(not(target_arch = "nvptx64"))]
impl<T: DeviceCopy, const C: usize> LaneBuf<T, C> {
    /// A buffer with no element initialised.
    #[inline(always)]
    #[allow(clippy::new_without_default)]
    pub fn new() -> Self {
        LaneBuf { vals: core::mem::MaybeUninit::uninit() }
    }

    #[inline(always)]
    fn ptr(&self) -> *const T {
        self.vals.as_ptr() as *const T
    }

    #[inline(always)]
    fn ptr_mut(&mut self) -> *mut T {
        self.vals.as_mut_ptr() as *mut T
    }

    /// Lane `k`'s element.
    ///
    /// # Safety
    ///
    /// Element `k` was loaded ([`lane_load`]) or set since the buffer was made (`k < C` is
    /// checked). This is not a proof about values but the shape of the code `#[kernel]` emits:
    /// a chunk loads every view it reads before its lanes run.
    #[inline(always)]
    pub unsafe fn get(&self, k: usize) -> T {
        assert!(k < C);
        // SAFETY: `k < C` is inside the array, and initialised (the caller's contract).
        unsafe { self.ptr().add(k).read() }
    }

    /// Sets lane `k`'s element.
    #[inline(always)]
    pub fn set(&mut self, k: usize, v: T) {
        assert!(k < C);
        // SAFETY: `k < C`: inside the array.
        unsafe { self.ptr_mut().add(k).write(v) }
    }
}

/// Fills the first `m` elements of `b` with `v[start..start + m]`, staged for a chunk of a
/// vectorised lane loop (see
/// [`copy_from_device`](crate::host::mem::memory) for why it keeps racy kernels defined).
///
/// The range is the lane loop's proof, checked here in every build: a range outside the view
/// (a bug in the proof) panics. A view of shared memory kept past its block never gets here:
/// the guard's [`view_aligned`] refused it.
#[cfg(not(target_arch = "nvptx64"))]
#[inline(always)]
#[track_caller]
pub fn lane_load<T: DeviceCopy, K: ViewKind, const C: usize>(v: &View<T, K>, start: usize, b: &mut LaneBuf<T, C>, m: usize) {
    lane_range(v, start, m, C);
    // SAFETY: `[start, start + m)` lies inside the view (checked above), whose pointer is
    // valid as in `load_in_bounds`; `m <= C` elements fit the buffer.
    unsafe { crate::host::mem::memory::copy_from_device(v.raw_ptr().add(start), b.ptr_mut(), m) };
}

/// Writes a chunk's elements back: `v[start + k] = b.get(k)` for `k < m` (the range checked
/// as in [`lane_load`]).
///
/// # Safety
///
/// The first `m` elements of `b` were loaded or set (see [`LaneBuf::get`]).
#[cfg(not(target_arch = "nvptx64"))]
#[inline(always)]
#[track_caller]
pub unsafe fn lane_store<T: DeviceCopy, K: Writable, const C: usize>(v: &View<T, K>, start: usize, b: &LaneBuf<T, C>, m: usize) {
    lane_range(v, start, m, C);
    // SAFETY: as in `lane_load`; `K: Writable` views point into writable memory; the elements
    // read are initialised (the caller's contract).
    unsafe { crate::host::mem::memory::copy_to_device(v.raw_ptr().add(start), b.ptr(), m) };
}

/// The check of a chunk's range: `m <= cap` elements from `start`, inside the view.
#[cfg(not(target_arch = "nvptx64"))]
#[inline(always)]
#[track_caller]
fn lane_range<T, K: ViewKind>(v: &View<T, K>, start: usize, m: usize, cap: usize) {
    if m > cap || start.checked_add(m).is_none_or(|end| end > v.len()) {
        proof_failed(*v, start, m);
    }
}

/// A fast path's range is not inside its view: a view kept past its block (reported as the
/// general path reports it, by a checked access of the range's first element), or a bug in the
/// proof (a panic, which the launch reports at the kernel's line).
#[cfg(not(target_arch = "nvptx64"))]
#[cold]
#[inline(never)]
#[track_caller]
fn proof_failed<T, K: ViewKind>(v: View<T, K>, start: usize, m: usize) -> ! {
    if !v.is_live() {
        let _ = crate::device::backend::check_index(&v, start, core::mem::size_of::<T>(), crate::device::backend::AccessKind::Read);
    }
    panic!(
        "deviceemu: a fast path's proof failed: elements {start}..{} of a view of {} (a bug in deviceemu; \
         EMU_PATH=general runs the kernel without it)",
        start.saturating_add(m),
        v.len()
    )
}

/// A private copy of a shared array, taken when an interleaved region starts
/// (`fission/interleave.rs`): a region that only reads the array reads the copy, with plain
/// loads the compiler may merge and vectorise, instead of relaxed loads of the array.
///
/// The copy reads what the region would: nobody writes the array while the region runs. The
/// region writes no memory, the block's other threads run only in the region itself, and no
/// other block reaches this block's shared memory except a cluster peer, which runs on the
/// same host thread and only when this block waits (the region does not).
#[cfg(not(target_arch = "nvptx64"))]
pub struct Snapshot<T> {
    vals: Vec<T>,
}

#[cfg(not(target_arch = "nvptx64"))]
impl<T> core::fmt::Debug for Snapshot<T> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Snapshot").field("len", &self.vals.len()).finish()
    }
}

#[cfg(not(target_arch = "nvptx64"))]
impl<T: DeviceCopy> Snapshot<T> {
    /// A copy of `v`'s elements; empty when `v` is misaligned (a checked access reports such
    /// a view; the region's proof, which checks alignment, never takes a copy of one).
    #[inline(always)]
    pub fn of<K: ViewKind>(v: &View<T, K>) -> Self {
        // A view kept past its block copies nothing (its region's checked accesses report it).
        let n = if v.is_aligned() && v.is_live() { v.len() } else { 0 };
        let mut vals = Vec::with_capacity(n);
        // SAFETY: the view's pointer is valid for `len` elements while it is in use, aligned
        // (checked above), and written concurrently only by relaxed accesses, copies and
        // atomics (the invariant of device memory); `vals` has room for `n` elements and is
        // a different allocation. `copy_from_device` initialises all `n`, so `set_len` is
        // sound.
        unsafe {
            crate::host::mem::memory::copy_from_device(v.raw_ptr(), vals.as_mut_ptr(), n);
            vals.set_len(n);
        }
        Snapshot { vals }
    }

    /// How many elements the copy holds.
    #[inline(always)]
    pub fn len(&self) -> usize {
        self.vals.len()
    }

    /// Whether the copy is empty.
    #[inline(always)]
    pub fn is_empty(&self) -> bool {
        self.vals.is_empty()
    }

    /// Element `i` of the copy (checked: a bad index is a bug in the region's proof, and
    /// panics).
    #[inline(always)]
    pub fn load(&self, i: usize) -> T {
        self.vals[i]
    }
}

#[cfg(not(target_arch = "nvptx64"))]
impl<T: DeviceCopy, const N: usize> Snapshot<[T; N]> {
    /// Element `c` of row `r` of the copy (checked, as [`Snapshot::load`]).
    #[inline(always)]
    pub fn load_row(&self, r: usize, c: usize) -> T {
        self.vals[r][c]
    }
}

/// Thread `t` of a region kernel hands `v` to a lowered warp shuffle (`fission`).
#[cfg(not(target_arch = "nvptx64"))]
#[inline(always)]
pub fn xchg_put<T: Copy>(x: &Exchange<T>, t: usize, v: T) {
    x.put(t, v)
}

/// What thread `t`'s lowered `shfl_down_sync(FULL_MASK, _, delta)` returns.
#[cfg(not(target_arch = "nvptx64"))]
#[inline(always)]
pub fn xchg_down<T: crate::device::WarpShuffle>(x: &Exchange<T>, t: usize, delta: u32) -> T {
    x.read(t, crate::device::backend::ShflMode::Down, delta).unwrap_or_else(|| T::from_bits(0))
}

/// What thread `t`'s lowered `shfl_up_sync(FULL_MASK, _, delta)` returns.
#[cfg(not(target_arch = "nvptx64"))]
#[inline(always)]
pub fn xchg_up<T: crate::device::WarpShuffle>(x: &Exchange<T>, t: usize, delta: u32) -> T {
    x.read(t, crate::device::backend::ShflMode::Up, delta).unwrap_or_else(|| T::from_bits(0))
}

/// What thread `t`'s lowered `shfl_xor_sync(FULL_MASK, _, lane_mask)` returns.
#[cfg(not(target_arch = "nvptx64"))]
#[inline(always)]
pub fn xchg_xor<T: crate::device::WarpShuffle>(x: &Exchange<T>, t: usize, lane_mask: u32) -> T {
    x.read(t, crate::device::backend::ShflMode::Bfly, lane_mask).unwrap_or_else(|| T::from_bits(0))
}

/// What thread `t`'s lowered `shfl_sync(FULL_MASK, _, src_lane)` returns.
#[cfg(not(target_arch = "nvptx64"))]
#[inline(always)]
pub fn xchg_idx<T: crate::device::WarpShuffle>(x: &Exchange<T>, t: usize, src_lane: u32) -> T {
    x.read(t, crate::device::backend::ShflMode::Idx, src_lane).unwrap_or_else(|| T::from_bits(0))
}

/// What thread `t`'s lowered `ballot_sync(FULL_MASK, _)` returns.
#[cfg(not(target_arch = "nvptx64"))]
#[inline(always)]
pub fn xchg_ballot(x: &Exchange<bool>, t: usize) -> u32 {
    x.ballot(t).0
}

/// What thread `t`'s lowered `all_sync(FULL_MASK, _)` returns.
#[cfg(not(target_arch = "nvptx64"))]
#[inline(always)]
pub fn xchg_all(x: &Exchange<bool>, t: usize) -> bool {
    let (bits, present) = x.ballot(t);
    bits == present
}

/// What thread `t`'s lowered `any_sync(FULL_MASK, _)` returns.
#[cfg(not(target_arch = "nvptx64"))]
#[inline(always)]
pub fn xchg_any(x: &Exchange<bool>, t: usize) -> bool {
    x.ballot(t).0 != 0
}

/// The checkers' look at one access site of a chunk of a vectorised lane loop, in a kernel's
/// checked copy: lane `k < m` of the chunk (thread `c0 + k` of the running block) reads
/// (`write` false) or writes element `start + k` of `v`, at the caller's line. initcheck and
/// racecheck decide the common case for the whole chunk at once, and hand any lane they do not
/// decide to their per-access checks, with that lane as the running thread, so the findings
/// are those of the per-thread path.
#[cfg(not(target_arch = "nvptx64"))]
#[inline(always)]
#[track_caller]
pub fn lane_check<T: DeviceCopy, K: ViewKind>(v: &View<T, K>, start: usize, c0: usize, m: usize, write: bool) {
    crate::host::sched::hooks::on_lanes(v, start, c0, m, write, Location::caller());
}

/// How many per-chunk checks ([`lane_check`]) the process made, and how many of their lanes
/// went through a checker's per-access path (for tests: a clean lane loop decides every lane
/// in the chunk's common case), counted from the first call of this function on.
#[cfg(not(target_arch = "nvptx64"))]
#[doc(hidden)]
pub fn lane_checks() -> (u64, u64) {
    crate::host::sched::hooks::lane_checks()
}

/// The last of `threads` consecutive indices that start at `base` (`base + threads - 1`),
/// or `None` when that does not fit `base`'s type: a lane loop's proof that its index is
/// affine in the thread index over the whole block.
#[cfg(not(target_arch = "nvptx64"))]
#[inline(always)]
pub fn lane_last<I: LaneInt>(base: I, threads: usize) -> Option<I> {
    base.plus(threads.checked_sub(1)?)
}

/// Integers [`lane_last`] takes.
#[cfg(not(target_arch = "nvptx64"))]
pub trait LaneInt: Copy {
    /// `self + k`, if it fits.
    fn plus(self, k: usize) -> Option<Self>;
}

#[cfg(not(target_arch = "nvptx64"))]
macro_rules! lane_int_impls {
    ($($t:ty),*) => {
        $(impl LaneInt for $t {
            #[inline(always)]
            fn plus(self, k: usize) -> Option<Self> {
                self.checked_add(<$t>::try_from(k).ok()?)
            }
        })*
    };
}
#[cfg(not(target_arch = "nvptx64"))]
lane_int_impls!(u16, u32, u64, u128, usize, i16, i32, i64, i128, isize);

/// `v[i]` in a kernel. `checked` is a constant in a kernel's body (`#[kernel]` compiles the
/// body with and without the checkers that watch each access, initcheck and racecheck), and
/// asked once per call in a `#[device]` helper.
#[inline(always)]
#[track_caller]
pub fn load<T: DeviceCopy, K: ViewKind, I: Index>(checked: bool, v: &View<T, K>, i: I) -> T {
    let i = i.to_index();
    let x = v.load(i);
    #[cfg(not(target_arch = "nvptx64"))]
    if checked {
        crate::host::sched::hooks::on_load(v, i, Location::caller());
    }
    #[cfg(target_arch = "nvptx64")]
    let _ = checked;
    x
}

/// `v[i] = value` in a kernel (`checked` as for [`load`]).
#[inline(always)]
#[track_caller]
pub fn store<T: DeviceCopy, K: Writable, I: Index>(checked: bool, v: &View<T, K>, i: I, value: T) {
    let i = i.to_index();
    v.store(i, value);
    #[cfg(not(target_arch = "nvptx64"))]
    if checked {
        crate::host::sched::hooks::on_store(v, i, Location::caller());
    }
    #[cfg(target_arch = "nvptx64")]
    let _ = checked;
}

/// The launch of a `#[kernel(host_only)]` kernel when its target is the GPU: an error that
/// names the kernel (it has no PTX); `None` when the target is the emulator (or the settings
/// are invalid, which the emulated launch then reports).
#[cfg(not(target_arch = "nvptx64"))]
pub fn host_only_on_gpu(kernel: &'static KernelInfo) -> Option<Result<(), crate::Error>> {
    let config = crate::host::config::effective().ok()?;
    if config.get_target() != crate::host::config::Target::Gpu {
        return None;
    }
    let e = crate::Error::NotSupported {
        message: format!(
            "kernel `{}` is `#[kernel(host_only)]`: it has no PTX and runs on the emulator only; \
             launch it with the emulator as the target (EMU_TARGET=emulator), or remove `host_only`",
            kernel.name
        ),
    };
    crate::host::report::last_error::record(&e);
    Some(Err(e))
}

/// What the debugger command `emu-where` prints for the running GPU thread (for tests).
#[cfg(not(target_arch = "nvptx64"))]
pub fn debugger_where() -> String {
    crate::host::sched::debugger::where_now()
}

/// Runs `launch` (one `launch!`) as a cooperative launch (`launch_cooperative!`).
#[cfg(not(target_arch = "nvptx64"))]
pub fn cooperative<R>(launch: impl FnOnce() -> R) -> R {
    crate::host::sched::launch::cooperative(launch)
}

/// The checkers of the launch being made: the launcher runs the kernel's checked copy when one
/// of them watches each access ([`per_access`]), and gives them to [`meta`].
#[cfg(not(target_arch = "nvptx64"))]
pub fn launch_checks() -> crate::host::config::Checks {
    crate::host::config::effective().map(|c| c.get_checks()).unwrap_or_default()
}

/// Whether `checks` has a checker that watches each access (initcheck, racecheck).
#[cfg(not(target_arch = "nvptx64"))]
pub fn per_access(checks: crate::host::config::Checks) -> bool {
    crate::host::check::any(checks)
}

/// Whether the running kernel checks accesses: what a `#[device]` helper asks once per call.
#[inline(always)]
pub fn helper_checking() -> bool {
    #[cfg(not(target_arch = "nvptx64"))]
    return crate::host::sched::context::checking();
    #[cfg(target_arch = "nvptx64")]
    return false;
}

/// `v[i]` as the non-last index of `v[i][j]`.
#[inline(always)]
#[track_caller]
pub fn row<'l, T: DeviceCopy, const N: usize, K: ViewKind, I: Index>(v: &View<'l, [T; N], K>, i: I) -> View<'l, T, K> {
    v.row(i.to_index())
}

/// `v[i]` as the non-last index of `v[i][j] = x`: a bad `i` is reported as a write.
#[inline(always)]
#[track_caller]
pub fn row_write<'l, T: DeviceCopy, const N: usize, K: ViewKind, I: Index>(v: &View<'l, [T; N], K>, i: I) -> View<'l, T, K> {
    v.row_for(i.to_index(), crate::device::backend::AccessKind::Write)
}

/// `sync_threads()` (and its count/and/or forms, by `op`) in the body of a state-machine
/// kernel: `#[kernel]` writes `barrier_await(op, predicate).await` in its place.
#[cfg(not(target_arch = "nvptx64"))]
#[inline(always)]
#[track_caller]
pub fn barrier_await(op: BarrierOp, predicate: bool) -> crate::host::sched::task::BarrierAwait {
    crate::host::sched::task::BarrierAwait::new(op, predicate)
}

/// Warp collectives in the body of a state-machine kernel: `#[kernel]` writes
/// `sync_warp_await(mask).await` in place of `sync_warp(mask)`, and so on for each collective.
/// Each waits for its warp as an `.await` rather than by parking a fiber.
#[cfg(not(target_arch = "nvptx64"))]
mod warp_awaits {
    use core::future::Future;

    use crate::device::backend::{ReduxKind, ShflMode, VoteOp};
    use crate::device::{WarpReduce, WarpShuffle};
    use crate::host::sched::task::WarpAwait;
    use crate::host::sched::warp::WarpOp;

    /// `active_mask()`.
    #[inline(always)]
    #[track_caller]
    pub fn active_mask_await() -> impl Future<Output = u32> {
        let w = WarpAwait::new(WarpOp::ActiveMask, 0, 0, 0);
        async move { w.await as u32 }
    }

    /// `sync_warp(mask)`.
    #[inline(always)]
    #[track_caller]
    pub fn sync_warp_await(mask: u32) -> impl Future<Output = ()> {
        let w = WarpAwait::new(WarpOp::Sync, mask, 0, 0);
        async move {
            w.await;
        }
    }

    /// `all_sync(mask, p)`.
    #[inline(always)]
    #[track_caller]
    pub fn all_sync_await(mask: u32, p: bool) -> impl Future<Output = bool> {
        let w = WarpAwait::new(WarpOp::Vote(VoteOp::All), mask, p as u64, 0);
        async move { w.await != 0 }
    }

    /// `any_sync(mask, p)`.
    #[inline(always)]
    #[track_caller]
    pub fn any_sync_await(mask: u32, p: bool) -> impl Future<Output = bool> {
        let w = WarpAwait::new(WarpOp::Vote(VoteOp::Any), mask, p as u64, 0);
        async move { w.await != 0 }
    }

    /// `ballot_sync(mask, p)`.
    #[inline(always)]
    #[track_caller]
    pub fn ballot_sync_await(mask: u32, p: bool) -> impl Future<Output = u32> {
        let w = WarpAwait::new(WarpOp::Vote(VoteOp::Ballot), mask, p as u64, 0);
        async move { w.await as u32 }
    }

    macro_rules! shuffles {
        ($($(#[$doc:meta])* $name:ident, $mode:ident;)*) => { $(
            $(#[$doc])*
            #[inline(always)]
            #[track_caller]
            pub fn $name<T: WarpShuffle>(mask: u32, value: T, lane: u32) -> impl Future<Output = T> {
                let arg = crate::host::sched::warp::shfl_arg(ShflMode::$mode, lane, 32);
                let w = WarpAwait::new(WarpOp::Shfl(ShflMode::$mode), mask, value.to_bits(), arg);
                async move { T::from_bits(w.await) }
            }
        )* };
    }

    shuffles! {
        /// `shfl_sync(mask, v, src_lane)`.
        shfl_sync_await, Idx;
        /// `shfl_up_sync(mask, v, delta)`.
        shfl_up_sync_await, Up;
        /// `shfl_down_sync(mask, v, delta)`.
        shfl_down_sync_await, Down;
        /// `shfl_xor_sync(mask, v, lane_mask)`.
        shfl_xor_sync_await, Bfly;
    }

    macro_rules! width_shuffles {
        ($($(#[$doc:meta])* $name:ident, $mode:ident;)*) => { $(
            $(#[$doc])*
            #[inline(always)]
            #[track_caller]
            pub fn $name<T: WarpShuffle>(mask: u32, value: T, lane: u32, width: u32) -> impl Future<Output = T> {
                let arg = crate::host::sched::warp::shfl_arg(ShflMode::$mode, lane, width);
                let w = WarpAwait::new(WarpOp::Shfl(ShflMode::$mode), mask, value.to_bits(), arg);
                async move { T::from_bits(w.await) }
            }
        )* };
    }

    width_shuffles! {
        /// `shfl_sync_width(mask, v, src_lane, width)`.
        shfl_sync_width_await, Idx;
        /// `shfl_up_sync_width(mask, v, delta, width)`.
        shfl_up_sync_width_await, Up;
        /// `shfl_down_sync_width(mask, v, delta, width)`.
        shfl_down_sync_width_await, Down;
        /// `shfl_xor_sync_width(mask, v, lane_mask, width)`.
        shfl_xor_sync_width_await, Bfly;
    }

    macro_rules! reductions {
        ($($(#[$doc:meta])* $name:ident, $kind:ident;)*) => { $(
            $(#[$doc])*
            #[inline(always)]
            #[track_caller]
            pub fn $name<T: WarpReduce>(mask: u32, value: T) -> impl Future<Output = T> {
                let op = crate::host::sched::warp::redux_op(ReduxKind::$kind, T::SIGNED);
                let w = WarpAwait::new(WarpOp::Redux(op), mask, value.to_word() as u64, 0);
                async move { T::from_word(w.await as u32) }
            }
        )* };
    }

    reductions! {
        /// `reduce_add_sync(mask, v)`.
        reduce_add_sync_await, Add;
        /// `reduce_min_sync(mask, v)`.
        reduce_min_sync_await, Min;
        /// `reduce_max_sync(mask, v)`.
        reduce_max_sync_await, Max;
    }

    macro_rules! bit_reductions {
        ($($(#[$doc:meta])* $name:ident, $kind:ident;)*) => { $(
            $(#[$doc])*
            #[inline(always)]
            #[track_caller]
            pub fn $name(mask: u32, value: u32) -> impl Future<Output = u32> {
                let op = crate::host::sched::warp::redux_op(ReduxKind::$kind, false);
                let w = WarpAwait::new(WarpOp::Redux(op), mask, value as u64, 0);
                async move { w.await as u32 }
            }
        )* };
    }

    bit_reductions! {
        /// `reduce_and_sync(mask, v)`.
        reduce_and_sync_await, And;
        /// `reduce_or_sync(mask, v)`.
        reduce_or_sync_await, Or;
        /// `reduce_xor_sync(mask, v)`.
        reduce_xor_sync_await, Xor;
    }

    /// `match_any_sync(mask, v)`.
    #[inline(always)]
    #[track_caller]
    pub fn match_any_sync_await<T: WarpShuffle>(mask: u32, value: T) -> impl Future<Output = u32> {
        let w = WarpAwait::new(WarpOp::MatchAny, mask, value.to_bits(), 0);
        async move { w.await as u32 }
    }

    /// `match_all_sync(mask, v)`.
    #[inline(always)]
    #[track_caller]
    pub fn match_all_sync_await<T: WarpShuffle>(mask: u32, value: T) -> impl Future<Output = (u32, bool)> {
        let w = WarpAwait::new(WarpOp::MatchAll, mask, value.to_bits(), 0);
        async move {
            let r = w.await as u32;
            (r, r != 0)
        }
    }
}
#[cfg(not(target_arch = "nvptx64"))]
pub use warp_awaits::*;

#[cfg(not(target_arch = "nvptx64"))]
pub use crate::host::sched::thread::{Exit, ThreadCtx};
/// Where a GPU thread exited (nothing on the GPU).
#[cfg(target_arch = "nvptx64")]
pub type Exit = ();

/// Keeps the `ThreadCtx` argument of a kernel's plain host form readable by a debugger on every
/// line: `#[kernel]` calls it at the end of the body. Not `inline(always)`: in a debug build the
/// call keeps the argument's address live, so it stays in a stack slot for the whole body (a
/// kernel that never reads a built-in index would otherwise show `__emu_ctx` as optimized out
/// after its first call); an optimised build inlines it to nothing.
#[cfg(not(target_arch = "nvptx64"))]
#[inline]
pub fn keep_ctx(_ctx: &ThreadCtx) {}

/// The running GPU thread exits here: `#[kernel]` returns this at each `return` and at the
/// end of the body. Not `inline(always)`: in a debug build its call is the code of the
/// kernel's closing brace, so that stepping stops there as it does at the end of a function.
#[inline]
#[track_caller]
pub fn exit_here() -> Exit {
    #[cfg(not(target_arch = "nvptx64"))]
    return Location::caller();
}

/// `dynamic_shared_parts::<P>(lens)` in a kernel (the rewrite calls it by this path).
#[inline(always)]
#[track_caller]
pub fn dynamic_shared_parts<P: crate::device::SharedParts>(lens: P::Lens) -> P::Views {
    crate::device::dynamic_shared_parts::<P>(lens)
}

/// `shared_scalar![T]`: the value held in the one-element shared array `view`.
#[inline(always)]
pub fn shared_scalar<T: DeviceCopy>(view: Shared<'_, T>) -> crate::device::SharedScalar<'_, T> {
    crate::device::SharedScalar::new(view)
}

/// `shared_array![T; N]`.
#[cfg(not(target_arch = "nvptx64"))]
#[inline(always)]
#[track_caller]
pub fn shared_array<T: DeviceCopy, const N: usize>(site: &'static SharedSite) -> Shared<'static, T> {
    crate::device::backend::shared_array::<T, N>(site)
}

/// A read-only view of a device buffer or slice, for a `&[T]` kernel parameter: the view
/// lives as long as the borrows of the argument and of its description.
///
/// # Safety
///
/// `meta` must describe `arg`'s buffer: it is the value [`meta`] returned for this argument,
/// unchanged (the checkers write through its shadow pointers at the view's addresses, sized
/// for the whole buffer).
#[cfg(not(target_arch = "nvptx64"))]
pub unsafe fn global<'l, T: DeviceCopy, A: KernelArg<T>>(arg: &'l A, meta: &'l ViewMeta) -> Result<Global<'l, T>, crate::Error> {
    shadow_ok(meta)?;
    let (buf, start, len) = arg.parts();
    // SAFETY: the buffer is borrowed for `'l` (through `arg`), so its memory is valid for its
    // `len` elements for all of it, and `start + len` is inside them (a slice is checked when
    // it is made); kernels access it only through views; `meta` describes it (the caller's
    // contract).
    Ok(unsafe { View::from_raw_parts(buf.raw()?.add(start), len, meta) })
}

/// The error of a checker shadow [`meta`] could not allocate (recorded as the last error).
#[cfg(not(target_arch = "nvptx64"))]
fn shadow_ok(meta: &ViewMeta) -> Result<(), crate::Error> {
    match crate::host::check::racecheck::shadow_of(meta).and_then(|r| r.error()) {
        Some(e) => {
            crate::host::report::last_error::record(e);
            Err(e.clone())
        }
        None => Ok(()),
    }
}

/// A writable view of a device buffer or mutable slice, for a `&mut [T]` kernel parameter.
///
/// # Safety
///
/// As for [`global`]: `meta` is the value [`meta`] returned for `arg`, unchanged.
#[cfg(not(target_arch = "nvptx64"))]
pub unsafe fn global_mut<'l, T: DeviceCopy, A: KernelArgMut<T>>(
    arg: &'l mut A,
    meta: &'l ViewMeta,
) -> Result<GlobalMut<'l, T>, crate::Error> {
    shadow_ok(meta)?;
    let (buf, start, len) = arg.parts_mut();
    if meta.init.is_null() {
        // Not checked by this launch: its writes are not tracked.
        buf.mark_written(start, len, None);
    }
    // SAFETY: as in `global`; the `&mut` borrow keeps the host from touching it meanwhile.
    Ok(unsafe { View::from_raw_parts(buf.raw()?.add(start), len, meta) })
}

/// The description of a buffer (or slice) parameter for reports: the whole buffer's.
#[cfg(not(target_arch = "nvptx64"))]
pub fn meta<T: DeviceCopy, A: KernelArg<T>>(name: &'static str, arg: &A, checks: crate::host::config::Checks) -> ViewMeta {
    let buf = arg.parts().0;
    // A synchronous launch waits for the queued work that uses the buffer (a queued launch's
    // own handle does not wait).
    buf.wait_all();
    let mut m = ViewMeta::new(name, None, buf.as_ptr() as usize, buf.bytes()).of::<T>();
    m.granule = core::mem::align_of::<T>();
    if checks.initcheck {
        crate::host::check::initcheck::attach(&mut m, buf.init_bits());
    }
    if checks.racecheck {
        crate::host::check::racecheck::attach(&mut m);
    }
    m
}

#[cfg(target_arch = "nvptx64")]
pub use crate::device::backend::shared_view;

/// Tells the optimiser what the hardware guarantees of `thread_idx()`, `block_idx()` and their
/// bounds (`%tid < %ntid`, `%ctaid < %nctaid`): the GPU entry of every kernel calls it first.
#[cfg(target_arch = "nvptx64")]
#[inline(always)]
pub fn assume_index_facts() {
    crate::device::backend::assume_index_facts()
}

/// Tells the optimiser that the running block has at most `max` threads: the GPU entry of a
/// `#[kernel(launch_bounds(max, ..))]` calls it, as `__launch_bounds__` lets nvcc assume.
///
/// # Safety
///
/// The block must have at most `max` threads: only the GPU entry of a kernel declared
/// `launch_bounds(max)` may call it (its launcher refuses bigger blocks, and its PTX has
/// `.maxntid max, 1, 1`, so the driver does too).
#[cfg(target_arch = "nvptx64")]
#[inline(always)]
pub unsafe fn assume_launch_bounds(max: u32) {
    // SAFETY: the caller's contract.
    unsafe { crate::device::backend::assume_block_at_most(max) }
}

/// The alignment of a `.shared` array of `T` (at least 16 bytes).
pub const fn shared_align<T>() -> usize {
    let a = core::mem::align_of::<T>();
    if a > 16 {
        a
    } else {
        16
    }
}

/// Asserts at compile time that a kernel's scalar parameter type can be passed to a kernel.
pub const fn assert_kernel_scalar<T: KernelScalar>() {}

/// A view passed to a function (`h(x)` in a kernel, `x` a view): `#[kernel]` and `#[device]`
/// write `pass(x)`, which is the view itself where the parameter is a view (a `#[device]`
/// helper's `&[T]`, `Global<T>`, ...), and where it is not, the error of [`FromView`], which
/// says to add `#[device]` to the helper.
#[inline(always)]
pub fn pass<V, P: FromView<V>>(v: V) -> P {
    P::from_view(v)
}

/// What a view may be passed as: the view itself.
#[diagnostic::on_unimplemented(
    message = "a view of device memory is passed where `{Self}` is expected",
    label = "this is a view (`{V}`), not `{Self}`",
    note = "a helper that takes a kernel's `&[T]` or `&mut [T]` needs `#[device]`: add `#[device]` to it, and its slice parameters take the kernel's views (bounds-checked)",
    note = "a view is passed as a view of the same kind: `&[T]`/`Global<T>` for a kernel's `&[T]`, `&mut [T]`/`GlobalMut<T>` for its `&mut [T]`"
)]
pub trait FromView<V>: Sized {
    /// `v` as the parameter's type.
    fn from_view(v: V) -> Self;
}

impl<'l, T: DeviceCopy, K: ViewKind> FromView<View<'l, T, K>> for View<'l, T, K> {
    #[inline(always)]
    fn from_view(v: Self) -> Self {
        v
    }
}

/// Implemented by nothing: what a kernel's name means as a function on the host requires it,
/// so that calling a kernel like a function is an error that says how to launch it.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is a kernel: it cannot be called like a function",
    label = "called like a function",
    note = "launch it with `launch!({Self}<<<grid, block>>>(...))`"
)]
pub trait NotAFunction<'a> {}

/// Types a kernel may take by value.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be a kernel parameter",
    label = "not a plain-data type",
    note = "kernel parameters are scalars (integers, floats, bool), `#[repr(C)]` plain-data structs implementing `DeviceCopy`, `&[T]` or `&mut [T]`"
)]
pub trait KernelScalar: DeviceCopy {}
impl<T: DeviceCopy> KernelScalar for T {}

/// A progress point's counter (`#[kernel]` and `#[device]` put one at the head of every
/// `while` and `loop` body of the host form): `true` every few iterations, when the thread
/// must go through [`progress_point`] (or await [`progress_await`]).
#[cfg(not(target_arch = "nvptx64"))]
#[inline(always)]
pub fn progress_due(counter: &mut u32) -> bool {
    crate::host::sched::progress::due(counter)
}

/// A progress point's slow path in plain code: the watchdog's check, and a yield to the block's
/// other threads when one can run (`host/progress.rs`).
#[cfg(not(target_arch = "nvptx64"))]
#[inline(always)]
#[track_caller]
pub fn progress_point() {
    crate::host::sched::progress::point()
}

/// A progress point's slow path in the body of a state-machine kernel, `.await`ed.
#[cfg(not(target_arch = "nvptx64"))]
#[inline(always)]
#[track_caller]
pub fn progress_await() -> crate::host::sched::progress::ProgressAwait {
    crate::host::sched::progress::ProgressAwait::new()
}

/// On the GPU, progress points are nothing: the hardware schedules threads independently.
#[cfg(target_arch = "nvptx64")]
#[inline(always)]
pub fn progress_due(_counter: &mut u32) -> bool {
    false
}

/// On the GPU, progress points are nothing.
#[cfg(target_arch = "nvptx64")]
#[inline(always)]
pub fn progress_point() {}

/// A write to a static in a kernel (`NAME[i] = x`): `#[kernel]` calls `NAME.__emu_write_to()`
/// first, which is this trait's no-op for every static but a `#[constant]`, whose inherent
/// method of the same name fails to compile with a message that says what to do.
pub trait WriteToStatic {
    /// Nothing: the static may be written.
    #[inline(always)]
    fn __emu_write_to(&self) {}
}
impl<T: ?Sized> WriteToStatic for T {}

#[cfg(all(test, not(target_arch = "nvptx64")))]
mod tests {
    //! The fast paths' accessors do not trust the proofs that chose them: an index outside the
    //! view is caught in every build (these tests also run in release builds), never a raw
    //! access past the memory.

    use super::*;
    use crate::device::ReadWrite;
    use std::panic::{catch_unwind, AssertUnwindSafe};

    fn message(r: std::thread::Result<()>) -> String {
        let e = r.expect_err("the access panics");
        e.downcast_ref::<String>().cloned().or_else(|| e.downcast_ref::<&str>().map(|s| s.to_string())).unwrap_or_default()
    }

    fn view(v: &mut [u32]) -> View<'_, u32, ReadWrite> {
        // SAFETY: the view covers `v`, which outlives it; nothing else touches `v` meanwhile.
        unsafe { View::from_raw_parts(v.as_mut_ptr(), v.len(), core::ptr::null()) }
    }

    #[test]
    fn a_proved_access_out_of_bounds_takes_the_checked_path() {
        let mut mem = vec![7u32; 16];
        let v = view(&mut mem);
        assert_eq!(load_in_bounds(&v, 3), 7);
        store_in_bounds(&v, 3, 9);
        assert_eq!(load_in_bounds(&v, 3), 9);
        // Outside a kernel the checked path's report is a panic naming the index.
        let m = message(catch_unwind(AssertUnwindSafe(|| {
            load_in_bounds(&v, 1000);
        })));
        assert!(m.contains("index 1000 out of bounds"), "{m}");
        let m = message(catch_unwind(AssertUnwindSafe(|| store_in_bounds(&v, 16, 1))));
        assert!(m.contains("index 16 out of bounds"), "{m}");
        assert!(mem.iter().all(|&x| x == 7 || x == 9));
    }

    #[test]
    fn a_proved_row_access_out_of_bounds_takes_the_checked_path() {
        let mut mem = [[1u32; 4]; 3];
        // SAFETY: as in `view`.
        let t: View<'_, [u32; 4], ReadWrite> = unsafe { View::from_raw_parts(mem.as_mut_ptr(), 3, core::ptr::null()) };
        assert_eq!(load_row_in_bounds(&t, 2, 3), 1);
        let m = message(catch_unwind(AssertUnwindSafe(|| store_row_in_bounds(&t, 3, 0, 5))));
        assert!(m.contains("out of bounds"), "{m}");
        let m = message(catch_unwind(AssertUnwindSafe(|| {
            load_row_in_bounds(&t, 0, 4);
        })));
        assert!(m.contains("index 4 out of bounds"), "{m}");
    }

    #[test]
    fn a_lane_chunk_outside_its_view_panics() {
        let mut mem = vec![1u32; 100];
        let v = view(&mut mem);
        let mut b = LaneBuf::<u32, 64>::new();
        lane_load(&v, 36, &mut b, 64);
        // SAFETY: `lane_load` filled elements 0..64.
        assert_eq!(unsafe { b.get(63) }, 1);
        let m = message(catch_unwind(AssertUnwindSafe(|| lane_load(&v, 37, &mut b, 64))));
        assert!(m.contains("a fast path's proof failed: elements 37..101 of a view of 100"), "{m}");
        let m = message(catch_unwind(AssertUnwindSafe(|| lane_load(&v, 0, &mut b, 65))));
        assert!(m.contains("proof failed"), "{m}");
        // SAFETY: the buffer's 64 elements are loaded.
        let m = message(catch_unwind(AssertUnwindSafe(|| unsafe { lane_store(&v, usize::MAX - 2, &b, 8) })));
        assert!(m.contains("proof failed"), "{m}");
    }

    #[test]
    fn a_snapshot_index_outside_the_copy_panics() {
        let mut mem = vec![5u32; 8];
        let s = Snapshot::of(&view(&mut mem));
        assert_eq!(s.load(7), 5);
        let m = message(catch_unwind(AssertUnwindSafe(|| {
            s.load(8);
        })));
        assert!(m.contains("index out of bounds"), "{m}");
    }
}

/// What a kernel's launcher asks of a `#[device]` helper it calls from region code when the
/// helper's own `__emu_waits_NAME!()` (emitted next to it, `emu-macros/src/fission/helpers.rs`)
/// is not in textual scope: it may wait, so the launch takes the general path.
#[doc(hidden)]
#[macro_export]
macro_rules! __emu_helper_may_wait {
    () => {
        true
    };
}
#[doc(hidden)]
pub use crate::__emu_helper_may_wait as helper_may_wait;
