//! The emulated devices: how many (`EMU_DEVICES`), which one each host thread uses
//! (`set_device`), and the state a device keeps for asynchronous work that the layers below the
//! streams need: completions of queued work (`Done`), the faults of queued work nobody has
//! reported yet, and the sticky error (`EMU_STICKY_ERRORS`). With the GPU as target the count is
//! the machine's and each device a real GPU with its own context (`gpu::gpu_of`).
//!
//! This sits above `config` (it imports `report`, `config` and `gpu`), so that `mem` (buffers
//! wait for their pending work and report faults at blocking copies) and `stream` (which queues
//! the work) share it. ARCHITECTURE.md, "Streams, events and asynchronous errors".
//!
//! It also answers where launches run when the setting is left to `auto`
//! ([`Config::get_target`], `Target::default()`): the question whether a GPU is there is asked
//! here, when a launch, an allocation or a stream uses the target, so that the settings
//! (`config`) stay a leaf below the GPU driver.

use std::cell::Cell;
use std::sync::{Arc, Condvar, Mutex, OnceLock};
use std::time::Instant;

use crate::host::report::error::Error;
use crate::host::report::last_error;

use crate::host::config::{Config, Target, MAX_DEVICES};

impl Default for Target {
    /// `EMU_TARGET=auto`: the GPU when deviceemu is built with its `gpu` feature and a CUDA
    /// driver and device are found, the emulator otherwise (with the feature, a one-line
    /// notice on stderr says so, once per process, when a setting that was left to `auto` is
    /// used: [`Config::get_target`]).
    fn default() -> Self {
        #[cfg(feature = "gpu")]
        {
            static AUTO: OnceLock<Target> = OnceLock::new();
            *AUTO.get_or_init(|| if crate::gpu::available() { Target::Gpu } else { Target::Emulator })
        }
        #[cfg(not(feature = "gpu"))]
        Target::Emulator
    }
}

impl Config {
    /// Where launches run: the target chosen (`Config::target`, `EMU_TARGET=gpu|emulator`), or
    /// with `auto` the GPU when one is found ([`Target::default`]).
    pub fn get_target(&self) -> Target {
        self.chosen_target().unwrap_or_else(|| {
            let target = Target::default();
            #[cfg(feature = "gpu")]
            if target == Target::Emulator {
                auto_found_no_gpu();
            }
            target
        })
    }
}

/// The notice that `EMU_TARGET=auto` found no GPU in a `gpu` build, once per process: printed
/// when a setting left to `auto` is used, so never under `EMU_TARGET=gpu` or `emulator` (nor
/// `Config::target`), whose launches do what they say.
#[cfg(feature = "gpu")]
fn auto_found_no_gpu() {
    static SAID: std::sync::Once = std::sync::Once::new();
    SAID.call_once(|| {
        eprintln!("deviceemu: no CUDA driver or device found; kernels run in the emulator (EMU_TARGET=auto)")
    });
}

/// The completion of one queued item (a kernel, a copy, an event record): waited on by the
/// host and by later items, and stamped with the time it completed (events read it).
#[derive(Debug, Default)]
pub(crate) struct Done {
    at: Mutex<Option<Instant>>,
    cv: Condvar,
}

impl Done {
    /// A completion not yet reached.
    pub(crate) fn new() -> Arc<Done> {
        Arc::new(Done::default())
    }

    /// Marks the item complete, now, and wakes every waiter.
    pub(crate) fn complete(&self) {
        let mut at = self.at.lock().unwrap_or_else(|e| e.into_inner());
        at.get_or_insert_with(Instant::now);
        self.cv.notify_all();
    }

    /// Whether the item has completed.
    pub(crate) fn is_done(&self) -> bool {
        self.at.lock().unwrap_or_else(|e| e.into_inner()).is_some()
    }

    /// When the item completed, if it has.
    pub(crate) fn completed_at(&self) -> Option<Instant> {
        *self.at.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Blocks until the item has completed; returns when.
    pub(crate) fn wait(&self) -> Instant {
        let mut at = self.at.lock().unwrap_or_else(|e| e.into_inner());
        loop {
            if let Some(t) = *at {
                return t;
            }
            at = self.cv.wait(at).unwrap_or_else(|e| e.into_inner());
        }
    }
}

/// The queued work a buffer (device or pinned host memory) takes part in, cudarc's way: the
/// last item that writes it and the items since that read it. A new reader waits for the
/// writer; a new writer, the host's writes and the buffer's release wait for all of them.
#[derive(Debug, Default)]
pub(crate) struct Pending {
    write: Option<Arc<Done>>,
    reads: Vec<Arc<Done>>,
}

impl Pending {
    /// What an item that reads the buffer must wait for; records the item as a reader.
    pub(crate) fn add_read(&mut self, item: &Arc<Done>) -> Option<Arc<Done>> {
        self.reads.retain(|d| !d.is_done());
        self.reads.push(item.clone());
        self.write.clone().filter(|w| !w.is_done())
    }

    /// What an item that writes the buffer must wait for; records the item as the writer.
    pub(crate) fn add_write(&mut self, item: &Arc<Done>) -> Vec<Arc<Done>> {
        let mut wait: Vec<_> = self.reads.drain(..).filter(|d| !d.is_done()).collect();
        wait.extend(self.write.replace(item.clone()).filter(|w| !w.is_done()));
        wait
    }

    /// The unfinished item that writes the buffer, if any (a host read waits for it).
    pub(crate) fn writer(&self) -> Option<Arc<Done>> {
        self.write.clone().filter(|w| !w.is_done())
    }

    /// Every unfinished item (a host write and the release wait for them).
    pub(crate) fn all(&self) -> Vec<Arc<Done>> {
        self.reads.iter().chain(&self.write).filter(|d| !d.is_done()).cloned().collect()
    }

    /// Whether any queued item still uses the buffer.
    pub(crate) fn any(&self) -> bool {
        self.reads.iter().chain(&self.write).any(|d| !d.is_done())
    }
}

/// A fault of queued work, kept until a synchronising call returns it.
#[derive(Debug)]
pub(crate) struct Fault {
    /// The stream the work was queued on.
    pub(crate) stream: u64,
    /// The item's number in that stream (events compare against it).
    pub(crate) seq: u64,
    /// The error, with its full report.
    pub(crate) error: Error,
}

/// What one emulated device keeps across host threads.
#[derive(Debug, Default)]
pub(crate) struct DeviceState {
    /// Faults of queued work not yet returned by a synchronising call, in completion order.
    faults: Mutex<Vec<Fault>>,
    /// The sticky error (with `EMU_STICKY_ERRORS=1`): every later call returns it.
    sticky: Mutex<Option<Error>>,
}

/// The CUDA error codes that leave the context unusable (CUDA runtime API, `cudaError`: "the
/// process ... must be terminated and relaunched"); with sticky errors on, a fault with one of
/// them is returned by every later call. 700, 719, 710 and 716 were measured sticky on the H200
/// (tools/probes/RESULTS.md, probe 5).
pub const STICKY_CODES: [i32; 9] = [700, 702, 710, 714, 715, 716, 717, 718, 719];

impl DeviceState {
    /// Records a fault of queued work; with sticky errors on, a sticky code becomes the
    /// device's sticky error.
    pub(crate) fn add_fault(&self, fault: Fault, sticky: bool) {
        if sticky && STICKY_CODES.contains(&fault.error.code()) {
            self.sticky.lock().unwrap_or_else(|e| e.into_inner()).get_or_insert_with(|| fault.error.clone());
        }
        self.faults.lock().unwrap_or_else(|e| e.into_inner()).push(fault);
    }

    /// Makes `e` the sticky error when sticky errors are on and its code is sticky (a fault of
    /// a synchronous launch).
    pub(crate) fn note_sync_fault(&self, e: &Error, sticky: bool) {
        if sticky && STICKY_CODES.contains(&e.code()) {
            self.sticky.lock().unwrap_or_else(|e| e.into_inner()).get_or_insert_with(|| e.clone());
        }
    }

    /// Takes the unreported faults `which` selects; returns the first (the others are dropped:
    /// CUDA too returns one error per call).
    pub(crate) fn take_faults(&self, which: impl Fn(&Fault) -> bool) -> Option<Error> {
        let mut faults = self.faults.lock().unwrap_or_else(|e| e.into_inner());
        let mut first = None;
        faults.retain(|f| {
            if which(f) {
                if first.is_none() {
                    first = Some(f.error.clone());
                }
                false
            } else {
                true
            }
        });
        first
    }

    /// The sticky error, if one happened.
    pub(crate) fn sticky(&self) -> Option<Error> {
        self.sticky.lock().unwrap_or_else(|e| e.into_inner()).clone()
    }
}

/// The state of every device number (as many as there may be, emulated or real), created on
/// first use.
fn states() -> &'static [DeviceState] {
    static STATES: OnceLock<Vec<DeviceState>> = OnceLock::new();
    STATES.get_or_init(|| (0..MAX_DEVICES).map(|_| DeviceState::default()).collect())
}

/// How many devices the emulator has: `EMU_DEVICES` (1 to 16, default 1), read once per process.
/// A bad value is refused by every launch and by [`device_count`] and [`set_device`]
/// (`config::process_settings`); meanwhile the emulator has one device.
pub(crate) fn count() -> u32 {
    static COUNT: OnceLock<u32> = OnceLock::new();
    *COUNT.get_or_init(crate::host::config::devices_setting)
}

thread_local! {
    static CURRENT: Cell<u32> = const { Cell::new(0) };
}

/// The device this host thread uses (`cudaGetDevice`).
pub(crate) fn current() -> u32 {
    CURRENT.with(Cell::get)
}

/// Sets the device of this host thread, without checking it (a stream's worker).
pub(crate) fn set_current(device: u32) {
    CURRENT.with(|c| c.set(device));
}

/// The state of device `d` (which must exist).
pub(crate) fn state(d: u32) -> &'static DeviceState {
    &states()[d as usize]
}

/// The number of devices (`cudaGetDeviceCount`): `EMU_DEVICES` emulated sm_90 devices
/// (default 1), or with the GPU as target, the real ones.
pub fn device_count() -> Result<u32, Error> {
    if let Err(e) = crate::host::config::process_settings() {
        last_error::record(&e);
        return Err(e);
    }
    #[cfg(feature = "gpu")]
    if crate::host::config::effective()?.get_target() == crate::host::config::Target::Gpu {
        return crate::gpu::device_count();
    }
    Ok(count())
}

/// Makes device `n` the one this host thread's buffers, streams, events and launches use
/// (`cudaSetDevice`; per host thread, as in CUDA). A number past the last device is
/// `cudaErrorInvalidDevice` (101). With the GPU as target each device is a real GPU, with its
/// own CUDA context (its primary context), started on first use.
pub fn set_device(n: u32) -> Result<(), Error> {
    let count = device_count()?;
    if n >= count || n >= MAX_DEVICES {
        let e = Error::InvalidDevice {
            message: format!(
                "set_device({n}): there are {count} devices (0 to {}); the emulator has as many as EMU_DEVICES says, \
                 the GPU target as many as the machine",
                count.saturating_sub(1)
            ),
        };
        last_error::record(&e);
        return Err(e);
    }
    #[cfg(feature = "gpu")]
    if crate::host::config::effective()?.get_target() == crate::host::config::Target::Gpu {
        // Start the device's context now, so that its failure is returned here.
        if let Err(e) = crate::gpu::gpu_of(n) {
            last_error::record(&e);
            return Err(e);
        }
    }
    set_current(n);
    Ok(())
}

/// The device this host thread uses (`cudaGetDevice`).
pub fn get_device() -> u32 {
    current()
}

/// The sticky error of the current device, recorded as the last error: what every call
/// returns first once a sticky fault happened (`EMU_STICKY_ERRORS=1`).
pub(crate) fn check_sticky() -> Result<(), Error> {
    match state(current()).sticky() {
        Some(e) => {
            last_error::record(&e);
            Err(e)
        }
        None => Ok(()),
    }
}

/// Whether sticky errors are on (`EMU_STICKY_ERRORS` / `Config::sticky_errors`).
pub(crate) fn sticky_on() -> bool {
    crate::host::config::effective().map(|c| c.get_sticky_errors()).unwrap_or(false)
}

/// After a blocking host operation waited for the work it needed: the first unreported fault of
/// queued work on the current device that has completed, recorded as the last error (CUDA
/// returns an asynchronous fault from the next blocking call, related or not).
pub(crate) fn report_faults_at_blocking_call() -> Result<(), Error> {
    check_sticky()?;
    match state(current()).take_faults(|_| true) {
        Some(e) => {
            last_error::record(&e);
            Err(e)
        }
        None => Ok(()),
    }
}
