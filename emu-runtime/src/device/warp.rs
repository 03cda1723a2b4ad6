//! Warp-level primitives: lane queries, `__syncwarp`, the votes and the shuffles.
//!
//! A block's threads form warps of [`warp_size`] consecutive linear thread indices (32, as on
//! the hardware, or 1 with `EMU_WARP_SIZE=1`, the legacy emulator's semantics, where every
//! thread is a warp of its own). Every collective takes a `mask` naming the lanes that take
//! part; as on Volta and later, each lane named in it that has not exited must reach a
//! collective of the same kind with the same mask, and the calling lane must be in it. In
//! the emulator a collective waits until that has happened; one that never can is reported
//! as `Barrier error detected. Divergent thread(s) in warp` (never a hang), and a mask
//! without the calling lane as `Barrier error detected. Invalid arguments`.
//!
//! The shuffles follow PTX's `shfl.sync`: only the low five bits of the lane, delta or lane
//! mask are used, and a lane whose source lies outside its segment (the whole warp, or
//! `width` lanes with the `_width` forms) gets its own value back. Reading from a lane that
//! takes no part in the shuffle (it exited, is not in `mask`, or is absent from a partial
//! warp) is undefined in CUDA: the H200 returns 0, and so does the emulator, which also
//! reports it (`Barrier error detected. Divergent thread(s) in warp`). A lane named in a
//! mask that runs past the collective without calling it is reported the same way. Lanes
//! that exit *before* a collective (`if i >= n { return; }`) count as arrived.
//!
//! Also here: the sm_80 warp reductions ([`reduce_add_sync`] and friends, `redux.sync`) and
//! the sm_70 matches ([`match_any_sync`], [`match_all_sync`], `match.sync`).

use super::backend::{self, ReduxKind, ShflMode, VoteOp};

/// The mask naming all 32 lanes of a warp (`0xffffffff`).
pub const FULL_MASK: u32 = 0xffff_ffff;

/// The number of threads in a warp (`warpSize`): 32 on the GPU and by default in the
/// emulator, 1 with `EMU_WARP_SIZE=1`.
#[inline(always)]
pub fn warp_size() -> u32 {
    backend::warp_size()
}

/// The calling thread's lane in its warp: its linear index in the block modulo
/// [`warp_size`] (PTX `%laneid`).
#[inline(always)]
pub fn lane_id() -> u32 {
    backend::lane_id()
}

/// The lanes of the calling thread's warp that are running (`__activemask()`).
///
/// On the GPU this is the set of lanes executing the call together, which depends on the
/// scheduler. The emulator returns the lanes of the warp that call `active_mask` at the same
/// call site before any thread of the block can go on: the lanes of one branch of a divergent
/// `if`, whatever order they run in. Neither guarantees that the lanes stay converged: use
/// an explicit mask for collectives.
#[inline(always)]
#[track_caller]
pub fn active_mask() -> u32 {
    backend::active_mask()
}

/// Waits until every lane named in `mask` has reached a `sync_warp` with the same mask, or
/// exited (`__syncwarp(mask)`); orders their memory accesses.
#[inline(always)]
#[track_caller]
pub fn sync_warp(mask: u32) {
    backend::warp_sync(mask)
}

/// Whether `predicate` is true for every non-exited lane named in `mask` (`__all_sync`).
#[inline(always)]
#[track_caller]
pub fn all_sync(mask: u32, predicate: bool) -> bool {
    backend::warp_vote(VoteOp::All, mask, predicate) != 0
}

/// Whether `predicate` is true for any non-exited lane named in `mask` (`__any_sync`).
#[inline(always)]
#[track_caller]
pub fn any_sync(mask: u32, predicate: bool) -> bool {
    backend::warp_vote(VoteOp::Any, mask, predicate) != 0
}

/// The lanes named in `mask` whose `predicate` is true, one bit per lane (`__ballot_sync`).
#[inline(always)]
#[track_caller]
pub fn ballot_sync(mask: u32, predicate: bool) -> u32 {
    backend::warp_vote(VoteOp::Ballot, mask, predicate)
}

/// `value` as lane `src_lane` of the warp passed it (`__shfl_sync`); `src_lane` is taken
/// modulo 32.
#[inline(always)]
#[track_caller]
pub fn shfl_sync<T: WarpShuffle>(mask: u32, value: T, src_lane: u32) -> T {
    T::from_bits(backend::warp_shfl(ShflMode::Idx, mask, value.to_bits(), T::WIDE, src_lane, 32))
}

/// `value` as lane `lane_id() - delta` passed it, or the caller's own `value` when that lane
/// would be below 0 (`__shfl_up_sync`).
#[inline(always)]
#[track_caller]
pub fn shfl_up_sync<T: WarpShuffle>(mask: u32, value: T, delta: u32) -> T {
    T::from_bits(backend::warp_shfl(ShflMode::Up, mask, value.to_bits(), T::WIDE, delta, 32))
}

/// `value` as lane `lane_id() + delta` passed it, or the caller's own `value` when that lane
/// would be past the warp's last (`__shfl_down_sync`).
#[inline(always)]
#[track_caller]
pub fn shfl_down_sync<T: WarpShuffle>(mask: u32, value: T, delta: u32) -> T {
    T::from_bits(backend::warp_shfl(ShflMode::Down, mask, value.to_bits(), T::WIDE, delta, 32))
}

/// `value` as lane `lane_id() ^ lane_mask` passed it (`__shfl_xor_sync`, the butterfly of
/// warp reductions).
#[inline(always)]
#[track_caller]
pub fn shfl_xor_sync<T: WarpShuffle>(mask: u32, value: T, lane_mask: u32) -> T {
    T::from_bits(backend::warp_shfl(ShflMode::Bfly, mask, value.to_bits(), T::WIDE, lane_mask, 32))
}

/// [`shfl_sync`] within segments of `width` lanes (`__shfl_sync(mask, v, src, width)`):
/// reads lane `(lane_id() & !(width - 1)) + src_lane % width`.
///
/// `width` must be a power of two from 1 to 32, as in CUDA; it becomes PTX's `c` operand
/// `((32 - width) << 8) | 31`, exactly what CUDA's headers pass, so other values do what
/// they do on the GPU.
#[inline(always)]
#[track_caller]
pub fn shfl_sync_width<T: WarpShuffle>(mask: u32, value: T, src_lane: u32, width: u32) -> T {
    T::from_bits(backend::warp_shfl(ShflMode::Idx, mask, value.to_bits(), T::WIDE, src_lane, width))
}

/// [`shfl_up_sync`] within segments of `width` lanes (`__shfl_up_sync(mask, v, delta,
/// width)`): a lane whose `lane_id() % width < delta` keeps its own value.
#[inline(always)]
#[track_caller]
pub fn shfl_up_sync_width<T: WarpShuffle>(mask: u32, value: T, delta: u32, width: u32) -> T {
    T::from_bits(backend::warp_shfl(ShflMode::Up, mask, value.to_bits(), T::WIDE, delta, width))
}

/// [`shfl_down_sync`] within segments of `width` lanes (`__shfl_down_sync(mask, v, delta,
/// width)`): a lane whose `lane_id() % width + delta >= width` keeps its own value.
#[inline(always)]
#[track_caller]
pub fn shfl_down_sync_width<T: WarpShuffle>(mask: u32, value: T, delta: u32, width: u32) -> T {
    T::from_bits(backend::warp_shfl(ShflMode::Down, mask, value.to_bits(), T::WIDE, delta, width))
}

/// [`shfl_xor_sync`] with `width` (`__shfl_xor_sync(mask, v, lane_mask, width)`): reads lane
/// `lane_id() ^ lane_mask` unless that lane lies in a higher segment than the caller's (then
/// its own value; a lower segment is read, as on the GPU).
#[inline(always)]
#[track_caller]
pub fn shfl_xor_sync_width<T: WarpShuffle>(mask: u32, value: T, lane_mask: u32, width: u32) -> T {
    T::from_bits(backend::warp_shfl(ShflMode::Bfly, mask, value.to_bits(), T::WIDE, lane_mask, width))
}

/// The wrapping sum of `value` over the lanes of `mask` that take part, given to each of them
/// (`__reduce_add_sync`, sm_80 `redux.sync.add`), for `u32` and `i32`.
#[inline(always)]
#[track_caller]
pub fn reduce_add_sync<T: WarpReduce>(mask: u32, value: T) -> T {
    T::from_word(backend::warp_redux(ReduxKind::Add, T::SIGNED, mask, value.to_word()))
}

/// The minimum of `value` over the lanes of `mask` (`__reduce_min_sync`; signed for `i32`).
#[inline(always)]
#[track_caller]
pub fn reduce_min_sync<T: WarpReduce>(mask: u32, value: T) -> T {
    T::from_word(backend::warp_redux(ReduxKind::Min, T::SIGNED, mask, value.to_word()))
}

/// The maximum of `value` over the lanes of `mask` (`__reduce_max_sync`; signed for `i32`).
#[inline(always)]
#[track_caller]
pub fn reduce_max_sync<T: WarpReduce>(mask: u32, value: T) -> T {
    T::from_word(backend::warp_redux(ReduxKind::Max, T::SIGNED, mask, value.to_word()))
}

/// The bitwise and of `value` over the lanes of `mask` (`__reduce_and_sync`).
#[inline(always)]
#[track_caller]
pub fn reduce_and_sync(mask: u32, value: u32) -> u32 {
    backend::warp_redux(ReduxKind::And, false, mask, value)
}

/// The bitwise or of `value` over the lanes of `mask` (`__reduce_or_sync`).
#[inline(always)]
#[track_caller]
pub fn reduce_or_sync(mask: u32, value: u32) -> u32 {
    backend::warp_redux(ReduxKind::Or, false, mask, value)
}

/// The bitwise exclusive or of `value` over the lanes of `mask` (`__reduce_xor_sync`).
#[inline(always)]
#[track_caller]
pub fn reduce_xor_sync(mask: u32, value: u32) -> u32 {
    backend::warp_redux(ReduxKind::Xor, false, mask, value)
}

/// The lanes of `mask` whose `value` equals the caller's, bit for bit (`__match_any_sync`,
/// sm_70 `match.any.sync`; 64-bit types compare all 64 bits).
#[inline(always)]
#[track_caller]
pub fn match_any_sync<T: WarpShuffle>(mask: u32, value: T) -> u32 {
    backend::warp_match(false, mask, value.to_bits(), T::WIDE).0
}

/// Whether every lane of `mask` has the same `value` (`__match_all_sync`, sm_70
/// `match.all.sync`): `(mask, true)` when they all agree, `(0, false)` otherwise. CUDA returns
/// the first and writes the second through its `int *pred` argument.
#[inline(always)]
#[track_caller]
pub fn match_all_sync<T: WarpShuffle>(mask: u32, value: T) -> (u32, bool) {
    backend::warp_match(true, mask, value.to_bits(), T::WIDE)
}

/// The types the warp reductions take: `u32` and `i32` (min and max are signed for `i32`),
/// as CUDA's `__reduce_{add,min,max}_sync` overloads.
pub trait WarpReduce: Copy + sealed::Sealed {
    /// Whether min and max compare as signed.
    #[doc(hidden)]
    const SIGNED: bool;
    /// The value's bits.
    #[doc(hidden)]
    fn to_word(self) -> u32;
    /// The value back from its bits.
    #[doc(hidden)]
    fn from_word(w: u32) -> Self;
}

impl WarpReduce for u32 {
    const SIGNED: bool = false;
    #[inline(always)]
    fn to_word(self) -> u32 {
        self
    }
    #[inline(always)]
    fn from_word(w: u32) -> Self {
        w
    }
}

impl WarpReduce for i32 {
    const SIGNED: bool = true;
    #[inline(always)]
    fn to_word(self) -> u32 {
        self as u32
    }
    #[inline(always)]
    fn from_word(w: u32) -> Self {
        w as i32
    }
}

mod sealed {
    pub trait Sealed {}
}

/// The types the shuffles move: `u32`, `i32`, `f32`, `u64`, `i64` and `f64`, bit for bit
/// (64-bit values are two 32-bit shuffles on the GPU, as in CUDA).
pub trait WarpShuffle: Copy + sealed::Sealed {
    /// Whether the value needs two 32-bit shuffles.
    #[doc(hidden)]
    const WIDE: bool;
    /// The value's bits, zero-extended.
    #[doc(hidden)]
    fn to_bits(self) -> u64;
    /// The value back from its bits.
    #[doc(hidden)]
    fn from_bits(bits: u64) -> Self;
}

macro_rules! shuffle_type {
    ($($t:ty, $wide:expr, |$v:ident| $to:expr, |$b:ident| $from:expr;)*) => { $(
        impl sealed::Sealed for $t {}
        impl WarpShuffle for $t {
            const WIDE: bool = $wide;
            #[inline(always)]
            fn to_bits(self) -> u64 {
                let $v = self;
                $to
            }
            #[inline(always)]
            fn from_bits($b: u64) -> Self {
                $from
            }
        }
    )* };
}

shuffle_type! {
    u32, false, |v| v as u64, |b| b as u32;
    i32, false, |v| v as u32 as u64, |b| b as u32 as i32;
    f32, false, |v| v.to_bits() as u64, |b| f32::from_bits(b as u32);
    u64, true, |v| v, |b| b;
    i64, true, |v| v as u64, |b| b as i64;
    f64, true, |v| v.to_bits(), |b| f64::from_bits(b);
}
