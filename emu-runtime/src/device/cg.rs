//! Cooperative groups (`deviceemu::cg`, CUDA's `cooperative_groups`): the thread block, tiles
//! of 1 to 32 threads, coalesced groups, and their collectives, `reduce` and the scans.
//!
//! ```text
//!  CUDA C++                                        deviceemu
//!  cg::thread_block b = cg::this_thread_block();   let b = cg::this_thread_block();
//!  b.sync(); b.thread_rank(); b.size();            b.sync(); b.thread_rank(); b.size();
//!  auto t = cg::tiled_partition<16>(b);            let t = cg::tiled_partition::<16>(&b);
//!  t.shfl_down(v, 1); t.ballot(p); t.sync();       t.shfl_down(v, 1); t.ballot(p); t.sync();
//!  cg::reduce(t, v, cg::plus<int>());              cg::reduce(&t, v, cg::plus());
//!  cg::exclusive_scan(t, v, cg::bit_or<int>());    cg::exclusive_scan(&t, v, cg::bit_or());
//!  auto g = cg::coalesced_threads();               let g = cg::coalesced_threads();
//!  cg::labeled_partition(g, label);                cg::labeled_partition(&g, label);
//!  cg::binary_partition(g, pred);                  cg::binary_partition(&g, pred);
//! ```
//!
//! Everything here is built from the warp collectives of [`crate::device`] exactly as CUDA's
//! headers build it (CUDA 12/13 `cooperative_groups.h`, `details/reduce.h`,
//! `details/coalesced_reduce.h`, `details/coalesced_scan.h`): a tile of `N <= 32` threads is
//! the `N` lanes of a warp with the mask `(0xffffffff >> (32 - N)) << (lane & !(N - 1))`, and
//! its shuffles pass `N` as the width; `reduce` is a butterfly of `shfl_xor` (or, for `i32` /
//! `u32` with `plus`, `less`, `greater` and the bit operations on tiles of 16 or 32 threads
//! and on coalesced groups, one `redux.sync`), the scans a ladder of `shfl_up`. So on the GPU
//! the same instructions run in the same order, and floating-point results are bit for bit
//! those of CUDA's `cg::reduce`; emulated, every collective is checked as the warp
//! collectives are: a lane of a tile that skips a tile collective and runs on, a mismatch of
//! collectives, or a shuffle from a lane that takes no part is reported as `Barrier error
//! detected. Divergent thread(s) in warp`.
//!
//! The collectives are methods (`tile.shfl_down(v, 1)`): in a `#[kernel]` body they are the
//! blocking form of the warp collectives (the lane's fiber parks until its tile has arrived),
//! which works in kernel bodies and `#[device]` helpers alike.
//!
//! # Limits
//!
//! * Tiles hold 1, 2, 4, 8, 16 or 32 threads, or 64, 128, 256, 512 or 1024 (multi-warp tiles);
//!   other sizes are a compile-time error.
//! * Multi-warp tiles have what CUDA gives them: `sync`, `shfl`, `any`, `all`, the ranks and
//!   sizes, and `cg::reduce` (the scans, `shfl_up`/`shfl_down`/`shfl_xor`, `ballot` and the
//!   matches are a compile-time error on them). See [`ThreadBlockTile`].
//! * With `EMU_WARP_SIZE=1` a warp has one lane, so only `tiled_partition::<1>` exists; a
//!   larger tile panics with a message that says so.
//! * Grid groups (`this_grid()`) and clusters are not here.

use super::backend;
use super::backend::ReduxKind;
use super::builtins::{block_dim, block_idx, sync_threads, thread_idx};
use super::dim::Dim3;
use super::warp::{
    active_mask, all_sync, any_sync, ballot_sync, lane_id, match_all_sync, match_any_sync, shfl_down_sync_width,
    shfl_sync_width, shfl_up_sync_width, shfl_xor_sync_width, sync_warp, warp_size, WarpShuffle,
};

/// The thread block (`cg::thread_block`), from [`this_thread_block`].
#[derive(Clone, Copy, Debug)]
pub struct ThreadBlock {
    _private: (),
}

/// The calling thread's block (`cg::this_thread_block()`).
#[inline(always)]
pub fn this_thread_block() -> ThreadBlock {
    ThreadBlock { _private: () }
}

impl ThreadBlock {
    /// Waits for every thread of the block (`block.sync()`, `__syncthreads()`).
    #[inline(always)]
    #[track_caller]
    pub fn sync(&self) {
        sync_threads()
    }

    /// The calling thread's linear index in the block (`thread_rank()`):
    /// `x + y * dim.x + z * dim.x * dim.y`.
    #[inline(always)]
    pub fn thread_rank(&self) -> u32 {
        let (t, d) = (thread_idx(), block_dim());
        t.x + d.x * (t.y + d.y * t.z)
    }

    /// The number of threads in the block (`size()`, `num_threads()`).
    #[inline(always)]
    pub fn size(&self) -> u32 {
        let d = block_dim();
        d.x * d.y * d.z
    }

    /// The same as [`ThreadBlock::size`] (`num_threads()`).
    #[inline(always)]
    pub fn num_threads(&self) -> u32 {
        self.size()
    }

    /// The block's index in the grid (`group_index()`, `blockIdx`).
    #[inline(always)]
    pub fn group_index(&self) -> Dim3 {
        block_idx()
    }

    /// The calling thread's index in the block (`thread_index()`, `threadIdx`).
    #[inline(always)]
    pub fn thread_index(&self) -> Dim3 {
        thread_idx()
    }

    /// The block's dimensions (`dim_threads()`, `blockDim`).
    #[inline(always)]
    pub fn dim_threads(&self) -> Dim3 {
        block_dim()
    }

    /// The tile of `N` threads the calling thread belongs to (`cg::tiled_partition<N>(block)`).
    #[inline(always)]
    #[track_caller]
    pub fn tiled_partition<const N: u32>(&self) -> ThreadBlockTile<N> {
        tiled_partition::<N>(self)
    }
}

/// A tile of `N` consecutive threads of a block (`cg::thread_block_tile<N>`), from
/// [`tiled_partition`]: `N` is 1, 2, 4, 8, 16 or 32, the `N` lanes of one warp, or 64, 128,
/// 256, 512 or 1024, whole warps (a *multi-warp tile*).
///
/// # Multi-warp tiles
///
/// As in CUDA (12 and 13, `__static_size_multi_warp_tile_base`):
///
/// * Making one (`tiled_partition::<64>(&block)`) is a collective of the block: it resets the
///   tile's barrier and then synchronises the block (`block.sync()`), so every thread of the
///   block must make it. The block's size must be a multiple of `N` (CUDA: "the parent group
///   size must be evenly divisible by the tilesz"); emulated, another size panics.
/// * `sync()` synchronises exactly the tile's threads, warp by warp (`details::sync_warps`:
///   a `__syncwarp`, then the warp's lane 0 arrives at the tile's barrier word). Every
///   thread of the tile's warps must reach the same collective: emulated, a thread that skips
///   it and runs on is reported like a skipped warp collective (`Barrier error detected.
///   Divergent thread(s) in warp`), and a warp that cannot complete it (its lane 0 exited, or
///   some of its threads wait elsewhere) ends the block with a deadlock report, where the GPU
///   hangs.
/// * `shfl` takes values of at most 8 bytes (every [`WarpShuffle`] type) and `src_rank`
///   below `N`; `any` and `all` vote over the tile; [`reduce`] reduces each warp, then the
///   warps' results (CUDA's `tile_reduce_dispatch`).
/// * racecheck orders accesses by block barriers and warp syncs: accesses of different warps
///   ordered only by a multi-warp tile's `sync` are not seen as ordered (a known gap).
#[derive(Clone, Copy, Debug)]
pub struct ThreadBlockTile<const N: u32> {
    /// The tile's lanes in the warp (CUDA's `build_mask()`).
    mask: u32,
}

/// The tile of `N` threads of `parent` the calling thread belongs to
/// (`cg::tiled_partition<N>(parent)`): threads `N * k .. N * (k + 1)` of the block by
/// [`ThreadBlock::thread_rank`] form tile `k`.
///
/// # Panics
///
/// With `EMU_WARP_SIZE=1` and `N > 1` (a tile of more than one thread needs warps of 32).
#[inline(always)]
#[track_caller]
pub fn tiled_partition<const N: u32>(parent: &ThreadBlock) -> ThreadBlockTile<N> {
    const { assert!(N.is_power_of_two() && N <= 1024, "tiles hold 1, 2, 4, 8, 16, 32, 64, 128, 256, 512 or 1024 threads") };
    if N.min(32) > warp_size() {
        tile_needs_warps(N, N.min(32));
    }
    if N > 32 {
        if parent.size() % N != 0 {
            tile_needs_whole_tiles(N, parent.size());
        }
        backend::tile_reset(N / 32);
        parent.sync();
        return ThreadBlockTile { mask: u32::MAX };
    }
    let full = u32::MAX >> (32 - N);
    let mask = if N == 32 { full } else { full << (lane_id() & !(N - 1)) };
    ThreadBlockTile { mask }
}

#[cold]
#[inline(never)]
#[track_caller]
fn tile_needs_whole_tiles(n: u32, size: u32) -> ! {
    panic!("cg::tiled_partition::<{n}> needs a block whose size is a multiple of {n} (this block has {size} threads): CUDA leaves a partial multi-warp tile undefined")
}

#[cold]
#[inline(never)]
#[track_caller]
fn tile_needs_warps(n: u32, need: u32) -> ! {
    panic!("cg::tiled_partition::<{n}> needs warps of at least {need} threads: it cannot run with EMU_WARP_SIZE=1")
}

impl<const N: u32> ThreadBlockTile<N> {
    /// The first lane of the tile in its warp.
    #[inline(always)]
    fn base(&self) -> u32 {
        self.mask.trailing_zeros()
    }

    /// The lanes of the warp that form this tile (CUDA's internal `build_mask()`).
    #[inline(always)]
    pub fn mask(&self) -> u32 {
        self.mask
    }

    /// The calling thread's rank in the tile, `0..N` (`thread_rank()`).
    #[inline(always)]
    pub fn thread_rank(&self) -> u32 {
        if N > 32 {
            this_thread_block().thread_rank() & (N - 1)
        } else {
            lane_id() & (N - 1)
        }
    }

    /// `N` (`size()`, `num_threads()`).
    #[inline(always)]
    pub fn size(&self) -> u32 {
        N
    }

    /// `N` (`num_threads()`).
    #[inline(always)]
    pub fn num_threads(&self) -> u32 {
        N
    }

    /// The tile's index among the block's tiles of `N` (`meta_group_rank()`).
    #[inline(always)]
    pub fn meta_group_rank(&self) -> u32 {
        this_thread_block().thread_rank() / N
    }

    /// How many tiles of `N` the block has (`meta_group_size()`), the last one possibly partial.
    #[inline(always)]
    pub fn meta_group_size(&self) -> u32 {
        this_thread_block().size().div_ceil(N)
    }

    /// Waits for the tile's threads (`tile.sync()`: `__syncwarp(mask)`, or for a multi-warp
    /// tile a barrier of exactly the tile's warps).
    #[inline(always)]
    #[track_caller]
    pub fn sync(&self) {
        if N > 32 {
            backend::tile_collective(backend::TileOp::Sync, N / 32, 0, false, 0);
        } else {
            sync_warp(self.mask)
        }
    }

    /// `value` from the tile's thread of rank `src_rank % N` (`tile.shfl(v, src)`).
    ///
    /// For a multi-warp tile (`N` > 32) this is a broadcast, as in CUDA, whose implementation
    /// passes the value through one slot per warp: every thread of the tile must name the same
    /// `src_rank`, below `N`. Different source ranks in one tile are reported (synccheck); on the
    /// GPU they give wrong values or hang.
    #[inline(always)]
    #[track_caller]
    pub fn shfl<T: WarpShuffle>(&self, value: T, src_rank: u32) -> T {
        if N > 32 {
            return T::from_bits(backend::tile_collective(
                backend::TileOp::Shfl,
                N / 32,
                value.to_bits(),
                T::WIDE,
                src_rank,
            ));
        }
        shfl_sync_width(self.mask, value, src_rank, N)
    }

    /// `value` from rank `thread_rank() + delta`, or the caller's own past the tile's end.
    #[inline(always)]
    #[track_caller]
    pub fn shfl_down<T: WarpShuffle>(&self, value: T, delta: u32) -> T {
        single_warp_only::<N>();
        shfl_down_sync_width(self.mask, value, delta, N)
    }

    /// `value` from rank `thread_rank() - delta`, or the caller's own below rank 0.
    #[inline(always)]
    #[track_caller]
    pub fn shfl_up<T: WarpShuffle>(&self, value: T, delta: u32) -> T {
        single_warp_only::<N>();
        shfl_up_sync_width(self.mask, value, delta, N)
    }

    /// `value` from rank `thread_rank() ^ lane_mask` (`tile.shfl_xor`).
    #[inline(always)]
    #[track_caller]
    pub fn shfl_xor<T: WarpShuffle>(&self, value: T, lane_mask: u32) -> T {
        single_warp_only::<N>();
        shfl_xor_sync_width(self.mask, value, lane_mask, N)
    }

    /// Whether `predicate` holds for any thread of the tile.
    #[inline(always)]
    #[track_caller]
    pub fn any(&self, predicate: bool) -> bool {
        if N > 32 {
            return backend::tile_collective(backend::TileOp::Any, N / 32, predicate as u64, false, 0) != 0;
        }
        any_sync(self.mask, predicate)
    }

    /// Whether `predicate` holds for every thread of the tile.
    #[inline(always)]
    #[track_caller]
    pub fn all(&self, predicate: bool) -> bool {
        if N > 32 {
            return backend::tile_collective(backend::TileOp::All, N / 32, predicate as u64, false, 0) != 0;
        }
        all_sync(self.mask, predicate)
    }

    /// The tile's threads whose `predicate` holds, bit `r` for rank `r`.
    #[inline(always)]
    #[track_caller]
    pub fn ballot(&self, predicate: bool) -> u32 {
        single_warp_only::<N>();
        ballot_sync(self.mask, predicate) >> self.base()
    }

    /// The tile's threads whose `value` equals the caller's, bit `r` for rank `r` (sm_70).
    #[inline(always)]
    #[track_caller]
    pub fn match_any<T: WarpShuffle>(&self, value: T) -> u32 {
        single_warp_only::<N>();
        match_any_sync(self.mask, value) >> self.base()
    }

    /// Whether all the tile's threads have the same `value`: `(mask, true)` or `(0, false)`,
    /// the mask by rank (sm_70).
    #[inline(always)]
    #[track_caller]
    pub fn match_all<T: WarpShuffle>(&self, value: T) -> (u32, bool) {
        single_warp_only::<N>();
        let (m, p) = match_all_sync(self.mask, value);
        (m >> self.base(), p)
    }
}

/// The collectives of single-warp tiles only (CUDA's multi-warp tiles have `sync`, `shfl`,
/// `any`, `all` and `reduce`).
#[inline(always)]
fn single_warp_only<const N: u32>() {
    const {
        assert!(
            N <= 32,
            "multi-warp tiles (64 threads and up) have only sync, shfl, any, all and cg::reduce, as in CUDA"
        )
    };
}

/// The lanes of a warp that run together (`cg::coalesced_group`), from [`coalesced_threads`],
/// [`labeled_partition`] or [`binary_partition`]. Ranks count the group's lanes from the
/// lowest.
#[derive(Clone, Copy, Debug)]
pub struct CoalescedGroup {
    mask: u32,
}

/// The calling lane's coalesced group: the lanes of its warp that are active with it
/// ([`active_mask`]; emulated, the lanes that call `coalesced_threads` at the same call site).
#[inline(always)]
#[track_caller]
pub fn coalesced_threads() -> CoalescedGroup {
    CoalescedGroup { mask: active_mask() }
}

/// The lane of the `n`-th (from 1) set bit of `mask` at or above `from` (`n > 0`) or at or
/// below it (`n < 0`), or 32 when there is none (CUDA's `details::fns`, PTX `fns.b32`).
#[inline(always)]
fn find_nth_set(mask: u32, from: u32, n: i32) -> u32 {
    let mut left = n.unsigned_abs();
    if n > 0 {
        let mut l = from;
        while l < 32 {
            if mask & (1 << l) != 0 {
                left -= 1;
                if left == 0 {
                    return l;
                }
            }
            l += 1;
        }
    } else {
        let mut l = from as i32;
        while l >= 0 {
            if mask & (1 << l) != 0 {
                left -= 1;
                if left == 0 {
                    return l as u32;
                }
            }
            l -= 1;
        }
    }
    32
}

impl CoalescedGroup {
    /// The group's lanes in the warp.
    #[inline(always)]
    pub fn mask(&self) -> u32 {
        self.mask
    }

    /// The calling lane's rank: how many of the group's lanes are below it.
    #[inline(always)]
    pub fn thread_rank(&self) -> u32 {
        (self.mask & ((1u32 << lane_id()) - 1)).count_ones()
    }

    /// How many lanes the group has (`size()`, `num_threads()`).
    #[inline(always)]
    pub fn size(&self) -> u32 {
        self.mask.count_ones()
    }

    /// The same as [`CoalescedGroup::size`].
    #[inline(always)]
    pub fn num_threads(&self) -> u32 {
        self.size()
    }

    /// Waits for the group's lanes (`__syncwarp(mask)`).
    #[inline(always)]
    #[track_caller]
    pub fn sync(&self) {
        sync_warp(self.mask)
    }

    /// `value` from the group's lane of rank `src_rank`.
    #[inline(always)]
    #[track_caller]
    pub fn shfl<T: WarpShuffle>(&self, value: T, src_rank: u32) -> T {
        let lane = if self.size() == 32 { src_rank } else { find_nth_set(self.mask, 0, src_rank as i32 + 1) };
        shfl_sync_width(self.mask, value, lane, 32)
    }

    /// `value` from rank `thread_rank() + delta`, or the caller's own past the last rank.
    #[inline(always)]
    #[track_caller]
    pub fn shfl_down<T: WarpShuffle>(&self, value: T, delta: u32) -> T {
        if self.size() == 32 {
            return shfl_down_sync_width(self.mask, value, delta, 32);
        }
        let mut lane = find_nth_set(self.mask, lane_id(), delta as i32 + 1);
        if lane >= 32 {
            lane = lane_id();
        }
        shfl_sync_width(self.mask, value, lane, 32)
    }

    /// `value` from rank `thread_rank() - delta`, or the caller's own below rank 0.
    #[inline(always)]
    #[track_caller]
    pub fn shfl_up<T: WarpShuffle>(&self, value: T, delta: u32) -> T {
        if self.size() == 32 {
            return shfl_up_sync_width(self.mask, value, delta, 32);
        }
        let mut lane = find_nth_set(self.mask, lane_id(), -(delta as i32 + 1));
        if lane >= 32 {
            lane = lane_id();
        }
        shfl_sync_width(self.mask, value, lane, 32)
    }

    /// Whether `predicate` holds for any lane of the group.
    #[inline(always)]
    #[track_caller]
    pub fn any(&self, predicate: bool) -> bool {
        any_sync(self.mask, predicate)
    }

    /// Whether `predicate` holds for every lane of the group.
    #[inline(always)]
    #[track_caller]
    pub fn all(&self, predicate: bool) -> bool {
        all_sync(self.mask, predicate)
    }

    /// The group's lanes whose `predicate` holds, bit `r` for rank `r`.
    #[inline(always)]
    #[track_caller]
    pub fn ballot(&self, predicate: bool) -> u32 {
        pack(self.mask, ballot_sync(self.mask, predicate))
    }

    /// The group's lanes whose `value` equals the caller's, bit `r` for rank `r`.
    #[inline(always)]
    #[track_caller]
    pub fn match_any<T: WarpShuffle>(&self, value: T) -> u32 {
        pack(self.mask, match_any_sync(self.mask, value))
    }

    /// Whether the group's lanes all have the same `value`: `(mask by rank, true)` or
    /// `(0, false)`.
    #[inline(always)]
    #[track_caller]
    pub fn match_all<T: WarpShuffle>(&self, value: T) -> (u32, bool) {
        let (m, p) = match_all_sync(self.mask, value);
        (pack(self.mask, m), p)
    }
}

/// The bits of `lanes` (a subset of `mask`) renumbered by rank in `mask`.
#[inline(always)]
fn pack(mask: u32, lanes: u32) -> u32 {
    if mask == u32::MAX {
        return lanes;
    }
    let (mut out, mut rank, mut m) = (0u32, 0u32, mask);
    while m != 0 {
        let l = m.trailing_zeros();
        if lanes & (1 << l) != 0 {
            out |= 1 << rank;
        }
        rank += 1;
        m &= m - 1;
    }
    out
}

/// A group the partitions split: a tile or a coalesced group.
pub trait WarpGroup: sealed::Sealed {
    /// The group's lanes in the warp.
    fn lanes(&self) -> u32;
}

impl<const N: u32> WarpGroup for ThreadBlockTile<N> {
    #[inline(always)]
    fn lanes(&self) -> u32 {
        self.mask
    }
}

impl WarpGroup for CoalescedGroup {
    #[inline(always)]
    fn lanes(&self) -> u32 {
        self.mask
    }
}

/// The lanes of `parent` with the same `label` as the caller (`cg::labeled_partition`, one
/// `match.any.sync` over the parent's lanes).
#[inline(always)]
#[track_caller]
pub fn labeled_partition<G: WarpGroup>(parent: &G, label: u32) -> CoalescedGroup {
    CoalescedGroup { mask: match_any_sync(parent.lanes(), label) }
}

/// The lanes of `parent` whose `predicate` equals the caller's (`cg::binary_partition`, one
/// ballot over the parent's lanes).
#[inline(always)]
#[track_caller]
pub fn binary_partition<G: WarpGroup>(parent: &G, predicate: bool) -> CoalescedGroup {
    let m = parent.lanes();
    let yes = ballot_sync(m, predicate);
    CoalescedGroup { mask: if predicate { yes } else { m & !yes } }
}

mod sealed {
    pub trait Sealed {}
    impl<const N: u32> Sealed for super::ThreadBlockTile<N> {}
    impl Sealed for super::CoalescedGroup {}
    impl Sealed for super::PlusOp {}
    impl Sealed for super::LessOp {}
    impl Sealed for super::GreaterOp {}
    impl Sealed for super::BitAndOp {}
    impl Sealed for super::BitOrOp {}
    impl Sealed for super::BitXorOp {}
    impl<F> Sealed for super::Custom<F> {}
}

/// The values `reduce` and the scans combine: the shuffle types `u32`, `i32`, `f32`, `u64`,
/// `i64`, `f64` (integers add wrapping, as on the GPU).
pub trait GroupValue: WarpShuffle + PartialOrd + Default {
    /// `a + b` (wrapping for integers).
    #[doc(hidden)]
    fn plus(a: Self, b: Self) -> Self;
    /// `a - b` for integers (the exclusive scan of `plus` subtracts), `None` for floats.
    #[doc(hidden)]
    fn minus(a: Self, b: Self) -> Option<Self>;
    /// `redux.sync` of this value, for `i32` and `u32` (`None` for other types).
    #[doc(hidden)]
    #[inline(always)]
    #[track_caller]
    fn redux(kind: ReduxKind, mask: u32, v: Self) -> Option<Self> {
        let _ = (kind, mask, v);
        None
    }
}

/// The integer values of the bit operations.
pub trait GroupBits: GroupValue {
    /// `a & b`, `a | b`, `a ^ b`.
    #[doc(hidden)]
    fn bit(kind: ReduxKind, a: Self, b: Self) -> Self;
}

macro_rules! group_int {
    ($($t:ty, |$k:ident, $m:ident, $v:ident| $redux:expr;)*) => { $(
        impl GroupValue for $t {
            #[inline(always)]
            fn plus(a: Self, b: Self) -> Self {
                a.wrapping_add(b)
            }
            #[inline(always)]
            fn minus(a: Self, b: Self) -> Option<Self> {
                Some(a.wrapping_sub(b))
            }
            #[inline(always)]
            #[track_caller]
            fn redux($k: ReduxKind, $m: u32, $v: Self) -> Option<Self> {
                $redux
            }
        }
        impl GroupBits for $t {
            #[inline(always)]
            fn bit(kind: ReduxKind, a: Self, b: Self) -> Self {
                match kind {
                    ReduxKind::And => a & b,
                    ReduxKind::Or => a | b,
                    _ => a ^ b,
                }
            }
        }
    )* };
}

group_int! {
    u32, |k, m, v| Some(backend::warp_redux(k, false, m, v));
    i32, |k, m, v| Some(backend::warp_redux(k, true, m, v as u32) as i32);
    u64, |k, m, v| { let _ = (k, m, v); None };
    i64, |k, m, v| { let _ = (k, m, v); None };
}

impl GroupValue for f32 {
    #[inline(always)]
    fn plus(a: Self, b: Self) -> Self {
        a + b
    }
    #[inline(always)]
    fn minus(_: Self, _: Self) -> Option<Self> {
        None
    }
}

impl GroupValue for f64 {
    #[inline(always)]
    fn plus(a: Self, b: Self) -> Self {
        a + b
    }
    #[inline(always)]
    fn minus(_: Self, _: Self) -> Option<Self> {
        None
    }
}

/// An operation of `reduce` and the scans: [`plus`], [`less`], [`greater`], [`bit_and`],
/// [`bit_or`], [`bit_xor`], or any `Fn(T, T) -> T` through [`op`].
pub trait GroupOp<T>: sealed::Sealed {
    /// The operation's `redux.sync`, if it has one.
    #[doc(hidden)]
    const REDUX: Option<ReduxKind>;
    /// Whether it is `plus` (the exclusive scan of integers then subtracts, as CUDA does).
    #[doc(hidden)]
    const PLUS: bool = false;
    /// `op(a, b)`.
    fn apply(&self, a: T, b: T) -> T;
}

/// `cg::plus<T>`: `a + b` (wrapping for integers).
#[derive(Clone, Copy, Debug, Default)]
pub struct PlusOp;
/// `cg::less<T>`: the smaller, `if a < b { a } else { b }`.
#[derive(Clone, Copy, Debug, Default)]
pub struct LessOp;
/// `cg::greater<T>`: the larger, `if a < b { b } else { a }`.
#[derive(Clone, Copy, Debug, Default)]
pub struct GreaterOp;
/// `cg::bit_and<T>`.
#[derive(Clone, Copy, Debug, Default)]
pub struct BitAndOp;
/// `cg::bit_or<T>`.
#[derive(Clone, Copy, Debug, Default)]
pub struct BitOrOp;
/// `cg::bit_xor<T>`.
#[derive(Clone, Copy, Debug, Default)]
pub struct BitXorOp;
/// A user operation, from [`op`].
#[derive(Clone, Copy, Debug)]
pub struct Custom<F>(F);

/// `cg::plus<T>()`.
#[inline(always)]
pub fn plus() -> PlusOp {
    PlusOp
}
/// `cg::less<T>()`.
#[inline(always)]
pub fn less() -> LessOp {
    LessOp
}
/// `cg::greater<T>()`.
#[inline(always)]
pub fn greater() -> GreaterOp {
    GreaterOp
}
/// `cg::bit_and<T>()`.
#[inline(always)]
pub fn bit_and() -> BitAndOp {
    BitAndOp
}
/// `cg::bit_or<T>()`.
#[inline(always)]
pub fn bit_or() -> BitOrOp {
    BitOrOp
}
/// `cg::bit_xor<T>()`.
#[inline(always)]
pub fn bit_xor() -> BitXorOp {
    BitXorOp
}
/// A user operation `f(a, b)` for `reduce` and the scans (CUDA accepts any functor).
#[inline(always)]
pub fn op<T, F: Fn(T, T) -> T>(f: F) -> Custom<F> {
    Custom(f)
}

impl<T: GroupValue> GroupOp<T> for PlusOp {
    const REDUX: Option<ReduxKind> = Some(ReduxKind::Add);
    const PLUS: bool = true;
    #[inline(always)]
    fn apply(&self, a: T, b: T) -> T {
        T::plus(a, b)
    }
}
impl<T: GroupValue> GroupOp<T> for LessOp {
    const REDUX: Option<ReduxKind> = Some(ReduxKind::Min);
    #[inline(always)]
    fn apply(&self, a: T, b: T) -> T {
        if a < b {
            a
        } else {
            b
        }
    }
}
impl<T: GroupValue> GroupOp<T> for GreaterOp {
    const REDUX: Option<ReduxKind> = Some(ReduxKind::Max);
    #[inline(always)]
    fn apply(&self, a: T, b: T) -> T {
        if a < b {
            b
        } else {
            a
        }
    }
}
impl<T: GroupBits> GroupOp<T> for BitAndOp {
    const REDUX: Option<ReduxKind> = Some(ReduxKind::And);
    #[inline(always)]
    fn apply(&self, a: T, b: T) -> T {
        T::bit(ReduxKind::And, a, b)
    }
}
impl<T: GroupBits> GroupOp<T> for BitOrOp {
    const REDUX: Option<ReduxKind> = Some(ReduxKind::Or);
    #[inline(always)]
    fn apply(&self, a: T, b: T) -> T {
        T::bit(ReduxKind::Or, a, b)
    }
}
impl<T: GroupBits> GroupOp<T> for BitXorOp {
    const REDUX: Option<ReduxKind> = Some(ReduxKind::Xor);
    #[inline(always)]
    fn apply(&self, a: T, b: T) -> T {
        T::bit(ReduxKind::Xor, a, b)
    }
}
impl<T, F: Fn(T, T) -> T> GroupOp<T> for Custom<F> {
    const REDUX: Option<ReduxKind> = None;
    #[inline(always)]
    fn apply(&self, a: T, b: T) -> T {
        (self.0)(a, b)
    }
}

/// A group `reduce` and the scans run over: a tile or a coalesced group.
pub trait ReduceGroup: WarpGroup {
    /// `reduce` over the group, as CUDA's headers do it.
    #[doc(hidden)]
    fn reduce_in<T: GroupValue, O: GroupOp<T>>(&self, v: T, op: &O) -> T;
    /// The inclusive scan, as CUDA's headers do it.
    #[doc(hidden)]
    fn inclusive_in<T: GroupValue, O: GroupOp<T>>(&self, v: T, op: &O) -> T;
    /// The exclusive scan, as CUDA's headers do it.
    #[doc(hidden)]
    #[track_caller]
    fn exclusive_in<T: GroupValue, O: GroupOp<T>>(&self, v: T, op: &O) -> T
    where
        Self: Sized,
    {
        exclusive_from_inclusive(self, v, op)
    }
    /// The caller's rank.
    #[doc(hidden)]
    fn rank(&self) -> u32;
    /// `shfl_up(v, 1)` in the group.
    #[doc(hidden)]
    fn up1<T: WarpShuffle>(&self, v: T) -> T;
}

impl<const N: u32> ReduceGroup for ThreadBlockTile<N> {
    #[inline(always)]
    #[track_caller]
    fn reduce_in<T: GroupValue, O: GroupOp<T>>(&self, v: T, op: &O) -> T {
        if N > 32 {
            return multi_warp_reduce::<N, T, O>(v, op);
        }
        // `details::reduce.h`: redux for 32-bit integers on tiles of 16 and 32; otherwise
        // `coalesced_reduce` of a single-warp tile, a butterfly of `shfl_xor`.
        if N >= 16 {
            if let Some(r) = O::REDUX.and_then(|k| T::redux(k, self.mask, v)) {
                return r;
            }
        }
        let mut val = v;
        let mut m = N >> 1;
        while m > 0 {
            val = op.apply(val, shfl_xor_sync_width(self.mask, val, m, N));
            m >>= 1;
        }
        val
    }
    #[inline(always)]
    #[track_caller]
    fn inclusive_in<T: GroupValue, O: GroupOp<T>>(&self, v: T, op: &O) -> T {
        if N > 32 {
            return multi_warp_scan::<N, T, O>(v, op, false);
        }
        // `inclusive_scan_contiguous`.
        let mut out = v;
        let mut m = 1;
        while m < N {
            let tmp = shfl_up_sync_width(self.mask, out, m, N);
            if m <= self.thread_rank() {
                out = op.apply(out, tmp);
            }
            m <<= 1;
        }
        out
    }
    #[inline(always)]
    fn rank(&self) -> u32 {
        self.thread_rank()
    }
    #[inline(always)]
    #[track_caller]
    fn up1<T: WarpShuffle>(&self, v: T) -> T {
        shfl_up_sync_width(self.mask, v, 1, N)
    }
    #[inline(always)]
    #[track_caller]
    fn exclusive_in<T: GroupValue, O: GroupOp<T>>(&self, v: T, op: &O) -> T {
        if N > 32 {
            return multi_warp_scan::<N, T, O>(v, op, true);
        }
        exclusive_from_inclusive(self, v, op)
    }
}

/// Lane `lane`'s `value` of each warp of the caller's multi-warp tile of `N` threads, by warp
/// (entries past `N / 32` are the caller's own): one tile `shfl` broadcast per warp, since a
/// multi-warp tile's shfl takes one source rank for the whole tile.
#[inline(always)]
#[track_caller]
fn per_warp<const N: u32, T: WarpShuffle>(value: T, lane: u32) -> [T; 32] {
    let tile = ThreadBlockTile::<N> { mask: u32::MAX };
    let mut out = [value; 32];
    let mut k = 0;
    while k < (N / 32) as usize {
        out[k] = tile.shfl(value, k as u32 * 32 + lane);
        k += 1;
    }
    out
}

/// `cg::reduce` over a multi-warp tile of `N` threads, with CUDA's results
/// (`tile_reduce_dispatch`): each warp reduces its lanes (`details::reduce` of a 32-thread
/// tile), then warp `w`'s result is what lane `w` of a tile of `N / 32` threads computes from
/// the warps' results with a `shfl_xor` butterfly (CUDA uses `redux.sync` there for 32-bit
/// integers on 16 and 32 warps: the same result, those operations being associative and
/// commutative). Every thread of warp `w` gets it.
///
/// The warps' results travel as broadcasts, one tile `shfl` from each warp's lane 0: a
/// multi-warp tile's shfl takes one source rank for the whole tile (CUDA passes the value
/// through one slot per warp), so the butterfly's exchanges, whose sources differ by warp,
/// cannot be shuffles. Each thread then runs the butterfly over the `N / 32` values itself, in
/// the order lane `w` of the sub-warp would: the same values, not CUDA's instruction sequence.
#[inline(always)]
#[track_caller]
fn multi_warp_reduce<const N: u32, T: GroupValue, O: GroupOp<T>>(v: T, op: &O) -> T {
    let warp = ThreadBlockTile::<32> { mask: u32::MAX };
    let tile = ThreadBlockTile::<N> { mask: u32::MAX };
    let val = warp.reduce_in(v, op);
    let warps = (N / 32) as usize;
    let mut vals = per_warp::<N, T>(val, 0);
    let mut m = warps >> 1;
    while m > 0 {
        let before = vals;
        let mut i = 0;
        while i < warps {
            vals[i] = op.apply(before[i], before[i ^ m]);
            i += 1;
        }
        m >>= 1;
    }
    vals[(tile.thread_rank() / 32) as usize]
}

impl ReduceGroup for CoalescedGroup {
    #[inline(always)]
    #[track_caller]
    fn reduce_in<T: GroupValue, O: GroupOp<T>>(&self, v: T, op: &O) -> T {
        // `details::reduce.h`: redux for 32-bit integers; otherwise `coalesced_reduce`.
        if let Some(r) = O::REDUX.and_then(|k| T::redux(k, self.mask, v)) {
            return r;
        }
        let size = self.size();
        if size & (size - 1) == 0 {
            let mut out = v;
            let mut offset = size >> 1;
            while offset > 0 {
                out = op.apply(out, self.shfl_down(out, offset));
                offset >>= 1;
            }
            return self.shfl(out, 0);
        }
        let out = self.non_contiguous(v, op);
        self.shfl(out, size - 1)
    }
    #[inline(always)]
    #[track_caller]
    fn inclusive_in<T: GroupValue, O: GroupOp<T>>(&self, v: T, op: &O) -> T {
        if self.size() == 32 {
            let mut out = v;
            let mut m = 1;
            while m < 32 {
                let tmp = self.shfl_up(out, m);
                if m <= self.thread_rank() {
                    out = op.apply(out, tmp);
                }
                m <<= 1;
            }
            return out;
        }
        self.non_contiguous(v, op)
    }
    #[inline(always)]
    fn rank(&self) -> u32 {
        self.thread_rank()
    }
    #[inline(always)]
    #[track_caller]
    fn up1<T: WarpShuffle>(&self, v: T) -> T {
        self.shfl_up(v, 1)
    }
}

impl CoalescedGroup {
    /// The scan ladder of a group whose lanes are not contiguous (CUDA's
    /// `inclusive_scan_non_contiguous`, also the non-power-of-two `coalesced_reduce`): each
    /// step finds, by binary search, the lane `i` ranks below and shuffles from it.
    #[inline(always)]
    #[track_caller]
    fn non_contiguous<T: GroupValue, O: GroupOp<T>>(&self, v: T, op: &O) -> T {
        let size = self.size();
        let mask = self.mask;
        let lanemask = mask & ((1u32 << lane_id()) - 1);
        let mut src = lane_id();
        let base = mask.trailing_zeros();
        let rank = lanemask.count_ones();
        let mut out = v;
        let (mut i, mut j) = (1u32, 1u32);
        while i < size {
            if i <= rank {
                src -= j;
                j = i;
                let mut beg = base + rank - i;
                while beg < src {
                    let half = (beg + src) >> 1;
                    let half_mask = lanemask >> half;
                    let d = half_mask.count_ones();
                    if d < i {
                        src = half - 1;
                    } else if i < d || half_mask & 1 == 0 {
                        beg = half + 1;
                    } else {
                        beg = half;
                        src = half;
                    }
                }
            }
            let tmp = shfl_sync_width(mask, out, src, 32);
            if i <= rank {
                out = op.apply(out, tmp);
            }
            i <<= 1;
        }
        out
    }
}

/// The reduction of `value` over `group` with `op`, given to every thread of it
/// (`cg::reduce(group, value, op)`).
#[inline(always)]
#[track_caller]
pub fn reduce<G: ReduceGroup, T: GroupValue, O: GroupOp<T>>(group: &G, value: T, op: O) -> T {
    group.reduce_in(value, &op)
}

/// `op` over the values of ranks `0..=thread_rank()` (`cg::inclusive_scan`).
#[inline(always)]
#[track_caller]
pub fn inclusive_scan<G: ReduceGroup, T: GroupValue, O: GroupOp<T>>(group: &G, value: T, op: O) -> T {
    group.inclusive_in(value, &op)
}

/// `op` over the values of ranks `0..thread_rank()` (`cg::exclusive_scan`); rank 0 gets
/// `T::default()` (0), as CUDA's value-initialised result. For integers with `plus` it is
/// the inclusive scan minus the value (as CUDA does), otherwise the inclusive scan shifted up.
#[inline(always)]
#[track_caller]
pub fn exclusive_scan<G: ReduceGroup, T: GroupValue, O: GroupOp<T>>(group: &G, value: T, op: O) -> T {
    group.exclusive_in(value, &op)
}

/// CUDA's `convert_inclusive_to_exclusive` after an inclusive scan, in a single-warp group.
#[inline(always)]
#[track_caller]
fn exclusive_from_inclusive<G: ReduceGroup, T: GroupValue, O: GroupOp<T>>(group: &G, value: T, op: &O) -> T {
    let r = group.inclusive_in(value, op);
    if O::PLUS {
        if let Some(d) = T::minus(r, value) {
            return d;
        }
    }
    let up = group.up1(r);
    if group.rank() == 0 {
        T::default()
    } else {
        up
    }
}

/// The scans of a multi-warp tile of `N` threads, with CUDA's results (`scan_dispatch` for
/// multi-warp tiles): each warp scans its lanes (inclusive; for the exclusive scan, shifted
/// up one lane); warp `w`'s lane 31 holds its total; lane `w` of a tile of `N / 32` threads
/// scans the totals exclusively (`coalesced_exclusive_scan`); then warp 0 keeps its own scan,
/// the others combine it with the totals before them (`op(warp_scan, previous)`), and for
/// the exclusive scan each warp's lane 0 takes the totals before it.
///
/// The totals travel as broadcasts, one tile `shfl` from each warp's lane 31 (a multi-warp
/// tile's shfl takes one source rank for the whole tile); each thread then scans them itself,
/// as lane `w` of the sub-warp would.
#[inline(always)]
#[track_caller]
fn multi_warp_scan<const N: u32, T: GroupValue, O: GroupOp<T>>(v: T, op: &O, exclusive: bool) -> T {
    let warp = ThreadBlockTile::<32> { mask: u32::MAX };
    let tile = ThreadBlockTile::<N> { mask: u32::MAX };
    let incl = warp.inclusive_in(v, op);
    let warps = (N / 32) as usize;
    let totals = per_warp::<N, T>(incl, 31);
    // `inclusive_scan_contiguous` over the totals, lane by lane of the sub-warp.
    let mut scan = totals;
    let mut m = 1;
    while m < warps {
        let before = scan;
        let mut i = m;
        while i < warps {
            scan[i] = op.apply(before[i], before[i - m]);
            i += 1;
        }
        m <<= 1;
    }
    let w = (tile.thread_rank() / 32) as usize;
    let shifted = if w == 0 { T::default() } else { scan[w - 1] };
    let previous = if O::PLUS { T::minus(scan[w], totals[w]).unwrap_or(shifted) } else { shifted };
    let warp_scan = if exclusive { shfl_up_sync_width(u32::MAX, incl, 1, 32) } else { incl };
    if exclusive && lane_id() == 0 {
        return previous;
    }
    if w == 0 {
        warp_scan
    } else {
        op.apply(warp_scan, previous)
    }
}

/// The grid of a cooperative launch, and the block's cluster: `cg::this_grid()` and
/// `cg::this_cluster()`, as in CUDA's `cooperative_groups` namespace.
pub use super::cluster::{this_cluster, ClusterGroup};
pub use super::grid::{this_grid, GridGroup};
