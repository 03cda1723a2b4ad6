//! What a debugger reads, without calling into the program, to name the GPU thread at a
//! breakpoint and to tell what the other threads of its block are doing.
//!
//! gdb and lldb cannot always call functions in the program they debug (gdb 13.1 on an
//! AMX-capable Xeon fails every call with "Couldn't write extended state status: Bad
//! address"), and a breakpoint condition that calls into the program costs a call per hit. So
//! the helper scripts (`tools/gdb/deviceemu.py`, `tools/lldb/deviceemu.py`) read memory only:
//!
//! * **Which GPU thread a kernel frame runs.** Every per-thread frame of a kernel holds the
//!   thread's `ThreadCtx` as `__emu_ctx` (the plain form's argument; the state machine captures
//!   it whole, `emit/host.rs`), with `thread_idx` and `block_idx`. A `#[device]` helper's frame
//!   finds it in the kernel frame above it.
//! * **Which block a host thread runs.** [`DEVICEEMU_HOST_THREADS`] heads a list of
//!   `#[repr(C)]` [`HostThread`] records, one per host thread that ran a block (a worker, the
//!   launching thread with `EMU_BLOCKS=serial`, each OS thread of `EMU_SCHEDULE=threads`): its
//!   OS thread id and the `BlockRun` it runs (null between blocks). A script finds the record
//!   of the stopped thread (gdb: `ptid[1]`, lldb: the thread id), then reads the block's
//!   running thread, slots, start order and warp arrivals through `BlockRun`'s debug
//!   information.
//!
//! ```text
//!  DEVICEEMU_HOST_THREADS ─► HostThread ─next─► HostThread ─next─► ... (null)
//!  { version, head }         { tid, block }     { tid = 0: free, block = null }
//!                                    │
//!                                    ▼
//!                            BlockRun { launch: kernel, grid, block, thread_index, devrt;
//!                                       id.idx, current, slots[t].{state, at}, starts,
//!                                       warps.warp_arrivals[t].op }
//! ```
//!
//! **Cost.** A host thread claims a record the first time it enters a block (a walk of the
//! list and a compare-and-swap, or a new record), and frees it when it ends; entering and
//! leaving a block store the block's address in it (`context::enter`/`leave`). Nothing is
//! written per GPU thread. Records are never freed (a free one is reused), so a debugger that
//! walks the list while the program runs never reads freed memory.
//!
//! **Watched blocks.** A conditional breakpoint costs the debugger a stop at every hit, in
//! every GPU thread (lldb takes about 0.2 s per stop when a block's threads are OS threads,
//! `EMU_SCHEDULE=threads`). When the program starts with `DEVICEEMU_WATCH_BLOCKS` set (the
//! scripts set it for `emu-break`'s block before `run`: `1,*,*;0,2,*`, one pattern per
//! breakpoint, `*` for any), a host thread calls [`deviceemu_watched_block`] when it starts a
//! block that matches a pattern, and when it starts the first block after one that did: the
//! script breaks there (a stop per watched block, not per hit) and keeps the line breakpoint
//! enabled only while a watched block runs. Without the variable, starting a block costs one
//! load and a branch.
//!
//! **Layout.** [`HOST_THREADS_VERSION`] names the layout of the two records below; a script
//! refuses a program whose version it does not know. `BlockRun` and what it points to are read
//! by field name, so their layout may change freely.

// The registry is reached by debuggers through its symbol, not by paths.
#![allow(unreachable_pub)]

use std::ptr;
use std::sync::atomic::{AtomicPtr, AtomicU64, Ordering};

use crate::host::sched::block::BlockRun;
use crate::host::sched::context;

/// The version of the layout of [`HostThreads`] and [`HostThread`] the scripts read.
pub const HOST_THREADS_VERSION: u32 = 1;

/// The head of the list of host threads (the symbol the scripts look up).
#[repr(C)]
#[derive(Debug)]
pub struct HostThreads {
    /// [`HOST_THREADS_VERSION`].
    version: u32,
    /// The most recently added record.
    head: AtomicPtr<HostThread>,
}

/// One host thread that ran a block: at offsets 0, 8 and 16 on 64-bit hosts.
#[repr(C)]
#[derive(Debug)]
pub struct HostThread {
    /// The OS thread id (Linux: `gettid`, the LWP gdb and lldb show), 0 while free.
    tid: AtomicU64,
    /// The block the thread runs, null between blocks.
    block: AtomicPtr<BlockRun<'static>>,
    /// The next record, added before this one.
    next: AtomicPtr<HostThread>,
}

/// The host threads that run blocks, read by debuggers (see the module doc).
#[no_mangle]
pub static DEVICEEMU_HOST_THREADS: HostThreads =
    HostThreads { version: HOST_THREADS_VERSION, head: AtomicPtr::new(ptr::null_mut()) };

/// This host thread's record, freed when the thread ends.
struct Claim(&'static HostThread);

impl Drop for Claim {
    fn drop(&mut self) {
        // A thread-local destructor that runs later must not use the record (it may be
        // someone else's by then).
        let _ = MINE.try_with(|m| m.set(ptr::null()));
        self.0.block.store(ptr::null_mut(), Ordering::Relaxed);
        self.0.tid.store(0, Ordering::Release);
    }
}

thread_local! {
    /// This thread's record, null until it first enters a block (a plain thread-local: reading
    /// it costs a load).
    static MINE: std::cell::Cell<*const HostThread> = const { std::cell::Cell::new(ptr::null()) };
    /// Frees the record when the thread ends.
    static CLAIM: std::cell::RefCell<Option<Claim>> = const { std::cell::RefCell::new(None) };
}

/// The id debuggers know this OS thread by.
fn os_tid() -> u64 {
    #[cfg(all(target_os = "linux", not(miri)))]
    {
        // SAFETY: `gettid` takes no arguments and cannot fail.
        (unsafe { libc::syscall(libc::SYS_gettid) }) as u64
    }
    #[cfg(all(target_os = "macos", not(miri)))]
    {
        let mut id = 0u64;
        // SAFETY: a null thread means the calling thread; `id` is a valid place for the result.
        unsafe { libc::pthread_threadid_np(0, &mut id) };
        id
    }
    // (Under miri, which has no `gettid`, records carry no id: no debugger reads them.)
    #[cfg(any(miri, not(any(target_os = "linux", target_os = "macos"))))]
    {
        0
    }
}

/// A free record taken for this thread, or a new one.
#[cold]
#[inline(never)]
fn claim() -> &'static HostThread {
    let tid = os_tid().max(1);
    let list = &DEVICEEMU_HOST_THREADS;
    let mut p = list.head.load(Ordering::Acquire);
    // SAFETY: every pointer in the list comes from `Box::leak` below and is never freed.
    while let Some(r) = unsafe { p.as_ref() } {
        if r.tid.compare_exchange(0, tid, Ordering::AcqRel, Ordering::Relaxed).is_ok() {
            return r;
        }
        p = r.next.load(Ordering::Acquire);
    }
    let r: &'static HostThread = Box::leak(Box::new(HostThread {
        tid: AtomicU64::new(tid),
        block: AtomicPtr::new(ptr::null_mut()),
        next: AtomicPtr::new(ptr::null_mut()),
    }));
    let mut head = list.head.load(Ordering::Relaxed);
    loop {
        r.next.store(head, Ordering::Relaxed);
        match list.head.compare_exchange_weak(
            head,
            (r as *const HostThread).cast_mut(),
            Ordering::Release,
            Ordering::Relaxed,
        ) {
            Ok(_) => return r,
            Err(h) => head = h,
        }
    }
}

/// Notes in this host thread's record that it runs `block` (null: none), for debuggers.
#[inline(always)]
pub(crate) fn running(block: *const BlockRun<'_>) {
    let mut mine = MINE.with(std::cell::Cell::get);
    if mine.is_null() {
        mine = first_claim();
        if mine.is_null() {
            return;
        }
    }
    // SAFETY: records are leaked boxes, never freed (see `claim`).
    unsafe { &*mine }.block.store(block.cast::<BlockRun<'static>>().cast_mut(), Ordering::Relaxed);
}

/// Claims this thread's record and arranges for it to be freed when the thread ends; null
/// when the thread's thread-locals are being destroyed (it is then not listed).
#[cold]
#[inline(never)]
fn first_claim() -> *const HostThread {
    let r = claim();
    match CLAIM.try_with(|c| *c.borrow_mut() = Some(Claim(r))) {
        Ok(()) => {
            MINE.with(|m| m.set(r));
            r
        }
        Err(_) => {
            // Give the record back at once.
            drop(Claim(r));
            ptr::null()
        }
    }
}

/// A block pattern: each component, or `u32::MAX` for any.
type Pattern = [u32; 3];

/// The patterns of `DEVICEEMU_WATCH_BLOCKS`, read once; `None` without the variable.
pub(crate) fn watched() -> Option<&'static [Pattern]> {
    static WATCHED: std::sync::OnceLock<Option<Box<[Pattern]>>> = std::sync::OnceLock::new();
    WATCHED.get_or_init(|| std::env::var("DEVICEEMU_WATCH_BLOCKS").ok().map(|v| parse_patterns(&v))).as_deref()
}

/// `1,*,*;0,2` -> `[[1, MAX, MAX], [0, 2, MAX]]` (a component that does not parse matches any).
fn parse_patterns(v: &str) -> Box<[Pattern]> {
    v.split(';')
        .filter(|p| !p.trim().is_empty())
        .map(|p| {
            let mut out = [u32::MAX; 3];
            for (o, c) in out.iter_mut().zip(p.split(',')) {
                *o = c.trim().parse().unwrap_or(u32::MAX);
            }
            out
        })
        .collect()
}

thread_local! {
    /// Whether the block this host thread started last was watched.
    static IN_WATCHED: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// A host thread starts block `idx` while a debugger watches `patterns` ([`watched`]): tells
/// the debugger when it matters (see the module doc).
#[cold]
#[inline(never)]
pub(crate) fn block_starts_watched(patterns: &[Pattern], idx: crate::device::Dim3) {
    let hit = patterns.iter().any(|p| [idx.x, idx.y, idx.z].iter().zip(p).all(|(c, w)| *w == u32::MAX || c == w));
    let was = IN_WATCHED.with(|c| c.replace(hit));
    if hit || was {
        deviceemu_watched_block(idx.x, idx.y, idx.z, hit as u32);
    }
}

/// Called when this host thread starts block `(bx, by, bz)`, which a pattern of
/// `DEVICEEMU_WATCH_BLOCKS` matches (`entered` = 1), or the first block after such a one
/// (`entered` = 0): a debugger breaks here. It does nothing.
#[no_mangle]
#[inline(never)]
pub extern "C" fn deviceemu_watched_block(bx: u32, by: u32, bz: u32, entered: u32) {
    std::hint::black_box((bx, by, bz, entered));
}

/// The line `emu-where` prints for the GPU thread running on this host thread (the scripts
/// build the same text from memory), with who launched its grid when it is a child grid.
#[cfg(not(target_arch = "nvptx64"))]
pub(crate) fn where_now() -> String {
    match context::current() {
        Some(b) => {
            format!(
                "kernel {}, block {}, thread {}{}",
                b.launch().kernel.name,
                b.block_idx(),
                context::thread_idx(),
                b.launch().devrt.launched_by
            )
        }
        None => "no GPU thread is running on this host thread".to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A thread's record is listed with its id while it lives, and freed (then reused) when it
    /// ends.
    #[test]
    fn records_are_claimed_and_freed() {
        let listed = |tid: u64| {
            let mut p = DEVICEEMU_HOST_THREADS.head.load(Ordering::Acquire);
            let mut found = false;
            // SAFETY: records are leaked boxes, never freed.
            while let Some(r) = unsafe { p.as_ref() } {
                found |= r.tid.load(Ordering::Acquire) == tid;
                p = r.next.load(Ordering::Acquire);
            }
            found
        };
        let tid = std::thread::spawn(move || {
            running(ptr::null());
            let tid = os_tid();
            assert!(listed(tid));
            tid
        })
        .join()
        .unwrap();
        assert!(!listed(tid), "the record of an ended thread is still claimed");
    }

    #[test]
    fn watch_patterns_parse() {
        assert_eq!(&*parse_patterns("1,*,*;0,2"), &[[1, u32::MAX, u32::MAX], [0, 2, u32::MAX]]);
        assert_eq!(&*parse_patterns(""), &[] as &[Pattern]);
    }

    /// `tools/deviceemu_common.py` names each warp collective by its `WarpOp` as `Debug` spells
    /// it (`WarpOp::name`), and decodes the tag byte for lldb, which cannot decode Rust enums:
    /// both must follow `warp.rs`.
    #[test]
    fn the_scripts_name_every_warp_collective() {
        use crate::device::backend::{ShflMode, TileOp, VoteOp};
        use crate::host::sched::warp::{ReduxOp, WarpOp};
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../tools/deviceemu_common.py");
        let Ok(py) = std::fs::read_to_string(path) else {
            // A packaged emu-runtime has no tools/.
            return;
        };
        let tags_line = py.lines().find(|l| l.starts_with("WARP_OP_TAGS = [")).expect("WARP_OP_TAGS in the script");
        let tags: Vec<&str> = tags_line.split('"').skip(1).step_by(2).collect();
        let mut ops = vec![WarpOp::ActiveMask, WarpOp::Sync, WarpOp::MatchAny, WarpOp::MatchAll];
        ops.extend([VoteOp::All, VoteOp::Any, VoteOp::Ballot].map(WarpOp::Vote));
        ops.extend([ShflMode::Idx, ShflMode::Up, ShflMode::Down, ShflMode::Bfly].map(WarpOp::Shfl));
        ops.extend(
            [
                ReduxOp::Add,
                ReduxOp::MinU,
                ReduxOp::MinS,
                ReduxOp::MaxU,
                ReduxOp::MaxS,
                ReduxOp::And,
                ReduxOp::Or,
                ReduxOp::Xor,
            ]
            .map(WarpOp::Redux),
        );
        ops.extend([TileOp::Sync, TileOp::Shfl, TileOp::Any, TileOp::All].map(WarpOp::Tile));
        assert_eq!(std::mem::size_of::<WarpOp>(), 2, "the scripts read a WarpOp as a tag byte and a payload byte");
        for op in ops {
            let key = format!("{op:?}");
            let entry = format!("\"{key}\": \"{}\"", op.name());
            assert!(py.contains(&entry), "{path} lacks {entry}");
            // SAFETY: the first byte of a `WarpOp` is its tag, always initialised (the size
            // check above and this test pin that layout, which the lldb script reads).
            let tag = unsafe { *(&op as *const WarpOp).cast::<u8>() };
            assert_eq!(
                tags.get(tag as usize),
                Some(&key.split('(').next().unwrap()),
                "{op:?} has tag {tag}; WARP_OP_TAGS is {tags:?}"
            );
        }
    }
}
