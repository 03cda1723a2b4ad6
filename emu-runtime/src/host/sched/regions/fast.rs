//! The fast paths' runtime: what the region and lane-loop forms of a kernel
//! (`emu-macros/src/fission/`) call, through the macro ABI (`__private` re-exports every
//! public item here at the same name): the proved accessors (`load_in_bounds` and friends,
//! which check the index in every build), the tier bits, the vectorised lane loops' buffers
//! (`LaneBuf`, `lane_load`, `lane_store`, `lane_check`), the interleaved regions' copies of
//! shared arrays (`Snapshot`), and the lowered warp shuffles (`xchg_*`).
//!
//! Moved verbatim from `__private.rs` (issue 27); the `cfg` attributes came with it.

#[cfg(not(target_arch = "nvptx64"))]
use crate::device::backend::ReduxKind;
use core::panic::Location;

use super::{Exchange, LaneCursor};
use crate::device::{DeviceCopy, View, ViewKind, Writable};

/// A bound of `thread_idx().x` (`if tid < s`) as a `usize` for `Regions::each_below`:
/// negative values are 0, values beyond `usize` are `usize::MAX`, so that the threads it skips
/// are exactly those the comparison would leave out.
#[cfg(not(target_arch = "nvptx64"))]
#[inline(always)]
pub fn region_bound<I: RegionBound>(bound: I) -> usize {
    bound.to_bound()
}

/// The bound of `thread_idx().x` for a region `let i = (k * tid) as T; if (i as U) < bound {
/// .. }` (cuda-samples' reduce1: `index = 2 * s * tid; if (index < blockDim.x)`), with `k`
/// and `bound` block-uniform: the threads whose product is below `bound` are those below
/// `ceil(bound / k)`, when no product of the block's threads passes `i32::MAX` (`k` times the
/// largest `thread_idx().x`, 1023): then no product wraps, and each cast the region writes
/// between integer types of 32 bits or more keeps its value. Otherwise, and for `k <= 0`,
/// every thread runs (`usize::MAX`) and the comparison decides, as written.
#[cfg(not(target_arch = "nvptx64"))]
#[inline(always)]
pub fn region_bound_scaled<K: RegionBound, B: RegionBound>(k: K, bound: B) -> usize {
    const LARGEST_X: usize = crate::host::sched::launch::limits::MAX_BLOCK.x as usize - 1;
    let k = k.to_bound();
    if k == 0 || k.checked_mul(LARGEST_X).is_none_or(|p| p > i32::MAX as usize) {
        return usize::MAX;
    }
    bound.to_bound().div_ceil(k)
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
/// the proof's bound; where it does not (a bug in the proof), the launch ends with a panic
/// that says so (`proof_failed`, reported at the kernel's line). The failure path diverges:
/// an out-of-line call that returned into the region (the checked access, tried first) made
/// the compiler keep the region's values in memory around every access, and doubled the tiled
/// matmul's instructions (1.98e9 against 1.20e9 for `benches/throughput.rs`'s kernel on 1024 x
/// 4096, callgrind, 2026-12-04).
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
        proof_failed(*v, i, 1);
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
        proof_failed(*v, i, 1);
    }
    // SAFETY: as in `load_in_bounds`; `K: Writable` views point into writable memory.
    unsafe { crate::host::mem::memory::store_relaxed(v.raw_ptr().add(i), value) }
}

/// `v[i]` in a region whose views were found live and aligned when it started
/// ([`view_aligned`], the guard of `fission/tiers.rs`'s `Views`): only the index is checked.
/// A bad one takes the view's own load, which reports it as any access does (and gives zero
/// bits).
#[cfg(not(target_arch = "nvptx64"))]
#[inline(always)]
#[track_caller]
pub fn load_valid<T: DeviceCopy, K: ViewKind, I: crate::device::access::Index>(v: &View<T, K>, i: I) -> T {
    let i = i.to_index();
    if i >= v.len() {
        return bad_load(*v, i);
    }
    // SAFETY: `i < len`, and a view's pointer is valid for `len` elements: a global view's
    // while its launch runs (the only time a kernel has one), a shared view's always, since
    // arena memory is never freed (`mem/shared_mem.rs`, `pool`); the guard found it its
    // block's (`view_aligned`).
    unsafe { crate::host::mem::memory::load_relaxed(v.raw_ptr().add(i)) }
}

/// A bad index of [`load_valid`]: the view's own load reports it (and gives zero bits). The
/// view comes by value, as in [`proof_failed`]: a reference would make the region's loop keep
/// a copy of it in memory, written at every access (two stores and loads of 16 bytes each in
/// reduce0's step regions).
#[cfg(not(target_arch = "nvptx64"))]
#[cold]
#[inline(never)]
#[track_caller]
fn bad_load<T: DeviceCopy, K: ViewKind>(v: View<T, K>, i: usize) -> T {
    v.load(i)
}

/// A bad index of [`store_valid`]: the view's own store reports it.
#[cfg(not(target_arch = "nvptx64"))]
#[cold]
#[inline(never)]
#[track_caller]
fn bad_store<T: DeviceCopy, K: Writable>(v: View<T, K>, i: usize, value: T) {
    v.store(i, value)
}

/// `v[i] = value` in a region whose views were found live and aligned when it started (see
/// [`load_valid`]).
#[cfg(not(target_arch = "nvptx64"))]
#[inline(always)]
#[track_caller]
pub fn store_valid<T: DeviceCopy, K: Writable, I: crate::device::access::Index>(v: &View<T, K>, i: I, value: T) {
    let i = i.to_index();
    if i >= v.len() {
        return bad_store(*v, i, value);
    }
    // SAFETY: as in `load_valid`; `K: Writable` views point into writable memory.
    unsafe { crate::host::mem::memory::store_relaxed(v.raw_ptr().add(i), value) }
}

/// `t[r][c]` in a region whose indices were proved in bounds (`fission/ranges.rs`; checked
/// here too, see [`load_in_bounds`]).
#[cfg(not(target_arch = "nvptx64"))]
#[inline(always)]
#[track_caller]
pub fn load_row_in_bounds<T: DeviceCopy, const N: usize, K: ViewKind>(t: &View<[T; N], K>, r: usize, c: usize) -> T {
    if r >= t.len() || c >= N {
        proof_failed_row(*t, r, c);
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
pub fn store_row_in_bounds<T: DeviceCopy, const N: usize, K: Writable>(
    t: &View<[T; N], K>,
    r: usize,
    c: usize,
    value: T,
) {
    if r >= t.len() || c >= N {
        proof_failed_row(*t, r, c);
    }
    // SAFETY: as in `load_row_in_bounds`; `K: Writable` views point into writable memory.
    unsafe { crate::host::mem::memory::store_relaxed(t.raw_ptr().add(r).cast::<T>().add(c), value) }
}

/// [`proof_failed`] for element `c` of row `r` of an array of arrays.
#[cfg(not(target_arch = "nvptx64"))]
#[cold]
#[inline(never)]
#[track_caller]
fn proof_failed_row<T, const N: usize, K: ViewKind>(t: View<[T; N], K>, r: usize, c: usize) -> ! {
    if r < t.len() {
        panic!(
            "deviceemu: a fast path's proof failed: element {c} of a row of {N} (a bug in deviceemu; \
             EMU_PATH=general runs the kernel without it)"
        );
    }
    proof_failed(t, r, 1)
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
/// See [`TIER_HOISTED`].
#[cfg(not(target_arch = "nvptx64"))]
pub const TIER_VIEWS: u32 = crate::host::config::Tier::Views.bit();

/// The fewest threads a vectorised barrier region stages (`fission/vector.rs`): below it the
/// staging copies cost more than running the threads one by one.
#[cfg(not(target_arch = "nvptx64"))]
pub const VECTOR_MIN: usize = 16;

/// [`VECTOR_MIN`] for a region that writes in place and stages no store
/// (`Regions::each_chunk_in_place`): with no copies to pay for, its chunk costs less than
/// running the threads one by one from fewer lanes.
#[cfg(not(target_arch = "nvptx64"))]
pub const VECTOR_MIN_IN_PLACE: usize = 8;

/// The run of lanes `lo..hi` of a chunk of `m <= LANE_CHUNK` lanes that `n` lanes passing a
/// condition make, from their count and the sums of their positions `s1` and of their squares
/// `s2` (`fission/rows.rs`); `Some((0, 0))` when none passes, `None` when they are not one run.
/// Of all sets of `n` distinct integers with the sum `s1`, only a run of consecutive ones has
/// the least sum of squares; the run's first lane follows from `s1`.
#[cfg(not(target_arch = "nvptx64"))]
#[inline(always)]
pub fn lane_run(m: usize, n: u32, s1: u32, s2: u32) -> Option<(usize, usize)> {
    let (n, s1, s2) = (n as u64, s1 as u64, s2 as u64);
    if n == 0 {
        return Some((0, 0));
    }
    let below = n * (n - 1) / 2;
    if m > LANE_CHUNK || s1 < below || (s1 - below) % n != 0 {
        return None;
    }
    let lo = (s1 - below) / n;
    let hi = lo + n;
    // The sum of `k * k` for `k` below `x`.
    let squares = |x: u64| if x == 0 { 0 } else { (x - 1) * x * (2 * x - 1) / 6 };
    (hi <= m as u64 && s2 == squares(hi) - squares(lo)).then_some((lo as usize, hi as usize))
}

/// How many consecutive threads a vectorised lane loop stages at a time
/// ([`Regions::each_chunk`]).
#[cfg(not(target_arch = "nvptx64"))]
pub const LANE_CHUNK: usize = 256;

/// How many consecutive threads a lane loop's span form (several blocks at once,
/// [`Regions::each_span_chunk`]) stages at a time: whole blocks of at most [`LANE_CHUNK`]
/// threads, up to this many.
///
/// Larger than [`LANE_CHUNK`]: a chunk's fixed cost (each view's copy set-up, the loop's
/// entry, about 120 instructions) is then spread over more lanes, and a span form streams
/// through consecutive blocks, where L1 holds the larger buffers. saxpy (2^24 elements) ran
/// 2.54 to 2.60 ms a launch with chunks of 256 lanes and 2.28 to 2.39 ms with 512. Block
/// forms keep [`LANE_CHUNK`]: all lane loops at 512 made PolyBench's GEMM and cuda-samples'
/// mergeHistogram256 1.26x and 1.29x slower.
#[cfg(not(target_arch = "nvptx64"))]
pub const SPAN_CHUNK: usize = 512;

/// One view's elements for a chunk of lanes of a vectorised lane loop: lane `k` of the chunk
/// reads and writes its `v[i]` as `get(k)` and `set(k, ..)`, so that the loop over the chunk
/// is plain arithmetic over a local array, which LLVM vectorises. [`lane_load`] fills it from
/// the view; [`lane_store`] writes it back. A row of a lane loop with a loop in its body also
/// keeps each per-lane local in one (`fission/rows.rs`), of any `Copy` type. It starts uninitialised (clearing it would cost
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
impl<T: Copy, const C: usize> LaneBuf<T, C> {
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

    /// The buffer read from element `off` on: a *window* that several read-only access forms
    /// of one view share, whose indices differ by constants (a row of a stencil: `A[i * n + j -
    /// 1]`, `A[i * n + j]` and `A[i * n + j + 1]`; `fission/rows.rs`). The chunk loads the
    /// window once, its lanes plus the largest offset elements from the smallest form's first
    /// index, and lane `k` of the form at offset `off` reads element `k + off`.
    #[inline(always)]
    pub fn at(&self, off: usize) -> LaneAt<'_, T, C> {
        LaneAt { buf: self, off }
    }
}

/// A [`LaneBuf`] read from an offset on ([`LaneBuf::at`]).
#[cfg(not(target_arch = "nvptx64"))]
#[derive(Clone, Copy)]
pub struct LaneAt<'a, T, const C: usize> {
    buf: &'a LaneBuf<T, C>,
    off: usize,
}

#[cfg(not(target_arch = "nvptx64"))]
impl<T, const C: usize> core::fmt::Debug for LaneAt<'_, T, C> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("LaneAt").field("lanes", &C).field("off", &self.off).finish_non_exhaustive()
    }
}

#[cfg(not(target_arch = "nvptx64"))]
impl<T: Copy, const C: usize> LaneAt<'_, T, C> {
    /// Lane `k`'s element: the buffer's element `k + off`.
    ///
    /// # Safety
    ///
    /// As [`LaneBuf::get`], for element `k + off` (checked below `C`; a sum that wraps is
    /// refused too).
    #[inline(always)]
    pub unsafe fn get(&self, k: usize) -> T {
        let at = k.saturating_add(self.off);
        // SAFETY: the caller's contract; `get` checks `at < C`.
        unsafe { self.buf.get(at) }
    }
}

/// A shared array's elements for a chunk of lanes of a vectorised region that only reads them
/// (`fission/vector.rs`): lane `k` reads its element in place, `get(k)`, where a view of
/// global memory is staged in a [`LaneBuf`]. [`lane_src`] makes one for the chunk's range.
///
/// Plain reads of the block's own shared memory cannot race. A view that passed
/// [`lane_src`]'s check points into the arena of the block this host thread runs now: the
/// block's threads all run on this thread (regions run a whole block on its runner), the
/// blocks of its cluster run as one group on the same worker (`launch.rs::run_clusters`),
/// shared views are neither `Send` nor `Sync`, and racecheck's and initcheck's shadows are
/// other memory. So nothing writes the arena while the chunk reads it but the chunk's own
/// stores, staged and written back after its lanes or made in place ([`LaneDst`]); the
/// region's proof shows that no lane reads what another writes.
#[cfg(not(target_arch = "nvptx64"))]
pub struct LaneSrc<T> {
    ptr: *const T,
    len: usize,
}

#[cfg(not(target_arch = "nvptx64"))]
impl<T> core::fmt::Debug for LaneSrc<T> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("LaneSrc").field("len", &self.len).finish_non_exhaustive()
    }
}

#[cfg(not(target_arch = "nvptx64"))]
impl<T: DeviceCopy> LaneSrc<T> {
    /// Lane `k`'s element (`k` below the chunk's length is checked).
    ///
    /// # Safety
    ///
    /// The chunk this was made for is still running: its view's block has not ended. This is
    /// not a proof about values but the shape of the code `#[kernel]` emits: a chunk's lanes
    /// read it right after the chunk made it, and it does not leave the chunk.
    #[inline(always)]
    pub unsafe fn get(&self, k: usize) -> T {
        assert!(k < self.len);
        // SAFETY: `k < len`: inside the range `lane_src` checked against the view, whose
        // arena is alive while its block runs (the caller's contract) and not written
        // meanwhile by anything but this host thread (the type's doc).
        unsafe { self.ptr.add(k).read() }
    }
}

/// `v[start..start + m]` for a chunk of a vectorised region, read in place ([`LaneSrc`]): `v`
/// must be a shared array of the block this host thread runs, aligned, and the range inside
/// it (all checked in every build; a failure is a bug in the proof, which panics).
#[cfg(not(target_arch = "nvptx64"))]
#[inline(always)]
#[track_caller]
pub fn lane_src<T: DeviceCopy, K: ViewKind>(v: &View<T, K>, start: usize, m: usize) -> LaneSrc<T> {
    LaneSrc { ptr: in_place(v, start, m), len: m }
}

/// The first of `v[start..start + m]`, after the checks of a chunk that reads or writes it in
/// place ([`lane_src`], [`lane_dst`]): the range inside the view, which is a shared array of
/// the block this host thread runs, aligned (a failure is a bug in the proof, which panics).
#[cfg(not(target_arch = "nvptx64"))]
#[inline(always)]
#[track_caller]
fn in_place<T: DeviceCopy, K: ViewKind>(v: &View<T, K>, start: usize, m: usize) -> *mut T {
    lane_range(v, start, m, usize::MAX);
    if K::SPACE != crate::device::Space::Shared || !view_aligned(v) {
        proof_failed(*v, start, m);
    }
    // SAFETY: `start + m <= len` (checked above): the offset stays inside the view.
    unsafe { v.raw_ptr().add(start) }
}

/// A shared array's elements for a chunk of lanes of a vectorised region that writes them in
/// place (`fission/vector.rs`): lane `k` reads and writes its element as `get(k)` and
/// `set(k, ..)`, where a view of global memory is staged. [`lane_dst`] makes one for the
/// chunk's range. It is [`LaneSrc`] with stores: the block's shared memory is written by
/// nothing but the host thread that runs the block (see there), and the region's proof shows
/// that no lane reads or writes what another lane writes, so a lane's store in place is seen
/// by no other lane of the region. A region uses it only when every form it stores is a
/// shared array's: a chunk then has no staged stores to lose when one of its lanes panics,
/// and the lane that panicked is known ([`LaneMark`]), so the chunk is not run again.
#[cfg(not(target_arch = "nvptx64"))]
pub struct LaneDst<T> {
    ptr: *mut T,
    len: usize,
}

#[cfg(not(target_arch = "nvptx64"))]
impl<T> core::fmt::Debug for LaneDst<T> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("LaneDst").field("len", &self.len).finish_non_exhaustive()
    }
}

#[cfg(not(target_arch = "nvptx64"))]
impl<T: DeviceCopy> LaneDst<T> {
    /// Lane `k`'s element (`k` below the chunk's length is checked).
    ///
    /// # Safety
    ///
    /// As [`LaneSrc::get`]: the chunk this was made for is still running.
    #[inline(always)]
    pub unsafe fn get(&self, k: usize) -> T {
        assert!(k < self.len);
        // SAFETY: `k < len`: inside the range `lane_dst` checked against the view, whose arena
        // is alive while its block runs (the caller's contract) and touched meanwhile by
        // nothing but this host thread (`LaneSrc`'s doc).
        unsafe { self.ptr.add(k).read() }
    }

    /// Sets lane `k`'s element (`k` below the chunk's length is checked).
    ///
    /// # Safety
    ///
    /// As [`LaneDst::get`].
    #[inline(always)]
    pub unsafe fn set(&self, k: usize, v: T) {
        assert!(k < self.len);
        // SAFETY: as in `get`; the view is writable (`lane_dst` takes `K: Writable`).
        unsafe { self.ptr.add(k).write(v) }
    }
}

/// `v[start..start + m]` for a chunk of a vectorised region, read and written in place
/// ([`LaneDst`]): checked as in [`lane_src`].
#[cfg(not(target_arch = "nvptx64"))]
#[inline(always)]
#[track_caller]
pub fn lane_dst<T: DeviceCopy, K: Writable>(v: &View<T, K>, start: usize, m: usize) -> LaneDst<T> {
    LaneDst { ptr: in_place(v, start, m), len: m }
}

#[cfg(not(target_arch = "nvptx64"))]
thread_local! {
    /// The lane of the chunk that panicked, set by its [`LaneMark`] as the panic unwinds.
    static PANICKED_LANE: core::cell::Cell<Option<usize>> = const { core::cell::Cell::new(None) };
}

/// Says, if lane `k` of a chunk that writes in place panics, which lane it was: made at the
/// start of the lane's code and forgotten ([`LaneMark::done`]) at its end, so that only an
/// unwinding lane drops it. Code that cannot unwind keeps nothing of it.
#[cfg(not(target_arch = "nvptx64"))]
#[derive(Debug)]
pub struct LaneMark(pub usize);

#[cfg(not(target_arch = "nvptx64"))]
impl LaneMark {
    /// The lane's code ended without a panic.
    #[inline(always)]
    pub fn done(self) {
        core::mem::forget(self)
    }
}

#[cfg(not(target_arch = "nvptx64"))]
impl Drop for LaneMark {
    #[cold]
    fn drop(&mut self) {
        PANICKED_LANE.with(|l| l.set(Some(self.0)));
    }
}

/// The lane whose [`LaneMark`] was dropped since the last call, if any.
#[cfg(not(target_arch = "nvptx64"))]
pub(crate) fn panicked_lane() -> Option<usize> {
    PANICKED_LANE.with(|l| l.take())
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
pub fn lane_load<T: DeviceCopy, K: ViewKind, const C: usize>(
    v: &View<T, K>,
    start: usize,
    b: &mut LaneBuf<T, C>,
    m: usize,
) {
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
pub unsafe fn lane_store<T: DeviceCopy, K: Writable, const C: usize>(
    v: &View<T, K>,
    start: usize,
    b: &LaneBuf<T, C>,
    m: usize,
) {
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
        let _ = crate::device::backend::check_index(
            &v,
            start,
            core::mem::size_of::<T>(),
            crate::device::backend::AccessKind::Read,
        );
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

/// What thread `t`'s lowered `reduce_KIND_sync(FULL_MASK, _)` returns (`kind`: `Add`, `Min`,
/// `Max`, `And`, `Or`, `Xor`): `redux.sync` over the values its warp's lanes handed over, as
/// the general path computes it (`warp::redux_words`). (The kernel's own call, kept in its
/// per-thread forms, restricts `and`, `or` and `xor` to `u32`.)
#[cfg(not(target_arch = "nvptx64"))]
#[inline(always)]
pub fn xchg_reduce<T: crate::device::WarpReduce>(x: &Exchange<T>, t: usize, kind: ReduxKind) -> T {
    let op = crate::host::sched::warp::redux_op(kind, T::SIGNED);
    T::from_word(x.reduced(t, op, |v| v.to_word()))
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

/// The exact value of a region-uniform part of an index that fission put together from the
/// index's terms (`fission/vector.rs`, `linear`): `2 * tid - (tid & m) + u - w` is `tid` plus
/// `u - w`, each step computed here without wrapping, `None` where a step does not fit.
#[cfg(not(target_arch = "nvptx64"))]
#[inline(always)]
pub fn lin_add<I: LaneInt>(a: Option<I>, b: Option<I>) -> Option<I> {
    I::add_exact(a?, b?)
}

/// See [`lin_add`].
#[cfg(not(target_arch = "nvptx64"))]
#[inline(always)]
pub fn lin_sub<I: LaneInt>(a: Option<I>, b: Option<I>) -> Option<I> {
    I::sub_exact(a?, b?)
}

/// See [`lin_add`].
#[cfg(not(target_arch = "nvptx64"))]
#[inline(always)]
pub fn lin_mul<I: LaneInt>(a: Option<I>, b: Option<I>) -> Option<I> {
    I::mul_exact(a?, b?)
}

/// See [`lin_add`].
#[cfg(not(target_arch = "nvptx64"))]
#[inline(always)]
pub fn lin_neg<I: LaneInt>(a: Option<I>) -> Option<I> {
    I::neg_exact(a?)
}

/// Whether a uniform part ([`lin_add`]) fits its type: the proof checks it before it reads
/// [`lin_value`].
#[cfg(not(target_arch = "nvptx64"))]
#[inline(always)]
pub fn lin_fits<I: LaneInt>(a: Option<I>) -> bool {
    a.is_some()
}

/// A uniform part's value ([`lin_fits`] said it fits; zero otherwise).
#[cfg(not(target_arch = "nvptx64"))]
#[inline(always)]
pub fn lin_value<I: LaneInt>(a: Option<I>) -> I {
    a.unwrap_or(I::ZERO)
}

/// Whether `t & m == t` for every lane `t < threads`: a region may read `tid & m` as `tid`
/// (cuda-samples' scan: `2 * tid - (tid & (size - 1))` is `tid` when `size` is at least the
/// block's width).
#[cfg(not(target_arch = "nvptx64"))]
#[inline(always)]
pub fn lanes_kept<I: LaneInt>(m: I, threads: usize) -> bool {
    m.keeps(threads)
}

/// Integers [`lane_last`] takes.
#[cfg(not(target_arch = "nvptx64"))]
pub trait LaneInt: Copy {
    /// `self + k`, if it fits.
    fn plus(self, k: usize) -> Option<Self>;
    /// `a + b`, `a - b`, `a * b` and `-a` where each fits ([`lin_add`] and friends).
    fn add_exact(a: Self, b: Self) -> Option<Self>;
    /// See [`LaneInt::add_exact`].
    fn sub_exact(a: Self, b: Self) -> Option<Self>;
    /// See [`LaneInt::add_exact`].
    fn mul_exact(a: Self, b: Self) -> Option<Self>;
    /// See [`LaneInt::add_exact`].
    fn neg_exact(a: Self) -> Option<Self>;
    /// Zero, what [`lin_value`] gives for a value that did not fit (a proof that checked
    /// [`lin_fits`] first never uses it).
    const ZERO: Self;
    /// Whether `t & self == t` for every lane `t < threads` ([`lanes_kept`]).
    fn keeps(self, threads: usize) -> bool;
}

#[cfg(not(target_arch = "nvptx64"))]
macro_rules! lane_int_impls {
    ($($t:ty),*) => {
        $(impl LaneInt for $t {
            #[inline(always)]
            fn plus(self, k: usize) -> Option<Self> {
                self.checked_add(<$t>::try_from(k).ok()?)
            }
            #[inline(always)]
            fn add_exact(a: Self, b: Self) -> Option<Self> {
                a.checked_add(b)
            }
            #[inline(always)]
            fn sub_exact(a: Self, b: Self) -> Option<Self> {
                a.checked_sub(b)
            }
            #[inline(always)]
            fn mul_exact(a: Self, b: Self) -> Option<Self> {
                a.checked_mul(b)
            }
            #[inline(always)]
            fn neg_exact(a: Self) -> Option<Self> {
                a.checked_neg()
            }
            const ZERO: Self = 0;
            #[inline(always)]
            fn keeps(self, threads: usize) -> bool {
                // The bits of the lanes `0..threads`: every bit below the highest of
                // `threads - 1` (each is set in some lane, a power of two below `threads`).
                // A negative mask is sign-extended, as `t & m` extends it.
                let Some(last) = threads.checked_sub(1) else { return true };
                let need = usize::MAX.checked_shr(last.leading_zeros()).unwrap_or(0);
                crate::device::access::Index::to_index(self) & need == need
            }
        })*
    };
}
#[cfg(not(target_arch = "nvptx64"))]
lane_int_impls!(u16, u32, u64, u128, usize, i16, i32, i64, i128, isize);

#[cfg(all(test, not(target_arch = "nvptx64")))]
mod tests {
    //! The fast paths' accessors do not trust the proofs that chose them: an index outside the
    //! view is caught in every build (these tests also run in release builds), never a raw
    //! access past the memory.

    use super::*;
    use crate::device::ReadWrite;
    use std::panic::{catch_unwind, AssertUnwindSafe};

    #[test]
    fn a_mask_keeps_the_lanes_whose_bits_it_has() {
        // Exhaustive against the definition for small widths and masks, of both signs (fewer
        // under miri, where CI runs these tests for the unsafe code beside them).
        let (widths, masks) = if cfg!(miri) { (20usize, -20i32..=40) } else { (70, -70..=300) };
        for threads in 0..=widths {
            for m in masks.clone() {
                let want = (0..threads as i32).all(|t| t & m == t);
                assert_eq!(lanes_kept(m, threads), want, "m {m}, {threads} threads");
                if m >= 0 {
                    assert_eq!(lanes_kept(m as u32, threads), want, "m {m} as u32, {threads} threads");
                }
            }
        }
        assert!(lanes_kept(u64::MAX, usize::MAX) && !lanes_kept(u64::MAX >> 1, usize::MAX));
        assert!(lanes_kept(-1i16, 1024) && lanes_kept(255u16, 256) && !lanes_kept(255u16, 257));
    }

    #[test]
    fn a_uniform_part_is_exact_or_does_not_fit() {
        assert_eq!(lin_sub(Some(256u32), Some(4)), Some(252));
        assert_eq!(lin_sub(Some(4u32), Some(256)), None);
        assert_eq!(lin_add(lin_neg(Some(5i32)), Some(7)), Some(2));
        assert_eq!(lin_neg(Some(5u32)), None);
        assert_eq!(lin_neg(Some(0u32)), Some(0));
        assert_eq!(lin_mul(Some(u32::MAX / 2 + 1), Some(2)), None);
        assert_eq!(lin_add(lin_sub(Some(1u16), Some(2)), Some(5)), None);
        assert!(lin_fits(Some(3i64)) && !lin_fits::<i64>(None));
        assert_eq!(lin_value::<u16>(None), 0);
    }

    #[test]
    fn lane_run_finds_a_run_of_lanes_and_only_a_run() {
        // Every set of lanes of a chunk of `m` lanes, for the small `m`s: `Some((lo, hi))`
        // exactly when the set is `lo..hi` (fewer under miri, where CI runs this too).
        for m in 0..=if cfg!(miri) { 7 } else { 12 } {
            for set in 0u32..(1 << m) {
                let lanes: Vec<u32> = (0..m as u32).filter(|k| set >> k & 1 == 1).collect();
                let (n, s1, s2) = (lanes.len() as u32, lanes.iter().sum(), lanes.iter().map(|k| k * k).sum());
                let want = match (lanes.first(), lanes.last()) {
                    (None, _) | (_, None) => Some((0, 0)),
                    (Some(&lo), Some(&hi)) if hi - lo + 1 == n => Some((lo as usize, hi as usize + 1)),
                    _ => None,
                };
                assert_eq!(lane_run(m, n, s1, s2), want, "lanes {lanes:?} of {m}");
            }
        }
        // The widest chunk: its runs, and sets beside them with the same count and sum.
        let m = LANE_CHUNK;
        let sums = |l: &[u32]| (l.len() as u32, l.iter().sum::<u32>(), l.iter().map(|k| k * k).sum::<u32>());
        let run: Vec<u32> = (3..m as u32).collect();
        let (n, s1, s2) = sums(&run);
        assert_eq!(lane_run(m, n, s1, s2), Some((3, m)));
        // 3..=100 with 4 moved to 2 and 99 to 101: the same count and sum, not a run.
        let run: Vec<u32> = (3..=100).collect();
        let apart: Vec<u32> = run
            .iter()
            .map(|&k| {
                if k == 4 {
                    2
                } else if k == 99 {
                    101
                } else {
                    k
                }
            })
            .collect();
        let ((n, s1, s2), (n2, s12, s22)) = (sums(&run), sums(&apart));
        assert_eq!((n, s1), (n2, s12));
        assert_eq!(lane_run(m, n, s1, s2), Some((3, 101)));
        assert_eq!(lane_run(m, n2, s12, s22), None);
        // More lanes than a chunk has.
        assert_eq!(lane_run(m + 1, 1, 0, 0), None);
    }

    #[test]
    fn a_scaled_bound_is_exact_where_no_product_passes_i32_max_and_every_thread_otherwise() {
        // ceil(bound / k): thread t passes `k * t < bound` exactly when t < ceil(bound / k).
        for (k, bound) in [(1u32, 256u32), (2, 256), (2, 255), (4, 256), (512, 256), (3, 10), (7, 0)] {
            let b = region_bound_scaled(k, bound);
            for t in 0..1024usize {
                assert_eq!(t < b, (k as usize * t) < bound as usize, "k {k} bound {bound} thread {t}");
            }
        }
        // A negative bound passes no thread; a zero or negative k every thread.
        assert_eq!(region_bound_scaled(2i32, -5i32), 0);
        assert_eq!(region_bound_scaled(0u32, 10u32), usize::MAX);
        assert_eq!(region_bound_scaled(-2i32, 10i32), usize::MAX);
        // 1023 * k must be at most i32::MAX.
        let largest = i32::MAX as u64 / 1023;
        assert_eq!(region_bound_scaled(largest, 10u64), 1);
        assert_eq!(region_bound_scaled(largest + 1, 10u64), usize::MAX);
        assert_eq!(region_bound_scaled(1u64 << 40, 10u64), usize::MAX);
    }

    fn message(r: std::thread::Result<()>) -> String {
        let e = r.expect_err("the access panics");
        e.downcast_ref::<String>()
            .cloned()
            .or_else(|| e.downcast_ref::<&str>().map(|s| s.to_string()))
            .unwrap_or_default()
    }

    fn view(v: &mut [u32]) -> View<'_, u32, ReadWrite> {
        // SAFETY: the view covers `v`, which outlives it; nothing else touches `v` meanwhile.
        unsafe { View::from_raw_parts(v.as_mut_ptr(), v.len(), core::ptr::null()) }
    }

    #[test]
    fn a_proved_access_out_of_bounds_panics() {
        let mut mem = vec![7u32; 16];
        let v = view(&mut mem);
        assert_eq!(load_in_bounds(&v, 3), 7);
        store_in_bounds(&v, 3, 9);
        assert_eq!(load_in_bounds(&v, 3), 9);
        // A failed proof is a bug in deviceemu: a panic naming the index, no access.
        let m = message(catch_unwind(AssertUnwindSafe(|| {
            load_in_bounds(&v, 1000);
        })));
        assert!(m.contains("a fast path's proof failed: elements 1000..1001 of a view of 16"), "{m}");
        let m = message(catch_unwind(AssertUnwindSafe(|| store_in_bounds(&v, 16, 1))));
        assert!(m.contains("proof failed: elements 16..17"), "{m}");
        assert!(mem.iter().all(|&x| x == 7 || x == 9));
    }

    #[test]
    fn a_proved_row_access_out_of_bounds_panics() {
        let mut mem = [[1u32; 4]; 3];
        // SAFETY: as in `view`.
        let t: View<'_, [u32; 4], ReadWrite> = unsafe { View::from_raw_parts(mem.as_mut_ptr(), 3, core::ptr::null()) };
        assert_eq!(load_row_in_bounds(&t, 2, 3), 1);
        let m = message(catch_unwind(AssertUnwindSafe(|| store_row_in_bounds(&t, 3, 0, 5))));
        assert!(m.contains("proof failed: elements 3..4 of a view of 3"), "{m}");
        let m = message(catch_unwind(AssertUnwindSafe(|| {
            load_row_in_bounds(&t, 0, 4);
        })));
        assert!(m.contains("proof failed: element 4 of a row of 4"), "{m}");
        assert_eq!(mem, [[1u32; 4]; 3]);
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

    /// `lane_src` reads a shared array in place, and refuses a range outside it, a lane past
    /// the chunk, and a view of global memory (run under miri in CI).
    #[test]
    fn a_chunk_read_in_place_stays_in_its_shared_array() {
        use crate::device::SharedMem;
        let mut mem: Vec<u32> = (0..100).collect();
        // SAFETY: `mem` holds 100 aligned words and outlives the view; the test touches it only
        // through the view and the sources made from it.
        let v = unsafe { View::<u32, SharedMem>::from_raw_parts(mem.as_mut_ptr(), 100, std::ptr::null()) };
        let src = lane_src(&v, 36, 64);
        // SAFETY: the view's memory is alive for the whole test.
        assert_eq!((0..64).map(|k| unsafe { src.get(k) }).sum::<u32>(), (36..100).sum::<u32>());
        // SAFETY: as above.
        let m = message(catch_unwind(AssertUnwindSafe(|| {
            unsafe { src.get(64) };
        })));
        assert!(m.contains("assertion failed"), "{m}");
        let m = message(catch_unwind(AssertUnwindSafe(|| {
            let _ = lane_src(&v, 37, 64);
        })));
        assert!(m.contains("a fast path's proof failed: elements 37..101 of a view of 100"), "{m}");
        let mut global = vec![1u32; 8];
        let g = view(&mut global);
        let m = message(catch_unwind(AssertUnwindSafe(|| {
            let _ = lane_src(&g, 0, 8);
        })));
        assert!(m.contains("proof failed"), "{m}");
    }

    /// `lane_dst` reads and writes a shared array in place, and refuses a range outside it, a
    /// lane past the chunk and a view of global memory; a lane's mark says which lane
    /// panicked, and nothing when none did (run under miri in CI).
    #[test]
    fn a_chunk_written_in_place_stays_in_its_shared_array_and_marks_its_lanes() {
        use crate::device::SharedMem;
        let mut mem: Vec<u32> = (0..100).collect();
        // SAFETY: `mem` holds 100 aligned words and outlives the view; the test touches it only
        // through the view and what is made from it.
        let v = unsafe { View::<u32, SharedMem>::from_raw_parts(mem.as_mut_ptr(), 100, std::ptr::null()) };
        let src = lane_src(&v, 50, 50);
        let dst = lane_dst(&v, 0, 50);
        for k in 0..50 {
            let mark = LaneMark(k);
            // SAFETY: the view's memory is alive for the whole test.
            unsafe { dst.set(k, dst.get(k) + src.get(k)) };
            mark.done();
        }
        assert_eq!(panicked_lane(), None);
        // SAFETY: as above.
        let m = message(catch_unwind(AssertUnwindSafe(|| unsafe { dst.set(50, 0) })));
        assert!(m.contains("assertion failed"), "{m}");
        let m = message(catch_unwind(AssertUnwindSafe(|| {
            let _ = lane_dst(&v, 51, 50);
        })));
        assert!(m.contains("a fast path's proof failed: elements 51..101 of a view of 100"), "{m}");
        let mut global = vec![1u32; 8];
        let g = view(&mut global);
        let m = message(catch_unwind(AssertUnwindSafe(|| {
            let _ = lane_dst(&g, 0, 8);
        })));
        assert!(m.contains("proof failed"), "{m}");
        // Lane 7 of a chunk panics after its store: the lanes before it and its own store stay.
        let r = catch_unwind(AssertUnwindSafe(|| {
            for k in 0..10 {
                let mark = LaneMark(k);
                // SAFETY: as above.
                unsafe { dst.set(k, 1) };
                assert!(k != 7, "lane {k} gives up");
                mark.done();
            }
        }));
        assert!(r.is_err());
        assert_eq!(panicked_lane(), Some(7));
        assert_eq!(panicked_lane(), None);
        let want: Vec<u32> = (0..100)
            .map(|i| {
                if i < 8 {
                    1
                } else if i < 50 {
                    2 * i + 50
                } else {
                    i
                }
            })
            .collect();
        assert_eq!(mem, want);
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

    /// `__private::Snapshot` copies a view (rows of arrays too) and reads it back with its
    /// unchecked loads; a misaligned view gives an empty copy (run under miri in CI).
    #[test]
    fn snapshots_copy_views_and_refuse_misaligned_ones() {
        use crate::device::{SharedMem, View};
        let mut rows: Vec<[f32; 4]> = (0..5).map(|r| [r as f32, r as f32 + 0.5, -(r as f32), 9.0]).collect();
        // SAFETY: `rows` holds 5 aligned rows and outlives the view; nothing else touches it.
        let v = unsafe { View::<[f32; 4], SharedMem>::from_raw_parts(rows.as_mut_ptr(), 5, std::ptr::null()) };
        let s = Snapshot::of(&v);
        assert_eq!(s.len(), 5);
        for (r, row) in rows.iter().enumerate() {
            for (c, &x) in row.iter().enumerate() {
                // SAFETY: `r < 5 = s.len()`, `c < 4`.
                assert_eq!(s.load_row(r, c).to_bits(), x.to_bits());
            }
        }
        let mut words = vec![0u32; 9];
        words.iter_mut().enumerate().for_each(|(i, w)| *w = i as u32 * 3);
        // SAFETY: as above, 9 aligned words.
        let w = unsafe { View::<u32, SharedMem>::from_raw_parts(words.as_mut_ptr(), 9, std::ptr::null()) };
        let s = Snapshot::of(&w);
        // SAFETY: `i < 9 = s.len()`.
        assert!((0..9).all(|i| s.load(i) == i as u32 * 3));
        // One byte past an aligned `u32`: misaligned; the copy reads nothing.
        // SAFETY: the pointer is in the allocation, the view is never accessed (its length is
        // taken, and `Snapshot::of` checks alignment before reading).
        let odd = unsafe {
            View::<u32, SharedMem>::from_raw_parts(
                words.as_mut_ptr().cast::<u8>().add(1).cast::<u32>(),
                4,
                std::ptr::null(),
            )
        };
        assert!(Snapshot::of(&odd).is_empty());
    }

    #[test]
    fn a_proved_regions_guard_takes_only_the_running_blocks_views() {
        use crate::host::mem::shared_mem::SharedArena;
        use crate::host::mem::stamp::Running;
        let a = SharedArena::new(64, 1024).unwrap();
        let v = a.dynamic::<u32>();
        assert!(!view_aligned(&v), "no block runs on this thread");
        {
            let _running = Running::enter(a.stamp());
            assert!(view_aligned(&v), "the running block's own view");
            let other = SharedArena::new(64, 1024).unwrap();
            assert!(!view_aligned(&other.dynamic::<u32>()), "another arena's view takes the checked accesses");
        }
        a.new_block();
        let _running = Running::enter(a.stamp());
        assert!(!view_aligned(&v), "a view of the block before is refused");
        assert!(view_aligned(&a.dynamic::<u32>()));
    }
}

/// Whether the chunks of a vectorised region run through [`run_wide`]: on x86-64 CPUs with
/// AVX2 (a cached test), outside miri.
#[cfg(not(target_arch = "nvptx64"))]
#[inline(always)]
pub(crate) fn wide_lanes() -> bool {
    #[cfg(all(target_arch = "x86_64", not(miri)))]
    return std::arch::is_x86_feature_detected!("avx2");
    #[cfg(not(all(target_arch = "x86_64", not(miri))))]
    return false;
}

/// Runs one chunk of a vectorised region, `vector(cursor, c0, m)`, compiled for AVX2: the
/// chunk's loop over its lanes, inlined here, vectorises eight 32-bit lanes wide instead of
/// the baseline's four. The results are the same bits: Rust contracts no `a * b + c` into a
/// fused multiply-add, and the lanes' arithmetic is the baseline's, element by element.
///
/// # Safety
///
/// The CPU has AVX2 ([`wide_lanes`]; elsewhere, where it is compiled without, nothing).
#[cfg_attr(all(target_arch = "x86_64", not(miri)), target_feature(enable = "avx2"))]
pub(crate) unsafe fn run_wide<V: FnMut(&LaneCursor, usize, usize)>(
    vector: &mut V,
    cursor: &LaneCursor,
    c0: usize,
    m: usize,
) {
    vector(cursor, c0, m)
}

/// [`run_wide`] for a run of chunks (`Regions::each_row_chunk`): `batch()`, inlined here and
/// compiled for AVX2.
///
/// # Safety
///
/// The CPU has AVX2 ([`wide_lanes`]; elsewhere, where it is compiled without, nothing).
#[cfg_attr(all(target_arch = "x86_64", not(miri)), target_feature(enable = "avx2"))]
pub(crate) unsafe fn run_wide_batch<B: FnMut() -> bool>(batch: &mut B) -> bool {
    batch()
}
