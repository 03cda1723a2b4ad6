//! `launch!(k<<<grid, block, shared_bytes, &stream>>>(args))`: what the kernel's launcher
//! (`__launch_on`, emitted by `#[kernel]`) calls.
//!
//! 1. [`Queued::new`] makes the launch-time checks CUDA makes at the launch (the sticky error,
//!    the configuration against the device's limits: error 9, returned at once);
//! 2. [`Queued::read`] / [`Queued::write`] record the item in each buffer's pending work, take
//!    what it must wait for, and give the job a handle to the buffer's memory;
//! 3. [`Queued::submit`] queues the job, which runs the synchronous launcher (`__run`) with
//!    those handles on the stream's worker, under the launching thread's settings. With
//!    `EMU_LAUNCH_BLOCKING=1` it then waits for the item and returns its fault.

use std::sync::Arc;

use crate::device::DeviceCopy;
use crate::host::config::{self, Config};
use crate::host::devices::{self, Done};
use crate::host::launch_desc::{KernelInfo, LaunchConfig};
use crate::host::mem::buffer::DeviceBuffer;
use crate::host::mem::slice::{KernelArg, KernelArgMut};
use crate::host::report::error::Error;
use crate::host::report::last_error;
use crate::host::stream::Stream;

/// A launch being queued on a stream.
#[derive(Debug)]
pub struct Queued<'s> {
    stream: &'s Stream,
    kernel: &'static KernelInfo,
    done: Arc<Done>,
    deps: Vec<Arc<Done>>,
    /// The settings made in code on the launching thread, for the worker.
    in_code: Option<Config>,
    config: Config,
    /// A buffer of another device, found while recording the buffers.
    error: Option<Error>,
    submitted: bool,
}

impl<'s> Queued<'s> {
    /// Starts queuing a launch of `kernel` on `stream`: the launch-time checks.
    pub fn new(stream: &'s Stream, kernel: &'static KernelInfo, cfg: &LaunchConfig) -> Result<Queued<'s>, Error> {
        let checked = (|| {
            devices::check_sticky()?;
            let config = config::effective()?;
            crate::host::sched::launch::validate(kernel, cfg, &config)?;
            Ok(config)
        })();
        let config = match checked {
            Ok(c) => c,
            Err(e) => {
                last_error::record(&e);
                return Err(e);
            }
        };
        Ok(Queued {
            stream,
            kernel,
            done: Done::new(),
            deps: Vec::new(),
            in_code: config::set_in_code(),
            config,
            error: None,
            submitted: false,
        })
    }

    fn same_device<T: DeviceCopy>(&mut self, b: &DeviceBuffer<T>) {
        if b.device() != self.stream.device() && self.error.is_none() {
            self.error = Some(Error::InvalidValue {
                message: format!(
                    "kernel `{}` was queued on a stream of device {} with a buffer of device {}; copy the buffer \
                     over with `copy_from_peer`, or queue the kernel on a stream of the buffer's device",
                    self.kernel.name,
                    self.stream.device(),
                    b.device()
                ),
            });
        }
    }

    /// A buffer (or slice) the kernel reads: the job waits for its queued writer.
    pub fn read<T: DeviceCopy, A: KernelArg<T>>(&mut self, a: A) -> QueuedPart<T> {
        let (b, start, len) = a.parts();
        self.same_device(b);
        self.deps.extend(b.pending().add_read(&self.done));
        QueuedPart { buf: b.share(), start, len }
    }

    /// A buffer (or slice) the kernel writes: the job waits for every queued user.
    pub fn write<T: DeviceCopy, A: KernelArgMut<T>>(&mut self, mut a: A) -> QueuedPart<T> {
        let (b, start, len) = a.parts_mut();
        self.same_device(b);
        self.deps.extend(b.pending().add_write(&self.done));
        QueuedPart { buf: b.share(), start, len }
    }

    /// Queues `job` (the synchronous launch with the buffers' handles) and returns at once,
    /// or with `EMU_LAUNCH_BLOCKING=1` after the kernel, with its fault.
    pub fn submit(mut self, job: impl FnOnce() -> Result<(), Error> + Send + 'static) -> Result<(), Error> {
        self.submitted = true;
        if let Some(e) = self.error.take() {
            // Nothing runs, but the item stays in its buffers' pending work until what it
            // waits for has completed, so that it does not hide the earlier writers.
            let deps = std::mem::take(&mut self.deps);
            self.stream.shared.enqueue(self.done.clone(), deps, None, false);
            last_error::record(&e);
            return Err(e);
        }
        let in_code = self.in_code.take();
        let job: crate::host::stream::queue::Job = match in_code {
            Some(c) => Box::new(move || config::with_config(c, job)),
            None => Box::new(job),
        };
        let deps = std::mem::take(&mut self.deps);
        let sticky = self.config.get_sticky_errors();
        let seq = self.stream.shared.enqueue(self.done.clone(), deps, Some(job), sticky);
        if self.config.get_launch_blocking() {
            self.done.wait();
            let id = self.stream.shared.id;
            if let Some(e) = devices::state(self.stream.device()).take_faults(|f| f.stream == id && f.seq == seq) {
                last_error::record(&e);
                return Err(e);
            }
        }
        Ok(())
    }
}

impl Drop for Queued<'_> {
    fn drop(&mut self) {
        if !self.submitted {
            // Recorded in buffers but never queued: nothing will run it.
            self.done.complete();
        }
    }
}

/// The three-argument `launch!`: the launch runs now, on the calling thread, as an item of the
/// default stream (`queue::run_on_default_stream`).
pub fn on_default_stream(f: impl FnOnce() -> Result<(), Error>) -> Result<(), Error> {
    crate::host::stream::queue::run_on_default_stream(f)
}

/// `launch!` with a stream made while the target is the GPU: the kernel is queued on its CUDA
/// stream and the launch returns at once; `None` for a stream of the emulator (always, without
/// the `gpu` feature). The caller's location (the `launch!` site) names the launch in a later
/// fault's error.
#[track_caller]
pub fn launch_on_gpu_stream(
    kernel: &'static KernelInfo,
    ptx: Option<&'static str>,
    stream: &Stream,
    cfg: LaunchConfig,
    args: &[crate::host::launch_desc::GpuArg<'_>],
) -> Option<Result<(), Error>> {
    #[cfg(feature = "gpu")]
    {
        let g = stream.gpu.as_ref()?;
        // Not in a closure, so that the launch site reaches `gpu::stream::launch`.
        let r = match config::effective() {
            Ok(c) => {
                crate::gpu::stream::launch(kernel, ptx, cfg, c.get_max_shared_bytes(), args, g, c.get_launch_blocking())
            }
            Err(e) => Err(e),
        };
        if let Err(e) = &r {
            last_error::record(e);
        }
        Some(r)
    }
    #[cfg(not(feature = "gpu"))]
    {
        let _ = (kernel, ptx, stream, cfg, args);
        None
    }
}

/// A buffer parameter of a queued launch: a handle to the buffer's memory that keeps it alive
/// until the job has run (`DeviceBuffer::share`), and the part of it the kernel sees (a slice's
/// offset and length).
#[doc(hidden)]
#[derive(Debug)]
pub struct QueuedPart<T: DeviceCopy> {
    buf: DeviceBuffer<T>,
    start: usize,
    len: usize,
}

impl<T: DeviceCopy> KernelArg<T> for &QueuedPart<T> {
    fn parts(&self) -> (&DeviceBuffer<T>, usize, usize) {
        (&self.buf, self.start, self.len)
    }
}

impl<T: DeviceCopy> KernelArg<T> for &mut QueuedPart<T> {
    fn parts(&self) -> (&DeviceBuffer<T>, usize, usize) {
        (&self.buf, self.start, self.len)
    }
}

impl<T: DeviceCopy> KernelArgMut<T> for &mut QueuedPart<T> {
    fn parts_mut(&mut self) -> (&mut DeviceBuffer<T>, usize, usize) {
        (&mut self.buf, self.start, self.len)
    }
}
