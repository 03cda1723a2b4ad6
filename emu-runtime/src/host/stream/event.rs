//! [`Event`]: a marker queued on a stream, to wait for, join streams with and time work.
//!
//! `record` queues an item without a job; its completion (`devices::Done`) is stamped with the
//! time the stream's worker reached it, which is when every earlier item of the stream had
//! completed. `elapsed_time` is the difference of two stamps.

use std::fmt;
use std::sync::{Arc, Mutex};

use crate::host::devices::{self, Done};
use crate::host::report::error::Error;
use crate::host::report::last_error;
use crate::host::stream::Stream;

/// Where an event was last recorded.
#[derive(Clone)]
struct Record {
    done: Arc<Done>,
    stream: u64,
    seq: u64,
}

/// A CUDA event (`cudaEvent_t`).
///
/// ```
/// use emu_runtime::{Event, Stream};
/// let s = Stream::new()?;
/// let (start, end) = (Event::new()?, Event::new()?);
/// start.record(&s)?;
/// // ... queue work on `s` ...
/// end.record(&s)?;
/// end.synchronize()?;
/// assert!(Event::elapsed_time(&start, &end)? >= 0.0);
/// # Ok::<(), emu_runtime::Error>(())
/// ```
pub struct Event {
    timing: bool,
    device: u32,
    last: Mutex<Option<Record>>,
    /// The CUDA event, for an event made while the target is the GPU.
    #[cfg(feature = "gpu")]
    gpu: Option<crate::gpu::stream::GpuEvent>,
}

impl fmt::Debug for Event {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Event").field("timing", &self.timing).field("device", &self.device).finish_non_exhaustive()
    }
}

impl Event {
    /// An event that records the time (`cudaEventCreate`), of the current device.
    pub fn new() -> Result<Event, Error> {
        Self::make(true)
    }

    fn make(timing: bool) -> Result<Event, Error> {
        devices::check_sticky()?;
        #[cfg(feature = "gpu")]
        let gpu = match crate::host::config::effective()?.get_target() {
            crate::host::config::Target::Gpu => Some(crate::gpu::stream::GpuEvent::new(timing)?),
            crate::host::config::Target::Emulator => None,
        };
        Ok(Event {
            timing,
            device: devices::current(),
            last: Mutex::new(None),
            #[cfg(feature = "gpu")]
            gpu,
        })
    }

    /// An event without timing (`cudaEventDisableTiming`), cheaper to record: for joining
    /// streams; [`elapsed_time`](Self::elapsed_time) refuses it.
    pub fn without_timing() -> Result<Event, Error> {
        Self::make(false)
    }

    /// Queues the event on `stream` (`cudaEventRecord`): it completes when all work queued on
    /// the stream before it has completed. Recording again replaces the earlier record.
    pub fn record(&self, stream: &Stream) -> Result<(), Error> {
        devices::check_sticky()?;
        if stream.device() != self.device {
            let e = Error::InvalidResourceHandle {
                message: format!(
                    "an event of device {} was recorded on a stream of device {}; record it on a stream of its own device",
                    self.device,
                    stream.device()
                ),
            };
            last_error::record(&e);
            return Err(e);
        }
        #[cfg(feature = "gpu")]
        if let (Some(e), Some(s)) = (&self.gpu, &stream.gpu) {
            return crate::host::stream::record_gpu(e.record(s));
        }
        let done = Done::new();
        let seq = stream.shared.enqueue(done.clone(), Vec::new(), None, false);
        *self.lock() = Some(Record { done, stream: stream.shared.id, seq });
        Ok(())
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Option<Record>> {
        self.last.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Waits until the event has completed (`cudaEventSynchronize`); returns the first
    /// unreported fault of the work queued before it on its stream (recorded as the last
    /// error), or the sticky error. An event never recorded is complete.
    pub fn synchronize(&self) -> Result<(), Error> {
        #[cfg(feature = "gpu")]
        if let Some(e) = &self.gpu {
            return crate::host::stream::record_gpu(e.synchronize());
        }
        let rec = self.lock().clone();
        let state = devices::state(self.device);
        let fault = match rec {
            Some(r) => {
                r.done.wait();
                state.take_faults(|f| f.stream == r.stream && f.seq <= r.seq)
            }
            None => None,
        };
        match fault.or_else(|| state.sticky()) {
            Some(e) => {
                last_error::record(&e);
                Err(e)
            }
            None => Ok(()),
        }
    }

    /// Whether the event has completed (`cudaEventQuery`): `Ok(false)` while work before it is
    /// still running. It never sets the last error and does not look at faults (as the CUDA
    /// guide notes of `cudaEventQuery`); an event never recorded is complete.
    pub fn query(&self) -> Result<bool, Error> {
        #[cfg(feature = "gpu")]
        if let Some(e) = &self.gpu {
            return e.query();
        }
        Ok(self.lock().as_ref().is_none_or(|r| r.done.is_done()))
    }

    /// The time from `start` to `end` in milliseconds (`cudaEventElapsedTime`), both recorded
    /// and completed, both with timing. Negative when `end` completed first.
    ///
    /// Errors: 400 (invalid resource handle) for an event without timing or never recorded,
    /// 600 (not ready) when one has not completed yet.
    pub fn elapsed_time(start: &Event, end: &Event) -> Result<f32, Error> {
        #[cfg(feature = "gpu")]
        if let (Some(a), Some(b)) = (&start.gpu, &end.gpu) {
            return crate::host::stream::record_gpu(crate::gpu::stream::GpuEvent::elapsed(a, b));
        }
        let stamp = |e: &Event, which: &str| -> Result<std::time::Instant, Error> {
            if !e.timing {
                return Err(Error::InvalidResourceHandle {
                    message: format!(
                        "elapsed_time: the {which} event was made with Event::without_timing(); use Event::new()"
                    ),
                });
            }
            let rec = e.lock().clone().ok_or_else(|| Error::InvalidResourceHandle {
                message: format!("elapsed_time: the {which} event was never recorded; call record(&stream) first"),
            })?;
            rec.done.completed_at().ok_or_else(|| Error::NotReady {
                message: format!("elapsed_time: the {which} event has not completed; synchronize it first"),
            })
        };
        let r = (|| {
            let (a, b) = (stamp(start, "start")?, stamp(end, "end")?);
            Ok(match b.checked_duration_since(a) {
                Some(d) => d.as_secs_f64() * 1e3,
                None => -(a.duration_since(b).as_secs_f64() * 1e3),
            } as f32)
        })();
        if let Err(e) = &r {
            last_error::record(e);
        }
        r
    }

    /// Makes `stream`'s later work wait for this event (`Stream::wait_event`).
    pub(crate) fn wait_on(&self, stream: &Stream) -> Result<(), Error> {
        devices::check_sticky()?;
        #[cfg(feature = "gpu")]
        if let (Some(e), Some(s)) = (&self.gpu, &stream.gpu) {
            return crate::host::stream::record_gpu(e.wait_on(s));
        }
        let rec = self.lock().clone();
        if let Some(r) = rec.filter(|r| !r.done.is_done()) {
            stream.shared.enqueue(Done::new(), vec![r.done], None, false);
        }
        Ok(())
    }
}
