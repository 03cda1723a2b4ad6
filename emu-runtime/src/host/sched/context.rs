//! Thread-locals that say which GPU thread is running on this host thread.
//!
//! A block's threads run one at a time on one host thread. When a worker starts a block it
//! calls [`enter`], and [`leave`] when the block is done. The device API's `block_idx()` and
//! friends read these cells (one thread-local load each); `thread_idx()` asks the running
//! block which of its threads runs, so the scheduler does not touch a thread-local per GPU
//! thread. A kernel's own body does not even do that: `#[kernel]` hands it its indices as a
//! `ThreadCtx` argument. Outside a kernel the cells hold a sentinel and the built-ins panic
//! with a message that says so. [`enter`] and [`leave`] also tell debuggers which block this
//! host thread runs (`debugger.rs`).

use std::cell::Cell;
use std::ptr;

use crate::device::Dim3;
use crate::host::sched::block::BlockRun;

const OUTSIDE: Dim3 = Dim3::new(u32::MAX, u32::MAX, u32::MAX);

thread_local! {
    static BLOCK_IDX: Cell<Dim3> = const { Cell::new(OUTSIDE) };
    static BLOCK_DIM: Cell<Dim3> = const { Cell::new(OUTSIDE) };
    static GRID_DIM: Cell<Dim3> = const { Cell::new(OUTSIDE) };
    static BLOCK: Cell<*const BlockRun<'static>> = const { Cell::new(ptr::null()) };
    static CHECKING: Cell<bool> = const { Cell::new(false) };
}

/// Whether the running launch checks each access (initcheck, racecheck): read by `#[device]`
/// helpers once per call and by atomics.
#[inline(always)]
pub(crate) fn checking() -> bool {
    CHECKING.with(Cell::get)
}

#[cold]
#[inline(never)]
fn outside_kernel(what: &str) -> ! {
    panic!(
        "deviceemu: `{what}()` was called outside a running kernel; device built-ins only work \
         inside a `#[kernel]` launched with `launch!`"
    )
}

/// `threadIdx`: the running block's running thread, or a panic with a clear message outside
/// a kernel (the other indices are always read together with it in practice, so they skip the
/// check in release builds).
#[inline(always)]
pub(crate) fn thread_idx() -> Dim3 {
    block_for("thread_idx").thread()
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
    crate::host::sched::debugger::running(block);
    BLOCK_IDX.with(|c| c.set(block.block_idx()));
    BLOCK_DIM.with(|c| c.set(block.launch().block));
    GRID_DIM.with(|c| c.set(block.launch().grid));
    CHECKING.with(|c| c.set(crate::host::check::any(block.launch().config.get_checks())));
}

/// Clears what [`enter`] set.
#[inline(always)]
pub(crate) fn leave() {
    BLOCK.with(|c| c.set(ptr::null()));
    crate::host::sched::debugger::running(ptr::null());
    BLOCK_IDX.with(|c| c.set(OUTSIDE));
    BLOCK_DIM.with(|c| c.set(OUTSIDE));
    GRID_DIM.with(|c| c.set(OUTSIDE));
    CHECKING.with(|c| c.set(false));
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
