//! The device runtime on the GPU (nvptx only): device-side launches, streams, events and the
//! last error, as calls of CUDA's device runtime (`libcudadevrt`, CDP2).
//!
//! The calls are those `nvcc -rdc=true -arch=sm_90` (CUDA 13.0) emits for `child<<<..>>>()`,
//! `cudaStreamCreateWithFlags` and the rest (tools/probes/logs/p7_devrt_link.log): the
//! `__cudaCDP2*` functions of `cuda_device_runtime_api.h`, declared here as `extern "C"`, for
//! which rustc's nvptx backend writes the same `.extern .func` declarations as nvcc (a `dim3`
//! by value is `.param .align 4 .b8 [12]`). A launch is
//!
//! 1. `__cudaCDP2GetParameterBufferV2(child, grid, block, shared)`: a buffer for the child's
//!    parameters (null when none can be had);
//! 2. the parameters stored into it with the layout of the child's `.entry` (each at its
//!    alignment; a slice as a pointer and a `usize` length, as the host launch passes it);
//! 3. `__cudaCDP2LaunchDeviceV2(buffer, stream)`.
//!
//! The host links the module with `libcudadevrt.a` when it loads it (`gpu/link.rs`). The
//! special streams are CUDA 12/13's handles `cudaStreamTailLaunch` (3) and
//! `cudaStreamFireAndForget` (4) (`cuda_device_runtime_api.h`, lines 180-181). There is no
//! device-side `cudaDeviceSynchronize` for sm_90 (nvcc 13 rejects it, probe p7):
//! [`device_synchronize`] returns 801, as the emulator's default (cdp2) profile does.

use core::ffi::c_void;
use core::fmt;

use super::Dim3;

extern "C" {
    fn __cudaCDP2GetParameterBufferV2(func: *const c_void, grid: Dim3, block: Dim3, shared: u32) -> *mut c_void;
    fn __cudaCDP2LaunchDeviceV2(buffer: *mut c_void, stream: u64) -> u32;
    fn __cudaCDP2StreamCreateWithFlags(stream: *mut u64, flags: u32) -> u32;
    fn __cudaCDP2EventCreateWithFlags(event: *mut u64, flags: u32) -> u32;
    fn __cudaCDP2EventRecord(event: u64, stream: u64) -> u32;
    fn __cudaCDP2StreamWaitEvent(stream: u64, event: u64, flags: u32) -> u32;
    fn __cudaCDP2GetLastError() -> u32;
    fn __cudaCDP2PeekAtLastError() -> u32;
}

/// `cudaStreamNonBlocking`.
const STREAM_NON_BLOCKING: u32 = 1;
/// `cudaEventDisableTiming`.
const EVENT_DISABLE_TIMING: u32 = 2;
/// `cudaStreamTailLaunch`.
const TAIL_LAUNCH: u64 = 3;
/// `cudaStreamFireAndForget`.
const FIRE_AND_FORGET: u64 = 4;

/// An error of a device-runtime call in a kernel on the GPU: CUDA's number (`cudaError_t`).
/// The host build's `deviceemu::Error` has the same [`Error::code`] and [`Error::name`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Error {
    code: i32,
}

impl Error {
    /// The CUDA runtime's number for this error (`cudaError_t`).
    pub fn code(&self) -> i32 {
        self.code
    }

    /// CUDA's name for the error code, e.g. `cudaErrorLaunchPendingCountExceeded`.
    pub fn name(&self) -> &'static str {
        match self.code {
            1 => "cudaErrorInvalidValue",
            2 => "cudaErrorMemoryAllocation",
            9 => "cudaErrorInvalidConfiguration",
            65 => "cudaErrorLaunchMaxDepthExceeded",
            69 => "cudaErrorLaunchPendingCountExceeded",
            400 => "cudaErrorInvalidResourceHandle",
            801 => "cudaErrorNotSupported",
            _ => "cudaErrorUnknown",
        }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} ({}) from the device runtime", self.name(), self.code)
    }
}

fn result(code: u32) -> Result<(), Error> {
    match code {
        0 => Ok(()),
        c => Err(Error { code: c as i32 }),
    }
}

/// Returns the calling GPU thread's last device-runtime error and resets it
/// (`cudaGetLastError` in a kernel).
#[inline]
pub fn get_last_error() -> Result<(), Error> {
    // SAFETY: a device-runtime call without arguments; the module is linked with libcudadevrt.
    result(unsafe { __cudaCDP2GetLastError() })
}

/// Returns the calling GPU thread's last device-runtime error without resetting it
/// (`cudaPeekAtLastError` in a kernel).
#[inline]
pub fn peek_at_last_error() -> Result<(), Error> {
    // SAFETY: as in `get_last_error`.
    result(unsafe { __cudaCDP2PeekAtLastError() })
}

/// `cudaDeviceSynchronize()` in a kernel: CDP2 (sm_90, CUDA 12 and later) has none (nvcc 13
/// rejects it, probe p7), so this returns 801 (`cudaErrorNotSupported`), as the emulator's
/// default profile does; launch the work that must come after the children into
/// [`DeviceStream::tail_launch`] instead. The emulator's legacy profile (cdp1) has no GPU
/// counterpart on sm_90.
#[inline]
pub fn device_synchronize() -> Result<(), Error> {
    Err(Error { code: 801 })
}

/// A stream of the device runtime, made in a kernel (see the host build's documentation of
/// `DeviceStream`): a `cudaStream_t`.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DeviceStream {
    handle: u64,
}

// SAFETY: a `u64` handle: no padding, and zero (the null stream) is a valid value.
unsafe impl super::DeviceCopy for DeviceStream {}

/// An event of the device runtime (`cudaEventCreateWithFlags(.., cudaEventDisableTiming)`):
/// a `cudaEvent_t`.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DeviceEvent {
    handle: u64,
}

// SAFETY: as for `DeviceStream`.
unsafe impl super::DeviceCopy for DeviceEvent {}

impl DeviceStream {
    /// Creates a stream (`cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking)`). When the
    /// device runtime cannot make one, the handle is the null stream's and the error is the
    /// calling thread's last error.
    #[inline]
    pub fn non_blocking() -> DeviceStream {
        let mut handle = 0u64;
        // SAFETY: `handle` is a valid place for the new stream's handle.
        let _ = unsafe { __cudaCDP2StreamCreateWithFlags(&mut handle, STREAM_NON_BLOCKING) };
        DeviceStream { handle }
    }

    /// CDP2's tail-launch stream (`cudaStreamTailLaunch`, 3).
    pub const fn tail_launch() -> DeviceStream {
        DeviceStream { handle: TAIL_LAUNCH }
    }

    /// CDP2's fire-and-forget stream (`cudaStreamFireAndForget`, 4).
    pub const fn fire_and_forget() -> DeviceStream {
        DeviceStream { handle: FIRE_AND_FORGET }
    }

    /// Makes later work of this stream wait for `event` (`cudaStreamWaitEvent`).
    #[inline]
    pub fn wait_event(&self, event: &DeviceEvent) -> Result<(), Error> {
        // SAFETY: two handles by value; the device runtime validates them.
        result(unsafe { __cudaCDP2StreamWaitEvent(self.handle, event.handle, 0) })
    }
}

impl DeviceEvent {
    /// Creates an event without timing (`cudaEventCreateWithFlags(&e,
    /// cudaEventDisableTiming)`).
    #[inline]
    pub fn without_timing() -> DeviceEvent {
        let mut handle = 0u64;
        // SAFETY: `handle` is a valid place for the new event's handle.
        let _ = unsafe { __cudaCDP2EventCreateWithFlags(&mut handle, EVENT_DISABLE_TIMING) };
        DeviceEvent { handle }
    }

    /// Records the event in `stream` (`cudaEventRecord`).
    #[inline]
    pub fn record(&self, stream: &DeviceStream) -> Result<(), Error> {
        // SAFETY: two handles by value; the device runtime validates them.
        result(unsafe { __cudaCDP2EventRecord(self.handle, stream.handle) })
    }
}

pub use super::launch_arg::{DeviceArg, DeviceArgMut};

/// The parameter buffer of one device-side launch (`#[kernel]`'s nvptx `__launch_device`
/// fills it): `cudaGetParameterBufferV2`, the parameters, then `cudaLaunchDeviceV2`.
#[doc(hidden)]
pub struct ParamBuffer {
    base: *mut u8,
    offset: usize,
}

impl ParamBuffer {
    /// A buffer for a launch of the `.entry` at `func` with this configuration. Fails with the
    /// calling thread's last error (which it consumes) when the device runtime has none.
    ///
    /// # Safety
    ///
    /// `func` is the address of a `.entry` of this module.
    #[inline(always)]
    pub unsafe fn get(func: *const (), grid: Dim3, block: Dim3, shared: usize) -> Result<ParamBuffer, Error> {
        // SAFETY: the caller's contract; the rest are plain values.
        let base = unsafe { __cudaCDP2GetParameterBufferV2(func.cast(), grid, block, shared as u32) };
        if base.is_null() {
            // SAFETY: as in `get_last_error`.
            let code = unsafe { __cudaCDP2GetLastError() };
            return Err(Error { code: if code == 0 { 2 } else { code as i32 } });
        }
        Ok(ParamBuffer { base: base.cast(), offset: 0 })
    }

    /// Stores the next parameter, at its alignment.
    ///
    /// # Safety
    ///
    /// `T` is the type of the entry's next parameter (a slice counts as a pointer, then a
    /// `usize`).
    #[inline(always)]
    pub unsafe fn push<T>(&mut self, value: T) {
        let align = core::mem::align_of::<T>();
        self.offset = (self.offset + align - 1) & !(align - 1);
        // SAFETY: the device runtime's buffer holds the entry's parameters at their alignments
        // (it is at least 8-aligned), which is where the caller's types put them.
        unsafe { self.base.add(self.offset).cast::<T>().write(value) };
        self.offset += core::mem::size_of::<T>();
    }

    /// Launches the child into `stream` (the block's null stream when `None`).
    ///
    /// # Safety
    ///
    /// Every parameter of the entry was pushed.
    #[inline(always)]
    pub unsafe fn launch(self, stream: Option<&DeviceStream>) -> Result<(), Error> {
        let s = stream.map_or(0, |s| s.handle);
        // SAFETY: a buffer `get` returned, filled as the entry expects (the caller's contract).
        result(unsafe { __cudaCDP2LaunchDeviceV2(self.base.cast(), s) })
    }
}
