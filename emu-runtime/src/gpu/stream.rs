//! Streams, events and asynchronous copies on the GPU: CUDA streams and events through
//! cudarc's driver layer, with no synchronisation per launch.
//!
//! A `Stream` made while the target is the GPU holds a [`GpuStream`]: a `cuStreamCreate`
//! stream (`CU_STREAM_DEFAULT` for `Stream::new`, `CU_STREAM_NON_BLOCKING` for
//! `Stream::non_blocking`), or the legacy default stream (`CU_STREAM_LEGACY`) or the per-thread
//! default stream (`CU_STREAM_PER_THREAD`) for `Stream::default_stream`, of the context of the
//! current device (`set_device`: one primary context per GPU, `gpu::gpu_of`). Launches on it
//! are `cuLaunchKernel` calls that return at once (the parameters are copied by the driver at
//! the call); `EMU_LAUNCH_BLOCKING=1` synchronises the stream after each, as
//! `CUDA_LAUNCH_BLOCKING=1` does.
//!
//! **Faults.** A kernel that faults on the GPU (a bounds check's trap: 719; an illegal address:
//! 700) leaves its CUDA context unusable: every later call on that device returns the error,
//! whatever `EMU_STICKY_ERRORS` says (CUDA's contexts are always sticky; the setting makes the
//! emulator behave so). The driver says neither which kernel nor which thread faulted, so each
//! device keeps a log of the kernels queued on each stream since that stream's last successful
//! synchronisation (name, `launch!` site, count; [`Log`]); the error of a synchronising call
//! that returns a fault lists the kernels of its stream (all streams for `device_synchronize`
//! and the blocking copies), and says that `EMU_TARGET=emulator` gives the full report (block,
//! thread and line).
//!
//! **Buffer safety on the GPU.** Work in one stream is ordered by the stream. Each device
//! allocation, and each pinned `HostBuffer` (for its asynchronous copies), remembers the last
//! stream that queued work on it and where ([`track`],
//! [`order`]); a launch or asynchronous copy on another stream (or a synchronous launch, on the
//! legacy stream) first makes its stream wait for an event recorded on that one right after
//! that work (`cuStreamWaitEvent`), so a buffer written on one stream is read after it on
//! another without user events, as in the emulator (cudarc's design). The event is recorded
//! lazily, when the stream queues its next item ([`Mark`]), and only once a buffer has moved
//! between streams in this process: a program of one stream records none. The first move waits
//! for all the work queued on the other stream so far (it has no mark to wait for). The GPU
//! entry does not say which buffers a kernel only reads, so every use counts as a write: two
//! streams that only read one buffer are ordered too (correct, but less overlap than CUDA
//! would allow). The blocking copies (`to_vec`, `copy_from_slice`), the release of a
//! `DeviceBuffer` or `HostBuffer` and the host's access to a `HostBuffer` that an asynchronous
//! copy used synchronise the device first, so they never race queued work of any stream.

use std::collections::BTreeMap;
use std::ffi::c_void;
use std::fmt::Write as _;
use std::panic::Location;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};

use cudarc::driver::{result, sys};

use crate::gpu::{driver_error, gpu_of};
use crate::host::devices::{self, STICKY_CODES};
use crate::host::launch_desc::{GpuArg, KernelInfo, LaunchConfig};
use crate::host::report::error::Error;

/// Most GPUs one process uses (devices past it are refused as invalid).
pub(crate) const MAX_GPUS: usize = 16;

/// `cudaErrorInvalidDevice` (101) for `set_device(n)` with `count` devices.
pub(crate) fn invalid_device(n: u32, count: u32) -> Error {
    Error::InvalidDevice {
        message: format!("set_device({n}): this machine has {count} GPU(s), numbered 0 to {}", count.saturating_sub(1)),
    }
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

/// A CUDA stream handle of one device, destroyed with its last `Stream` when it was created
/// here.
#[derive(Debug)]
pub(crate) struct GpuStream {
    pub(crate) raw: sys::CUstream,
    owned: bool,
    pub(crate) device: u32,
    /// Set by an item that used buffers, once buffers move between streams: the next item
    /// queued on the stream first records its event.
    mark: Mutex<Option<Arc<Mark>>>,
}

/// The point right after an item that used buffers: an event recorded on its stream before the
/// stream's next item (or, if another stream needs it first, then).
#[derive(Debug, Default)]
struct Mark(Mutex<Option<RawEvent>>);

/// An event without timing, destroyed on drop.
#[derive(Debug)]
struct RawEvent {
    raw: sys::CUevent,
    device: u32,
}

// SAFETY: an event handle may be used from any host thread (the context is bound before use).
unsafe impl Send for RawEvent {}

impl RawEvent {
    /// An event recorded on `s` now.
    fn record(s: &GpuStream) -> Result<RawEvent, Error> {
        bind(s.device)?;
        let raw = result::event::create(sys::CUevent_flags::CU_EVENT_DISABLE_TIMING)
            .map_err(|e| driver_error(e, "creating an event to order a buffer's work across streams"))?;
        let ev = RawEvent { raw, device: s.device };
        // SAFETY: valid event and stream handles of the bound context.
        unsafe { result::event::record(raw, s.raw) }.map_err(|e| driver_error(e, "recording an event"))?;
        Ok(ev)
    }
}

impl Drop for RawEvent {
    fn drop(&mut self) {
        if bind(self.device).is_ok() {
            // SAFETY: created here, destroyed once; destroying an event whose work is pending is
            // allowed (its resources go once it completes).
            let _ = unsafe { result::event::destroy(self.raw) };
        }
    }
}

impl GpuStream {
    /// Before queuing an item on the stream: the mark of the previous item gets its event.
    fn next_item(&self) -> Result<(), Error> {
        let mark = lock(&self.mark).take();
        if let Some(m) = mark {
            let mut slot = lock(&m.0);
            if slot.is_none() {
                *slot = Some(RawEvent::record(self)?);
            }
        }
        Ok(())
    }
}

// SAFETY: a CUDA stream handle may be used from any host thread of the process (the context is
// bound before each use).
unsafe impl Send for GpuStream {}
// SAFETY: as above; the driver serialises calls on a stream.
unsafe impl Sync for GpuStream {}

impl Drop for GpuStream {
    fn drop(&mut self) {
        if self.owned {
            if let Ok(g) = gpu_of(self.device) {
                let _ = g.bind();
                // SAFETY: created by `cuStreamCreate` here, destroyed once; queued work still
                // completes (cuStreamDestroy's contract).
                let _ = unsafe { result::stream::destroy(self.raw) };
            }
        }
    }
}

/// Per device: whether any asynchronous work was queued on it (the blocking calls then
/// synchronise the device first).
static QUEUED: [AtomicBool; MAX_GPUS] = [const { AtomicBool::new(false) }; MAX_GPUS];

fn queued(device: u32) {
    if let Some(q) = QUEUED.get(device as usize) {
        q.store(true, Ordering::Release);
    }
}

/// Binds the context of `device` to this host thread.
fn bind(device: u32) -> Result<(), Error> {
    gpu_of(device)?.bind()
}

/// A new stream of the current device: blocking (synchronises with the legacy default
/// stream) or not.
pub(crate) fn create(blocking: bool) -> Result<GpuStream, Error> {
    let device = devices::current();
    bind(device)?;
    let kind = if blocking { result::stream::StreamKind::Default } else { result::stream::StreamKind::NonBlocking };
    let raw = result::stream::create(kind).map_err(|e| driver_error(e, "creating a stream"))?;
    Ok(GpuStream { raw, owned: true, device, mark: Mutex::new(None) })
}

/// The legacy default stream, or this host thread's default stream, of the current device.
pub(crate) fn default_stream(per_thread: bool) -> GpuStream {
    // CU_STREAM_LEGACY is 0x1 and CU_STREAM_PER_THREAD 0x2 (cuda.h): special handles every
    // stream-taking driver call accepts (for the context bound at the call).
    let raw = if per_thread { 0x2usize } else { 0x1usize } as sys::CUstream;
    GpuStream { raw, owned: false, device: devices::current(), mark: Mutex::new(None) }
}

/// Waits for everything queued on GPU `device` (`cuCtxSynchronize`) when asynchronous work was
/// ever queued on it: before blocking copies and releases. A fault is also recorded as the last
/// error, as every CUDA call's is.
pub(crate) fn settle(device: u32) -> Result<(), Error> {
    if QUEUED.get(device as usize).is_some_and(|q| q.load(Ordering::Acquire)) {
        if let Err(e) = synchronize_device(device) {
            crate::host::report::last_error::record(&e);
            return Err(e);
        }
    }
    Ok(())
}

/// Per device, a non-blocking stream for zeroing new allocations (0 until made).
static ZEROING: [Mutex<usize>; MAX_GPUS] = [const { Mutex::new(0) }; MAX_GPUS];

/// Zeroes `bytes` bytes of a new allocation of `device` and waits for it, on a non-blocking
/// stream of the device: `cuMemsetD8` would run on the legacy stream, which waits for every
/// blocking stream's work, the per-thread default streams of other host threads included.
///
/// # Safety
///
/// `ptr` is a live allocation of `device` of at least `bytes` bytes that nothing else uses yet.
pub(crate) unsafe fn zero_fresh(ptr: u64, bytes: usize, device: u32) -> Result<(), Error> {
    bind(device)?;
    let mut z = lock(&ZEROING[(device as usize).min(MAX_GPUS - 1)]);
    if *z == 0 {
        *z = result::stream::create(result::stream::StreamKind::NonBlocking)
            .map_err(|e| driver_error(e, "creating the stream that clears new allocations"))? as usize;
    }
    let raw = *z as sys::CUstream;
    // SAFETY: the caller's contract; `raw` is a stream of the bound context, kept for the process.
    unsafe { result::memset_d8_async(ptr, 0, bytes, raw).and_then(|()| result::stream::synchronize(raw)) }
        .map_err(|e| driver_error(e, "clearing device memory"))
}

/// `cuCtxSynchronize` on the current device.
pub(crate) fn device_synchronize() -> Result<(), Error> {
    synchronize_device(devices::current())
}

fn synchronize_device(device: u32) -> Result<(), Error> {
    bind(device)?;
    match result::ctx::synchronize() {
        Ok(()) => {
            log(device).clear(None);
            Ok(())
        }
        Err(e) => Err(explain_on(device, driver_error(e, "synchronising the device"), None)),
    }
}

/// `cuStreamSynchronize`.
pub(crate) fn synchronize(s: &GpuStream) -> Result<(), Error> {
    bind(s.device)?;
    // SAFETY: a valid stream handle (created here or a special handle).
    match unsafe { result::stream::synchronize(s.raw) } {
        Ok(()) => {
            log(s.device).clear(Some(s.raw as usize));
            Ok(())
        }
        Err(e) => Err(explain_on(s.device, driver_error(e, "synchronising a stream"), Some(s.raw as usize))),
    }
}

/// `cuStreamQuery`: `Ok(false)` for CUDA_ERROR_NOT_READY.
pub(crate) fn query(s: &GpuStream) -> Result<bool, Error> {
    bind(s.device)?;
    // SAFETY: a valid stream handle.
    match unsafe { sys::cuStreamQuery(s.raw) } {
        sys::CUresult::CUDA_SUCCESS => Ok(true),
        sys::CUresult::CUDA_ERROR_NOT_READY => Ok(false),
        e => Err(explain_on(
            s.device,
            driver_error(cudarc::driver::DriverError(e), "querying a stream"),
            Some(s.raw as usize),
        )),
    }
}

/// Launches `kernel` on `s` and returns at once (or, blocking, after it).
#[track_caller]
pub(crate) fn launch(
    kernel: &'static KernelInfo,
    ptx: Option<&'static str>,
    cfg: LaunchConfig,
    max_shared: usize,
    args: &[GpuArg<'_>],
    s: &Arc<GpuStream>,
    blocking: bool,
) -> Result<(), Error> {
    let site = Location::caller();
    queued(s.device);
    order(buffers(args), Some(s), kernel.name)?;
    crate::gpu::launch_on(kernel, ptx, cfg, max_shared, args, s.raw)?;
    log(s.device).add(s.raw as usize, kernel, Some(site));
    if blocking {
        synchronize(s).map_err(|e| rename(e, kernel))?;
    }
    Ok(())
}

fn rename(e: Error, kernel: &KernelInfo) -> Error {
    match e {
        Error::Driver { code, name, message } => {
            Error::Driver { code, name, message: format!("running kernel `{}`: {message}", kernel.name) }
        }
        other => other,
    }
}

/// Before a synchronous launch of `kernel` (on the legacy stream, which it then synchronises):
/// the buffers' queued work on other streams comes first, and the buffers are of this device.
pub(crate) fn before_sync_launch(kernel: &str, args: &[GpuArg<'_>]) -> Result<(), Error> {
    order(buffers(args), None, kernel)
}

fn buffers<'a>(args: &'a [GpuArg<'_>]) -> impl Iterator<Item = u64> + 'a {
    args.iter().filter_map(|a| match a {
        GpuArg::Buffer(Some((p, _))) => Some(*p),
        _ => None,
    })
}

// ---------------------------------------------------------------------------------------------
// Device allocations: their device and the last stream that queued work on them.
// ---------------------------------------------------------------------------------------------

struct Alloc {
    end: u64,
    device: u32,
    /// Pinned host memory (`HostBuffer`): portable, so any device's stream may use it.
    portable: bool,
    /// The last stream that queued work on it, and the mark after that work (none before
    /// buffers first moved between streams); `None` when none did since a synchronous use.
    last: Option<(Arc<GpuStream>, Option<Arc<Mark>>)>,
}

/// Whether a buffer has moved between streams in this process (marks are made from then on).
static MOVED: AtomicBool = AtomicBool::new(false);

/// Every live device allocation, by start address (device addresses are unique across the
/// process's contexts: unified addressing).
static ALLOCS: Mutex<BTreeMap<u64, Alloc>> = Mutex::new(BTreeMap::new());

/// Registers a new allocation of `bytes` bytes at `ptr` on `device`.
pub(crate) fn track(ptr: u64, bytes: usize, device: u32) {
    lock(&ALLOCS).insert(ptr, Alloc { end: ptr + bytes as u64, device, portable: false, last: None });
}

/// Forgets a freed allocation.
pub(crate) fn untrack(ptr: u64) {
    lock(&ALLOCS).remove(&ptr);
}

/// The device of the device allocation that holds `addr`.
fn device_of(addr: u64) -> Option<u32> {
    let allocs = lock(&ALLOCS);
    allocs.range(..=addr).next_back().filter(|(_, a)| addr <= a.end && !a.portable).map(|(_, a)| a.device)
}

/// Orders work about to be queued on `s` (`None`: the legacy stream of the current device, for
/// a synchronous launch, which completes before it returns) after the queued work of other
/// streams on the allocations that hold `addrs`, and records it as their last user. `what`
/// names the work in errors.
fn order(addrs: impl Iterator<Item = u64>, s: Option<&Arc<GpuStream>>, what: &str) -> Result<(), Error> {
    if let Some(s) = s {
        s.next_item()?;
    }
    let mut addrs = addrs.peekable();
    if addrs.peek().is_none() {
        return Ok(());
    }
    let raw = s.map_or(std::ptr::null_mut(), |s| s.raw);
    let device = s.map_or_else(devices::current, |s| s.device);
    let mut allocs = lock(&ALLOCS);
    let mut waited: Vec<sys::CUstream> = Vec::new();
    let mut mark: Option<Arc<Mark>> = None;
    for addr in addrs {
        let Some((_, a)) = allocs.range_mut(..=addr).next_back() else { continue };
        if addr > a.end {
            continue;
        }
        if a.device != device && !a.portable {
            let e = Error::InvalidValue {
                message: format!(
                    "`{what}` was queued on device {device} with a buffer of device {}; copy the buffer over with \
                     `copy_from_peer`, or queue the work on a stream of the buffer's device",
                    a.device
                ),
            };
            crate::host::report::last_error::record(&e);
            return Err(e);
        }
        if let Some((t, m)) = &a.last {
            if t.raw != raw && !waited.contains(&t.raw) {
                if s.is_some() {
                    MOVED.store(true, Ordering::Relaxed);
                }
                wait_for(t, m.as_deref(), raw, device)?;
                waited.push(t.raw);
            }
        }
        a.last = match s {
            // A synchronous use completes before it returns: nothing stays queued on the buffer.
            None => None,
            Some(s) if MOVED.load(Ordering::Relaxed) => {
                let m = mark.get_or_insert_with(|| {
                    let m = Arc::new(Mark::default());
                    *lock(&s.mark) = Some(m.clone());
                    m
                });
                Some((s.clone(), Some(m.clone())))
            }
            Some(s) => Some((s.clone(), None)),
        };
    }
    Ok(())
}

/// Makes `raw` (a stream of `device`) wait for the work queued on `t` up to `mark` (without a
/// mark: all the work queued on `t` so far).
fn wait_for(t: &GpuStream, mark: Option<&Mark>, raw: sys::CUstream, device: u32) -> Result<(), Error> {
    let now;
    let mut slot = mark.map(|m| lock(&m.0));
    let ev = match slot.as_deref_mut() {
        Some(Some(ev)) => ev.raw,
        // `t` queued nothing since: recorded now, it is the mark's event.
        Some(empty) => empty.insert(RawEvent::record(t)?).raw,
        None => {
            now = RawEvent::record(t)?;
            now.raw
        }
    };
    bind(device)?;
    // SAFETY: valid event and stream handles of the bound context.
    unsafe { result::stream::wait_event(raw, ev, sys::CUevent_wait_flags::CU_EVENT_WAIT_DEFAULT) }
        .map_err(|e| driver_error(e, "ordering a buffer's work across streams"))
}

// ---------------------------------------------------------------------------------------------
// The kernels queued since the last successful synchronisation, to name in a fault.
// ---------------------------------------------------------------------------------------------

/// Distinct kernels (and launch sites) kept per device; more are counted only.
const LOG_LIMIT: usize = 64;

struct Entry {
    stream: usize,
    kernel: &'static KernelInfo,
    site: Option<&'static Location<'static>>,
    count: u64,
}

/// The kernels queued on one device's streams since each stream's last successful
/// synchronisation.
pub(crate) struct Log {
    entries: Vec<Entry>,
    /// Launches past [`LOG_LIMIT`] distinct entries.
    more: u64,
}

static LOGS: [Mutex<Log>; MAX_GPUS] = [const { Mutex::new(Log { entries: Vec::new(), more: 0 }) }; MAX_GPUS];

fn log(device: u32) -> MutexGuard<'static, Log> {
    lock(&LOGS[(device as usize).min(MAX_GPUS - 1)])
}

impl Log {
    fn add(&mut self, stream: usize, kernel: &'static KernelInfo, site: Option<&'static Location<'static>>) {
        let same = |e: &Entry| e.stream == stream && std::ptr::eq(e.kernel, kernel) && e.site == site;
        if let Some(e) = self.entries.last_mut().filter(|e| same(e)) {
            e.count += 1;
        } else if let Some(e) = self.entries.iter_mut().find(|e| same(e)) {
            e.count += 1;
        } else if self.entries.len() < LOG_LIMIT {
            self.entries.push(Entry { stream, kernel, site, count: 1 });
        } else {
            self.more += 1;
        }
    }

    /// After a successful synchronisation of `stream` (`None`: of the device).
    fn clear(&mut self, stream: Option<usize>) {
        match stream {
            None => {
                self.entries.clear();
                self.more = 0;
            }
            Some(s) => self.entries.retain(|e| e.stream != s),
        }
    }

    fn describe(&self, stream: Option<usize>) -> String {
        let list = |mine: bool| {
            let mut out = String::new();
            for e in self.entries.iter().filter(|e| stream.is_none_or(|s| (e.stream == s) == mine)) {
                if !out.is_empty() {
                    out.push_str(", ");
                }
                let _ = write!(out, "`{}`", e.kernel.name);
                if e.count > 1 {
                    let _ = write!(out, " x{}", e.count);
                }
                match e.site {
                    Some(l) => {
                        let _ = write!(out, " (launch! at {}:{})", l.file(), l.line());
                    }
                    None => {
                        let _ = write!(out, " (kernel at {}:{})", e.kernel.file, e.kernel.line);
                    }
                }
            }
            out
        };
        let (mine, others) = (list(true), if stream.is_some() { list(false) } else { String::new() });
        let mut text =
            String::from("; on the GPU a kernel fault is reported without its kernel, and it is sticky for the device");
        match (mine.is_empty(), others.is_empty()) {
            (true, true) => text.push_str(
                ": no kernel was queued on a stream since its last successful synchronisation, so an earlier \
                 (synchronous) launch faulted",
            ),
            _ => {
                text.push_str(": it is one of the kernels queued since the last successful synchronisation");
                if !mine.is_empty() {
                    let _ = write!(text, "{} {mine}", if stream.is_some() { ", on this stream:" } else { ":" });
                }
                if !others.is_empty() {
                    let _ = write!(text, "{}on other streams: {others}", if mine.is_empty() { ", " } else { "; " });
                }
                if self.more > 0 {
                    let _ = write!(text, "; and {} more launches", self.more);
                }
            }
        }
        text.push_str("; EMU_TARGET=emulator gives the full report (the kernel, block, thread and line of the fault)");
        text
    }
}

/// Adds to a kernel fault (a sticky code) returned by a synchronising call on the current
/// device the kernels that may have caused it: those queued on `stream` (`None`: on any stream)
/// since its last successful synchronisation.
pub(crate) fn explain(e: Error, stream: Option<usize>) -> Error {
    explain_on(devices::current(), e, stream)
}

/// Also, with `EMU_STICKY_ERRORS=1`, the first such fault becomes the device's sticky error, which
/// the calls that check it return (so that they keep naming the kernels).
fn explain_on(device: u32, e: Error, stream: Option<usize>) -> Error {
    match e {
        Error::Driver { code, name, message } if STICKY_CODES.contains(&code) => {
            let more = log(device).describe(stream);
            let e = Error::Driver { code, name, message: format!("{message}{more}") };
            devices::state(device).note_sync_fault(&e, devices::sticky_on());
            e
        }
        other => other,
    }
}

/// A CUDA event of one device.
#[derive(Debug)]
pub(crate) struct GpuEvent {
    raw: sys::CUevent,
    device: u32,
    /// The stream it was last recorded on (0: never), whose kernels a fault names.
    recorded_on: AtomicUsize,
}

// SAFETY: event handles may be used from any host thread of the process.
unsafe impl Send for GpuEvent {}
// SAFETY: as above.
unsafe impl Sync for GpuEvent {}

impl Drop for GpuEvent {
    fn drop(&mut self) {
        if let Ok(g) = gpu_of(self.device) {
            let _ = g.bind();
            // SAFETY: created by `cuEventCreate`, destroyed once.
            let _ = unsafe { result::event::destroy(self.raw) };
        }
    }
}

impl GpuEvent {
    pub(crate) fn new(timing: bool) -> Result<GpuEvent, Error> {
        let device = devices::current();
        bind(device)?;
        let flags =
            if timing { sys::CUevent_flags::CU_EVENT_DEFAULT } else { sys::CUevent_flags::CU_EVENT_DISABLE_TIMING };
        let raw = result::event::create(flags).map_err(|e| driver_error(e, "creating an event"))?;
        Ok(GpuEvent { raw, device, recorded_on: AtomicUsize::new(0) })
    }

    fn stream(&self) -> Option<usize> {
        Some(self.recorded_on.load(Ordering::Relaxed)).filter(|&s| s != 0)
    }

    pub(crate) fn record(&self, s: &GpuStream) -> Result<(), Error> {
        s.next_item()?;
        bind(s.device)?;
        queued(s.device);
        // SAFETY: valid event and stream handles.
        unsafe { result::event::record(self.raw, s.raw) }.map_err(|e| driver_error(e, "recording an event"))?;
        self.recorded_on.store(s.raw as usize, Ordering::Relaxed);
        Ok(())
    }

    pub(crate) fn wait_on(&self, s: &GpuStream) -> Result<(), Error> {
        s.next_item()?;
        bind(s.device)?;
        // SAFETY: valid event and stream handles.
        unsafe { result::stream::wait_event(s.raw, self.raw, sys::CUevent_wait_flags::CU_EVENT_WAIT_DEFAULT) }
            .map_err(|e| driver_error(e, "making a stream wait for an event"))
    }

    pub(crate) fn synchronize(&self) -> Result<(), Error> {
        bind(self.device)?;
        // SAFETY: a valid event handle.
        unsafe { result::event::synchronize(self.raw) }
            .map_err(|e| explain_on(self.device, driver_error(e, "synchronising an event"), self.stream()))
    }

    /// `cuEventQuery`: `Ok(false)` for CUDA_ERROR_NOT_READY. After a fault the driver returns
    /// the device's sticky error here too; it is returned, not recorded as the last error.
    pub(crate) fn query(&self) -> Result<bool, Error> {
        bind(self.device)?;
        // SAFETY: a valid event handle.
        match unsafe { sys::cuEventQuery(self.raw) } {
            sys::CUresult::CUDA_SUCCESS => Ok(true),
            sys::CUresult::CUDA_ERROR_NOT_READY => Ok(false),
            e => Err(explain_on(
                self.device,
                driver_error(cudarc::driver::DriverError(e), "querying an event"),
                self.stream(),
            )),
        }
    }

    pub(crate) fn elapsed(start: &GpuEvent, end: &GpuEvent) -> Result<f32, Error> {
        bind(start.device)?;
        // SAFETY: valid event handles.
        unsafe { result::event::elapsed(start.raw, end.raw) }.map_err(|e| driver_error(e, "reading an event's time"))
    }
}

/// Page-locked host memory of `bytes` bytes, zeroed (`cuMemHostAlloc`, portable: usable by
/// every context).
pub(crate) fn alloc_pinned(bytes: usize) -> Result<*mut c_void, Error> {
    bind(devices::current())?;
    // SAFETY: the context is bound; the memory is freed by `free_pinned`.
    let p = unsafe { result::malloc_host(bytes.max(1), sys::CU_MEMHOSTALLOC_PORTABLE) }.map_err(
        |e| match driver_error(e, "allocating pinned host memory") {
            Error::Driver { code: 2, .. } => Error::MemoryAllocation { bytes },
            other => other,
        },
    )?;
    // SAFETY: `p` is a fresh allocation of at least `bytes` bytes.
    unsafe { std::ptr::write_bytes(p as *mut u8, 0, bytes) };
    // Tracked like a device allocation (host and device addresses do not overlap: unified
    // addressing), so that two streams' asynchronous copies of one `HostBuffer` are ordered.
    lock(&ALLOCS).insert(
        p as u64,
        Alloc { end: p as u64 + bytes as u64, device: devices::current(), portable: true, last: None },
    );
    Ok(p)
}

/// Waits for the queued work of every GPU that asynchronous work was queued on: before the host
/// touches or frees pinned memory, which any of them may be copying.
pub(crate) fn settle_all() -> Result<(), Error> {
    let mut first = Ok(());
    for d in 0..MAX_GPUS as u32 {
        if QUEUED[d as usize].load(Ordering::Acquire) {
            let r = synchronize_device(d);
            if first.is_ok() {
                first = r;
            }
        }
    }
    first
}

/// Frees pinned memory once nothing queued can use it.
///
/// # Safety
///
/// `p` came from [`alloc_pinned`] and is freed once.
pub(crate) unsafe fn free_pinned(p: *mut c_void) {
    let _ = settle_all();
    untrack(p as u64);
    if bind(devices::current()).is_ok() || bind(0).is_ok() {
        // SAFETY: the caller's contract.
        let _ = unsafe { result::free_host(p) };
    }
}

/// Queues a host-to-device copy of `bytes` bytes.
///
/// # Safety
///
/// `src` is valid for `bytes` bytes until the copy completes; `dst` is a device allocation of at
/// least `bytes` bytes.
pub(crate) unsafe fn copy_htod_async(dst: u64, src: *const u8, bytes: usize, s: &Arc<GpuStream>) -> Result<(), Error> {
    queued(s.device);
    order([dst, src as u64].into_iter(), Some(s), "copy_from_host_async")?;
    bind(s.device)?;
    // SAFETY: the caller's contract.
    unsafe { sys::cuMemcpyHtoDAsync_v2(dst, src as *const c_void, bytes, s.raw) }
        .result()
        .map_err(|e| driver_error(e, "queuing a copy to the GPU"))
}

/// Queues a device-to-host copy of `bytes` bytes.
///
/// # Safety
///
/// As for [`copy_htod_async`], with `dst` the host memory.
pub(crate) unsafe fn copy_dtoh_async(dst: *mut u8, src: u64, bytes: usize, s: &Arc<GpuStream>) -> Result<(), Error> {
    queued(s.device);
    order([src, dst as u64].into_iter(), Some(s), "copy_to_host_async")?;
    bind(s.device)?;
    // SAFETY: the caller's contract.
    unsafe { sys::cuMemcpyDtoHAsync_v2(dst as *mut c_void, src, bytes, s.raw) }
        .result()
        .map_err(|e| driver_error(e, "queuing a copy from the GPU"))
}

/// Queues zeroing `bytes` bytes of device memory.
///
/// # Safety
///
/// `dst` is a device allocation of at least `bytes` bytes.
pub(crate) unsafe fn memset_zero_async(dst: u64, bytes: usize, s: &Arc<GpuStream>) -> Result<(), Error> {
    queued(s.device);
    order(std::iter::once(dst), Some(s), "memset_zero_async")?;
    bind(s.device)?;
    // SAFETY: the caller's contract.
    unsafe { result::memset_d8_async(dst, 0, bytes, s.raw) }.map_err(|e| driver_error(e, "queuing a memset"))
}

/// `copy_from_peer` on the GPU: `cuMemcpyPeer` from the context of `src`'s device to that of
/// `dst`'s (a plain device-to-device copy when they are the same device), after both devices'
/// queued work.
///
/// # Safety
///
/// Both are device allocations of at least `bytes` bytes.
pub(crate) unsafe fn copy_dtod(dst: u64, src: u64, bytes: usize) -> Result<(), Error> {
    let current = devices::current();
    let (dd, sd) = (device_of(dst).unwrap_or(current), device_of(src).unwrap_or(current));
    settle(sd)?;
    if dd != sd {
        settle(dd)?;
    }
    let (dg, sg) = (gpu_of(dd)?, gpu_of(sd)?);
    dg.bind()?;
    // SAFETY: the caller's contract; both contexts are live (primary contexts, kept by `Gpu`).
    unsafe { sys::cuMemcpyPeer(dst, dg.ctx.cu_ctx(), src, sg.ctx.cu_ctx(), bytes) }
        .result()
        .map_err(|e| driver_error(e, &format!("copying from device {sd} to device {dd}")))
}

/// The number of GPUs.
pub(crate) fn device_count() -> Result<u32, Error> {
    gpu_of(0)?;
    result::device::get_count().map(|n| n as u32).map_err(|e| driver_error(e, "counting devices"))
}

#[cfg(test)]
mod tests {
    use super::*;

    static OOB: KernelInfo =
        KernelInfo { name: "oob", file: "k.rs", line: 3, end_line: 5, max_threads: 0, cluster: [0; 3] };
    static AFFINE: KernelInfo =
        KernelInfo { name: "affine", file: "k.rs", line: 9, end_line: 12, max_threads: 0, cluster: [0; 3] };

    #[test]
    fn a_fault_names_the_kernels_queued_since_the_last_synchronisation() {
        let here = Location::caller();
        let site = format!("launch! at {}:{}", here.file(), here.line());
        let mut log = Log { entries: Vec::new(), more: 0 };
        log.add(1, &OOB, Some(here));
        log.add(1, &OOB, Some(here));
        log.add(2, &AFFINE, None);
        let t = log.describe(Some(1));
        assert!(t.contains(&format!("on this stream: `oob` x2 ({site})")), "{t}");
        assert!(t.contains("on other streams: `affine` (kernel at k.rs:9)"), "{t}");
        assert!(t.contains("EMU_TARGET=emulator gives the full report"), "{t}");
        let all = log.describe(None);
        assert!(all.contains(&format!("synchronisation: `oob` x2 ({site}), `affine`")), "{all}");
        // A successful synchronisation of stream 1 forgets its kernels only.
        log.clear(Some(1));
        let t = log.describe(Some(1));
        assert!(!t.contains("`oob`") && t.contains("on other streams: `affine`"), "{t}");
        log.clear(None);
        assert!(log.describe(None).contains("no kernel was queued"));
        // Past the limit, launches are counted.
        for _ in 0..LOG_LIMIT {
            log.add(log.entries.len() + 10, &OOB, None);
        }
        log.add(99, &AFFINE, None);
        assert!(log.describe(None).contains("and 1 more launches"));
    }

    #[test]
    fn only_kernel_faults_are_explained() {
        let e = Error::Driver { code: 2, name: "CUDA_ERROR_OUT_OF_MEMORY".into(), message: "allocating".into() };
        assert_eq!(explain_on(0, e, None).to_string(), "CUDA error 2 (CUDA_ERROR_OUT_OF_MEMORY): allocating");
        let e = Error::Driver { code: 719, name: "CUDA_ERROR_LAUNCH_FAILED".into(), message: "synchronising".into() };
        assert!(explain_on(0, e, None).to_string().contains("EMU_TARGET=emulator"));
        assert_eq!(invalid_device(1, 1).code(), 101);
    }
}
