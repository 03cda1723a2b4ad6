//! Streams: ordered queues of work, each drained by a worker thread of its own.
//!
//! An item (a kernel launch, a copy, an event record, a wait) carries the completions it must
//! wait for and a job. Enqueuing happens under the device's queue lock, which also computes the
//! legacy default stream's implicit dependencies:
//!
//! - an item on a *blocking* stream (`Stream::new`) waits for the legacy default stream's last
//!   item;
//! - an item on the legacy default stream waits for the last item of every blocking stream of
//!   its device;
//! - non-blocking streams and per-thread default streams wait for neither;
//! - an item that uses a buffer waits as that buffer's reader or writer must
//!   (`devices::Pending`), whichever streams its other users are on.
//!
//! The worker waits for the item's dependencies, runs its job (a kernel launch calls the
//! synchronous entry points of `sched/launch.rs`, whose blocks run on the rayon pool, so the
//! ready work of several streams runs there together), files a fault with the device
//! (`devices::DeviceState::add_fault`) and then completes the item. Synchronising calls wait
//! for completions and take the faults of the work they cover.

use std::collections::HashMap;
use std::fmt;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::mpsc::{channel, Sender};
use std::sync::{Arc, Mutex, OnceLock};

use crate::host::config::{self, Config, DefaultStream};
use crate::host::devices::{self, Done, Fault};
use crate::host::report::error::Error;
use crate::host::report::last_error;

/// What kind of stream a queue is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Kind {
    /// The legacy default stream of a device.
    Legacy,
    /// `Stream::new()`: synchronises with the legacy default stream.
    Blocking,
    /// `Stream::non_blocking()`, and per-thread default streams.
    NonBlocking,
}

/// A job a worker runs.
pub(crate) type Job = Box<dyn FnOnce() -> Result<(), Error> + Send>;

/// One queued item.
struct Work {
    deps: Vec<Arc<Done>>,
    job: Option<Job>,
    done: Arc<Done>,
    seq: u64,
    /// `EMU_STICKY_ERRORS` when the item was queued.
    sticky: bool,
}

/// A stream's state, shared by its handles and known to its worker.
pub(crate) struct StreamShared {
    pub(crate) id: u64,
    pub(crate) device: u32,
    pub(crate) kind: Kind,
    tx: Mutex<Sender<Work>>,
    /// The last item queued, and the number of items queued (under the device's queue lock).
    last: Mutex<(Option<Arc<Done>>, u64)>,
}

impl fmt::Debug for StreamShared {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Stream").field("id", &self.id).field("device", &self.device).field("kind", &self.kind).finish()
    }
}

/// The last item of each stream of a device that may still be running, by stream id.
#[derive(Default)]
struct DeviceQueues {
    tails: HashMap<u64, (Kind, Arc<Done>)>,
}

fn queues(device: u32) -> &'static Mutex<DeviceQueues> {
    static QUEUES: OnceLock<Vec<Mutex<DeviceQueues>>> = OnceLock::new();
    &QUEUES.get_or_init(|| (0..devices::count()).map(|_| Mutex::new(DeviceQueues::default())).collect())
        [device as usize]
}

/// Whether any stream exists yet: until then the synchronous launch skips the queues.
static STREAMS_USED: AtomicBool = AtomicBool::new(false);

static NEXT_ID: AtomicU64 = AtomicU64::new(1);

impl StreamShared {
    /// A new stream of `device`, with its worker.
    pub(crate) fn start(device: u32, kind: Kind) -> Result<Arc<StreamShared>, Error> {
        STREAMS_USED.store(true, Ordering::SeqCst);
        let id = NEXT_ID.fetch_add(1, Ordering::Relaxed);
        let (tx, rx) = channel::<Work>();
        std::thread::Builder::new()
            .name(format!("emu-stream-{id}"))
            .spawn(move || {
                devices::set_current(device);
                for mut w in rx {
                    for d in &w.deps {
                        d.wait();
                    }
                    // Completes the item even if the job unwinds.
                    struct Complete(Arc<Done>);
                    impl Drop for Complete {
                        fn drop(&mut self) {
                            self.0.complete();
                        }
                    }
                    let _complete = Complete(w.done.clone());
                    if let Some(job) = w.job.take() {
                        if let Err(error) = job() {
                            devices::state(device).add_fault(Fault { stream: id, seq: w.seq, error }, w.sticky);
                        }
                        // The launch recorded its error in this worker's slot; the host thread
                        // that synchronises gets it instead.
                        let _ = last_error::get_last_error();
                    }
                }
            })
            .map_err(|e| Error::HostMemory {
                what: "a stream's worker thread".into(),
                bytes: 0,
                hint: format!("the OS refused a thread ({e}); create fewer streams"),
            })?;
        Ok(Arc::new(StreamShared { id, device, kind, tx: Mutex::new(tx), last: Mutex::new((None, 0)) }))
    }

    /// Queues `job` after `deps` (and the legacy default stream's implicit dependencies), as
    /// the item `done`; returns the item's number in the stream.
    pub(crate) fn enqueue(&self, done: Arc<Done>, mut deps: Vec<Arc<Done>>, job: Option<Job>, sticky: bool) -> u64 {
        let mut q = queues(self.device).lock().unwrap_or_else(|e| e.into_inner());
        q.tails.retain(|_, (_, d)| !d.is_done());
        match self.kind {
            Kind::Blocking => deps.extend(q.tails.values().filter(|(k, _)| *k == Kind::Legacy).map(|(_, d)| d.clone())),
            Kind::Legacy => deps.extend(q.tails.values().filter(|(k, _)| *k == Kind::Blocking).map(|(_, d)| d.clone())),
            Kind::NonBlocking => {}
        }
        q.tails.insert(self.id, (self.kind, done.clone()));
        let seq = {
            let mut last = self.last.lock().unwrap_or_else(|e| e.into_inner());
            // The previous item is ahead in the worker's queue, unless a host thread runs it
            // itself (a synchronous launch on the default stream).
            deps.extend(last.0.clone().filter(|d| !d.is_done()));
            last.0 = Some(done.clone());
            last.1 += 1;
            last.1
        };
        let w = Work { deps, job, done, seq, sticky };
        // Sent under the queue lock, so the worker sees items in their numbers' order. The
        // worker only ends when every sender is gone.
        let tx = self.tx.lock().unwrap_or_else(|e| e.into_inner());
        if let Err(std::sync::mpsc::SendError(w)) = tx.send(w) {
            w.done.complete();
        }
        seq
    }

    /// The last item queued, if it may still be running.
    pub(crate) fn last(&self) -> Option<Arc<Done>> {
        self.last.lock().unwrap_or_else(|e| e.into_inner()).0.clone().filter(|d| !d.is_done())
    }

    /// Waits for every item queued so far; returns the first fault among them not yet
    /// returned (recorded as the last error), or the sticky error.
    pub(crate) fn synchronize(&self) -> Result<(), Error> {
        if let Some(d) = self.last() {
            d.wait();
        }
        self.take_faults()
    }

    /// The faults of this stream's completed work, or the sticky error.
    pub(crate) fn take_faults(&self) -> Result<(), Error> {
        let id = self.id;
        let state = devices::state(self.device);
        match state.take_faults(|f| f.stream == id).or_else(|| state.sticky()) {
            Some(e) => {
                last_error::record(&e);
                Err(e)
            }
            None => Ok(()),
        }
    }
}

/// Waits for all work queued on `device`; returns the first unreported fault (recorded as the
/// last error), or the sticky error.
pub(crate) fn synchronize_device(device: u32) -> Result<(), Error> {
    let tails: Vec<Arc<Done>> = {
        let q = queues(device).lock().unwrap_or_else(|e| e.into_inner());
        q.tails.values().map(|(_, d)| d.clone()).collect()
    };
    for d in tails {
        d.wait();
    }
    let state = devices::state(device);
    match state.take_faults(|_| true).or_else(|| state.sticky()) {
        Some(e) => {
            last_error::record(&e);
            Err(e)
        }
        None => Ok(()),
    }
}

/// The legacy default stream of `device`.
pub(crate) fn legacy(device: u32) -> Result<Arc<StreamShared>, Error> {
    static LEGACY: OnceLock<Vec<Mutex<Option<Arc<StreamShared>>>>> = OnceLock::new();
    let slots = LEGACY.get_or_init(|| (0..devices::count()).map(|_| Mutex::new(None)).collect());
    let mut slot = slots[device as usize].lock().unwrap_or_else(|e| e.into_inner());
    if let Some(s) = &*slot {
        return Ok(s.clone());
    }
    let s = StreamShared::start(device, Kind::Legacy)?;
    *slot = Some(s.clone());
    Ok(s)
}

thread_local! {
    static PER_THREAD: std::cell::RefCell<HashMap<u32, Arc<StreamShared>>> = std::cell::RefCell::new(HashMap::new());
}

/// This host thread's default stream of `device` (`EMU_DEFAULT_STREAM=per-thread`).
pub(crate) fn per_thread(device: u32) -> Result<Arc<StreamShared>, Error> {
    if let Some(s) = PER_THREAD.with(|p| p.borrow().get(&device).cloned()) {
        return Ok(s);
    }
    let s = StreamShared::start(device, Kind::NonBlocking)?;
    PER_THREAD.with(|p| p.borrow_mut().insert(device, s.clone()));
    Ok(s)
}

/// The default stream of the current device, as the settings say.
pub(crate) fn default_stream(config: &Config) -> Result<Arc<StreamShared>, Error> {
    let d = devices::current();
    match config.get_default_stream() {
        DefaultStream::Legacy => legacy(d),
        DefaultStream::PerThread => per_thread(d),
    }
}

/// Runs a synchronous launch (the three-argument `launch!`) as an item of the default stream,
/// on the calling thread: it waits for what an item of that stream would wait for (the legacy
/// default stream's rules), and later items of other streams wait for it. Returns the
/// kernel's error at once (as `CUDA_LAUNCH_BLOCKING=1` does for this one launch).
pub(crate) fn run_on_default_stream(f: impl FnOnce() -> Result<(), Error>) -> Result<(), Error> {
    devices::check_sticky()?;
    let sticky = devices::sticky_on();
    // Inside a running kernel the launch refuses itself (801); it must not wait for the
    // default stream, whose item may be the running kernel.
    let result = if !STREAMS_USED.load(Ordering::SeqCst) || crate::host::sched::context::current().is_some() {
        f()
    } else {
        let config = match config::effective() {
            Ok(c) => c,
            // The launch itself reports the bad setting.
            Err(_) => return f(),
        };
        let stream = default_stream(&config)?;
        let done = Done::new();
        // Not sent to the worker: this thread runs it, and the stream's later items wait for it.
        let deps = stream.register_inline(&done);
        for d in &deps {
            d.wait();
        }
        let r = f();
        done.complete();
        r
    };
    if let Err(e) = &result {
        devices::state(devices::current()).note_sync_fault(e, sticky);
    }
    result
}

impl StreamShared {
    /// Registers `done`, an item that the calling thread runs itself, as this stream's last
    /// item; returns what it must wait for.
    fn register_inline(&self, done: &Arc<Done>) -> Vec<Arc<Done>> {
        let mut q = queues(self.device).lock().unwrap_or_else(|e| e.into_inner());
        q.tails.retain(|_, (_, d)| !d.is_done());
        let mut deps: Vec<Arc<Done>> = match self.kind {
            Kind::Blocking => q.tails.values().filter(|(k, _)| *k == Kind::Legacy).map(|(_, d)| d.clone()).collect(),
            Kind::Legacy => q.tails.values().filter(|(k, _)| *k == Kind::Blocking).map(|(_, d)| d.clone()).collect(),
            Kind::NonBlocking => Vec::new(),
        };
        let mut last = self.last.lock().unwrap_or_else(|e| e.into_inner());
        deps.extend(last.0.clone().filter(|d| !d.is_done()));
        last.0 = Some(done.clone());
        last.1 += 1;
        q.tails.insert(self.id, (self.kind, done.clone()));
        deps
    }
}
