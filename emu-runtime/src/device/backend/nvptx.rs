//! NVPTX backend of the device API: PTX special registers, `bar.sync`, plain loads and stores
//! with a `trap` on out-of-bounds indices, `atom.*`, and `.shared` variables.
//!
//! ```text
//!  kernel code ──► device::{thread_idx, sync_threads, View::load, ...}
//!                     │
//!                     ▼
//!  this file ──► %tid / %ctaid / %ntid / %nctaid      (core::arch::nvptx)
//!            ──► barrier.sync 0, barrier.red.{popc,and,or} (inline asm, not .aligned)
//!            ──► shfl.sync, vote.sync, bar.warp.sync  (inline asm)
//!            ──► redux.sync, match.{any,all}.sync     (sm_80 / sm_70, inline asm)
//!            ──► ld / st / atom on generic addresses  (bounds-checked, trap on failure)
//!            ──► ld.acquire / st.release / ld.volatile, fence.sc (ordered loads and stores)
//!            ──► .shared arrays declared by #[kernel] (global_asm!, cvta.shared)
//! ```
//!
//! Bounds checks trap by default (the launch then fails with CUDA's error 719 on the host);
//! the `unchecked-gpu` feature of `emu-runtime` removes them for speed.

use core::arch::asm;
use core::arch::nvptx;

use core::sync::atomic::Ordering;

use super::{
    AtomicAddImpl, AtomicBitwiseImpl, AtomicCasImpl, AtomicExchImpl, AtomicIncDecImpl, AtomicLoadStoreImpl,
    AtomicMinMaxImpl, AtomicSubImpl, BarrierOp, ReduxKind, ShflMode, TileOp, VoteOp,
};
use crate::device::copy::DeviceCopy;
use crate::device::dim::Dim3;
use crate::device::view::{Shared, Space, View, ViewKind, Writable};
use crate::device::{Ordered, Scope};

/// Views carry no description on the GPU.
pub(crate) type MetaPtr = ();
use super::AccessKind;

#[inline(always)]
pub(crate) fn thread_idx() -> Dim3 {
    // SAFETY: reading special registers has no preconditions.
    unsafe { Dim3::new(nvptx::_thread_idx_x() as u32, nvptx::_thread_idx_y() as u32, nvptx::_thread_idx_z() as u32) }
}

#[inline(always)]
pub(crate) fn block_idx() -> Dim3 {
    // SAFETY: as above.
    unsafe { Dim3::new(nvptx::_block_idx_x() as u32, nvptx::_block_idx_y() as u32, nvptx::_block_idx_z() as u32) }
}

#[inline(always)]
pub(crate) fn block_dim() -> Dim3 {
    // SAFETY: as above.
    unsafe { Dim3::new(nvptx::_block_dim_x() as u32, nvptx::_block_dim_y() as u32, nvptx::_block_dim_z() as u32) }
}

#[inline(always)]
pub(crate) fn grid_dim() -> Dim3 {
    // SAFETY: as above.
    unsafe { Dim3::new(nvptx::_grid_dim_x() as u32, nvptx::_grid_dim_y() as u32, nvptx::_grid_dim_z() as u32) }
}

/// Tells the optimiser what the hardware guarantees of the index registers: `%tid < %ntid` and
/// `%ctaid < %nctaid` in each dimension. LLVM knows each register's own range (`%ntid.x <=
/// 1024`, `%tid.x < 1024`, ...) but not how they relate; with these it can prove, for example,
/// `tile[tid]` in bounds once it also knows that the block has at most `tile.len()` threads
/// ([`assume_block_at_most`]), or `tid + s < 256` from `tid < s <= block_dim().x / 2 <= 128`.
///
/// The GPU entry of every kernel calls this first (`#[kernel]`), so that the facts hold in the
/// whole kernel: the kernel's own reads of the registers are the same `memory(none)`
/// intrinsics, which LLVM merges with these. They cost no instruction: `llvm.assume`, and reads
/// only it uses, are dropped before PTX is written. (Stating them in `thread_idx()` itself
/// would put an assumption wherever the kernel reads an index, also inside a condition, where
/// it keeps LLVM from turning the condition into predicated code.)
#[inline(always)]
pub(crate) fn assume_index_facts() {
    let (t, n) = (thread_idx(), block_dim());
    let (b, g) = (block_idx(), grid_dim());
    // SAFETY: the hardware numbers the threads of a block from 0 to `%ntid - 1` and the blocks
    // of a grid from 0 to `%nctaid - 1`, in each dimension (PTX ISA, "Special Registers":
    // %tid ranges over [0, %ntid), %ctaid over [0, %nctaid)).
    unsafe {
        core::hint::assert_unchecked(t.x < n.x);
        core::hint::assert_unchecked(t.y < n.y);
        core::hint::assert_unchecked(t.z < n.z);
        core::hint::assert_unchecked(b.x < g.x);
        core::hint::assert_unchecked(b.y < g.y);
        core::hint::assert_unchecked(b.z < g.z);
    }
}

/// Tells the optimiser that the running block has at most `max` threads, for a kernel declared
/// `#[kernel(launch_bounds(max, ..))]`: then each of `%ntid.x`, `.y` and `.z` is at most `max`.
/// (Their product, `<= max` too, is left out: LLVM reasons linearly and cannot use it, and the
/// product it would name can stand in the way of the kernel's own index arithmetic.)
///
/// # Safety
///
/// The running block must have at most `max` threads. `#[kernel]` calls this only from the GPU
/// entry of a kernel declared `launch_bounds(max)`, whose launches are refused above `max`
/// threads: the launcher checks the block against `max` before it reaches the driver
/// (`gpu::validate`, `KernelInfo::max_threads`), and emu-build writes `.maxntid max, 1, 1` into
/// the kernel's PTX, so that the driver refuses a bigger block too (PTX ISA: a launch with
/// more threads than `.maxntid` allows fails).
#[inline(always)]
pub(crate) unsafe fn assume_block_at_most(max: u32) {
    let d = block_dim();
    // SAFETY: the caller's contract: `d.x * d.y * d.z <= max`, and each dimension is at least
    // 1, so none of them exceeds `max`.
    unsafe {
        core::hint::assert_unchecked(d.x <= max);
        core::hint::assert_unchecked(d.y <= max);
        core::hint::assert_unchecked(d.z <= max);
    }
}

#[inline(always)]
pub(crate) fn barrier(op: BarrierOp, predicate: bool) -> u32 {
    let p = predicate as u32;
    let r: u32;
    // The non-`.aligned` forms (`barrier.sync`, `barrier.red`, sm_70+): `bar.sync` is
    // `barrier.sync.aligned`, which requires every thread of a warp to execute the *same*
    // barrier instruction, and rustc does not mark functions `convergent`, so LLVM may duplicate
    // a barrier into both arms of a branch (seen: `if t == 0 { flag[0] = 0 } sync_threads()`
    // became two `bar.sync 0`, and a spin-wait after it hung on an H200). Without `.aligned`,
    // threads may reach the barrier through different instructions.
    //
    // SAFETY: block barriers; `barrier.red` reduces the predicate over the block's threads.
    unsafe {
        match op {
            BarrierOp::Sync | BarrierOp::Grid | BarrierOp::Cluster => {
                asm!("barrier.sync 0;", options(nostack));
                r = 0;
            }
            BarrierOp::Count => asm!(
                "{{ .reg .pred %p; setp.ne.u32 %p, {p}, 0; barrier.red.popc.u32 {r}, 0, %p; }}",
                p = in(reg32) p, r = out(reg32) r,
            ),
            BarrierOp::And => asm!(
                "{{ .reg .pred %p, %q; setp.ne.u32 %p, {p}, 0; barrier.red.and.pred %q, 0, %p; selp.u32 {r}, 1, 0, %q; }}",
                p = in(reg32) p, r = out(reg32) r,
            ),
            BarrierOp::Or => asm!(
                "{{ .reg .pred %p, %q; setp.ne.u32 %p, {p}, 0; barrier.red.or.pred %q, 0, %p; selp.u32 {r}, 1, 0, %q; }}",
                p = in(reg32) p, r = out(reg32) r,
            ),
        }
    }
    r
}

#[inline(always)]
pub(crate) fn warp_size() -> u32 {
    32
}

#[inline(always)]
pub(crate) fn lane_id() -> u32 {
    let r: u32;
    // SAFETY: reads a special register.
    unsafe { asm!("mov.u32 {r}, %laneid;", r = out(reg32) r, options(pure, nomem, nostack)) };
    r
}

/// `activemask.b32`. The call site's address goes into the instruction as an (unused) operand:
/// otherwise LLVM merges identical `active_mask()` calls of the two branches of an `if` into
/// one before the branch, where every lane of the branch point is active.
#[inline(always)]
#[track_caller]
pub(crate) fn active_mask() -> u32 {
    let r: u32;
    let site = core::panic::Location::caller() as *const core::panic::Location<'static> as u64;
    // SAFETY: `activemask` has no preconditions. Not `pure`: its value depends on which lanes
    // run together at this point.
    unsafe { asm!("activemask.b32 {r}; // call site {s}", r = out(reg32) r, s = in(reg64) site, options(nostack)) };
    r
}

#[inline(always)]
pub(crate) fn warp_sync(mask: u32) {
    // SAFETY: a warp barrier over the lanes of `mask`.
    unsafe { asm!("bar.warp.sync {m};", m = in(reg32) mask, options(nostack)) };
}

#[inline(always)]
pub(crate) fn warp_vote(op: VoteOp, mask: u32, predicate: bool) -> u32 {
    let p = predicate as u32;
    let r: u32;
    // SAFETY: warp votes over the lanes of `mask`.
    unsafe {
        match op {
            VoteOp::All => asm!(
                "{{ .reg .pred %p, %q; setp.ne.u32 %p, {p}, 0; vote.sync.all.pred %q, %p, {m}; selp.u32 {r}, 1, 0, %q; }}",
                p = in(reg32) p, m = in(reg32) mask, r = out(reg32) r, options(nostack),
            ),
            VoteOp::Any => asm!(
                "{{ .reg .pred %p, %q; setp.ne.u32 %p, {p}, 0; vote.sync.any.pred %q, %p, {m}; selp.u32 {r}, 1, 0, %q; }}",
                p = in(reg32) p, m = in(reg32) mask, r = out(reg32) r, options(nostack),
            ),
            VoteOp::Ballot => asm!(
                "{{ .reg .pred %p; setp.ne.u32 %p, {p}, 0; vote.sync.ballot.b32 {r}, %p, {m}; }}",
                p = in(reg32) p, m = in(reg32) mask, r = out(reg32) r, options(nostack),
            ),
        }
    }
    r
}

/// One `shfl.sync` of a 32-bit word, with PTX's `c` operand: `((32 - width) << 8)` and the
/// clamp (0 for `up`, 31 for the other modes), what CUDA's `__shfl_*_sync` pass.
#[inline(always)]
fn shfl32(mode: ShflMode, mask: u32, v: u32, b: u32, c: u32) -> u32 {
    let r: u32;
    // SAFETY: a warp shuffle over the lanes of `mask`.
    unsafe {
        match mode {
            ShflMode::Idx => {
                asm!("shfl.sync.idx.b32 {r}, {v}, {b}, {c}, {m};", r = out(reg32) r, v = in(reg32) v, b = in(reg32) b, c = in(reg32) c, m = in(reg32) mask, options(nostack))
            }
            ShflMode::Up => {
                asm!("shfl.sync.up.b32 {r}, {v}, {b}, {c}, {m};", r = out(reg32) r, v = in(reg32) v, b = in(reg32) b, c = in(reg32) c, m = in(reg32) mask, options(nostack))
            }
            ShflMode::Down => {
                asm!("shfl.sync.down.b32 {r}, {v}, {b}, {c}, {m};", r = out(reg32) r, v = in(reg32) v, b = in(reg32) b, c = in(reg32) c, m = in(reg32) mask, options(nostack))
            }
            ShflMode::Bfly => {
                asm!("shfl.sync.bfly.b32 {r}, {v}, {b}, {c}, {m};", r = out(reg32) r, v = in(reg32) v, b = in(reg32) b, c = in(reg32) c, m = in(reg32) mask, options(nostack))
            }
        }
    }
    r
}

/// A shuffle of `bits` within segments of `width` lanes: one `shfl.sync`, or two for a 64-bit
/// value (as CUDA does).
#[inline(always)]
pub(crate) fn warp_shfl(mode: ShflMode, mask: u32, bits: u64, wide: bool, lane_arg: u32, width: u32) -> u64 {
    let clamp = if let ShflMode::Up = mode { 0 } else { 0x1f };
    let c = (32u32.wrapping_sub(width) << 8) | clamp;
    let lo = shfl32(mode, mask, bits as u32, lane_arg, c) as u64;
    if wide {
        lo | (shfl32(mode, mask, (bits >> 32) as u32, lane_arg, c) as u64) << 32
    } else {
        lo
    }
}

/// `redux.sync` (sm_80): `.add`/`.min`/`.max` as `.u32` or `.s32`, `.and`/`.or`/`.xor` as `.b32`.
#[inline(always)]
pub(crate) fn warp_redux(kind: ReduxKind, signed: bool, mask: u32, v: u32) -> u32 {
    let r: u32;
    // SAFETY: a warp reduction over the lanes of `mask`.
    unsafe {
        match (kind, signed) {
            (ReduxKind::Add, false) => {
                asm!("redux.sync.add.u32 {r}, {v}, {m};", r = out(reg32) r, v = in(reg32) v, m = in(reg32) mask, options(nostack))
            }
            (ReduxKind::Add, true) => {
                asm!("redux.sync.add.s32 {r}, {v}, {m};", r = out(reg32) r, v = in(reg32) v, m = in(reg32) mask, options(nostack))
            }
            (ReduxKind::Min, false) => {
                asm!("redux.sync.min.u32 {r}, {v}, {m};", r = out(reg32) r, v = in(reg32) v, m = in(reg32) mask, options(nostack))
            }
            (ReduxKind::Min, true) => {
                asm!("redux.sync.min.s32 {r}, {v}, {m};", r = out(reg32) r, v = in(reg32) v, m = in(reg32) mask, options(nostack))
            }
            (ReduxKind::Max, false) => {
                asm!("redux.sync.max.u32 {r}, {v}, {m};", r = out(reg32) r, v = in(reg32) v, m = in(reg32) mask, options(nostack))
            }
            (ReduxKind::Max, true) => {
                asm!("redux.sync.max.s32 {r}, {v}, {m};", r = out(reg32) r, v = in(reg32) v, m = in(reg32) mask, options(nostack))
            }
            (ReduxKind::And, _) => {
                asm!("redux.sync.and.b32 {r}, {v}, {m};", r = out(reg32) r, v = in(reg32) v, m = in(reg32) mask, options(nostack))
            }
            (ReduxKind::Or, _) => {
                asm!("redux.sync.or.b32 {r}, {v}, {m};", r = out(reg32) r, v = in(reg32) v, m = in(reg32) mask, options(nostack))
            }
            (ReduxKind::Xor, _) => {
                asm!("redux.sync.xor.b32 {r}, {v}, {m};", r = out(reg32) r, v = in(reg32) v, m = in(reg32) mask, options(nostack))
            }
        }
    }
    r
}

/// `match.any.sync` (`all` false; the predicate is always true) or `match.all.sync`, on
/// `.b32` or `.b64` values (sm_70).
#[inline(always)]
pub(crate) fn warp_match(all: bool, mask: u32, bits: u64, wide: bool) -> (u32, bool) {
    let r: u32;
    let mut p: u32 = 1;
    // SAFETY: a warp match over the lanes of `mask`.
    unsafe {
        match (all, wide) {
            (false, false) => {
                asm!("match.any.sync.b32 {r}, {v}, {m};", r = out(reg32) r, v = in(reg32) bits as u32, m = in(reg32) mask, options(nostack))
            }
            (false, true) => {
                asm!("match.any.sync.b64 {r}, {v}, {m};", r = out(reg32) r, v = in(reg64) bits, m = in(reg32) mask, options(nostack))
            }
            (true, false) => asm!(
                "{{ .reg .pred %q; match.all.sync.b32 {r}|%q, {v}, {m}; selp.u32 {p}, 1, 0, %q; }}",
                r = out(reg32) r, p = out(reg32) p, v = in(reg32) bits as u32, m = in(reg32) mask, options(nostack),
            ),
            (true, true) => asm!(
                "{{ .reg .pred %q; match.all.sync.b64 {r}|%q, {v}, {m}; selp.u32 {p}, 1, 0, %q; }}",
                r = out(reg32) r, p = out(reg32) p, v = in(reg64) bits, m = in(reg32) mask, options(nostack),
            ),
        }
    }
    (r, p != 0)
}

#[inline(always)]
pub(crate) fn fence_device() {
    // SAFETY: a memory fence.
    unsafe { asm!("membar.gl;") }
}

#[inline(always)]
pub(crate) fn fence_block() {
    // SAFETY: a memory fence.
    unsafe { asm!("membar.cta;") }
}

#[inline(always)]
fn check(i: usize, len: usize) {
    #[cfg(not(feature = "unchecked-gpu"))]
    if i >= len {
        // SAFETY: `trap` aborts the kernel; the host sees cudaErrorLaunchFailure.
        unsafe { nvptx::trap() }
    }
    #[cfg(feature = "unchecked-gpu")]
    let _ = (i, len);
}

#[inline(always)]
pub(crate) fn check_index<T, K: ViewKind>(view: &View<T, K>, i: usize, _elem_size: usize, _access: AccessKind) -> bool {
    check(i, view.len());
    true
}

/// The check of a sub-view `start..end` of `view` (`View::slice`): a bad range traps.
#[inline(always)]
pub(crate) fn check_slice<T, K: ViewKind>(view: &View<T, K>, start: usize, end: usize) -> bool {
    #[cfg(not(feature = "unchecked-gpu"))]
    if start > end || end > view.len() {
        // SAFETY: `trap` aborts the kernel; the host sees cudaErrorLaunchFailure.
        unsafe { nvptx::trap() }
    }
    #[cfg(feature = "unchecked-gpu")]
    let _ = (view, start, end);
    true
}

/// The check of row `i` of an array of arrays (`t[i]` in `t[i][j]`).
#[inline(always)]
pub(crate) fn check_row<T, K: ViewKind>(view: &View<T, K>, i: usize, _elem_size: usize, _access: AccessKind) -> bool {
    check(i, view.len());
    true
}

// Shared views hold an address in the `.shared` window (what `mov.u32 r, var;` gives), not a
// generic pointer, so that their accesses compile to `ld.shared`/`st.shared` rather than
// generic loads and stores (LLVM cannot infer the address space through inline assembly).

/// Shared memory holds at most 228 KiB, so shared indices are checked and scaled in 32 bits
/// (an index of 2^32 or more is seen modulo 2^32): LLVM can then keep the kernel's index
/// arithmetic in 32-bit registers, as nvcc's `unsigned` code does.
#[inline(always)]
fn check32(i: u32, len: u32) {
    #[cfg(not(feature = "unchecked-gpu"))]
    if i >= len {
        // SAFETY: `trap` aborts the kernel; the host sees cudaErrorLaunchFailure.
        unsafe { nvptx::trap() }
    }
    #[cfg(feature = "unchecked-gpu")]
    let _ = (i, len);
}

/// The atomic `op` on element `i`: the emulator's checkers look at it here; on the GPU, just
/// `op`.
#[inline(always)]
pub(crate) fn atomic<T, K: ViewKind, R>(_view: &View<T, K>, _i: usize, op: impl FnOnce() -> R) -> R {
    op()
}

/// The ordered or volatile load or store `op` of element `i`: the emulator's checkers look at
/// it here; on the GPU, just `op`.
#[inline(always)]
pub(crate) fn ordered<T, K: ViewKind, R>(_view: &View<T, K>, _i: usize, _access: Ordered, op: impl FnOnce() -> R) -> R {
    op()
}

#[inline(always)]
pub(crate) fn load<T: DeviceCopy, K: ViewKind>(view: &View<T, K>, i: usize) -> T {
    if K::SPACE == Space::Shared {
        let j = i as u32;
        check32(j, view.len() as u32);
        // SAFETY: `j < len`; the view covers `len` elements of the block's shared memory (or,
        // tagged, of another block's of the cluster).
        if is_cluster(view.raw_ptr()) {
            return unsafe { shared_load::<T, true>(shared_addr(view, j)) };
        }
        // SAFETY: as above.
        return unsafe { shared_load::<T, false>(shared_addr(view, j)) };
    }
    check(i, view.len());
    // SAFETY: `i < len` (checked above unless the user opted out), and the view points to
    // `len` elements of device memory.
    unsafe { view.raw_ptr().add(i).read() }
}

#[inline(always)]
pub(crate) fn store<T: DeviceCopy, K: Writable>(view: &View<T, K>, i: usize, value: T) {
    if K::SPACE == Space::Shared {
        let j = i as u32;
        check32(j, view.len() as u32);
        if is_cluster(view.raw_ptr()) {
            // SAFETY: as in `load`.
            return unsafe { shared_store::<T, true>(shared_addr(view, j), value) };
        }
        // SAFETY: as in `load`.
        return unsafe { shared_store::<T, false>(shared_addr(view, j), value) };
    }
    check(i, view.len());
    // SAFETY: as in `load`.
    unsafe { view.raw_ptr().add(i).write(value) }
}

/// A load of the `F` at byte `off` of element `i` (`v[i].x`, `__private::Part`).
///
/// # Safety
///
/// `[off, off + size_of::<F>())` is where a part of type `F` of every `T` lies (a field, or
/// an element of an array field), so `F` has no padding and is aligned there.
#[inline(always)]
pub(crate) unsafe fn load_part<T: DeviceCopy, F: Copy, K: ViewKind>(view: &View<T, K>, i: usize, off: usize) -> F {
    if K::SPACE == Space::Shared {
        let j = i as u32;
        check32(j, view.len() as u32);
        let a = shared_addr(view, j).wrapping_add(off as u32);
        // SAFETY: `j < len`: the part lies inside element `j` of the view's shared memory.
        if is_cluster(view.raw_ptr()) {
            return unsafe { shared_load::<F, true>(a) };
        }
        // SAFETY: as above.
        return unsafe { shared_load::<F, false>(a) };
    }
    check(i, view.len());
    // SAFETY: `i < len` (checked above unless the user opted out), and the part lies inside
    // element `i` (the caller's contract).
    unsafe { ((view.raw_ptr().add(i) as *const u8).add(off) as *const F).read() }
}

/// A store of the `F` at byte `off` of element `i` (`v[i].x = value`).
///
/// # Safety
///
/// As [`load_part`].
#[inline(always)]
pub(crate) unsafe fn store_part<T: DeviceCopy, F: Copy, K: Writable>(
    view: &View<T, K>,
    i: usize,
    off: usize,
    value: F,
) {
    if K::SPACE == Space::Shared {
        let j = i as u32;
        check32(j, view.len() as u32);
        let a = shared_addr(view, j).wrapping_add(off as u32);
        if is_cluster(view.raw_ptr()) {
            // SAFETY: as in `load_part`.
            return unsafe { shared_store::<F, true>(a, value) };
        }
        // SAFETY: as in `load_part`.
        return unsafe { shared_store::<F, false>(a, value) };
    }
    check(i, view.len());
    // SAFETY: as in `load_part`.
    unsafe { ((view.raw_ptr().add(i) as *mut u8).add(off) as *mut F).write(value) }
}

/// The `.shared`-window address of element `i` of a shared view.
#[inline(always)]
fn shared_addr<T, K: ViewKind>(view: &View<T, K>, i: u32) -> u32 {
    (view.raw_ptr() as usize as u32).wrapping_add(i.wrapping_mul(core::mem::size_of::<T>() as u32))
}

macro_rules! shared_word {
    (load, $c:expr, $a:expr, $w:ty, $ins:literal, $class:ident) => {{
        let v: $w;
        // SAFETY: `$a` is a `.shared` address of an element (caller), or with `$c` a
        // `.shared::cluster` address (a view from `map_shared_rank`).
        unsafe {
            if $c {
                asm!(concat!("ld.shared::cluster.", $ins, " {v}, [{a}];"), v = out($class) v, a = in(reg32) $a, options(readonly, nostack))
            } else {
                asm!(concat!("ld.shared.", $ins, " {v}, [{a}];"), v = out($class) v, a = in(reg32) $a, options(pure, readonly, nostack))
            }
        };
        v
    }};
    (store, $c:expr, $a:expr, $v:expr, $ins:literal, $class:ident) => {{
        // SAFETY: as above.
        unsafe {
            if $c {
                asm!(concat!("st.shared::cluster.", $ins, " [{a}], {v};"), v = in($class) $v, a = in(reg32) $a, options(nostack))
            } else {
                asm!(concat!("st.shared.", $ins, " [{a}], {v};"), v = in($class) $v, a = in(reg32) $a, options(nostack))
            }
        };
    }};
}

/// The tag `map_shared_rank` sets on a view's address (above the 32-bit `.shared::cluster`
/// address it holds): its accesses go to another block of the cluster.
const CLUSTER_TAG: usize = 1 << 63;

/// Whether `p` (a shared view's address) is a `.shared::cluster` address from
/// `map_shared_rank`.
#[inline(always)]
fn is_cluster<T>(p: *const T) -> bool {
    p as usize & CLUSTER_TAG != 0
}

/// Loads a `T` from the `.shared` window.
///
/// # Safety
///
/// `a` must be the `.shared` address of a `T`, and `T` must have no padding (a `DeviceCopy`
/// type, or a part of one).
#[inline(always)]
unsafe fn shared_load<T: Copy, const C: bool>(a: u32) -> T {
    use core::mem::{align_of, size_of, transmute_copy, MaybeUninit};
    // SAFETY (all arms): the loaded word has exactly `T`'s size, or is one of `T`'s aligned
    // words; `T` has no padding (the caller's contract).
    unsafe {
        match size_of::<T>() {
            0 => MaybeUninit::<T>::zeroed().assume_init(),
            1 => transmute_copy(&(shared_word!(load, C, a, u16, "u8", reg16) as u8)),
            2 if align_of::<T>() >= 2 => transmute_copy(&shared_word!(load, C, a, u16, "b16", reg16)),
            4 if align_of::<T>() >= 4 => transmute_copy(&shared_word!(load, C, a, u32, "b32", reg32)),
            8 if align_of::<T>() >= 8 => transmute_copy(&shared_word!(load, C, a, u64, "b64", reg64)),
            n => {
                let mut out = MaybeUninit::<T>::uninit();
                let o = out.as_mut_ptr() as *mut u8;
                if align_of::<T>() >= 4 && n % 4 == 0 {
                    for k in 0..n / 4 {
                        (o as *mut u32).add(k).write(shared_word!(load, C, a + 4 * k as u32, u32, "b32", reg32));
                    }
                } else {
                    for k in 0..n {
                        o.add(k).write(shared_word!(load, C, a + k as u32, u16, "u8", reg16) as u8);
                    }
                }
                out.assume_init()
            }
        }
    }
}

/// Stores a `T` into the `.shared` window.
///
/// # Safety
///
/// `a` must be the `.shared` address of a `T`, and `T` must have no padding.
#[inline(always)]
unsafe fn shared_store<T: Copy, const C: bool>(a: u32, v: T) {
    use core::mem::{align_of, size_of, transmute_copy};
    // SAFETY: as in `shared_load`.
    unsafe {
        match size_of::<T>() {
            0 => {}
            1 => shared_word!(store, C, a, transmute_copy::<T, u8>(&v) as u16, "u8", reg16),
            2 if align_of::<T>() >= 2 => shared_word!(store, C, a, transmute_copy::<T, u16>(&v), "b16", reg16),
            4 if align_of::<T>() >= 4 => shared_word!(store, C, a, transmute_copy::<T, u32>(&v), "b32", reg32),
            8 if align_of::<T>() >= 8 => shared_word!(store, C, a, transmute_copy::<T, u64>(&v), "b64", reg64),
            n => {
                let s = &v as *const T as *const u8;
                if align_of::<T>() >= 4 && n % 4 == 0 {
                    for k in 0..n / 4 {
                        shared_word!(store, C, a + 4 * k as u32, (s as *const u32).add(k).read(), "b32", reg32);
                    }
                } else {
                    for k in 0..n {
                        shared_word!(store, C, a + k as u32, s.add(k).read() as u16, "u8", reg16);
                    }
                }
            }
        }
    }
}

/// `dynamic_shared::<T>()`: the launch's dynamic shared memory.
#[inline(always)]
pub(crate) fn dynamic_shared<T: DeviceCopy>() -> Shared<'static, T> {
    let p: u32;
    let bytes: u32;
    // SAFETY: `__emu_dynamic_shared` is the module's `.extern .shared` array (declared below);
    // `%dynamic_smem_size` is the size the launch gave it.
    unsafe {
        asm!("mov.u32 {p}, __emu_dynamic_shared;", p = out(reg32) p, options(pure, nomem, nostack));
        asm!("mov.u32 {b}, %dynamic_smem_size;", b = out(reg32) bytes, options(pure, nomem, nostack));
    }
    let len = match core::mem::size_of::<T>() {
        0 => 0,
        s => bytes as usize / s,
    };
    // SAFETY: the `.shared` address of the block's dynamic shared memory, `bytes` long,
    // 16-byte aligned.
    unsafe { View::from_raw_parts(p as usize as *mut T, len, ()) }
}

core::arch::global_asm!(".extern .shared .align 16 .b8 __emu_dynamic_shared[];");

/// The view of a `.shared` array whose `.shared`-window address is `p` (`mov.u32 p, var;`).
///
/// # Safety
///
/// `p` must be the address of a `.shared` array of at least `len` elements of `T`.
#[inline(always)]
pub unsafe fn shared_view<T: DeviceCopy>(p: u32, len: usize) -> Shared<'static, T> {
    // SAFETY: the caller's contract.
    unsafe { View::from_raw_parts(p as usize as *mut T, len, ()) }
}

// Atomics: one `atom` instruction each, on a generic address for global memory or a
// `.shared`-window address for shared memory (`atom.shared`). Without `.sem` and `.scope`,
// `atom` is relaxed at GPU scope, as CUDA's `atomicAdd` and friends are.

/// `atom{.shared}.OP.TYPE old, [p], v;` (or `..., [p], a, b;` for `cas`), returning `old`.
///
/// Used inside `unsafe` functions whose contract makes `$p` a valid generic address of an
/// element, or its `.shared`-window address when `$space` is shared.
macro_rules! atom {
    ($op:literal, $ptx:literal, $class:ident, $p:expr, $space:expr, $($v:expr),+) => {{
        let old: Self;
        // SAFETY: `$p` is a valid generic address of an element, or its `.shared` address
        // for shared memory (the enclosing function's contract).
        unsafe {
            if $space == Space::Shared && is_cluster($p) {
                atom!(@asm "atom.shared::cluster.", $op, $ptx, $class, old, reg32, $p as usize as u32, $($v),+)
            } else if $space == Space::Shared {
                atom!(@asm "atom.shared.", $op, $ptx, $class, old, reg32, $p as usize as u32, $($v),+)
            } else {
                atom!(@asm "atom.", $op, $ptx, $class, old, reg64, $p, $($v),+)
            }
        }
        old
    }};
    (@asm $pre:literal, $op:literal, $ptx:literal, $class:ident, $old:ident, $pc:ident, $p:expr, $v:expr) => {
        asm!(
            concat!($pre, $op, ".", $ptx, " {o}, [{p}], {v};"),
            o = out($class) $old, p = in($pc) $p, v = in($class) $v, options(nostack),
        )
    };
    (@asm $pre:literal, $op:literal, $ptx:literal, $class:ident, $old:ident, $pc:ident, $p:expr, $a:expr, $b:expr) => {
        asm!(
            concat!($pre, $op, ".", $ptx, " {o}, [{p}], {a}, {b};"),
            o = out($class) $old, p = in($pc) $p, a = in($class) $a, b = in($class) $b, options(nostack),
        )
    };
}

/// `atom{.relaxed.cta|.relaxed.sys}{.shared}.OP.TYPE`: [`atom!`] at a scope (`Device` is
/// plain `atom`, CUDA's `atomicAdd`; `Block` and `System` are `atomicAdd_block` and
/// `atomicAdd_system`).
macro_rules! atom_scoped {
    ($scope:expr, $op:literal, $ptx:literal, $class:ident, $p:expr, $space:expr, $($v:expr),+) => {{
        let old: Self;
        if $space == Space::Shared && is_cluster($p) {
            cluster_unsupported();
        }
        // SAFETY: as for `atom!`.
        unsafe {
            match ($space == Space::Shared, $scope) {
                (true, Scope::Block) => atom!(@asm "atom.relaxed.cta.shared.", $op, $ptx, $class, old, reg32, $p as usize as u32, $($v),+),
                (true, Scope::Device) => atom!(@asm "atom.shared.", $op, $ptx, $class, old, reg32, $p as usize as u32, $($v),+),
                (true, Scope::System) => atom!(@asm "atom.relaxed.sys.shared.", $op, $ptx, $class, old, reg32, $p as usize as u32, $($v),+),
                (false, Scope::Block) => atom!(@asm "atom.relaxed.cta.", $op, $ptx, $class, old, reg64, $p, $($v),+),
                (false, Scope::Device) => atom!(@asm "atom.", $op, $ptx, $class, old, reg64, $p, $($v),+),
                (false, Scope::System) => atom!(@asm "atom.relaxed.sys.", $op, $ptx, $class, old, reg64, $p, $($v),+),
            }
        }
        old
    }};
}

macro_rules! atom_add {
    ($t:ty, $ptx:literal, $class:ident) => {
        impl AtomicAddImpl for $t {
            #[inline(always)]
            unsafe fn atomic_add_raw(p: *mut Self, v: Self, space: Space) -> Self {
                atom!("add", $ptx, $class, p, space, v)
            }
            #[inline(always)]
            unsafe fn atomic_add_scoped_raw(p: *mut Self, v: Self, space: Space, scope: Scope) -> Self {
                atom_scoped!(scope, "add", $ptx, $class, p, space, v)
            }
        }
    };
}
atom_add!(u32, "u32", reg32);
atom_add!(i32, "s32", reg32);
atom_add!(u64, "u64", reg64);
atom_add!(i64, "u64", reg64);
atom_add!(f32, "f32", reg32);
atom_add!(f64, "f64", reg64);

/// `atomic_add` on `f16`, `bf16` and their pairs (sm_90): `atom{.relaxed.cta|.relaxed.sys}
/// {.shared}.add.noftz.{f16,bf16,f16x2,bf16x2}` on the element's bits (the exact sum rounded to
/// nearest even, subnormals kept), as CUDA's `atomicAdd(__half*, __half)` and friends. A
/// global view's generic address is converted first (`cvta.to.global`).
macro_rules! atom_add_half {
    ($t:ty, $ptx:literal, $bits:ty, $class:ident, |$v:ident| $to:expr, |$w:ident| $from:expr) => {
        impl AtomicAddImpl for $t {
            #[inline(always)]
            unsafe fn atomic_add_raw(p: *mut Self, v: Self, space: Space) -> Self {
                // SAFETY: the caller's contract.
                unsafe { Self::atomic_add_scoped_raw(p, v, space, Scope::Device) }
            }
            #[inline(always)]
            unsafe fn atomic_add_scoped_raw(p: *mut Self, v: Self, space: Space, scope: Scope) -> Self {
                let x: $bits = {
                    let $v = v;
                    $to
                };
                let old: $bits;
                let s = p as usize as u32;
                if space == Space::Shared && is_cluster(p) {
                    cluster_unsupported();
                }
                // SAFETY: `p` is a valid generic address of an element, or its `.shared`
                // address for shared memory (the caller's contract).
                unsafe {
                    match (space == Space::Shared, scope) {
                        (true, Scope::Block) => asm!(concat!("atom.relaxed.cta.shared.add.noftz.", $ptx, " {o}, [{p}], {v};"), o = out($class) old, p = in(reg32) s, v = in($class) x, options(nostack)),
                        (true, Scope::Device) => asm!(concat!("atom.shared.add.noftz.", $ptx, " {o}, [{p}], {v};"), o = out($class) old, p = in(reg32) s, v = in($class) x, options(nostack)),
                        (true, Scope::System) => asm!(concat!("atom.relaxed.sys.shared.add.noftz.", $ptx, " {o}, [{p}], {v};"), o = out($class) old, p = in(reg32) s, v = in($class) x, options(nostack)),
                        (false, Scope::Block) => asm!(concat!("{{ .reg .u64 %g; cvta.to.global.u64 %g, {p}; atom.relaxed.cta.global.add.noftz.", $ptx, " {o}, [%g], {v}; }}"), o = out($class) old, p = in(reg64) p, v = in($class) x, options(nostack)),
                        (false, Scope::Device) => asm!(concat!("{{ .reg .u64 %g; cvta.to.global.u64 %g, {p}; atom.global.add.noftz.", $ptx, " {o}, [%g], {v}; }}"), o = out($class) old, p = in(reg64) p, v = in($class) x, options(nostack)),
                        (false, Scope::System) => asm!(concat!("{{ .reg .u64 %g; cvta.to.global.u64 %g, {p}; atom.relaxed.sys.global.add.noftz.", $ptx, " {o}, [%g], {v}; }}"), o = out($class) old, p = in(reg64) p, v = in($class) x, options(nostack)),
                    }
                }
                let $w = old;
                $from
            }
        }
    };
}
atom_add_half!(half::f16, "f16", u16, reg16, |v| v.to_bits(), |w| half::f16::from_bits(w));
atom_add_half!(half::bf16, "bf16", u16, reg16, |v| v.to_bits(), |w| half::bf16::from_bits(w));
atom_add_half!(crate::device::intrinsics::Half2, "f16x2", u32, reg32, |v| v.to_bits(), |w| {
    crate::device::intrinsics::Half2::from_bits(w)
});
atom_add_half!(crate::device::intrinsics::Bfloat162, "bf16x2", u32, reg32, |v| v.to_bits(), |w| {
    crate::device::intrinsics::Bfloat162::from_bits(w)
});

/// The integer atomics of `$t`: `$add`/`$ord` are the PTX types for `add` and for `min`/`max`
/// (signed or unsigned), `$bits` the one for `exch`, `and`, `or`, `xor` and `cas`.
macro_rules! atom_int {
    ($t:ty, $add:literal, $ord:literal, $bits:literal, $class:ident) => {
        impl AtomicSubImpl for $t {
            #[inline(always)]
            unsafe fn atomic_sub_raw(p: *mut Self, v: Self, space: Space) -> Self {
                atom!("add", $add, $class, p, space, v.wrapping_neg())
            }
            #[inline(always)]
            unsafe fn atomic_sub_scoped_raw(p: *mut Self, v: Self, space: Space, scope: Scope) -> Self {
                atom_scoped!(scope, "add", $add, $class, p, space, v.wrapping_neg())
            }
        }

        impl AtomicMinMaxImpl for $t {
            #[inline(always)]
            unsafe fn atomic_min_raw(p: *mut Self, v: Self, space: Space) -> Self {
                atom!("min", $ord, $class, p, space, v)
            }
            #[inline(always)]
            unsafe fn atomic_min_scoped_raw(p: *mut Self, v: Self, space: Space, scope: Scope) -> Self {
                atom_scoped!(scope, "min", $ord, $class, p, space, v)
            }
            #[inline(always)]
            unsafe fn atomic_max_raw(p: *mut Self, v: Self, space: Space) -> Self {
                atom!("max", $ord, $class, p, space, v)
            }
            #[inline(always)]
            unsafe fn atomic_max_scoped_raw(p: *mut Self, v: Self, space: Space, scope: Scope) -> Self {
                atom_scoped!(scope, "max", $ord, $class, p, space, v)
            }
        }

        impl AtomicExchImpl for $t {
            #[inline(always)]
            unsafe fn atomic_exch_raw(p: *mut Self, v: Self, space: Space) -> Self {
                atom!("exch", $bits, $class, p, space, v)
            }
            #[inline(always)]
            unsafe fn atomic_exch_scoped_raw(p: *mut Self, v: Self, space: Space, scope: Scope) -> Self {
                atom_scoped!(scope, "exch", $bits, $class, p, space, v)
            }
        }

        impl AtomicBitwiseImpl for $t {
            #[inline(always)]
            unsafe fn atomic_and_raw(p: *mut Self, v: Self, space: Space) -> Self {
                atom!("and", $bits, $class, p, space, v)
            }
            #[inline(always)]
            unsafe fn atomic_and_scoped_raw(p: *mut Self, v: Self, space: Space, scope: Scope) -> Self {
                atom_scoped!(scope, "and", $bits, $class, p, space, v)
            }
            #[inline(always)]
            unsafe fn atomic_or_raw(p: *mut Self, v: Self, space: Space) -> Self {
                atom!("or", $bits, $class, p, space, v)
            }
            #[inline(always)]
            unsafe fn atomic_or_scoped_raw(p: *mut Self, v: Self, space: Space, scope: Scope) -> Self {
                atom_scoped!(scope, "or", $bits, $class, p, space, v)
            }
            #[inline(always)]
            unsafe fn atomic_xor_raw(p: *mut Self, v: Self, space: Space) -> Self {
                atom!("xor", $bits, $class, p, space, v)
            }
            #[inline(always)]
            unsafe fn atomic_xor_scoped_raw(p: *mut Self, v: Self, space: Space, scope: Scope) -> Self {
                atom_scoped!(scope, "xor", $bits, $class, p, space, v)
            }
        }

        impl AtomicCasImpl for $t {
            #[inline(always)]
            unsafe fn atomic_cas_raw(p: *mut Self, compare: Self, v: Self, space: Space) -> Self {
                atom!("cas", $bits, $class, p, space, compare, v)
            }
            #[inline(always)]
            unsafe fn atomic_cas_scoped_raw(p: *mut Self, compare: Self, v: Self, space: Space, scope: Scope) -> Self {
                atom_scoped!(scope, "cas", $bits, $class, p, space, compare, v)
            }
        }
    };
}
atom_int!(u32, "u32", "u32", "b32", reg32);
atom_int!(i32, "u32", "s32", "b32", reg32);
atom_int!(u64, "u64", "u64", "b64", reg64);
atom_int!(i64, "u64", "s64", "b64", reg64);

impl AtomicCasImpl for u16 {
    #[inline(always)]
    unsafe fn atomic_cas_raw(p: *mut Self, compare: Self, v: Self, space: Space) -> Self {
        atom!("cas", "b16", reg16, p, space, compare, v)
    }
    #[inline(always)]
    unsafe fn atomic_cas_scoped_raw(p: *mut Self, compare: Self, v: Self, space: Space, scope: Scope) -> Self {
        atom_scoped!(scope, "cas", "b16", reg16, p, space, compare, v)
    }
}

impl AtomicExchImpl for f32 {
    #[inline(always)]
    unsafe fn atomic_exch_raw(p: *mut Self, v: Self, space: Space) -> Self {
        atom!("exch", "b32", reg32, p, space, v)
    }
    #[inline(always)]
    unsafe fn atomic_exch_scoped_raw(p: *mut Self, v: Self, space: Space, scope: Scope) -> Self {
        atom_scoped!(scope, "exch", "b32", reg32, p, space, v)
    }
}

impl AtomicExchImpl for f64 {
    #[inline(always)]
    unsafe fn atomic_exch_raw(p: *mut Self, v: Self, space: Space) -> Self {
        atom!("exch", "b64", reg64, p, space, v)
    }
    #[inline(always)]
    unsafe fn atomic_exch_scoped_raw(p: *mut Self, v: Self, space: Space, scope: Scope) -> Self {
        atom_scoped!(scope, "exch", "b64", reg64, p, space, v)
    }
}

impl AtomicIncDecImpl for u32 {
    #[inline(always)]
    unsafe fn atomic_inc_raw(p: *mut Self, limit: Self, space: Space) -> Self {
        atom!("inc", "u32", reg32, p, space, limit)
    }
    #[inline(always)]
    unsafe fn atomic_inc_scoped_raw(p: *mut Self, limit: Self, space: Space, scope: Scope) -> Self {
        atom_scoped!(scope, "inc", "u32", reg32, p, space, limit)
    }
    #[inline(always)]
    unsafe fn atomic_dec_raw(p: *mut Self, limit: Self, space: Space) -> Self {
        atom!("dec", "u32", reg32, p, space, limit)
    }
    #[inline(always)]
    unsafe fn atomic_dec_scoped_raw(p: *mut Self, limit: Self, space: Space, scope: Scope) -> Self {
        atom_scoped!(scope, "dec", "u32", reg32, p, space, limit)
    }
}

// Ordered and volatile loads and stores: `ld`/`st` with `.relaxed`, `.acquire` or `.release`
// and a scope (`.cta`, `.gpu`, `.sys`), or `.volatile`; `SeqCst` is a `fence.sc` of the scope
// followed by the acquire load or the relaxed store, as libcu++'s `cuda::atomic_ref` does on
// sm_70 and later. Global views use generic addresses, shared views `.shared` addresses. The
// `asm!` blocks are not `pure`, so that LLVM neither merges them nor hoists them out of loops,
// and they order the compiler's own memory accesses around them (no `nomem`/`readonly`).

/// `ld{$sem}{$scope}{.shared}.$ty v, [p];` with `v` of type `$w` in register class `$class`.
macro_rules! ld_word {
    ($sem:literal, $scope:literal, $ty:literal, $w:ty, $class:ident, $p:expr, $space:expr) => {{
        let v: $w;
        // SAFETY: `$p` is a valid generic address of a word, or its `.shared` address for
        // shared memory (the enclosing function's contract).
        unsafe {
            if $space == Space::Shared && is_cluster($p) {
                asm!(concat!("ld", $sem, $scope, ".shared::cluster.", $ty, " {v}, [{a}];"), v = out($class) v, a = in(reg32) $p as usize as u32, options(nostack))
            } else if $space == Space::Shared {
                asm!(concat!("ld", $sem, $scope, ".shared.", $ty, " {v}, [{a}];"), v = out($class) v, a = in(reg32) $p as usize as u32, options(nostack))
            } else {
                asm!(concat!("ld", $sem, $scope, ".", $ty, " {v}, [{a}];"), v = out($class) v, a = in(reg64) $p, options(nostack))
            }
        }
        v
    }};
}

/// `st{$sem}{$scope}{.shared}.$ty [p], v;`.
macro_rules! st_word {
    ($sem:literal, $scope:literal, $ty:literal, $class:ident, $p:expr, $v:expr, $space:expr) => {{
        // SAFETY: as in `ld_word`.
        unsafe {
            if $space == Space::Shared && is_cluster($p) {
                asm!(concat!("st", $sem, $scope, ".shared::cluster.", $ty, " [{a}], {v};"), v = in($class) $v, a = in(reg32) $p as usize as u32, options(nostack))
            } else if $space == Space::Shared {
                asm!(concat!("st", $sem, $scope, ".shared.", $ty, " [{a}], {v};"), v = in($class) $v, a = in(reg32) $p as usize as u32, options(nostack))
            } else {
                asm!(concat!("st", $sem, $scope, ".", $ty, " [{a}], {v};"), v = in($class) $v, a = in(reg64) $p, options(nostack))
            }
        }
    }};
}

/// `fence.sc{$scope};`.
macro_rules! fence_sc {
    ($scope:literal) => {
        // SAFETY: a memory fence.
        unsafe { asm!(concat!("fence.sc", $scope, ";"), options(nostack)) }
    };
}

/// The ordered and volatile loads and stores of one word size: `$ty` is the PTX type, `$w` the
/// Rust word (`u16` for bytes, whose registers are 16 bits), `$class` its register class.
macro_rules! ordered_words {
    ($load:ident, $store:ident, $vload:ident, $vstore:ident, $ty:literal, $w:ty, $class:ident) => {
        /// # Safety
        ///
        /// `p` is a valid generic address of a word of device memory, or its `.shared`
        /// address when `space` is shared; `order` is `Relaxed`, `Acquire` or `SeqCst`.
        #[inline(always)]
        unsafe fn $load(p: *const $w, order: Ordering, scope: Scope, space: Space) -> $w {
            match scope {
                Scope::Block => ordered_words!(@load order, ".cta", $ty, $w, $class, p, space),
                Scope::Device => ordered_words!(@load order, ".gpu", $ty, $w, $class, p, space),
                Scope::System => ordered_words!(@load order, ".sys", $ty, $w, $class, p, space),
            }
        }

        /// # Safety
        ///
        /// As the load's; `order` is `Relaxed`, `Release` or `SeqCst`.
        #[inline(always)]
        unsafe fn $store(p: *mut $w, v: $w, order: Ordering, scope: Scope, space: Space) {
            match scope {
                Scope::Block => ordered_words!(@store order, ".cta", $ty, $class, p, v, space),
                Scope::Device => ordered_words!(@store order, ".gpu", $ty, $class, p, v, space),
                Scope::System => ordered_words!(@store order, ".sys", $ty, $class, p, v, space),
            }
        }

        /// # Safety
        ///
        /// As the load's.
        #[inline(always)]
        unsafe fn $vload(p: *const $w, space: Space) -> $w {
            ld_word!(".volatile", "", $ty, $w, $class, p, space)
        }

        /// # Safety
        ///
        /// As the load's.
        #[inline(always)]
        unsafe fn $vstore(p: *mut $w, v: $w, space: Space) {
            st_word!(".volatile", "", $ty, $class, p, v, space)
        }
    };
    (@load $order:ident, $scope:literal, $ty:literal, $w:ty, $class:ident, $p:ident, $space:ident) => {
        match $order {
            Ordering::Relaxed => ld_word!(".relaxed", $scope, $ty, $w, $class, $p, $space),
            Ordering::Acquire => ld_word!(".acquire", $scope, $ty, $w, $class, $p, $space),
            _ => {
                fence_sc!($scope);
                ld_word!(".acquire", $scope, $ty, $w, $class, $p, $space)
            }
        }
    };
    (@store $order:ident, $scope:literal, $ty:literal, $class:ident, $p:ident, $v:ident, $space:ident) => {
        match $order {
            Ordering::Relaxed => st_word!(".relaxed", $scope, $ty, $class, $p, $v, $space),
            Ordering::Release => st_word!(".release", $scope, $ty, $class, $p, $v, $space),
            _ => {
                fence_sc!($scope);
                st_word!(".relaxed", $scope, $ty, $class, $p, $v, $space)
            }
        }
    };
}
ordered_words!(load_b8, store_b8, volatile_load_b8, volatile_store_b8, "u8", u16, reg16);
ordered_words!(load_b16, store_b16, volatile_load_b16, volatile_store_b16, "b16", u16, reg16);
ordered_words!(load_b32, store_b32, volatile_load_b32, volatile_store_b32, "b32", u32, reg32);
ordered_words!(load_b64, store_b64, volatile_load_b64, volatile_store_b64, "b64", u64, reg64);

/// The `AtomicLoadStoreImpl` of `$t` through the word functions of its size; `$to`/`$from`
/// turn a value into the word and back, bit for bit.
macro_rules! load_store {
    ($($t:ty => $w:ty, $load:ident, $store:ident, $vload:ident, $vstore:ident, |$v:ident| $to:expr, |$x:ident| $from:expr);* $(;)?) => { $(
        impl AtomicLoadStoreImpl for $t {
            #[inline(always)]
            unsafe fn atomic_load_raw(p: *const Self, order: Ordering, scope: Scope, space: Space) -> Self {
                // SAFETY: the word at `p` is the element (the contract of this function).
                let $x = unsafe { $load(p as *const $w, order, scope, space) };
                $from
            }
            #[inline(always)]
            unsafe fn atomic_store_raw(p: *mut Self, $v: Self, order: Ordering, scope: Scope, space: Space) {
                // SAFETY: as above.
                unsafe { $store(p as *mut $w, $to, order, scope, space) }
            }
            #[inline(always)]
            unsafe fn volatile_load_raw(p: *const Self, space: Space) -> Self {
                // SAFETY: as above.
                let $x = unsafe { $vload(p as *const $w, space) };
                $from
            }
            #[inline(always)]
            unsafe fn volatile_store_raw(p: *mut Self, $v: Self, space: Space) {
                // SAFETY: as above.
                unsafe { $vstore(p as *mut $w, $to, space) }
            }
        }
    )* };
}
load_store! {
    u8 => u16, load_b8, store_b8, volatile_load_b8, volatile_store_b8, |v| v as u16, |x| x as u8;
    i8 => u16, load_b8, store_b8, volatile_load_b8, volatile_store_b8, |v| v as u8 as u16, |x| x as u8 as i8;
    u16 => u16, load_b16, store_b16, volatile_load_b16, volatile_store_b16, |v| v, |x| x;
    i16 => u16, load_b16, store_b16, volatile_load_b16, volatile_store_b16, |v| v as u16, |x| x as i16;
    u32 => u32, load_b32, store_b32, volatile_load_b32, volatile_store_b32, |v| v, |x| x;
    i32 => u32, load_b32, store_b32, volatile_load_b32, volatile_store_b32, |v| v as u32, |x| x as i32;
    u64 => u64, load_b64, store_b64, volatile_load_b64, volatile_store_b64, |v| v, |x| x;
    i64 => u64, load_b64, store_b64, volatile_load_b64, volatile_store_b64, |v| v as u64, |x| x as i64;
    f32 => u32, load_b32, store_b32, volatile_load_b32, volatile_store_b32, |v| v.to_bits(), |x| f32::from_bits(x);
    f64 => u64, load_b64, store_b64, volatile_load_b64, volatile_store_b64, |v| v.to_bits(), |x| f64::from_bits(x);
}

#[panic_handler]
fn panic(_: &core::panic::PanicInfo<'_>) -> ! {
    // SAFETY: aborts the kernel; the host sees cudaErrorLaunchFailure.
    unsafe { nvptx::trap() }
}

/// The arrival counter of grid syncs (`device/grid.rs`): a module global, never reset.
static GRID_ARRIVED: core::sync::atomic::AtomicU32 = core::sync::atomic::AtomicU32::new(0);

/// `this_grid().sync()`: CUDA's `cg::details::sync_grids`.
#[inline(always)]
pub(crate) fn grid_sync() {
    use core::sync::atomic::Ordering::Relaxed;
    barrier(BarrierOp::Sync, false);
    let t = thread_idx();
    if t.x == 0 && t.y == 0 && t.z == 0 {
        let g = grid_dim();
        let blocks = g.x * g.y * g.z;
        let b = block_idx();
        let first = b.x == 0 && b.y == 0 && b.z == 0;
        let inc = if first { 0x8000_0000u32.wrapping_sub(blocks - 1) } else { 1 };
        fence_device();
        let old = GRID_ARRIVED.fetch_add(inc, Relaxed);
        // The top bit flips when the last block arrives.
        while (old ^ GRID_ARRIVED.load(Relaxed)) & 0x8000_0000 == 0 {}
        fence_device();
    }
    barrier(BarrierOp::Sync, false);
}

/// `this_cluster().sync()`: `barrier.cluster.arrive` and `.wait` (sm_90).
#[inline(always)]
pub(crate) fn cluster_sync() {
    // SAFETY: the cluster barrier; every thread of the cluster executes it.
    unsafe { asm!("barrier.cluster.arrive;", "barrier.cluster.wait;", options(nostack)) }
}

/// The cluster's shape in blocks (`%cluster_nctaid`).
#[inline(always)]
pub(crate) fn cluster_dim() -> Dim3 {
    let (x, y, z): (u32, u32, u32);
    // SAFETY: reads of special registers.
    unsafe {
        asm!("mov.u32 {}, %cluster_nctaid.x;", out(reg32) x, options(pure, nomem, nostack));
        asm!("mov.u32 {}, %cluster_nctaid.y;", out(reg32) y, options(pure, nomem, nostack));
        asm!("mov.u32 {}, %cluster_nctaid.z;", out(reg32) z, options(pure, nomem, nostack));
    }
    Dim3::new(x, y, z)
}

/// `map_shared_rank`: the same shared array in block `rank` of the cluster, through
/// `mapa.shared::cluster` (sm_90). The view holds the `.shared::cluster` address, tagged
/// ([`CLUSTER_TAG`]), so that its loads and stores are `ld/st.shared::cluster` and its plain
/// atomics `atom.shared::cluster`; a rank outside the cluster traps (the emulator reports it).
#[inline(always)]
pub(crate) fn map_shared_rank<'a, T: crate::device::DeviceCopy>(
    view: &View<'a, T, crate::device::SharedMem>,
    rank: u32,
) -> View<'a, T, crate::device::SharedMem> {
    let c = cluster_dim();
    if rank >= c.x * c.y * c.z {
        // SAFETY: `trap` aborts the kernel (cudaErrorLaunchFailure on the host).
        unsafe { nvptx::trap() }
    }
    let a = view.raw_ptr() as usize as u32;
    let d: u32;
    // SAFETY: maps a `.shared` address of this block to the same offset in block `rank` of
    // the cluster (`rank` is in range, checked above).
    unsafe {
        asm!("mapa.shared::cluster.u32 {d}, {a}, {r};", d = out(reg32) d, a = in(reg32) a, r = in(reg32) rank, options(pure, nomem, nostack))
    };
    // SAFETY: the view covers the same `len` elements of block `rank`'s copy of the array; it
    // is only accessed through this backend's shared-memory paths, which read the tag.
    unsafe { View::from_raw_parts((d as usize | CLUSTER_TAG) as *mut T, view.len(), ()) }
}

/// A scoped or 16-bit-float atomic on a view from `map_shared_rank`: not on the GPU path
/// (plain atomics, loads and stores are); traps.
#[cold]
#[inline(never)]
fn cluster_unsupported() -> ! {
    // SAFETY: `trap` aborts the kernel (cudaErrorLaunchFailure on the host).
    unsafe { nvptx::trap() }
}

// ------------------------------------------------------------------ multi-warp tiles

// The scratch of multi-warp tiles, as CUDA's `details::multi_warp_scratch` lays it out (CUDA
// puts it in the block's reserved shared memory on sm_80+): five barrier words (one per tile
// size, 64 to 1024), 12 reserved bytes, then one 8-byte communication slot per warp.
core::arch::global_asm!(".shared .align 8 .b8 __emu_cg_tile_scratch[288];");

/// The generic address of the tile scratch.
#[inline(always)]
fn tile_scratch() -> *mut u8 {
    let p: u64;
    // SAFETY: takes the address of a module `.shared` variable.
    unsafe { asm!("cvta.shared.u64 {p}, __emu_cg_tile_scratch;", p = out(reg64) p, options(pure, nomem, nostack)) };
    p as *mut u8
}

/// The barrier word of tiles of `warps` warps (`get_sync_location`).
#[inline(always)]
fn tile_barrier(warps: u32) -> *mut u32 {
    // SAFETY: `log2(warps / 2) < 5` words lie at the start of the scratch.
    unsafe { tile_scratch().cast::<u32>().add((warps / 2).trailing_zeros() as usize) }
}

/// Warp `w`'s communication slot (`communication_memory[w]`).
#[inline(always)]
fn tile_slot(w: u32) -> *mut u64 {
    // SAFETY: 32 slots of 8 bytes follow the 32 bytes of barriers; `w < 32`.
    unsafe { tile_scratch().add(32).cast::<u64>().add((w & 31) as usize) }
}

#[inline(always)]
fn cta_rank() -> u32 {
    let (t, d) = (thread_idx(), block_dim());
    t.x + d.x * (t.y + d.y * t.z)
}

/// `get_group_mask`: the bits of the block's warps that form the caller's tile.
#[inline(always)]
fn tile_group_mask(rank: u32, warps: u32) -> u32 {
    if warps == 32 {
        u32::MAX
    } else {
        ((1u32 << warps) - 1) << (warps * (rank / (warps * 32)))
    }
}

#[inline(always)]
fn atom_or_acq_rel_cta(p: *mut u32, v: u32) -> u32 {
    let r: u32;
    // SAFETY: `p` is a barrier word of the tile scratch.
    unsafe {
        asm!("atom.or.acq_rel.cta.b32 {r}, [{p}], {v};", r = out(reg32) r, p = in(reg64) p, v = in(reg32) v, options(nostack))
    };
    r
}

#[inline(always)]
fn red_and_cta(p: *mut u32, v: u32, release: bool) {
    // SAFETY: `p` is a barrier word of the tile scratch.
    unsafe {
        if release {
            asm!("red.and.release.cta.b32 [{p}], {v};", p = in(reg64) p, v = in(reg32) v, options(nostack));
        } else {
            asm!("red.and.relaxed.cta.b32 [{p}], {v};", p = in(reg64) p, v = in(reg32) v, options(nostack));
        }
    }
}

#[inline(always)]
fn red_or_release_cta(p: *mut u32, v: u32) {
    // SAFETY: `p` is a barrier word of the tile scratch.
    unsafe { asm!("red.or.release.cta.b32 [{p}], {v};", p = in(reg64) p, v = in(reg32) v, options(nostack)) };
}

#[inline(always)]
fn ld_acquire_cta(p: *mut u32) -> u32 {
    let r: u32;
    // SAFETY: `p` is a barrier word of the tile scratch.
    unsafe { asm!("ld.acquire.cta.u32 {r}, [{p}];", r = out(reg32) r, p = in(reg64) p, options(nostack)) };
    r
}

/// `details::sync_warps`: the caller's warp arrives at its tile's barrier and waits for the
/// tile's other warps.
#[inline(always)]
fn sync_warps(bar: *mut u32, rank: u32, warps: u32) {
    let bit = 1u32 << (rank / 32);
    let group = tile_group_mask(rank, warps);
    warp_sync(u32::MAX);
    if rank % 32 == 0 {
        let old = atom_or_acq_rel_cta(bar, bit);
        if (old | bit) & group == group {
            red_and_cta(bar, !group, false);
        } else {
            while ld_acquire_cta(bar) & bit != 0 {}
        }
    }
    warp_sync(u32::MAX);
}

/// `details::sync_warps_reset`, done before the parent's sync when a multi-warp tile is made.
#[inline(always)]
pub(crate) fn tile_reset(warps: u32) {
    let rank = cta_rank();
    warp_sync(u32::MAX);
    if rank % 32 == 0 {
        red_and_cta(tile_barrier(warps), !(1u32 << (rank / 32)), true);
    }
}

/// A multi-warp tile's collective, as CUDA's `__static_size_multi_warp_tile_base` does it:
/// `sync` is `sync_warps`; `shfl` passes the value through the source warp's slot
/// (`shfl_impl`); `any` and `all` vote in each warp, then the last warp to arrive votes over
/// the warps' slots and releases the others (`collectives_scheme`).
#[inline(always)]
pub(crate) fn tile_collective(op: TileOp, warps: u32, bits: u64, _wide: bool, src: u32) -> u64 {
    let rank = cta_rank();
    let size = warps * 32;
    let tile_rank = rank & (size - 1);
    let bar = tile_barrier(warps);
    let bit = 1u32 << (rank / 32);
    let group = tile_group_mask(rank, warps);
    let first_warp = (rank - tile_rank) / 32;
    match op {
        TileOp::Sync => {
            sync_warps(bar, rank, warps);
            0
        }
        TileOp::Shfl => {
            let src_warp = src / 32;
            let slot = tile_slot(first_warp + src_warp);
            if tile_rank / 32 == src_warp {
                warp_sync(u32::MAX);
                if tile_rank == src {
                    // SAFETY: the source warp's slot; the other warps read it only after this
                    // warp arrived (release).
                    unsafe { slot.write_volatile(bits) };
                }
                warp_sync(u32::MAX);
                if rank % 32 == 0 {
                    red_or_release_cta(bar, bit);
                }
                // SAFETY: the slot written above.
                let r = unsafe { slot.read_volatile() };
                while ld_acquire_cta(bar) & bit != 0 {}
                r
            } else {
                let wait = 1u32 << (first_warp + src_warp);
                while ld_acquire_cta(bar) & wait != wait {}
                // SAFETY: the source warp wrote its slot before it arrived (acquire above).
                let r = unsafe { slot.read_volatile() };
                sync_warps(bar, rank, warps);
                r
            }
        }
        TileOp::Any | TileOp::All => {
            let vote = if op == TileOp::Any { VoteOp::Any } else { VoteOp::All };
            let own = tile_slot(rank / 32);
            let v = warp_vote(vote, u32::MAX, bits != 0) as u64;
            // SAFETY: the caller's own warp's slot (every lane writes the same value).
            unsafe { own.write_volatile(v) };
            warp_sync(u32::MAX);
            let mut old = 0;
            if rank % 32 == 0 {
                old = atom_or_acq_rel_cta(bar, bit);
            }
            old = warp_shfl(ShflMode::Idx, u32::MAX, old as u64, false, 0, 32) as u32;
            if (old | bit) & group == group {
                let lane = lane_id();
                if lane < warps {
                    let slot = tile_slot(first_warp + lane);
                    // SAFETY: warp `lane` of the tile wrote its slot before it arrived.
                    let w = unsafe { slot.read_volatile() };
                    let m = u32::MAX >> (32 - warps);
                    let r = warp_vote(vote, m, w != 0) as u64;
                    // SAFETY: as above; the other warps read it after the release below.
                    unsafe { slot.write_volatile(r) };
                }
                warp_sync(u32::MAX);
                if lane == 0 {
                    red_and_cta(bar, !group, true);
                }
            } else {
                while ld_acquire_cta(bar) & bit != 0 {}
            }
            // SAFETY: the caller's warp's slot, written by the last warp before its release.
            unsafe { own.read_volatile() }
        }
    }
}

// CUDA's device heap: the PTX declares these as `.extern .func`, which ptxas and the driver
// resolve to the heap whose size `cuCtxSetLimit(CU_LIMIT_MALLOC_HEAP_SIZE)` sets.
extern "C" {
    fn malloc(size: usize) -> *mut u8;
    fn free(p: *mut u8);
}

/// `malloc(bytes)` (16-byte aligned, CUDA's guarantee): the address, and 0 as the serial.
#[inline(always)]
pub(crate) fn heap_alloc(
    bytes: usize,
    _align: usize,
    _at: &'static core::panic::Location<'static>,
) -> Option<(u64, u64)> {
    // SAFETY: CUDA's device `malloc` may be called with any size; it returns null when the
    // heap has no room.
    let p = unsafe { malloc(bytes.max(1)) };
    (!p.is_null()).then_some((p as u64, 0))
}

/// `free(addr)`.
#[inline(always)]
pub(crate) fn heap_free(addr: u64, _id: u64, _at: &'static core::panic::Location<'static>) {
    // SAFETY: `addr` came from `malloc` (a `DevicePtr` is made only by `heap_alloc`, or copied
    // from memory that held one); a double free is the program's bug, as in CUDA C.
    unsafe { free(addr as *mut u8) }
}

/// Views of heap blocks carry no description on the GPU.
#[inline(always)]
pub(crate) fn heap_meta(_addr: u64, _id: u64, _at: &'static core::panic::Location<'static>) -> MetaPtr {}
