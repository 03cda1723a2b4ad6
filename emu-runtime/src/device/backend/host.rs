//! Host backend of the device API: every call goes to the emulator in `crate::host`.
//!
//! ```text
//!  kernel code ──► device::{thread_idx, sync_threads, View::load, ...}
//!                     │
//!                     ▼
//!  this file ──► host::sched::context (thread-local indices of the running GPU thread)
//!            ──► host::sched::block   (barriers suspend the thread's fiber)
//!            ──► host::mem::memory    (relaxed atomic loads/stores)
//!            ──► host::sched::hooks   (bounds reports, checked accesses, shared arrays)
//!            ──► host::mem::atomic    (atomics as relaxed std atomics; ordered loads and stores
//!                                 with their std orderings)
//! ```

use core::panic::Location;

use super::{BarrierOp, ReduxKind, ShflMode, TileOp, VoteOp};
use crate::device::copy::DeviceCopy;
use crate::device::dim::Dim3;
use crate::device::view::{Shared, View, ViewKind, Writable};
use crate::device::SymbolDef;
use crate::host::mem::{memory, shared_mem};
use crate::host::sched::warp::WarpOp;
use crate::host::sched::{block, context, hooks, warp};

pub(crate) use crate::host::check::view_meta::MetaPtr;
pub(crate) use crate::host::report::Access as AccessKind;

#[inline(always)]
pub(crate) fn thread_idx() -> Dim3 {
    context::thread_idx()
}

#[inline(always)]
pub(crate) fn block_idx() -> Dim3 {
    context::block_idx()
}

#[inline(always)]
pub(crate) fn block_dim() -> Dim3 {
    context::block_dim()
}

#[inline(always)]
pub(crate) fn grid_dim() -> Dim3 {
    context::grid_dim()
}

#[inline(always)]
#[track_caller]
pub(crate) fn barrier(op: BarrierOp, predicate: bool) -> u32 {
    block::barrier(op, predicate, Location::caller())
}

/// `this_grid().sync()` on the host: the block's barrier, then the wait for the other blocks
/// (`sched/block.rs`, `sched/launch.rs::run_cooperative`).
#[inline(always)]
#[track_caller]
pub(crate) fn grid_sync() {
    block::barrier(BarrierOp::Grid, false, Location::caller());
}

/// `this_cluster().sync()` on the host: the block's barrier, then the wait for the other blocks
/// of its cluster (`sched/launch.rs::run_group`).
#[inline(always)]
#[track_caller]
pub(crate) fn cluster_sync() {
    hooks::on_cluster_sync();
    block::barrier(BarrierOp::Cluster, false, Location::caller());
}

/// The running kernel's cluster shape (`(1, 1, 1)` without clusters).
#[inline(always)]
pub(crate) fn cluster_dim() -> Dim3 {
    context::block_for("this_cluster").launch().kernel.cluster_dim()
}

/// `cluster.map_shared_rank(view, rank)` on the host.
#[inline(always)]
#[track_caller]
pub(crate) fn map_shared_rank<'a, T: DeviceCopy>(
    view: &View<'a, T, crate::device::SharedMem>,
    rank: u32,
) -> View<'a, T, crate::device::SharedMem> {
    block::map_shared_rank(view, rank, Location::caller())
}

#[inline(always)]
pub(crate) fn warp_size() -> u32 {
    warp::warp_size()
}

#[inline(always)]
pub(crate) fn lane_id() -> u32 {
    warp::lane_id()
}

#[inline(always)]
#[track_caller]
pub(crate) fn active_mask() -> u32 {
    warp::active_mask()
}

#[inline(always)]
#[track_caller]
pub(crate) fn warp_sync(mask: u32) {
    warp::collective(WarpOp::Sync, mask, 0, 0, Location::caller());
}

#[inline(always)]
#[track_caller]
pub(crate) fn warp_vote(op: VoteOp, mask: u32, predicate: bool) -> u32 {
    warp::collective(WarpOp::Vote(op), mask, predicate as u64, 0, Location::caller()) as u32
}

/// A shuffle of `bits` (the value zero-extended; `_wide` matters only on the GPU, where a
/// 64-bit value takes two 32-bit shuffles) within segments of `width` lanes.
#[inline(always)]
#[track_caller]
pub(crate) fn warp_shfl(mode: ShflMode, mask: u32, bits: u64, _wide: bool, lane_arg: u32, width: u32) -> u64 {
    warp::collective(WarpOp::Shfl(mode), mask, bits, warp::shfl_arg(mode, lane_arg, width), Location::caller())
}

/// The barrier words of the block's multi-warp tiles, one per tile size (64 to 1024), as CUDA
/// keeps them in shared memory. The scheduler decides when a tile collective completes; these
/// words carry its memory ordering to racecheck the way CUDA's barrier does (`tile_collective`).
#[inline(always)]
fn tile_barrier() -> Shared<'static, u32> {
    static SITE: shared_mem::SharedSite = shared_mem::SharedSite::named("cg tile barrier", file!(), line!(), column!());
    shared_array::<u32, 5>(&SITE)
}

/// A collective of a multi-warp tile of `warps` warps (`cg::ThreadBlockTile<N>`, `N >= 64`):
/// `bits` is the lane's value (a predicate is 0 or 1), `src` a shuffle's source rank. Every
/// lane of the tile's warps takes part (the scheduler's tile barrier, `sched/warp.rs`).
///
/// Around it, each thread does what CUDA's `sync_warps` does to the tile's barrier word,
/// for racecheck: a block fence and an atomic read-modify-write on arrival (releasing what it
/// did before), an acquire load once the collective completed (after every thread's arrival),
/// so that the tile's accesses before the collective happen before its accesses after it.
#[inline(always)]
#[track_caller]
pub(crate) fn tile_collective(op: TileOp, warps: u32, bits: u64, _wide: bool, src: u32) -> u64 {
    let bar = tile_barrier();
    let k = (warps.max(2) / 2).trailing_zeros() as usize;
    crate::device::thread_fence_block();
    bar.atomic_add(k, 1);
    let r = warp::collective(WarpOp::Tile(op), u32::MAX, bits, warps << 16 | (src & 0xffff), Location::caller());
    bar.atomic_load(k, core::sync::atomic::Ordering::Acquire);
    r
}

/// The tile barrier's reset before a multi-warp tile is made (and before the block barrier
/// that follows): its word is written, so that initcheck sees it initialised.
#[inline(always)]
pub(crate) fn tile_reset(warps: u32) {
    let k = (warps.max(2) / 2).trailing_zeros() as usize;
    tile_barrier().atomic_store(k, 0, core::sync::atomic::Ordering::Relaxed);
}

/// A warp reduction of `value` (`signed` picks the signed min and max).
#[inline(always)]
#[track_caller]
pub(crate) fn warp_redux(kind: ReduxKind, signed: bool, mask: u32, value: u32) -> u32 {
    warp::collective(WarpOp::Redux(warp::redux_op(kind, signed)), mask, value as u64, 0, Location::caller()) as u32
}

/// `match_any_sync` (`all` false: the matching lanes, and `true`) or `match_all_sync` (the
/// mask and `true` when all lanes agree, else `(0, false)`).
#[inline(always)]
#[track_caller]
pub(crate) fn warp_match(all: bool, mask: u32, bits: u64, _wide: bool) -> (u32, bool) {
    let op = if all { WarpOp::MatchAll } else { WarpOp::MatchAny };
    let r = warp::collective(op, mask, bits, 0, Location::caller()) as u32;
    (r, !all || r != 0)
}

#[inline(always)]
pub(crate) fn fence_device() {
    hooks::on_fence(crate::device::Scope::Device);
    core::sync::atomic::fence(core::sync::atomic::Ordering::SeqCst);
}

#[inline(always)]
pub(crate) fn fence_block() {
    hooks::on_fence(crate::device::Scope::Block);
    // A block's threads run one at a time on one host thread: program order already orders
    // their accesses. A compiler fence keeps the optimiser from moving accesses across it.
    core::sync::atomic::compiler_fence(core::sync::atomic::Ordering::SeqCst);
}

#[inline(always)]
#[track_caller]
/// Whether element `i` is in bounds. An index out of bounds is reported (memcheck): the
/// caller must then skip the access, and a load gives zero bits.
#[must_use]
pub(crate) fn check_index<T, K: ViewKind>(view: &View<T, K>, i: usize, elem_size: usize, access: AccessKind) -> bool {
    // A view of shared memory kept past its block (`host/mem/stamp.rs`).
    if !view.is_live() {
        hooks::stale(view, i, elem_size, access, Location::caller());
        return false;
    }
    // Only a cast view (`View::cast`) can start misaligned; the test is loop-invariant.
    if !view.is_aligned() {
        hooks::misaligned(view.meta(), K::SPACE, access, elem_size, i, view.raw_ptr() as usize, Location::caller());
    }
    if i >= view.len() {
        // Scalars, not `view` itself: a reference would keep the view in memory on the hot path.
        hooks::out_of_bounds::<K>(
            view.meta(),
            view.raw_ptr() as usize,
            view.len(),
            i,
            elem_size,
            elem_size,
            access,
            Location::caller(),
        );
        return false;
    }
    true
}

/// The check of row `i` of an array of arrays (`t[i]` in `t[i][j]`, a view of rows): a bad
/// `i` is reported as an `access` of one `elem_size`-byte element at the start of row `i`.
#[inline(always)]
#[track_caller]
#[must_use]
pub(crate) fn check_row<T, K: ViewKind>(view: &View<T, K>, i: usize, elem_size: usize, access: AccessKind) -> bool {
    if !view.is_live() {
        hooks::stale(view, i, elem_size, access, Location::caller());
        return false;
    }
    if i >= view.len() {
        hooks::out_of_bounds::<K>(
            view.meta(),
            view.raw_ptr() as usize,
            view.len(),
            i,
            elem_size,
            core::mem::size_of::<T>(),
            access,
            Location::caller(),
        );
        return false;
    }
    true
}

/// The check of a sub-view `start..end` of `view` (`View::slice`): a range past the end is
/// reported as an access of the first element past the view (or of `start`, for a start past
/// the end), a start past the end of the range as an access of element `start`.
#[inline(always)]
#[track_caller]
#[must_use]
pub(crate) fn check_slice<T, K: ViewKind>(view: &View<T, K>, start: usize, end: usize) -> bool {
    if start <= end && end <= view.len() {
        return true;
    }
    let first_bad = if end > view.len() { start.max(view.len()) } else { start };
    // A stale view is reported as stale, a live one as out of bounds.
    let _ = check_index(view, first_bad, core::mem::size_of::<T>(), AccessKind::Read);
    false
}

/// The atomic read-modify-write `op` on element `i` (in bounds), with the checkers' look at it
/// when the launch checks (`hooks::on_atomic`).
#[inline(always)]
#[track_caller]
pub(crate) fn atomic<T, K: ViewKind, R>(view: &View<T, K>, i: usize, op: impl FnOnce() -> R) -> R {
    hooks::on_atomic(view, i, Location::caller(), op)
}

/// The ordered or volatile load or store `op` of element `i` (in bounds), with the checkers'
/// look at it when the launch checks (`hooks::on_ordered`).
#[inline(always)]
#[track_caller]
pub(crate) fn ordered<T, K: ViewKind, R>(
    view: &View<T, K>,
    i: usize,
    access: crate::device::Ordered,
    op: impl FnOnce() -> R,
) -> R {
    hooks::on_ordered(view, i, access, Location::caller(), op)
}

#[inline(always)]
#[track_caller]
pub(crate) fn load<T: DeviceCopy, K: ViewKind>(view: &View<T, K>, i: usize) -> T {
    if !check_index(view, i, core::mem::size_of::<T>(), AccessKind::Read) {
        return crate::device::copy::zero();
    }
    // SAFETY: `i < len`, and a view's pointer is valid for `len` elements while it is in use
    // (the invariant of `View::from_raw_parts`).
    unsafe { memory::load_relaxed(view.raw_ptr().add(i)) }
}

#[inline(always)]
#[track_caller]
pub(crate) fn store<T: DeviceCopy, K: Writable>(view: &View<T, K>, i: usize, value: T) {
    if !check_index(view, i, core::mem::size_of::<T>(), AccessKind::Write) {
        return;
    }
    // SAFETY: as in `load`; `K: Writable` views point into writable memory.
    unsafe { memory::store_relaxed(view.raw_ptr().add(i), value) }
}

/// A load of the `F` at byte `off` of element `i` of `view` (`v[i].x`, `__private::Part`): the
/// element's index is checked as for [`load`] (a bad one is reported as an access of the part's
/// size, and the load gives zero bits).
///
/// # Safety
///
/// `[off, off + size_of::<F>())` lies inside a `T` and is where a part of type `F` of every `T`
/// is (a field, or an element of an array field): then `F` has no padding of its own (`T` has
/// none) and the bits it finds are valid.
#[inline(always)]
#[track_caller]
pub(crate) unsafe fn load_part<T: DeviceCopy, F: Copy, K: ViewKind>(view: &View<T, K>, i: usize, off: usize) -> F {
    if !check_index(view, i, core::mem::size_of::<F>(), AccessKind::Read) {
        // SAFETY: the all-zero `T` is valid (`DeviceCopy`), so its part is a valid `F`.
        return unsafe { core::mem::zeroed() };
    }
    // SAFETY: `i < len`, so element `i` is valid for reads (the view's invariant) and the part
    // lies inside it, aligned for `F` (the element is aligned for `T`, and the part's offset is
    // the offset of an `F` inside a `T`); the part has no padding (the caller's contract).
    unsafe { memory::load_relaxed((view.raw_ptr().add(i) as *const u8).add(off) as *const F) }
}

/// A store of the `F` at byte `off` of element `i` of `view` (`v[i].x = value`).
///
/// # Safety
///
/// As [`load_part`].
#[inline(always)]
#[track_caller]
pub(crate) unsafe fn store_part<T: DeviceCopy, F: Copy, K: Writable>(
    view: &View<T, K>,
    i: usize,
    off: usize,
    value: F,
) {
    if !check_index(view, i, core::mem::size_of::<F>(), AccessKind::Write) {
        return;
    }
    // SAFETY: as in `load_part`; `K: Writable` views point into writable memory.
    unsafe { memory::store_relaxed((view.raw_ptr().add(i) as *mut u8).add(off) as *mut F, value) }
}

#[inline(always)]
#[track_caller]
pub(crate) fn shared_array<T: DeviceCopy, const N: usize>(site: &'static shared_mem::SharedSite) -> Shared<'static, T> {
    hooks::static_array::<T>(site, N)
}

#[inline(always)]
#[track_caller]
pub(crate) fn dynamic_shared<T: DeviceCopy>() -> Shared<'static, T> {
    hooks::dynamic::<T>()
}

// `atomic_add` on `f16`, `bf16` and their pairs: a compare-and-swap loop on the element's
// atomic word, each 16-bit lane added as `atom.add.noftz` does (`intrinsics::atom_add_lane`).
macro_rules! half_atomic_add {
    ($t:ty, $atomic:ty, $bits:ty, $bf:expr, |$v:ident| $to:expr, |$w:ident| $from:expr) => {
        impl super::AtomicAddImpl for $t {
            #[inline(always)]
            unsafe fn atomic_add_raw(p: *mut Self, v: Self, space: crate::device::Space) -> Self {
                let add = |old: $bits| -> $bits {
                    let $v = v;
                    let b: $bits = $to;
                    let mut r: $bits = 0;
                    let mut k = 0;
                    while k < core::mem::size_of::<$bits>() / 2 {
                        let (x, y) = ((old >> (16 * k)) as u16, (b >> (16 * k)) as u16);
                        r |= (crate::device::intrinsics::atom_add_lane($bf, x, y) as $bits) << (16 * k);
                        k += 1;
                    }
                    r
                };
                let old = crate::host::mem::atomic::rmw!($atomic, p, space, |o| add(o), {
                    // SAFETY: the element has the size and alignment of the atomic word
                    // (asserted where the types are defined) and is valid per the contract.
                    let a = unsafe { &*(p as *const $atomic) };
                    a.fetch_update(core::sync::atomic::Ordering::Relaxed, core::sync::atomic::Ordering::Relaxed, |o| {
                        Some(add(o))
                    })
                    .unwrap_or_else(|o| o)
                });
                let $w = old;
                $from
            }
        }
    };
}
half_atomic_add!(half::f16, core::sync::atomic::AtomicU16, u16, false, |v| v.to_bits(), |w| half::f16::from_bits(w));
half_atomic_add!(half::bf16, core::sync::atomic::AtomicU16, u16, true, |v| v.to_bits(), |w| half::bf16::from_bits(w));
half_atomic_add!(crate::device::intrinsics::Half2, core::sync::atomic::AtomicU32, u32, false, |v| v.to_bits(), |w| {
    crate::device::intrinsics::Half2::from_bits(w)
});
half_atomic_add!(
    crate::device::intrinsics::Bfloat162,
    core::sync::atomic::AtomicU32,
    u32,
    true,
    |v| v.to_bits(),
    |w| crate::device::intrinsics::Bfloat162::from_bits(w)
);

/// The running GPU thread and its block, when kernel code calls (for the heap's reports).
fn heap_caller() -> Option<(Dim3, Dim3)> {
    context::current().map(|_| (context::thread_idx(), context::block_idx()))
}

/// `device_malloc` on the host: a block of the emulator's heap (`host::mem::heap`).
#[inline]
pub(crate) fn heap_alloc(bytes: usize, align: usize, at: &'static Location<'static>) -> Option<(u64, u64)> {
    crate::host::mem::heap::alloc(bytes, align, at, heap_caller())
}

/// `device_free` on the host.
#[inline]
pub(crate) fn heap_free(addr: u64, id: u64, at: &'static Location<'static>) {
    crate::host::mem::heap::free(addr, id, at, heap_caller())
}

/// The description of the live heap block at `addr` (null for null); a use after free, or an
/// address that is no block, panics with the sites.
#[inline]
pub(crate) fn heap_meta(addr: u64, id: u64, at: &'static Location<'static>) -> MetaPtr {
    if addr == 0 {
        return std::ptr::null();
    }
    crate::host::mem::heap::meta(addr, id, at, heap_caller())
}

// The host side of the device API's statics, textures and checked accesses: device/ reaches
// the host engine only through this file (ARCHITECTURE.md, "The crates and the host engine's
// folders").

pub(crate) use crate::host::check::view_meta::StaticMeta;
pub(crate) use crate::host::mem::memory::{load_relaxed, store_relaxed};
#[cfg(feature = "gpu")]
pub(crate) use crate::host::report::error::Error;
pub(crate) use crate::host::sched::hooks::{on_load, on_store};

/// Whether the running kernel checks accesses (`__private::helper_checking`).
#[inline(always)]
pub(crate) fn checking() -> bool {
    context::checking()
}

/// Whether the shared memory a view's `stamp` names is still its block's (`mem/stamp.rs`).
#[inline(always)]
pub(crate) fn stamp_live(stamp: u64) -> bool {
    crate::host::mem::stamp::live(stamp)
}

/// Whether the shared memory a view's `stamp` names is the running block's (`mem/stamp.rs`).
#[inline(always)]
pub(crate) fn stamp_running(stamp: u64) -> bool {
    crate::host::mem::stamp::running(stamp)
}

/// The host side of texture reads (`device/texture/host.rs`).
pub(crate) mod texture {
    pub(crate) use crate::host::texture::{fetch_hot, with, Read};
}

/// The description of a `#[device_global]` for the running launch (`DeviceGlobal::meta`): the
/// value at `cell`, described once per kind of launch in `metas` (without racecheck, and with
/// racecheck's shadow).
pub(crate) fn static_meta<D: SymbolDef>(cell: *mut D::Value, metas: &[std::sync::OnceLock<StaticMeta>; 2]) -> MetaPtr {
    crate::host::sched::verify::note_static(D::NAME, cell as usize, core::mem::size_of::<D::Value>());
    let race = crate::host::sched::hooks::racecheck_on();
    let g = core::mem::align_of::<D::Value>();
    let meta = metas[race as usize].get_or_init(|| {
        // The watchdog tells writes from spins by this memory (`host/mem/fingerprint.rs`).
        crate::host::mem::fingerprint::register(cell as usize, core::mem::size_of::<D::Value>());
        crate::host::check::view_meta::StaticMeta::new(
            D::NAME,
            cell as usize,
            core::mem::size_of::<D::Value>(),
            g,
            |m| {
                if race {
                    crate::host::check::racecheck::attach(m)
                }
            },
        )
    });
    meta.as_ptr()
}

/// The GPU address of `D`'s variable, found once in its module.
#[cfg(feature = "gpu")]
pub(crate) fn symbol_address<D: SymbolDef>(cell: &std::sync::OnceLock<u64>) -> Result<u64, Error> {
    if let Some(&a) = cell.get() {
        return Ok(a);
    }
    let Some(ptx) = D::PTX else {
        return Err(Error::NotSupported {
            message: format!(
                "`{}` has no PTX: the file that declares it was not compiled for the GPU (a build.rs with \
                 `deviceemu_build::kernels`, see the README's GPU section); or set EMU_TARGET=emulator",
                D::NAME
            ),
        });
    };
    let (addr, bytes) = crate::gpu::copy::symbol(ptx, D::PTX_NAME)?;
    if bytes < core::mem::size_of::<D::Value>() {
        return Err(Error::InvalidValue {
            message: format!(
                "`{}` has {bytes} bytes on the GPU, fewer than its type's {}",
                D::NAME,
                core::mem::size_of::<D::Value>()
            ),
        });
    }
    Ok(*cell.get_or_init(|| addr))
}
