//! Thread-locals that say which GPU thread is running on this host thread.
//!
//! A block's threads run one at a time on one host thread, each on its own fiber; before the
//! block's scheduler resumes a fiber it calls [`enter`] and [`set_thread`], and after the fiber
//! suspends or finishes it calls [`leave`]. The device API's `thread_idx()` and friends read
//! these cells: one thread-local load each. Outside a kernel the cells hold a sentinel and the
//! built-ins panic with a message that says so.

use std::cell::Cell;
use std::panic::Location;
use std::ptr;

use crate::device::Dim3;
use crate::host::block::BlockRun;

const OUTSIDE: Dim3 = Dim3::new(u32::MAX, u32::MAX, u32::MAX);

thread_local! {
    static THREAD_IDX: Cell<Dim3> = const { Cell::new(OUTSIDE) };
    static BLOCK_IDX: Cell<Dim3> = const { Cell::new(OUTSIDE) };
    static BLOCK_DIM: Cell<Dim3> = const { Cell::new(OUTSIDE) };
    static GRID_DIM: Cell<Dim3> = const { Cell::new(OUTSIDE) };
    static BLOCK: Cell<*const BlockRun<'static>> = const { Cell::new(ptr::null()) };
    static EXIT_AT: Cell<Option<&'static Location<'static>>> = const { Cell::new(None) };
}

/// Records where the running thread exits (`#[kernel]` calls this before each `return` and at
/// the end of the body); the scheduler moves it into the thread's slot when the thread ends.
#[inline(always)]
pub(crate) fn exit_here(at: &'static Location<'static>) {
    EXIT_AT.with(|c| c.set(Some(at)));
}

/// Where the thread that just ended exited (the last `exit_here` on this host thread: every
/// `#[kernel]` body calls it right before it returns).
#[inline(always)]
pub(crate) fn exit_position() -> Option<&'static Location<'static>> {
    EXIT_AT.with(|c| c.get())
}


#[cold]
#[inline(never)]
fn outside_kernel(what: &str) -> ! {
    panic!(
        "deviceemu: `{what}()` was called outside a running kernel; device built-ins only work \
         inside a `#[kernel]` launched with `launch!`"
    )
}

/// `threadIdx`: checked, so that a device built-in used outside a kernel panics with a clear
/// message (the other indices are always read together with it in practice, so they skip the
/// check to keep the per-thread path short).
#[inline(always)]
pub(crate) fn thread_idx() -> Dim3 {
    let v = THREAD_IDX.with(Cell::get);
    if v.x == u32::MAX {
        outside_kernel("thread_idx");
    }
    v
}

macro_rules! builtin {
    ($name:ident, $cell:ident) => {
        #[inline(always)]
        pub(crate) fn $name() -> Dim3 {
            let v = $cell.with(Cell::get);
            if cfg!(debug_assertions) && v.x == u32::MAX {
                outside_kernel(stringify!($name));
            }
            v
        }
    };
}
builtin!(block_idx, BLOCK_IDX);
builtin!(block_dim, BLOCK_DIM);
builtin!(grid_dim, GRID_DIM);

/// Marks `block` as the block whose fibers this host thread runs from now until [`leave`].
#[inline(always)]
pub(crate) fn enter(block: &BlockRun<'_>) {
    BLOCK.with(|c| c.set((block as *const BlockRun<'_>).cast::<BlockRun<'static>>()));
    BLOCK_IDX.with(|c| c.set(block.block_idx()));
    BLOCK_DIM.with(|c| c.set(block.launch().block));
    GRID_DIM.with(|c| c.set(block.launch().grid));
}

/// Sets the index of the GPU thread about to run.
#[inline(always)]
pub(crate) fn set_thread(idx: Dim3) {
    THREAD_IDX.with(|c| c.set(idx));
}

/// Clears what [`enter`] and [`set_thread`] set.
#[inline(always)]
pub(crate) fn leave() {
    BLOCK.with(|c| c.set(ptr::null()));
    THREAD_IDX.with(|c| c.set(OUTSIDE));
    BLOCK_IDX.with(|c| c.set(OUTSIDE));
    BLOCK_DIM.with(|c| c.set(OUTSIDE));
    GRID_DIM.with(|c| c.set(OUTSIDE));
}

/// The block whose fiber is running on this host thread, if any.
#[inline(always)]
pub(crate) fn current() -> Option<&'static BlockRun<'static>> {
    let p = BLOCK.with(Cell::get);
    // SAFETY: `BLOCK` is non-null only between `enter` and `leave`, which the block scheduler
    // calls around each fiber resumption; the `BlockRun` outlives all its fibers, so it is
    // alive whenever kernel code (the only caller) can observe the pointer. The `'static` is a
    // lie confined to that window: callers must not keep the reference past the current
    // device-API call.
    unsafe { p.as_ref() }
}

/// The block whose fiber is running, or a panic naming the built-in used outside a kernel.
#[inline(always)]
pub(crate) fn block_for(what: &str) -> &'static BlockRun<'static> {
    match current() {
        Some(b) => b,
        None => outside_kernel(what),
    }
}
