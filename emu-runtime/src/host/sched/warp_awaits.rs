//! Warp collectives in the body of a state-machine kernel: `#[kernel]` writes
//! `sync_warp_await(mask).await` in place of `sync_warp(mask)`, and so on for each collective.
//! Each waits for its warp as an `.await` rather than by parking a fiber.
//!
//! Moved from `__private.rs` (issue 27); `__private` re-exports every function here.

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
