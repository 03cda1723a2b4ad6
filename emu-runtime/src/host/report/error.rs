//! [`Error`]: what a launch or a buffer operation returns when it fails.

use std::fmt;
use std::sync::Arc;

use crate::host::report::LaunchReport;

/// An error from deviceemu, carrying the CUDA runtime's error code ([`Error::code`]).
///
/// Launch failures carry the full compute-sanitizer-shaped report; their `Display` prints it.
#[derive(Clone, Debug)]
#[non_exhaustive]
pub enum Error {
    /// An argument was invalid, e.g. a length mismatch (`cudaErrorInvalidValue`, 1).
    InvalidValue {
        /// What was wrong and how to fix it.
        message: String,
    },
    /// A texture's filter mode does not suit its texels: linear filtering of 8- or 16-bit
    /// integers read as integers (`cudaErrorInvalidFilterSetting`, 26).
    InvalidFilterSetting {
        /// What was wrong and how to fix it.
        message: String,
    },
    /// Memory could not be allocated (`cudaErrorMemoryAllocation`, 2).
    MemoryAllocation {
        /// The size asked for, in bytes.
        bytes: usize,
    },
    /// Host memory that a launch needs could not be allocated: a shared-memory arena, a
    /// checker's shadow, a fiber stack (`cudaErrorMemoryAllocation`, 2). Nothing of the
    /// launch's results can be trusted; the process goes on and the next launch works.
    HostMemory {
        /// What could not be allocated, e.g. `racecheck's shadow of buffer `out``.
        what: String,
        /// The size asked for, in bytes.
        bytes: usize,
        /// Which setting to lower, e.g. `lower EMU_STACK_SIZE`.
        hint: String,
    },
    /// A setting (environment variable or `Config`) had a value deviceemu does not know
    /// (`cudaErrorInvalidValue`, 1).
    InvalidSetting {
        /// The variable, e.g. `EMU_BLOCKS`.
        variable: &'static str,
        /// The value given.
        value: String,
        /// The values accepted.
        valid: &'static str,
    },
    /// The launch configuration is impossible on the emulated device; nothing ran
    /// (`cudaErrorInvalidConfiguration`, 9).
    InvalidConfiguration {
        /// The kernel.
        kernel: &'static str,
        /// What was wrong and how to fix it.
        message: String,
    },
    /// A cooperative launch (`launch_cooperative!`) whose blocks cannot all be resident at
    /// once on the emulated sm_90 device, so a grid sync could never complete; nothing ran
    /// (`cudaErrorCooperativeLaunchTooLarge`, 720).
    CooperativeLaunchTooLarge {
        /// The kernel.
        kernel: &'static str,
        /// How many blocks fit, and how to launch fewer.
        message: String,
    },
    /// The kernel's cluster shape does not fit the launch: a grid dimension that is not a
    /// multiple of the cluster's (`cudaErrorInvalidClusterSize`, 912); nothing ran.
    InvalidClusterSize {
        /// The kernel.
        kernel: &'static str,
        /// What does not fit, and how to fix it.
        message: String,
    },
    /// A device-side launch deeper than the device runtime allows
    /// (`cudaErrorLaunchMaxDepthExceeded`, 65; the cdp1 profile's 24 levels).
    LaunchMaxDepthExceeded {
        /// The kernel that was launched.
        kernel: &'static str,
        /// What happened and what to do.
        message: String,
    },
    /// A device-side launch past the pending-launch limit
    /// (`cudaErrorLaunchPendingCountExceeded`, 69).
    LaunchPendingCountExceeded {
        /// The kernel that was launched.
        kernel: &'static str,
        /// What happened and what to do.
        message: String,
    },
    /// A setting asks for something not implemented yet (`cudaErrorNotSupported`, 801).
    NotSupported {
        /// What, and what to use instead.
        message: String,
    },
    /// Queued work has not completed yet (`cudaErrorNotReady`, 600): what
    /// `Event::elapsed_time` returns for an event that has not completed.
    NotReady {
        /// What is not ready.
        message: String,
    },
    /// A stream or event handle cannot be used for this (`cudaErrorInvalidResourceHandle`,
    /// 400), e.g. the elapsed time of an event made without timing, or a stream of another
    /// device.
    InvalidResourceHandle {
        /// What was wrong and how to fix it.
        message: String,
    },
    /// A device number that does not exist (`cudaErrorInvalidDevice`, 101).
    InvalidDevice {
        /// Which number was asked for, and how many devices there are.
        message: String,
    },
    /// No CUDA driver or device is present (`cudaErrorNoDevice`, 100).
    NoDevice {
        /// What was looked for, and how to go on without a GPU.
        message: String,
    },
    /// The CUDA driver reported an error while running on the GPU; `code` is its number, which
    /// for launch failures equals the runtime's (700, 701, 719, ...).
    Driver {
        /// The CUDA error code.
        code: i32,
        /// The driver's name for it, e.g. `CUDA_ERROR_ILLEGAL_ADDRESS`.
        name: String,
        /// What deviceemu was doing, and the driver's description.
        message: String,
    },
    /// `EMU_PATH=verify`: a kernel's fast form and its general path disagree (their memory,
    /// return code or findings differ), which is a bug in deviceemu's fast form or a result
    /// that depends on the order of racing threads (`cudaErrorUnknown`, 999).
    VerifyMismatch {
        /// The kernel.
        kernel: String,
        /// The first difference: the element, or the outcomes.
        message: String,
    },
    /// A kernel accessed memory out of bounds (`cudaErrorIllegalAddress`, 700).
    IllegalAddress(Arc<LaunchReport>),
    /// A kernel accessed memory through a misaligned address (a cast view; CUDA's
    /// `cudaErrorMisalignedAddress`, 716).
    MisalignedAddress(Arc<LaunchReport>),
    /// A kernel needed more resources than the launch may use (`cudaErrorLaunchOutOfResources`,
    /// 701).
    LaunchOutOfResources(Arc<LaunchReport>),
    /// A kernel panicked, overflowed its stack, misused a barrier or a warp collective, or
    /// read memory nothing wrote or raced (initcheck, racecheck) (`cudaErrorLaunchFailure`,
    /// 719).
    LaunchFailure(Arc<LaunchReport>),
    /// A launch made no progress for `EMU_TIMEOUT` seconds and was stopped by the watchdog
    /// (`cudaErrorLaunchTimeout`, 702).
    LaunchTimeout(Arc<LaunchReport>),
}

impl Error {
    /// The CUDA runtime's number for this error (`cudaError_t`).
    pub fn code(&self) -> i32 {
        match self {
            Error::InvalidValue { .. } | Error::InvalidSetting { .. } => 1,
            Error::MemoryAllocation { .. } | Error::HostMemory { .. } => 2,
            Error::InvalidFilterSetting { .. } => 26,
            Error::InvalidConfiguration { .. } => 9,
            Error::CooperativeLaunchTooLarge { .. } => 720,
            Error::InvalidClusterSize { .. } => 912,
            Error::NotSupported { .. } => 801,
            Error::LaunchMaxDepthExceeded { .. } => 65,
            Error::LaunchPendingCountExceeded { .. } => 69,
            Error::NoDevice { .. } => 100,
            Error::InvalidDevice { .. } => 101,
            Error::NotReady { .. } => 600,
            Error::InvalidResourceHandle { .. } => 400,
            Error::Driver { code, .. } => *code,
            Error::VerifyMismatch { .. } => 999,
            Error::IllegalAddress(_) => 700,
            Error::MisalignedAddress(_) => 716,
            Error::LaunchOutOfResources(_) => 701,
            Error::LaunchFailure(_) => 719,
            Error::LaunchTimeout(_) => 702,
        }
    }

    /// CUDA's name for the error code, e.g. `cudaErrorIllegalAddress`.
    pub fn name(&self) -> &'static str {
        match self.code() {
            1 => "cudaErrorInvalidValue",
            2 => "cudaErrorMemoryAllocation",
            9 => "cudaErrorInvalidConfiguration",
            26 => "cudaErrorInvalidFilterSetting",
            700 => "cudaErrorIllegalAddress",
            701 => "cudaErrorLaunchOutOfResources",
            702 => "cudaErrorLaunchTimeout",
            716 => "cudaErrorMisalignedAddress",
            719 => "cudaErrorLaunchFailure",
            720 => "cudaErrorCooperativeLaunchTooLarge",
            912 => "cudaErrorInvalidClusterSize",
            801 => "cudaErrorNotSupported",
            65 => "cudaErrorLaunchMaxDepthExceeded",
            69 => "cudaErrorLaunchPendingCountExceeded",
            100 => "cudaErrorNoDevice",
            101 => "cudaErrorInvalidDevice",
            400 => "cudaErrorInvalidResourceHandle",
            600 => "cudaErrorNotReady",
            710 => "cudaErrorAssert",
            _ => "cudaErrorUnknown",
        }
    }

    /// The report of a launch that ran and found bugs, if this is such an error.
    pub fn report(&self) -> Option<&LaunchReport> {
        match self {
            Error::IllegalAddress(r)
            | Error::MisalignedAddress(r)
            | Error::LaunchOutOfResources(r)
            | Error::LaunchFailure(r)
            | Error::LaunchTimeout(r) => Some(r),
            _ => None,
        }
    }

    pub(crate) fn from_report(report: LaunchReport) -> Self {
        let code = report.code();
        let r = Arc::new(report);
        match code {
            700 => Error::IllegalAddress(r),
            701 => Error::LaunchOutOfResources(r),
            702 => Error::LaunchTimeout(r),
            716 => Error::MisalignedAddress(r),
            _ => Error::LaunchFailure(r),
        }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Error::InvalidValue { message } => write!(f, "invalid value: {message}"),
            Error::InvalidFilterSetting { message } => write!(f, "invalid filter setting: {message}"),
            Error::MemoryAllocation { bytes } => {
                write!(f, "out of memory: could not allocate {bytes} bytes of device memory")
            }
            Error::HostMemory { what, bytes, hint } => {
                write!(f, "out of host memory: could not allocate {bytes} bytes for {what}; {hint}")
            }
            Error::InvalidSetting { variable, value, valid } => {
                write!(f, "invalid setting {variable}={value:?}: valid values are {valid}")
            }
            Error::InvalidConfiguration { kernel, message } => {
                write!(f, "invalid configuration for kernel `{kernel}`: {message} (nothing ran)")
            }
            Error::CooperativeLaunchTooLarge { kernel, message } => {
                write!(f, "cooperative launch of kernel `{kernel}` too large: {message} (nothing ran)")
            }
            Error::InvalidClusterSize { kernel, message } => {
                write!(f, "invalid cluster size for kernel `{kernel}`: {message} (nothing ran)")
            }
            Error::NotSupported { message } => write!(f, "not supported: {message}"),
            Error::LaunchMaxDepthExceeded { kernel, message } => {
                write!(f, "device-side launch of kernel `{kernel}` too deep (cudaErrorLaunchMaxDepthExceeded): {message} (it did not run)")
            }
            Error::LaunchPendingCountExceeded { kernel, message } => {
                write!(f, "device-side launch of kernel `{kernel}` failed (cudaErrorLaunchPendingCountExceeded): {message} (it did not run)")
            }
            Error::NoDevice { message } => write!(f, "no CUDA device: {message}"),
            Error::InvalidDevice { message } => write!(f, "invalid device: {message}"),
            Error::NotReady { message } => write!(f, "not ready: {message}"),
            Error::InvalidResourceHandle { message } => write!(f, "invalid resource handle: {message}"),
            Error::Driver { code, name, message } => write!(f, "CUDA error {code} ({name}): {message}"),
            Error::VerifyMismatch { kernel, message } => write!(
                f,
                "EMU_PATH=verify: kernel `{kernel}`'s fast form and its general path disagree: {message}. \
                 The general path's results are kept. Unless the kernel races (EMU_CHECK=racecheck finds that), \
                 this is a bug in deviceemu's fast form: EMU_TIERS_OFF narrows it down to one tier, and \
                 EMU_PATH=general runs the kernel without it"
            ),
            Error::IllegalAddress(r)
            | Error::MisalignedAddress(r)
            | Error::LaunchOutOfResources(r)
            | Error::LaunchFailure(r)
            | Error::LaunchTimeout(r) => {
                write!(f, "kernel `{}` failed ({}, code {}):\n{r}", r.kernel(), self.name(), self.code())
            }
        }
    }
}

impl std::error::Error for Error {}
