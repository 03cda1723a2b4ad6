//! Streams, events, pinned host buffers and CUDA's asynchronous error model.
//!
//! Layered above `sched`: queued work calls the synchronous launch (`sched/launch.rs`) from a
//! stream's worker (`queue.rs`). ARCHITECTURE.md, "Streams, events and asynchronous errors".
//!
//! | file | contents |
//! |------|----------|
//! | `queue.rs` | a stream's queue and worker, the legacy default stream's rules, device synchronisation |
//! | `event.rs` | [`Event`] |
//! | `host_buffer.rs` | [`HostBuffer`] and the `*_async` copies of `DeviceBuffer` |
//! | `launch.rs` | what `launch!` with a stream calls: launch-time checks, buffer dependencies, the queued job |

use std::fmt;
use std::sync::Arc;

use crate::host::config;
use crate::host::devices;
use crate::host::report::error::Error;

pub(crate) mod event;
pub(crate) mod host_buffer;
pub(crate) mod launch;
pub(crate) mod queue;

use queue::{Kind, StreamShared};

/// A CUDA stream: an ordered queue of kernels, copies and event records.
///
/// Work on one stream runs in the order it was queued; work on different streams may run at
/// the same time (the emulator runs the ready work of several streams on its worker threads
/// and the rayon pool together). `launch!(k<<<grid, block, shared_bytes, &stream>>>(args))`
/// queues a kernel and returns at once; a fault inside it is returned by the next
/// synchronising call ([`Stream::synchronize`], [`device_synchronize`],
/// [`Event::synchronize`](crate::Event::synchronize), a blocking copy).
///
/// Cloning a `Stream` gives another handle to the same stream.
#[derive(Clone)]
pub struct Stream {
    pub(crate) shared: Arc<StreamShared>,
    /// The CUDA stream, for a stream made while the target is the GPU.
    #[cfg(feature = "gpu")]
    pub(crate) gpu: Option<Arc<crate::gpu::stream::GpuStream>>,
}

impl fmt::Debug for Stream {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.shared.fmt(f)
    }
}

impl Stream {
    /// A stream that synchronises with the legacy default stream, as `cudaStreamCreate`'s do:
    /// its work waits for the default stream's earlier work, and the default stream's later
    /// work waits for it. It belongs to the current device (`set_device`).
    pub fn new() -> Result<Stream, Error> {
        Self::create(Kind::Blocking)
    }

    /// A stream that does not synchronise with the legacy default stream
    /// (`cudaStreamNonBlocking`).
    pub fn non_blocking() -> Result<Stream, Error> {
        Self::create(Kind::NonBlocking)
    }

    fn create(kind: Kind) -> Result<Stream, Error> {
        devices::check_sticky()?;
        #[cfg(feature = "gpu")]
        let gpu = match config::effective()?.get_target() {
            config::Target::Gpu => Some(Arc::new(crate::gpu::stream::create(kind == Kind::Blocking)?)),
            config::Target::Emulator => None,
        };
        Ok(Stream {
            shared: StreamShared::start(devices::current(), kind)?,
            #[cfg(feature = "gpu")]
            gpu,
        })
    }

    /// The default stream of the current device: the legacy default stream, or with
    /// `EMU_DEFAULT_STREAM=per-thread` (`Config::default_stream`) this host thread's own
    /// default stream, which synchronises with no other stream.
    pub fn default_stream() -> Stream {
        let c = config::effective().unwrap_or_default();
        #[cfg(feature = "gpu")]
        let gpu = (c.get_target() == config::Target::Gpu).then(|| {
            Arc::new(crate::gpu::stream::default_stream(c.get_default_stream() == config::DefaultStream::PerThread))
        });
        match queue::default_stream(&c) {
            Ok(shared) => Stream {
                shared,
                #[cfg(feature = "gpu")]
                gpu,
            },
            Err(e) => panic!("deviceemu: cannot start the default stream's worker: {e}"),
        }
    }

    /// The device the stream belongs to.
    pub fn device(&self) -> u32 {
        self.shared.device
    }

    /// Waits until all work queued on the stream has completed (`cudaStreamSynchronize`).
    /// Returns the first fault of that work not yet returned by another call, with its full
    /// report (kernel, block, thread, line), and records it as the last error; with sticky
    /// errors on, the sticky error.
    pub fn synchronize(&self) -> Result<(), Error> {
        #[cfg(feature = "gpu")]
        if let Some(g) = &self.gpu {
            return record_gpu(crate::gpu::stream::synchronize(g));
        }
        self.shared.synchronize()
    }

    /// Whether all work queued on the stream has completed (`cudaStreamQuery`): `Ok(false)`
    /// while some is still running, which does not set the last error (CUDA's
    /// `cudaErrorNotReady` does not either); once it has completed, `Ok(true)`, or the
    /// stream's unreported fault, as [`synchronize`](Self::synchronize) returns it.
    pub fn query(&self) -> Result<bool, Error> {
        #[cfg(feature = "gpu")]
        if let Some(g) = &self.gpu {
            return record_gpu(crate::gpu::stream::query(g));
        }
        if self.shared.last().is_some() {
            return Ok(false);
        }
        self.shared.take_faults().map(|()| true)
    }

    /// Makes all work queued on the stream after this call wait until `event` has completed
    /// (`cudaStreamWaitEvent`); the host does not wait. An event never recorded is complete.
    pub fn wait_event(&self, event: &crate::Event) -> Result<(), Error> {
        event.wait_on(self)
    }
}

/// Waits until all work queued on the current device, on every stream, has completed
/// (`cudaDeviceSynchronize`); returns the first fault of it not yet returned (recorded as the
/// last error), or with sticky errors on, the sticky error.
///
/// Called in a kernel it is the device runtime's `cudaDeviceSynchronize`: in the legacy cdp1
/// profile it waits for the work the calling block launched so far; in the sm_90 (cdp2)
/// profile it is a reported error (ARCHITECTURE.md, *The device runtime*).
#[track_caller]
pub fn device_synchronize() -> Result<(), Error> {
    if let Some(b) = crate::host::sched::context::current() {
        return crate::host::sched::devrt::device_synchronize_in_kernel(b);
    }
    #[cfg(feature = "gpu")]
    if config::effective()?.get_target() == config::Target::Gpu {
        return record_gpu(crate::gpu::stream::device_synchronize());
    }
    queue::synchronize_device(devices::current())
}

/// Records a GPU call's error as the last error.
#[cfg(feature = "gpu")]
pub(crate) fn record_gpu<T>(r: Result<T, Error>) -> Result<T, Error> {
    if let Err(e) = &r {
        crate::host::report::last_error::record(e);
    }
    r
}
