//! The `gpu` feature: the same kernels on an NVIDIA GPU, through the CUDA driver API.
//!
//! Layered as cudarc is: `cudarc::driver::{sys, result, safe}` does the driver calls; this
//! module keeps one context per process, loads each kernel's embedded PTX module once, copies
//! buffers, checks launch configurations against the real device's limits and maps driver
//! errors into [`Error`](crate::Error) with CUDA's numbers.
//!
//! Kernel parameters are passed as the `ptx-kernel` entry `#[kernel]` emits expects them:
//! scalars by value, each `&[T]`/`&mut [T]` as a device pointer followed by a `usize` length.

use std::collections::HashMap;
use std::ffi::c_void;
use std::sync::{Arc, Mutex, OnceLock};

use cudarc::driver::sys::{self, CUdevice_attribute as Attr};
use cudarc::driver::{result, CudaContext, CudaFunction, CudaModule, CudaStream, DriverError};

use crate::host::launch_desc::{GpuArg, KernelInfo, LaunchConfig};
use crate::host::report::error::Error;

pub(crate) mod copy;
mod link;
pub(crate) mod stream;
pub(crate) use stream::device_count;
pub(crate) mod texture;

/// A GPU's loaded kernels by (module key, kernel name): the function, and whether its module
/// calls the device runtime.
type FunctionCache = HashMap<(usize, &'static str), (CudaFunction, bool)>;

/// One GPU of the process: its primary context and the stream of synchronous launches.
pub(crate) struct Gpu {
    ctx: Arc<CudaContext>,
    stream: Arc<CudaStream>,
    modules: Mutex<HashMap<usize, Arc<CudaModule>>>,
    /// Each kernel's function, and whether its module calls the device runtime.
    functions: Mutex<FunctionCache>,
    limits: Limits,
    /// `cudaLimitDevRuntimePendingLaunchCount` as last set here (CUDA's default: 2048).
    pending_launch_limit: std::sync::atomic::AtomicUsize,
}

struct Limits {
    max_threads: u32,
    max_block: [u32; 3],
    max_grid: [u32; 3],
    max_shared_optin: usize,
}

static GPUS: [OnceLock<Result<Gpu, Error>>; stream::MAX_GPUS] = [const { OnceLock::new() }; stream::MAX_GPUS];

/// The GPU of this host thread's device (`set_device`), started on first use.
pub(crate) fn gpu() -> Result<&'static Gpu, Error> {
    gpu_of(crate::host::devices::current())
}

/// GPU `d` (a context per device), started on first use.
pub(crate) fn gpu_of(d: u32) -> Result<&'static Gpu, Error> {
    let slot = GPUS.get(d as usize).ok_or_else(|| stream::invalid_device(d, stream::MAX_GPUS as u32))?;
    slot.get_or_init(|| Gpu::start(d)).as_ref().map_err(Clone::clone)
}

/// Whether a CUDA driver and at least one device are present.
pub fn available() -> bool {
    gpu_of(0).is_ok()
}

pub(crate) fn driver_error(e: DriverError, what: &str) -> Error {
    let code = e.0 as i32;
    let name =
        e.error_name().map(|s| s.to_string_lossy().into_owned()).unwrap_or_else(|_| format!("CUDA error {code}"));
    let text = e.error_string().map(|s| s.to_string_lossy().into_owned()).unwrap_or_default();
    map_driver_error(code, name, &text, what)
}

/// The error for driver code `code` (named `name`, described `text`) met while doing `what`.
///
/// The driver's codes for launch failures are the runtime's (700 illegal address, 701 out of
/// resources, 719 launch failure); 100 (no device) and 2 (out of memory) get their own
/// variants so that callers can match on them.
pub(crate) fn map_driver_error(code: i32, name: String, text: &str, what: &str) -> Error {
    match code {
        100 => Error::NoDevice { message: format!("{what}: {name}: {text}") },
        _ => Error::Driver { code, name, message: format!("{what}: {text}") },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_left_out_kernel_says_why() {
        let ptx =
            ".version 7.8\n.target sm_90\n// deviceemu: left out: uses_f64 deviceemu: `uses_f64` in src/k.rs cannot \
                   be compiled for the GPU and was left out of its PTX (...): error[E0599]: no method named `exp`\n";
        let why = left_out(ptx, "uses_f64").unwrap();
        assert!(why.starts_with("kernel `uses_f64` was left out of the PTX"), "{why}");
        assert!(why.ends_with("The build said: `uses_f64` in src/k.rs cannot be compiled for the GPU and was left out of its PTX (...): error[E0599]: no method named `exp`"), "{why}");
        assert_eq!(left_out(ptx, "uses"), None);
        assert_eq!(left_out(ptx, "other"), None);
    }

    #[test]
    fn driver_codes_map_to_cuda_numbers() {
        let e = map_driver_error(
            700,
            "CUDA_ERROR_ILLEGAL_ADDRESS".into(),
            "an illegal memory access",
            "running kernel `k`",
        );
        assert_eq!(e.code(), 700);
        assert_eq!(e.name(), "cudaErrorIllegalAddress");
        assert!(e.to_string().contains("running kernel `k`"), "{e}");
        assert_eq!(map_driver_error(719, "CUDA_ERROR_LAUNCH_FAILED".into(), "", "").code(), 719);
        let e = map_driver_error(100, "CUDA_ERROR_NO_DEVICE".into(), "no CUDA-capable device", "starting the GPU");
        assert!(matches!(e, Error::NoDevice { .. }));
        assert_eq!(e.code(), 100);
        assert_eq!(e.name(), "cudaErrorNoDevice");
    }

    #[test]
    fn launches_pick_their_driver_call() {
        let info = |cluster| KernelInfo { name: "k", file: "k.rs", line: 1, end_line: 2, max_threads: 0, cluster };
        assert_eq!(LaunchKind::of(&info([0; 3]), false), LaunchKind::Plain);
        assert_eq!(LaunchKind::of(&info([0; 3]), true), LaunchKind::Cooperative);
        assert_eq!(LaunchKind::of(&info([4, 1, 1]), false), LaunchKind::Cluster([4, 1, 1]));
        assert_eq!(LaunchKind::of(&info([2, 2, 1]), true), LaunchKind::Cooperative);
    }
}

impl Gpu {
    fn start(ordinal: u32) -> Result<Gpu, Error> {
        // SAFETY: only probes whether the driver library can be loaded.
        if !unsafe { sys::is_culib_present() } {
            return Err(Error::NoDevice {
                message: "no CUDA driver (libcuda.so) was found; install the NVIDIA driver, or build without \
                          the `gpu` feature (or set EMU_TARGET=emulator) to emulate"
                    .into(),
            });
        }
        let ctx = CudaContext::new(ordinal as usize).map_err(|e| driver_error(e, "starting the GPU"))?;
        let stream = ctx.default_stream();
        let attr = |a: Attr| ctx.attribute(a).map(|v| v as u32).map_err(|e| driver_error(e, "reading device limits"));
        let limits = Limits {
            max_threads: attr(Attr::CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK)?,
            max_block: [
                attr(Attr::CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_X)?,
                attr(Attr::CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Y)?,
                attr(Attr::CU_DEVICE_ATTRIBUTE_MAX_BLOCK_DIM_Z)?,
            ],
            max_grid: [
                attr(Attr::CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X)?,
                attr(Attr::CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Y)?,
                attr(Attr::CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_Z)?,
            ],
            max_shared_optin: attr(Attr::CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN)? as usize,
        };
        Ok(Gpu {
            ctx,
            stream,
            modules: Mutex::new(HashMap::new()),
            functions: Mutex::new(HashMap::new()),
            limits,
            pending_launch_limit: std::sync::atomic::AtomicUsize::new(2048),
        })
    }

    /// Sets `cudaLimitDevRuntimePendingLaunchCount` to `Config::pending_launch_limit` before a
    /// launch of a kernel that calls the device runtime, when it differs from the last value
    /// set (`cuCtxSetLimit` on the bound context).
    fn apply_pending_launch_limit(&self, limit: usize) -> Result<(), Error> {
        use std::sync::atomic::Ordering::Relaxed;
        if self.pending_launch_limit.load(Relaxed) == limit {
            return Ok(());
        }
        // SAFETY: plain driver call on the context bound to this thread (`with_launch` binds it).
        unsafe { sys::cuCtxSetLimit(sys::CUlimit::CU_LIMIT_DEV_RUNTIME_PENDING_LAUNCH_COUNT, limit) }
            .result()
            .map_err(|e| driver_error(e, &format!("setting the device runtime's pending launch limit to {limit}")))?;
        self.pending_launch_limit.store(limit, Relaxed);
        Ok(())
    }

    pub(crate) fn bind(&self) -> Result<(), Error> {
        self.ctx.bind_to_thread().map_err(|e| driver_error(e, "binding the GPU context"))
    }

    /// The kernel's function, and whether its module calls the device runtime.
    fn function(&self, kernel: &'static KernelInfo, ptx: &'static str) -> Result<(CudaFunction, bool), Error> {
        let key = (ptx.as_ptr() as usize, kernel.name);
        if let Some(f) = self.functions.lock().unwrap_or_else(|e| e.into_inner()).get(&key) {
            return Ok(f.clone());
        }
        if let Some(why) = left_out(ptx, kernel.name) {
            return Err(Error::NotSupported { message: why });
        }
        let module = self.module(ptx)?;
        let f = module
            .load_function(kernel.name)
            .map_err(|e| driver_error(e, &format!("finding kernel `{}` in its PTX module", kernel.name)))?;
        let f = (f, link::needs_devrt(ptx));
        self.functions.lock().unwrap_or_else(|e| e.into_inner()).insert(key, f.clone());
        Ok(f)
    }

    /// The module of `ptx`, loaded (and its `#[constant]` statics initialised) on first use.
    ///
    /// Modules are told apart by their text, not its address: a kernel's launcher and a
    /// `#[constant]` of the same file each embed the file's PTX (`include_str!`), and both
    /// must use the one module, whose variables the kernels see.
    pub(crate) fn module(&self, ptx: &'static str) -> Result<Arc<CudaModule>, Error> {
        use std::hash::{Hash, Hasher};
        let mut h = std::collections::hash_map::DefaultHasher::new();
        ptx.hash(&mut h);
        let key = h.finish() as usize;
        let mut modules = self.modules.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(m) = modules.get(&key) {
            return Ok(m.clone());
        }
        // A module that calls the device runtime is linked with libcudadevrt first (link.rs).
        let image = match link::needs_devrt(ptx) {
            true => {
                self.bind()?;
                cudarc::nvrtc::Ptx::from_binary(link::link_with_devrt(ptx)?)
            }
            false => cudarc::nvrtc::Ptx::from_src(ptx),
        };
        let m = self.ctx.load_module(image).map_err(|e| driver_error(e, "loading the kernels' PTX module"))?;
        copy::init_constants(&m, ptx)?;
        modules.insert(key, m.clone());
        Ok(m)
    }

    fn validate(&self, kernel: &KernelInfo, cfg: &LaunchConfig, max_shared: usize) -> Result<(), Error> {
        let bad = |message: String| Err(Error::InvalidConfiguration { kernel: kernel.name, message });
        let (g, b, l) = (cfg.grid, cfg.block, &self.limits);
        if [g.x, g.y, g.z, b.x, b.y, b.z].contains(&0) {
            return bad(format!("grid {g} and block {b} must have every dimension at least 1"));
        }
        if kernel.max_threads != 0 && b.count() > kernel.max_threads as u64 {
            return bad(format!(
                "block {b} has {} threads, more than the kernel's launch_bounds({})",
                b.count(),
                kernel.max_threads
            ));
        }
        if b.count() > l.max_threads as u64 {
            return bad(format!("block {b} has {} threads; this GPU allows at most {}", b.count(), l.max_threads));
        }
        if b.x > l.max_block[0] || b.y > l.max_block[1] || b.z > l.max_block[2] {
            return bad(format!("block {b} exceeds this GPU's largest block {:?}", l.max_block));
        }
        if g.x > l.max_grid[0] || g.y > l.max_grid[1] || g.z > l.max_grid[2] {
            return bad(format!("grid {g} exceeds this GPU's largest grid {:?}", l.max_grid));
        }
        if cfg.shared_bytes > max_shared.min(l.max_shared_optin) {
            return bad(format!(
                "the launch asks for {} bytes of dynamic shared memory; the limit is {} (this GPU allows up to {} on opt-in)",
                cfg.shared_bytes,
                max_shared.min(l.max_shared_optin),
                l.max_shared_optin
            ));
        }
        Ok(())
    }
}

/// How a launch reaches the driver: `cuLaunchKernel`, `cuLaunchCooperativeKernel` (a
/// `launch_cooperative!`), or `cuLaunchKernelEx` with the cluster-dimension attribute (a
/// kernel with `#[kernel(cluster(X, Y, Z))]`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum LaunchKind {
    /// `launch!`.
    Plain,
    /// `launch_cooperative!`: every block resident at once, so that grid syncs complete.
    Cooperative,
    /// A clustered kernel, with its cluster shape in blocks.
    Cluster([u32; 3]),
}

impl LaunchKind {
    /// The kind of a launch of `kernel`, cooperative or not.
    pub(crate) fn of(kernel: &KernelInfo, cooperative: bool) -> LaunchKind {
        if cooperative {
            LaunchKind::Cooperative
        } else if kernel.cluster[0] != 0 {
            LaunchKind::Cluster(kernel.cluster)
        } else {
            LaunchKind::Plain
        }
    }
}

/// One launch of `f` on `stream` the way `kind` says.
///
/// # Safety
///
/// `f` is a valid function handle of the current context, `stream` a stream of it, and
/// `params` holds one pointer per parameter of the PTX entry, in order, each to a value of the
/// parameter's type that lives until this call returns (the driver copies them).
unsafe fn launch_raw(
    f: sys::CUfunction,
    cfg: &LaunchConfig,
    kind: LaunchKind,
    stream: sys::CUstream,
    params: &mut [*mut c_void],
) -> Result<(), DriverError> {
    let (g, b, shared) = (cfg.grid, cfg.block, cfg.shared_bytes as u32);
    match kind {
        // SAFETY: the caller's contract.
        LaunchKind::Plain => unsafe {
            result::launch_kernel(f, (g.x, g.y, g.z), (b.x, b.y, b.z), shared, stream, params)
        },
        // SAFETY: as above; `cuLaunchCooperativeKernel` takes the same parameters.
        LaunchKind::Cooperative => unsafe {
            sys::cuLaunchCooperativeKernel(f, g.x, g.y, g.z, b.x, b.y, b.z, shared, stream, params.as_mut_ptr())
                .result()
        },
        LaunchKind::Cluster([x, y, z]) => {
            // SAFETY: the attribute and value types are plain C data, for which zero is valid.
            let mut attr: sys::CUlaunchAttribute = unsafe { std::mem::zeroed() };
            attr.id = sys::CUlaunchAttributeID::CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION;
            attr.value.clusterDim.x = x;
            attr.value.clusterDim.y = y.max(1);
            attr.value.clusterDim.z = z.max(1);
            let config = sys::CUlaunchConfig {
                gridDimX: g.x,
                gridDimY: g.y,
                gridDimZ: g.z,
                blockDimX: b.x,
                blockDimY: b.y,
                blockDimZ: b.z,
                sharedMemBytes: shared,
                hStream: stream,
                attrs: &mut attr,
                numAttrs: 1,
            };
            // SAFETY: as above; `config` and its one attribute live until the call returns.
            unsafe { sys::cuLaunchKernelEx(&config, f, params.as_mut_ptr(), std::ptr::null_mut()).result() }
        }
    }
}

/// Launches `kernel` on the GPU with `args` and waits for it (`kind`: see [`LaunchKind`]).
pub(crate) fn launch(
    kernel: &'static KernelInfo,
    ptx: Option<&'static str>,
    cfg: LaunchConfig,
    max_shared: usize,
    args: &[GpuArg<'_>],
    kind: LaunchKind,
) -> Result<(), Error> {
    with_launch(kernel, ptx, cfg, max_shared, args, |gpu, f, params| {
        let start = result::event::create(sys::CUevent_flags::CU_EVENT_DEFAULT)
            .map_err(|e| driver_error(e, "creating an event"))?;
        let stop = result::event::create(sys::CUevent_flags::CU_EVENT_DEFAULT)
            .map_err(|e| driver_error(e, "creating an event"))?;
        let stream = gpu.stream.cu_stream();
        stream::before_sync_launch(kernel.name, args)?;
        // SAFETY: `params` holds one pointer per parameter of the PTX entry, in order, each to a
        // value of the parameter's type that lives until the synchronisation below; buffers are
        // device allocations of at least `len` elements owned by `DeviceBuffer`s the caller
        // borrows for the whole launch.
        let launched = unsafe {
            result::event::record(start, stream)
                .and_then(|_| launch_raw(f.cu_function(), &cfg, kind, stream, params))
                .and_then(|_| result::event::record(stop, stream))
                .and_then(|_| result::stream::synchronize(stream))
        };
        // SAFETY: both events were recorded on the stream, which has completed.
        let ms = unsafe { result::event::elapsed(start, stop) }.ok();
        // SAFETY: the events are not used afterwards.
        unsafe {
            let _ = result::event::destroy(start);
            let _ = result::event::destroy(stop);
        }
        launched.map_err(|e| stream::explain(driver_error(e, &format!("running kernel `{}`", kernel.name)), None))?;
        if let Some(ms) = ms {
            LAST_MS.with(|c| c.set(ms));
        }
        Ok(())
    })
}

/// Queues `kernel` on the CUDA stream `stream` and returns at once: no event, no
/// synchronisation (the driver copies the parameters at the call).
pub(crate) fn launch_on(
    kernel: &'static KernelInfo,
    ptx: Option<&'static str>,
    cfg: LaunchConfig,
    max_shared: usize,
    args: &[GpuArg<'_>],
    stream: sys::CUstream,
) -> Result<(), Error> {
    with_launch(kernel, ptx, cfg, max_shared, args, |_, f, params| {
        // SAFETY: as in `launch`; the parameter values live until this call returns, when the
        // driver has copied them; the buffers are kept by their `DeviceBuffer`s, whose release
        // synchronises the context (`stream::settle`). A clustered kernel goes through
        // `cuLaunchKernelEx` here too.
        unsafe { launch_raw(f.cu_function(), &cfg, LaunchKind::of(kernel, false), stream, params) }
            .map_err(|e| driver_error(e, &format!("launching kernel `{}`", kernel.name)))
    })
}

/// `cudaDeviceSetLimit(cudaLimitMallocHeapSize, bytes)` on the current device's context: the
/// size of the heap that kernels' `device_malloc` (CUDA's `malloc`) allocates from.
pub(crate) fn set_malloc_heap_size(bytes: usize) -> Result<(), Error> {
    let gpu = gpu_of(crate::host::devices::current())?;
    gpu.bind()?;
    // SAFETY: plain driver call on the context just bound to this thread.
    unsafe { sys::cuCtxSetLimit(sys::CUlimit::CU_LIMIT_MALLOC_HEAP_SIZE, bytes) }
        .result()
        .map_err(|e| driver_error(e, &format!("setting the device heap's size to {bytes} bytes")))
}

/// The start of the line that deviceemu-build adds to a file's PTX for each kernel it left
/// out (`deviceemu_build::LEFT_OUT`).
const LEFT_OUT: &str = "// deviceemu: left out: ";

/// Why `kernel` is not in `ptx`, when deviceemu-build left it out: the build warning's words,
/// which the PTX carries (`// deviceemu: left out: NAME WARNING`). Looked up before the
/// module is loaded (a cached function skips it), so that the launch fails with this reason
/// (801) rather than the driver's 500, `named symbol not found`.
pub(crate) fn left_out(ptx: &str, kernel: &str) -> Option<String> {
    let marker = format!("{LEFT_OUT}{kernel} ");
    let at = ptx.find(&marker)?;
    let line = ptx[at + marker.len()..].lines().next().unwrap_or("");
    let why = line.strip_prefix("deviceemu: ").unwrap_or(line);
    Some(format!(
        "kernel `{kernel}` was left out of the PTX when its crate was built, so it cannot run on the GPU (it runs in \
         the emulator: EMU_TARGET=emulator). The build said: {why}"
    ))
}

/// Checks the launch, finds the kernel, builds its parameter list and hands them to `run`.
fn with_launch(
    kernel: &'static KernelInfo,
    ptx: Option<&'static str>,
    cfg: LaunchConfig,
    max_shared: usize,
    args: &[GpuArg<'_>],
    run: impl FnOnce(&Gpu, &CudaFunction, &mut Vec<*mut c_void>) -> Result<(), Error>,
) -> Result<(), Error> {
    let Some(ptx) = ptx else {
        return Err(Error::NotSupported {
            message: format!(
                "kernel `{}` has no PTX: this crate was built with deviceemu's `gpu` feature but without \
                 compiling its kernels; add a build.rs that calls `deviceemu_build::kernels(&[\"{}\"])` \
                 (see the README's GPU section), or set EMU_TARGET=emulator",
                kernel.name, kernel.file
            ),
        });
    };
    let gpu = gpu()?;
    gpu.bind()?;
    gpu.validate(kernel, &cfg, max_shared)?;
    let (f, devrt) = gpu.function(kernel, ptx)?;
    if devrt {
        gpu.apply_pending_launch_limit(crate::host::config::effective()?.get_pending_launch_limit())?;
    }
    // Flatten: scalars point at the caller's values; buffers point at (address, length)
    // pairs stored here, which outlive the launch call.
    let mut storage: Vec<(u64, usize)> = Vec::with_capacity(args.len());
    for a in args {
        if let GpuArg::Buffer(b) = a {
            let Some(b) = b else {
                return Err(Error::InvalidValue {
                    message: format!(
                        "kernel `{}` was launched on the GPU with a buffer created in emulator memory; create \
                         buffers under the same target as the launch (EMU_TARGET / Config::target)",
                        kernel.name
                    ),
                });
            };
            storage.push(*b);
        }
    }
    let mut params: Vec<*mut c_void> = Vec::with_capacity(args.len() * 2);
    let mut k = 0;
    for a in args {
        match a {
            GpuArg::Scalar(p, _) => params.push(*p as *mut c_void),
            GpuArg::Buffer(_) => {
                let pair = &mut storage[k];
                params.push(&mut pair.0 as *mut u64 as *mut c_void);
                params.push(&mut pair.1 as *mut usize as *mut c_void);
                k += 1;
            }
        }
    }
    if cfg.shared_bytes > 48 * 1024 {
        // SAFETY: a valid function handle; the attribute allows the requested dynamic size.
        unsafe {
            result::function::set_function_attribute(
                f.cu_function(),
                sys::CUfunction_attribute::CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                cfg.shared_bytes as i32,
            )
        }
        .map_err(|e| driver_error(e, "raising the kernel's dynamic shared memory limit"))?;
    }
    run(gpu, &f, &mut params)
}

thread_local! {
    static LAST_MS: std::cell::Cell<f32> = const { std::cell::Cell::new(f32::NAN) };
}

/// How long the last GPU launch from this host thread ran, in milliseconds, measured with CUDA
/// events around the kernel (NaN before the first launch).
pub fn last_kernel_ms() -> f32 {
    LAST_MS.with(|c| c.get())
}

/// Device memory of one `DeviceBuffer`.
#[derive(Debug)]
pub(crate) struct DeviceAlloc {
    pub(crate) ptr: sys::CUdeviceptr,
    pub(crate) bytes: usize,
    /// The device (context) it was allocated on.
    device: u32,
}

impl DeviceAlloc {
    /// Allocates `bytes` (zeroed) on the GPU.
    pub(crate) fn zeroed(bytes: usize) -> Result<DeviceAlloc, Error> {
        let device = crate::host::devices::current();
        let gpu = gpu_of(device)?;
        gpu.bind()?;
        let n = bytes.max(1);
        // SAFETY: the context is bound; the allocation is freed in `Drop`.
        let ptr = unsafe { result::malloc_sync(n) }.map_err(|e| match driver_error(e, "allocating device memory") {
            Error::Driver { code: 2, .. } => Error::MemoryAllocation { bytes },
            other => other,
        })?;
        // SAFETY: `ptr` is a fresh allocation of `n` bytes of `device`.
        unsafe { stream::zero_fresh(ptr, n, device) }?;
        stream::track(ptr, n, device);
        Ok(DeviceAlloc { ptr, bytes, device })
    }

    /// Copies `src` to the start of the allocation.
    pub(crate) fn upload<T>(&self, src: &[T]) -> Result<(), Error> {
        stream::settle(self.device)?;
        gpu_of(self.device)?.bind()?;
        debug_assert!(std::mem::size_of_val(src) <= self.bytes);
        // SAFETY: the allocation holds at least `size_of_val(src)` bytes.
        unsafe { result::memcpy_htod_sync(self.ptr, src) }.map_err(|e| driver_error(e, "copying to the GPU"))
    }

    /// Copies the start of the allocation into `dst`.
    pub(crate) fn download<T>(&self, dst: &mut [T]) -> Result<(), Error> {
        stream::settle(self.device)?;
        gpu_of(self.device)?.bind()?;
        debug_assert!(std::mem::size_of_val(dst) <= self.bytes);
        // SAFETY: as in `upload`; `T: DeviceCopy` values are valid for any bytes a kernel wrote
        // through the same type.
        unsafe { result::memcpy_dtoh_sync(dst, self.ptr) }.map_err(|e| driver_error(e, "copying from the GPU"))
    }
}

impl Drop for DeviceAlloc {
    fn drop(&mut self) {
        // Queued work on any stream may still use it.
        let _ = stream::settle(self.device);
        stream::untrack(self.ptr);
        if let Ok(g) = gpu_of(self.device) {
            let _ = g.bind();
            // SAFETY: allocated by `malloc_sync`, freed once.
            let _ = unsafe { result::free_sync(self.ptr) };
        }
    }
}
