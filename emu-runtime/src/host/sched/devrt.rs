//! The device runtime (CUDA dynamic parallelism), emulated: kernels that launch kernels.
//!
//! # The model
//!
//! A `launch!` written in a `#[kernel]` or `#[device]` body is a *device-side launch*: the
//! macro calls the child's `__launch_device`, which validates the launch, checks the limits
//! below and queues a *child*: a job that runs the child grid (`__run_views`, the child's
//! launcher on the parent's views) later. It never runs a grid nested on the launching
//! thread's fiber stack.
//!
//! - **When children run.** Children are queued per launching block, in the order the block's
//!   threads launched them (the block's own scheduling, as CUDA orders launches into one
//!   stream from several threads of a block). When the parent grid's blocks have all ended,
//!   its queued children run, block by block in launch order, then its tail launches; each
//!   child runs its own children before it counts as finished, so a tail launch starts only
//!   after all other work of its parent grid (CUDA's rule), and a parent grid (and the host's
//!   `launch!`) completes only after all its descendants. Children also run *earlier*, while
//!   their parent block is suspended: at a `device_synchronize()` in the cdp1 profile and when
//!   the pending-launch limit is reached (below). Running every child after its parent block
//!   is one of the schedules CUDA allows (it promises no concurrency between parent and
//!   child); on the H200 null-stream children ran *while* the parent ran
//!   (tools/probes/RESULTS.md, p7), which no correct CDP2 program can tell apart, since a
//!   parent cannot wait for its children there. Every child sees all the parent's global
//!   writes made before its launch (and, in the emulator, those made after it: a program that
//!   relies on a child *not* seeing them is racy).
//! - **Where children run.** Not on the fiber that launched them (its stack is small), and
//!   never by blocking a rayon worker on work that only that worker could do: the queue is run
//!   on a *device-runtime thread* (a scoped OS thread with a large stack, [`STACK`]) that the
//!   parent's host thread (or the suspended GPU thread's worker) waits for. A child grid run
//!   from inside a running block (cdp1 `device_synchronize`, the pending limit) runs its
//!   blocks in order on that thread (`BlockOrder::Serial`), so it needs no rayon worker;
//!   children run after the grid use the parent's settings. Nested children run on the same
//!   device-runtime thread.
//! - **Streams and events.** Every stream and event is a handle created by one thread of one
//!   block; using it in another block, or in another grid (passed to a child, stored in
//!   memory), is undefined in CUDA (seed 004) and reported here as a `Device runtime error`
//!   finding naming the kernel, block, thread and line, while the call returns 400
//!   (`cudaErrorInvalidResourceHandle`). Because children of a block run in launch order, one
//!   at a time, every order that events and streams can ask for holds; `record` and
//!   `wait_event` only validate their handles.
//! - **Errors of the launch itself** (a bad configuration, 9; the nesting depth, 65; the
//!   pending-launch limit, 69; misuse, 400) are returned by the device-side `launch!` as
//!   `Err(deviceemu::Error)` and recorded as the calling GPU thread's last error, which
//!   `get_last_error()` / `peek_at_last_error()` called *in the kernel* return (per GPU
//!   thread, as CUDA's device-side `cudaGetLastError`). Faults of a child grid are reported
//!   with the child's name and the block and thread that launched it, and the top-level
//!   host launch returns the first error of its tree (its own first, then its children's).
//!
//! # Profiles (`EMU_DEVICE_RUNTIME`, `Config::device_runtime`)
//!
//! - `cdp2` (default, sm_90): `device_synchronize()` in a kernel is a `Device runtime error`
//!   (nvcc 13 rejects it for sm_90, p7) that says to use `DeviceStream::tail_launch()`; it
//!   returns 801. There is no nesting-depth error (p7 ran depth 200 without one); the
//!   emulator refuses depths beyond [`EMU_MAX_DEPTH`] with 801, to keep its host stack.
//! - `cdp1` (legacy, seed 004): `device_synchronize()` in a kernel waits for all the work that
//!   any thread of the calling block launched so far (not tail launches), including their
//!   descendants; it may be called from divergent code and does not synchronise the block.
//!   When only some threads of a block call it, those threads wait for everything the block
//!   launched before the call (other threads' launches too); the threads that do not call it
//!   wait for nothing, and what they launch afterwards runs at the next `device_synchronize` of
//!   any thread of the block or after the grid. A second call that finds nothing left returns
//!   at once (the first drained the work, as the seed describes). A launch at depth 25 (host
//!   grid = 0) fails with 65 (`cudaErrorLaunchMaxDepthExceeded`).
//!
//! # The pending-launch limit (`Config::pending_launch_limit`, default 2048)
//!
//! As measured on the H200 (p7): tail launches of a grid count until the grid ends, and the
//! launch past the limit fails with 69 (`cudaErrorLaunchPendingCountExceeded`), the grid
//! going on. Null-stream and named-stream launches count only unfinished children: at the
//! limit the emulator first runs the calling block's queued children (as the GPU would have
//! finished some), and fails with 69 only when the limit is still reached (the queued
//! children belong to other blocks). Fire-and-forget launches never fail (22048 did not on
//! the H200); at the limit they also run the block's queued children first. The counts are
//! per parent grid.

use std::cell::{Cell, RefCell};
use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::panic::Location;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::Mutex;

use crate::device::{DeviceCopy, Dim3};
use crate::host::config::{self, BlockOrder, Config, DeviceRuntime};
use crate::host::launch_desc::{KernelInfo, LaunchConfig};
use crate::host::report::error::Error;
use crate::host::report::{Finding, SourceLocation};
use crate::host::sched::block::BlockRun;
use crate::host::sched::context;
use crate::host::sched::launch::{self, LaunchShared};

/// The stack of a device-runtime thread: children nest on it (one `run` per level).
pub(crate) const STACK: usize = 256 << 20;

/// The deepest nesting the emulator runs in the cdp2 profile (801 beyond it): CDP2 has no
/// depth limit (p7), but every level takes host stack.
pub(crate) const EMU_MAX_DEPTH: u32 = 1000;

/// CDP1's nesting limit: a grid at a deeper level fails to launch with 65.
pub(crate) const CDP1_MAX_DEPTH: u32 = 24;

const TAIL: u64 = u64::MAX;
const FIRE_AND_FORGET: u64 = u64::MAX - 1;
/// Object indices take the low bits of a handle, the creating grid's serial the rest.
const INDEX_BITS: u32 = 24;

/// A stream of the device runtime, made in a kernel: [`DeviceStream::non_blocking`] (the only
/// kind a kernel can create, as in CUDA), or one of CDP2's two special streams,
/// [`DeviceStream::tail_launch`] and [`DeviceStream::fire_and_forget`]. Pass it as the fourth
/// launch parameter: `launch!(child<<<grid, block, 0, &stream>>>(args))`.
///
/// A stream belongs to the block that created it: using it in another block or grid is
/// undefined in CUDA and reported here. It is `Copy` and `DeviceCopy` (a handle, as
/// `cudaStream_t` is), so it can be stored in memory, which is how it can reach another block.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DeviceStream {
    handle: u64,
}

// SAFETY: a `u64` handle: no padding, and zero (the handle of no stream) is a valid value.
unsafe impl DeviceCopy for DeviceStream {}

/// An event of the device runtime (`cudaEventCreateWithFlags(.., cudaEventDisableTiming)`):
/// it only orders streams ([`DeviceEvent::record`], [`DeviceStream::wait_event`]); there is
/// no synchronise, query or elapsed time in a kernel. Private to the creating block, like
/// [`DeviceStream`].
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DeviceEvent {
    handle: u64,
}

// SAFETY: as for `DeviceStream`.
unsafe impl DeviceCopy for DeviceEvent {}

impl DeviceStream {
    /// Creates a stream (`cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking)`), private to
    /// the calling block. Outside a kernel this panics.
    #[track_caller]
    pub fn non_blocking() -> DeviceStream {
        DeviceStream { handle: create(ObjKind::Stream, Location::caller()) }
    }

    /// CDP2's tail-launch stream (`cudaStreamTailLaunch`): a child launched into it runs after
    /// the parent grid and all its other work have finished.
    pub const fn tail_launch() -> DeviceStream {
        DeviceStream { handle: TAIL }
    }

    /// CDP2's fire-and-forget stream (`cudaStreamFireAndForget`): the child runs
    /// independently of the parent's other children.
    pub const fn fire_and_forget() -> DeviceStream {
        DeviceStream { handle: FIRE_AND_FORGET }
    }

    /// Makes later work of this stream wait for `event` (`cudaStreamWaitEvent`). Returns 400
    /// (and reports the misuse) when the stream or the event is not the calling block's.
    #[track_caller]
    pub fn wait_event(&self, event: &DeviceEvent) -> Result<(), Error> {
        let at = Location::caller();
        with_block("DeviceStream::wait_event", |b| {
            stream_kind(b, self, at, "DeviceStream::wait_event")?;
            check_object(b, event.handle, ObjKind::Event, at, "DeviceStream::wait_event").map(|_| ())
        })
    }
}

impl DeviceEvent {
    /// Creates an event without timing (`cudaEventCreateWithFlags(&e,
    /// cudaEventDisableTiming)`), private to the calling block.
    #[track_caller]
    pub fn without_timing() -> DeviceEvent {
        DeviceEvent { handle: create(ObjKind::Event, Location::caller()) }
    }

    /// Records the event in `stream` (`cudaEventRecord`). Returns 400 (and reports the
    /// misuse) when the stream or the event is not the calling block's.
    #[track_caller]
    pub fn record(&self, stream: &DeviceStream) -> Result<(), Error> {
        let at = Location::caller();
        with_block("DeviceEvent::record", |b| {
            check_object(b, self.handle, ObjKind::Event, at, "DeviceEvent::record")?;
            stream_kind(b, stream, at, "DeviceEvent::record").map(|_| ())
        })
    }
}

pub use crate::device::launch_arg::{DeviceArg, DeviceArgMut};

/// What a child grid knows about where it was launched.
#[derive(Clone, Debug)]
pub(crate) struct Parent {
    /// The launching kernel.
    pub(crate) kernel: &'static str,
    /// The launching block and thread.
    pub(crate) block: Dim3,
    pub(crate) thread: Dim3,
    /// The `launch!`.
    pub(crate) at: &'static Location<'static>,
    /// The nesting depth of the child (host grid = 0).
    pub(crate) depth: u32,
    /// The parent's own ancestry, innermost first (for `emu-where`).
    pub(crate) chain: Vec<String>,
}

impl Parent {
    /// The lines `emu-where` adds for a child grid: who launched it, and who launched that.
    pub(crate) fn lines(&self) -> Vec<String> {
        let mut v = vec![format!(
            "launched (depth {}) by kernel {}, block {}, thread {}, at {}:{}",
            self.depth,
            self.kernel,
            self.block,
            self.thread,
            self.at.file(),
            self.at.line()
        )];
        v.extend(self.chain.iter().cloned());
        v
    }
}

/// The kinds of stream a child goes into.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum StreamKind {
    Null,
    Named,
    Tail,
    FireAndForget,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum ObjKind {
    Stream,
    Event,
}

/// A stream or event a thread of the grid created.
struct Obj {
    kind: ObjKind,
    block: u64,
    thread: Dim3,
    at: &'static Location<'static>,
}

/// A queued child launch.
struct Child {
    job: AssertSend<Job>,
    parent: Parent,
}

/// A child's launch, its lifetime erased (see [`device_launch`]).
type Job = Box<dyn FnOnce() -> Result<(), Error> + 'static>;

#[derive(Default)]
struct Queues {
    /// Children of null and named streams and fire-and-forget ones, by launching block.
    by_block: BTreeMap<u64, Vec<Child>>,
    /// Tail launches of the grid, in launch order.
    tail: Vec<Child>,
    /// Tail launches made so far.
    tails: usize,
}

/// The device runtime's state of one grid (a field of `LaunchShared`).
#[derive(Default)]
pub(crate) struct GridRt {
    /// Set for a child grid.
    pub(crate) parent: Option<Parent>,
    /// The lines `emu-where` adds for a child grid, each after a newline and two spaces
    /// ([`Parent::lines`]); empty for a host grid. Rendered once, so that a debugger reads
    /// them from memory (`debugger.rs`).
    pub(crate) launched_by: Box<str>,
    queues: Mutex<Queues>,
    /// Whether any child was queued (so that a grid without children pays one load).
    any: AtomicBool,
    /// Children queued and not finished (null, named, fire-and-forget).
    pending: AtomicUsize,
    objects: Mutex<Vec<Obj>>,
    /// Each GPU thread's device-side last error, by (block, thread) linear indices.
    last_errors: Mutex<BTreeMap<(u64, u32), Error>>,
    /// The first error of a child grid run while the grid ran (cdp1 sync, the limit).
    child_error: Mutex<Option<Error>>,
}

impl std::fmt::Debug for GridRt {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("GridRt").field("parent", &self.parent).finish_non_exhaustive()
    }
}

impl GridRt {
    /// The state of a new grid: a child's when this host thread is running a child's job.
    pub(crate) fn new() -> GridRt {
        let parent = NEXT_PARENT.with(|p| p.borrow_mut().take());
        let launched_by = parent.as_ref().map_or_else(Box::default, |p| {
            p.lines().iter().map(|l| format!("\n  {l}")).collect::<String>().into_boxed_str()
        });
        GridRt { parent, launched_by, ..GridRt::default() }
    }

    /// The nesting depth of the grid (host grid = 0).
    pub(crate) fn depth(&self) -> u32 {
        self.parent.as_ref().map_or(0, |p| p.depth)
    }
}

/// Whether the next launch on this host thread is a child grid (a device-side launch's job).
pub(crate) fn launching_child() -> bool {
    NEXT_PARENT.with(|p| p.borrow().is_some())
}

thread_local! {
    /// The parent of the grid the next `run` on this host thread makes (set around a child's
    /// job, taken by `GridRt::new`).
    static NEXT_PARENT: RefCell<Option<Parent>> = const { RefCell::new(None) };
    /// Whether this host thread is a device-runtime thread (children nest on its stack).
    static DEVRT_THREAD: Cell<bool> = const { Cell::new(false) };
}

/// Runs `f` on a device-runtime thread with `config` in force: on this one when it is one
/// and no GPU thread runs on it, else on a new scoped thread with a large stack that this thread waits for. The thread's
/// reports are as quiet as this one's ([`report::quietly`](crate::host::report::quietly)).
fn on_devrt_thread<R: Send>(config: Config, f: impl FnOnce() -> R + Send) -> R {
    // Not from inside a kernel: that would nest the children on a fiber's stack.
    if DEVRT_THREAD.with(Cell::get) && context::current().is_none() {
        return config::with_config(config, f);
    }
    // A rayon worker that waits here cannot take part in the children's blocks: with a pool
    // of one worker they would never run. Their blocks then run in order.
    let config = if rayon::current_thread_index().is_some() { config.blocks(BlockOrder::Serial) } else { config };
    let quiet = crate::host::report::is_quiet();
    std::thread::scope(|s| {
        let h =
            std::thread::Builder::new().name("deviceemu-devrt".into()).stack_size(STACK).spawn_scoped(s, move || {
                DEVRT_THREAD.with(|d| d.set(true));
                if quiet {
                    crate::host::report::quietly(|| config::with_config(config, f))
                } else {
                    config::with_config(config, f)
                }
            });
        match h {
            // The emulator's own wait: not a blocked GPU thread (`stuck.rs`).
            Ok(h) => match crate::host::sched::stuck::paused(|| h.join()) {
                Ok(r) => r,
                Err(p) => std::panic::resume_unwind(p),
            },
            Err(e) => panic!("deviceemu: could not start a device-runtime thread: {e}"),
        }
    })
}

/// A value moved to a device-runtime thread.
struct AssertSend<T>(T);
// SAFETY: the jobs hold views (pointers into device memory, accessed only through relaxed
// atomics and designed to be used by many host threads at once) and `Copy` scalars; the
// thread that sends them waits until the receiving thread is done with them.
unsafe impl<T> Send for AssertSend<T> {}

/// Runs `children` one after another, each with its parent set; returns the first error.
fn run_children(children: Vec<Child>, pending: Option<&AtomicUsize>) -> Result<(), Error> {
    let mut first = Ok(());
    for c in children {
        NEXT_PARENT.with(|p| *p.borrow_mut() = Some(c.parent));
        let r = (c.job.0)();
        NEXT_PARENT.with(|p| p.borrow_mut().take());
        if let Some(p) = pending {
            p.fetch_sub(1, Ordering::Relaxed);
        }
        if first.is_ok() {
            first = r;
        }
    }
    first
}

/// Runs what the grid queued, after its blocks ended: its children block by block, then its
/// tail launches. Returns the first error of a child grid (also one run earlier).
pub(crate) fn finish_grid(shared: &LaunchShared) -> Result<(), Error> {
    let rt = &shared.devrt;
    if !rt.any.load(Ordering::Acquire) {
        return Ok(());
    }
    let (by_block, tail) = {
        let mut q = rt.queues.lock().unwrap_or_else(|e| e.into_inner());
        (std::mem::take(&mut q.by_block), std::mem::take(&mut q.tail))
    };
    let mut children: Vec<Child> = by_block.into_values().flatten().collect();
    let n = children.len();
    children.extend(tail);
    let jobs = AssertSend(children);
    let pending = &rt.pending;
    let r = on_devrt_thread(shared.config.clone(), move || {
        let jobs = jobs;
        let mut v = jobs.0;
        let tail = v.split_off(n);
        let a = run_children(v, Some(pending));
        let b = run_children(tail, None);
        a.and(b)
    });
    let earlier = rt.child_error.lock().unwrap_or_else(|e| e.into_inner()).take();
    match earlier {
        Some(e) => Err(e),
        None => r,
    }
}

/// Runs the children that block `b` queued so far (and their descendants), from inside the
/// block: on a device-runtime thread, blocks in order.
fn flush_block(b: &BlockRun<'_>, blin: u64) -> Result<(), Error> {
    let rt = &b.launch().devrt;
    let children = {
        let mut q = rt.queues.lock().unwrap_or_else(|e| e.into_inner());
        q.by_block.remove(&blin).unwrap_or_default()
    };
    if children.is_empty() {
        return Ok(());
    }
    let jobs = AssertSend(children);
    let pending = &rt.pending;
    let config = b.launch().config.clone().blocks(BlockOrder::Serial);
    let r = on_devrt_thread(config, move || {
        let jobs = jobs;
        run_children(jobs.0, Some(pending))
    });
    if let Err(e) = &r {
        rt.child_error.lock().unwrap_or_else(|e| e.into_inner()).get_or_insert_with(|| e.clone());
    }
    r
}

/// Runs `f` with the running block, or returns 801 outside a kernel.
fn with_block<R>(what: &str, f: impl FnOnce(&BlockRun<'static>) -> Result<R, Error>) -> Result<R, Error> {
    match context::current() {
        Some(b) => {
            let r = f(b);
            if let Err(e) = &r {
                set_last_error(b, e.clone());
            }
            r
        }
        None => Err(Error::NotSupported {
            message: format!("`{what}` was called outside a running kernel; it is a device-side call"),
        }),
    }
}

fn block_linear(b: &BlockRun<'_>) -> u64 {
    b.launch().grid.linear(b.block_idx())
}

fn set_last_error(b: &BlockRun<'_>, e: Error) {
    crate::host::report::last_error::IN_KERNEL.get_or_init(|| kernel_last_error);
    let key = (block_linear(b), b.current());
    b.launch().devrt.last_errors.lock().unwrap_or_else(|e| e.into_inner()).insert(key, e);
}

/// `get_last_error()` (`take`) / `peek_at_last_error()` called in a kernel: the running GPU
/// thread's device-side last error; `None` outside kernels (the host thread's then).
pub(crate) fn kernel_last_error(take: bool) -> Option<Result<(), Error>> {
    let b = context::current()?;
    let key = (block_linear(b), b.current());
    let mut m = b.launch().devrt.last_errors.lock().unwrap_or_else(|e| e.into_inner());
    let e = if take { m.remove(&key) } else { m.get(&key).cloned() };
    Some(e.map_or(Ok(()), Err))
}

/// Creates a stream or event for the running thread.
fn create(kind: ObjKind, at: &'static Location<'static>) -> u64 {
    let what = if kind == ObjKind::Stream { "DeviceStream::non_blocking" } else { "DeviceEvent::without_timing" };
    let b = context::block_for(what);
    let launch = b.launch();
    let mut objs = launch.devrt.objects.lock().unwrap_or_else(|e| e.into_inner());
    let index = objs.len() as u64 + 1;
    objs.push(Obj { kind, block: block_linear(b), thread: b.thread(), at });
    (launch.serial << INDEX_BITS) | (index & ((1 << INDEX_BITS) - 1))
}

/// Reports a misuse of the device runtime by the running thread (a finding that fails the
/// launch with 719) and returns the error the call returns.
#[cold]
#[inline(never)]
fn misuse(b: &BlockRun<'_>, at: &'static Location<'static>, problem: String, detail: String, code: i32) -> Error {
    b.note(Finding::DeviceRuntime {
        problem: problem.clone(),
        detail,
        at: SourceLocation::from(at),
        thread: b.thread(),
        block: b.block_idx(),
    });
    match code {
        801 => Error::NotSupported { message: problem },
        _ => Error::InvalidResourceHandle { message: problem },
    }
}

/// Checks that `handle` is a `kind` the running block created.
fn check_object(
    b: &BlockRun<'_>,
    handle: u64,
    kind: ObjKind,
    at: &'static Location<'static>,
    call: &str,
) -> Result<(), Error> {
    let name = if kind == ObjKind::Stream { "stream" } else { "event" };
    let a = if kind == ObjKind::Stream { "a" } else { "an" };
    let launch = b.launch();
    let serial = handle >> INDEX_BITS;
    let index = handle & ((1 << INDEX_BITS) - 1);
    if handle == 0 || index == 0 {
        return Err(misuse(
            b,
            at,
            format!("{call} was given {a} {name} handle that no thread created"),
            format!("the handle is {handle:#x} (zeroed or uninitialised memory?); create the {name} in the block that uses it"),
            400,
        ));
    }
    if serial != launch.serial {
        return Err(misuse(
            b,
            at,
            format!("{call} was given {a} {name} created by another grid"),
            format!(
                "a device-runtime {name} belongs to the block that created it and may not be passed to another kernel \
                 (a child or the parent) or grid: undefined in CUDA; create it in this block"
            ),
            400,
        ));
    }
    let objs = launch.devrt.objects.lock().unwrap_or_else(|e| e.into_inner());
    let Some(o) = objs.get(index as usize - 1).filter(|o| o.kind == kind) else {
        drop(objs);
        return Err(misuse(
            b,
            at,
            format!("{call} was given {a} {name} handle that no thread created"),
            format!("the handle is {handle:#x}"),
            400,
        ));
    };
    let me = block_linear(b);
    if o.block != me {
        let (creator, by, ca) = (launch.grid.unlinear(o.block), o.thread, SourceLocation::from(o.at));
        drop(objs);
        return Err(misuse(
            b,
            at,
            format!("{call} was given {a} {name} created by another block"),
            format!(
                "the {name} was created by thread {by} in block {creator} at {ca}; a device-runtime {name} is private to \
                 the block that creates it (using it in another block is undefined in CUDA); create one in each block"
            ),
            400,
        ));
    }
    Ok(())
}

/// The kind of `stream`, checking that a named stream is the running block's.
fn stream_kind(
    b: &BlockRun<'_>,
    stream: &DeviceStream,
    at: &'static Location<'static>,
    call: &str,
) -> Result<StreamKind, Error> {
    match stream.handle {
        TAIL => Ok(StreamKind::Tail),
        FIRE_AND_FORGET => Ok(StreamKind::FireAndForget),
        h => check_object(b, h, ObjKind::Stream, at, call).map(|_| StreamKind::Named),
    }
}

/// A device-side `launch!`: validates the launch, checks the nesting depth and the pending
/// limit, and queues `job` (which runs the child grid) as a child of the running block.
/// Called by the child's `__launch_device`.
pub fn device_launch<'l>(
    kernel: &'static KernelInfo,
    cfg: LaunchConfig,
    stream: Option<&DeviceStream>,
    at: &'static Location<'static>,
    job: impl FnOnce() -> Result<(), Error> + 'l,
) -> Result<(), Error> {
    let Some(b) = context::current() else {
        return Err(Error::NotSupported {
            message: format!(
                "the device-side launch of kernel `{}` at {}:{} ran outside a kernel: a `#[device]` function that \
                 launches kernels must be called from a running kernel",
                kernel.name,
                at.file(),
                at.line()
            ),
        });
    };
    let r = if b.stopping() {
        Err(while_stopping(at, "device-side launch!"))
    } else {
        queue(b, kernel, cfg, stream, at, Box::new(job))
    };
    if let Err(e) = &r {
        set_last_error(b, e.clone());
    }
    r
}

fn queue<'l>(
    b: &BlockRun<'static>,
    kernel: &'static KernelInfo,
    cfg: LaunchConfig,
    stream: Option<&DeviceStream>,
    at: &'static Location<'static>,
    job: Box<dyn FnOnce() -> Result<(), Error> + 'l>,
) -> Result<(), Error> {
    let launch = b.launch();
    let rt = &launch.devrt;
    let kind = match stream {
        None => StreamKind::Null,
        Some(s) => stream_kind(b, s, at, "a device-side launch!")?,
    };
    launch::validate(kernel, &cfg, &launch.config)?;
    let depth = rt.depth() + 1;
    let profile = launch.config.get_device_runtime();
    if profile == DeviceRuntime::Cdp1 && depth > CDP1_MAX_DEPTH {
        return Err(Error::LaunchMaxDepthExceeded {
            kernel: kernel.name,
            message: format!(
                "the child would run at nesting depth {depth} (the host's grid is depth 0), deeper than the {CDP1_MAX_DEPTH} \
                 levels the cdp1 device runtime allows; stop the recursion earlier (a depth parameter, as CUDA's \
                 cdpSimpleQuicksort does)"
            ),
        });
    }
    if depth > EMU_MAX_DEPTH {
        return Err(Error::NotSupported {
            message: format!(
                "kernel `{}` would run at nesting depth {depth}: the emulator runs at most {EMU_MAX_DEPTH} nested levels \
                 (CDP2 itself has no depth limit)",
                kernel.name
            ),
        });
    }
    let limit = launch.config.get_pending_launch_limit();
    let blin = block_linear(b);
    if kind == StreamKind::Tail {
        let mut q = rt.queues.lock().unwrap_or_else(|e| e.into_inner());
        if q.tails >= limit {
            return Err(pending_exceeded(kernel, limit, "tail launches of this grid wait until the grid ends"));
        }
        q.tails += 1;
    } else if rt.pending.load(Ordering::Relaxed) >= limit {
        // Children the GPU would have finished by now: run this block's.
        let _ = flush_block(b, blin);
        if rt.pending.load(Ordering::Relaxed) >= limit && kind != StreamKind::FireAndForget {
            return Err(pending_exceeded(kernel, limit, "the unfinished children were launched by other blocks"));
        }
    }
    // SAFETY: only the lifetime is erased (ARCHITECTURE.md, invariant 13). The job borrows views of the top-level launch's
    // buffers (`'l`), which outlive the top-level `run`; every job queued here is run or
    // dropped before the grid's `run` returns (`finish_grid`, `flush_block`, or the drop of
    // the grid's `LaunchShared` inside `run`), so it never runs or drops after `'l` ends.
    let job: Job = unsafe { std::mem::transmute::<Box<dyn FnOnce() -> Result<(), Error> + 'l>, Job>(job) };
    let mut chain = Vec::new();
    if let Some(p) = &rt.parent {
        chain = p.lines();
    }
    let parent = Parent { kernel: launch.kernel.name, block: b.block_idx(), thread: b.thread(), at, depth, chain };
    let mut q = rt.queues.lock().unwrap_or_else(|e| e.into_inner());
    let child = Child { job: AssertSend(job), parent };
    match kind {
        StreamKind::Tail => q.tail.push(child),
        _ => {
            rt.pending.fetch_add(1, Ordering::Relaxed);
            q.by_block.entry(blin).or_default().push(child);
        }
    }
    rt.any.store(true, Ordering::Release);
    Ok(())
}

/// The error of a device-runtime call made by the `Drop` code of a GPU thread that is being
/// stopped (`block.rs`, "Stopping a thread"): nothing is launched or waited for.
#[cold]
fn while_stopping(at: &'static Location<'static>, call: &str) -> Error {
    Error::NotSupported {
        message: format!(
            "a {call} at {}:{} ran in the Drop code of a GPU thread that is being stopped (a fault, a panic or its \
             block's failure): it does nothing",
            at.file(),
            at.line()
        ),
    }
}

#[cold]
fn pending_exceeded(kernel: &'static KernelInfo, limit: usize, why: &str) -> Error {
    Error::LaunchPendingCountExceeded {
        kernel: kernel.name,
        message: format!(
            "{limit} launches are pending, the device runtime's limit (cudaLimitDevRuntimePendingLaunchCount, \
             Config::pending_launch_limit); {why}. Raise the limit or launch fewer, larger grids"
        ),
    }
}

/// `device_synchronize()` called in a kernel: in the cdp1 profile, waits for the work the
/// calling block launched so far; in the cdp2 profile, a reported error (801).
#[track_caller]
pub(crate) fn device_synchronize_in_kernel(b: &BlockRun<'static>) -> Result<(), Error> {
    let at = Location::caller();
    let r = match b.launch().config.get_device_runtime() {
        _ if b.stopping() => Err(while_stopping(at, "device_synchronize()")),
        DeviceRuntime::Cdp1 => flush_block(b, block_linear(b)),
        DeviceRuntime::Cdp2 => Err(misuse(
            b,
            at,
            "device_synchronize() in a kernel is not available on sm_90 (CDP2)".to_owned(),
            "CUDA 12 and later removed device-side cudaDeviceSynchronize for compute capability 9.0 (nvcc rejects it, \
             tools/probes/RESULTS.md p7): launch the work that needs the children's results into \
             DeviceStream::tail_launch(), which runs after this grid and all its children; or run the legacy \
             semantics with EMU_DEVICE_RUNTIME=cdp1 (Config::device_runtime)"
                .to_owned(),
            801,
        )),
    };
    if let Err(e) = &r {
        set_last_error(b, e.clone());
    }
    r
}

/// The name a child grid's report gives its kernel: the kernel and who launched it.
pub(crate) fn report_name(kernel: &'static str, parent: &Parent) -> &'static str {
    let mut s = format!("{kernel} (a child grid, depth {}, ", parent.depth);
    let _ = write!(
        s,
        "launched by thread {} in block {} of kernel {} at {}:{})",
        parent.thread,
        parent.block,
        parent.kernel,
        parent.at.file(),
        parent.at.line()
    );
    // Leaked once per failing child launch (a report's kernel name is `&'static str`).
    Box::leak(s.into_boxed_str())
}
