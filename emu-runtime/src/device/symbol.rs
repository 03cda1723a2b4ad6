//! Module-scope device variables: `#[constant]` statics (CUDA's `__constant__`), read-only in
//! kernels, and `#[device_global]` statics (`__device__`), which kernels read and write. The
//! host reads and writes both with [`copy_to_symbol`](crate::copy_to_symbol) and
//! [`copy_from_symbol`](crate::copy_from_symbol) (`cudaMemcpyToSymbol`,
//! `cudaMemcpyFromSymbol`).
//!
//! ```ignore
//! #[constant]
//! static FILTER: [f32; 5] = [0.0; 5];
//! #[device_global]
//! static HITS: [u32; 1] = [0];
//!
//! #[kernel]
//! fn blur(x: &[f32], y: &mut [f32]) {
//!     let hits = HITS.view();          // a `&mut [u32]`-like view of the global
//!     let i = thread_idx().x as usize;
//!     y[i] = FILTER[0] * x[i];         // constants read like the value itself
//!     hits.atomic_add(0, 1);
//! }
//!
//! copy_to_symbol(&FILTER, &[0.1, 0.2, 0.4, 0.2, 0.1])?;
//! ```
//!
//! The attributes (`emu-macros/src/symbol.rs`) declare a marker type implementing
//! [`SymbolDef`] and make the static a [`Constant`] or [`DeviceGlobal`] of it.
//!
//! * **Host.** A constant holds its current value behind an atomic pointer: `copy_to_symbol`
//!   publishes a new value (the previous one is kept, since a kernel may still read it, so
//!   each copy costs `size_of::<T>()` bytes for the rest of the process), and kernels read it
//!   as a plain `&T`. A device global's value lives in the static, accessed only through views
//!   (relaxed atomics, bounds-checked) and the copies (relaxed atomics too), with a
//!   description of its own that names it in reports; racecheck keeps one shadow per device
//!   global whose records from earlier launches count as empty.
//! * **nvptx.** A constant's `.const` variable `__emu_const_NAME` is declared with
//!   `global_asm!` and read through `cvta.const`; its initial value is the static itself,
//!   exported as the `.global` `__emu_cinit_NAME`, which the GPU module loader copies into the
//!   `.const` variable when it loads the module (`gpu/copy.rs`). A device global is the static
//!   itself, exported as the `.global` `__emu_global_NAME`. The host finds both with
//!   `cuModuleGetGlobal` in the PTX module of the file that declares them, so a kernel must
//!   live in the same file as the statics it uses (CUDA without `-rdc` has the same rule).

use core::cell::UnsafeCell;
use core::ops::Deref;

use super::copy::DeviceCopy;
use super::view::GlobalMut;

/// The definition of a `#[constant]` or `#[device_global]` static: implemented by the marker
/// type the attribute declares. Not implemented by hand.
#[doc(hidden)]
pub trait SymbolDef: 'static {
    /// The static's type.
    type Value: DeviceCopy;
    /// The static's name, for messages and reports.
    const NAME: &'static str;
    /// Its variable's name in the PTX module.
    const PTX_NAME: &'static str;
    /// The PTX module of the file that declares it (`None` when it was not built for the GPU).
    const PTX: Option<&'static str>;
    /// The address of the variable in the GPU's generic address space (a `#[constant]`'s is in
    /// `.const`).
    #[cfg(target_arch = "nvptx64")]
    fn device_ptr() -> *const Self::Value;
}

/// A `#[constant]` static: CUDA's `__constant__`. Kernels read it as its value (it
/// dereferences to `T`: `FILTER[i]`, `PARAMS.scale`); they cannot write it, and the host
/// changes it with `copy_to_symbol`.
#[cfg_attr(target_arch = "nvptx64", repr(transparent))]
pub struct Constant<D: SymbolDef> {
    /// The initial value (on nvptx, exported as `__emu_cinit_NAME`).
    init: D::Value,
    /// The value the last `copy_to_symbol` published (null: still the initial value).
    #[cfg(not(target_arch = "nvptx64"))]
    current: core::sync::atomic::AtomicPtr<D::Value>,
    /// The symbol's address on the GPU, once looked up.
    #[cfg(all(feature = "gpu", not(target_arch = "nvptx64")))]
    gpu_address: std::sync::OnceLock<u64>,
}

impl<D: SymbolDef> Constant<D> {
    /// The constant with its initial value (what `#[constant]` writes).
    #[doc(hidden)]
    pub const fn new(init: D::Value) -> Self {
        Constant {
            init,
            #[cfg(not(target_arch = "nvptx64"))]
            current: core::sync::atomic::AtomicPtr::new(core::ptr::null_mut()),
            #[cfg(all(feature = "gpu", not(target_arch = "nvptx64")))]
            gpu_address: std::sync::OnceLock::new(),
        }
    }

    /// The static's name.
    pub fn name(&self) -> &'static str {
        D::NAME
    }
}

impl<D: SymbolDef> Deref for Constant<D> {
    type Target = D::Value;

    #[inline(always)]
    fn deref(&self) -> &D::Value {
        #[cfg(not(target_arch = "nvptx64"))]
        {
            let p = self.current.load(core::sync::atomic::Ordering::Acquire);
            if p.is_null() {
                &self.init
            } else {
                // SAFETY: a non-null `current` was published by `copy_to_symbol` from a leaked
                // `Box` (Release/Acquire), never written or freed afterwards.
                unsafe { &*p }
            }
        }
        #[cfg(target_arch = "nvptx64")]
        // SAFETY: `device_ptr` is the address of the module's `.const` variable of this
        // constant, sized and aligned for `D::Value` and initialised from `init` when the
        // module was loaded; kernels cannot write `.const` memory.
        unsafe {
            &*D::device_ptr()
        }
    }
}

impl<D: SymbolDef> core::fmt::Debug for Constant<D> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Constant").field("name", &D::NAME).finish()
    }
}

impl<D: SymbolDef> core::fmt::Debug for DeviceGlobal<D> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("DeviceGlobal").field("name", &D::NAME).finish()
    }
}

/// What a write to a `#[constant]` in a kernel requires: implemented by nothing.
#[doc(hidden)]
#[diagnostic::on_unimplemented(
    message = "`#[constant]` statics are read-only in kernels",
    label = "this writes to constant memory",
    note = "write constant memory from the host, before the launch: `copy_to_symbol(&SYMBOL, &value)?`",
    note = "for a variable that kernels write, declare it `#[device_global]` (CUDA's `__device__`) and write it through `SYMBOL.view()`"
)]
pub trait ConstantIsWritable {}

impl<D: SymbolDef> Constant<D> {
    /// What `#[kernel]` calls before a write to a static: for a constant, an error (no symbol
    /// implements `ConstantIsWritable`) that says how to write constant memory.
    #[doc(hidden)]
    #[inline(always)]
    pub fn __emu_write_to(&self)
    where
        D: ConstantIsWritable,
    {
    }
}

#[cfg(not(target_arch = "nvptx64"))]
impl<D: SymbolDef> Constant<D> {
    /// Publishes `value` (`copy_to_symbol` in the emulator).
    pub(crate) fn publish(&self, value: &D::Value) {
        let p = Box::into_raw(Box::new(*value));
        // The previous value stays allocated: a kernel may hold a reference into it.
        self.current.store(p, core::sync::atomic::Ordering::Release);
    }

    /// The symbol's GPU address, looked up once.
    #[cfg(feature = "gpu")]
    pub(crate) fn gpu_address(&self) -> Result<u64, crate::device::backend::Error> {
        crate::device::backend::symbol_address::<D>(&self.gpu_address)
    }
}

/// A `#[device_global]` static: CUDA's `__device__` variable, in global memory. Kernels read
/// and write it through [`DeviceGlobal::view`], a view like a `&mut [T]` parameter's (indexing,
/// atomics), which the checkers see as global memory named after the static; the host copies
/// it with `copy_to_symbol` and `copy_from_symbol`. Declare it as an array (`[u32; 1]` for a
/// single value).
#[cfg_attr(target_arch = "nvptx64", repr(transparent))]
pub struct DeviceGlobal<D: SymbolDef> {
    /// The value (on nvptx, exported as `__emu_global_NAME`).
    cell: UnsafeCell<D::Value>,
    /// Its description for launches without racecheck, and with it (with racecheck's shadow).
    #[cfg(not(target_arch = "nvptx64"))]
    metas: [std::sync::OnceLock<crate::device::backend::StaticMeta>; 2],
    /// The symbol's address on the GPU, once looked up.
    #[cfg(all(feature = "gpu", not(target_arch = "nvptx64")))]
    gpu_address: std::sync::OnceLock<u64>,
}

// SAFETY: the value is only accessed through views (relaxed atomic accesses: a racy kernel is
// a reported bug, not a data race) and by `copy_to_symbol`/`copy_from_symbol`, which use the
// same relaxed atomic accesses; the descriptions are set once.
unsafe impl<D: SymbolDef> Sync for DeviceGlobal<D> {}

impl<D: SymbolDef> DeviceGlobal<D> {
    /// The device global with its initial value (what `#[device_global]` writes).
    #[doc(hidden)]
    pub const fn new(init: D::Value) -> Self {
        DeviceGlobal {
            cell: UnsafeCell::new(init),
            #[cfg(not(target_arch = "nvptx64"))]
            metas: [std::sync::OnceLock::new(), std::sync::OnceLock::new()],
            #[cfg(all(feature = "gpu", not(target_arch = "nvptx64")))]
            gpu_address: std::sync::OnceLock::new(),
        }
    }

    /// The static's name.
    pub fn name(&self) -> &'static str {
        D::NAME
    }
}

impl<E: DeviceCopy, const N: usize, D: SymbolDef<Value = [E; N]>> DeviceGlobal<D> {
    /// The global's `N` elements as a writable global-memory view: index it (`v[i]`,
    /// `v[i] += x`) and use atomics on it (`v.atomic_add(i, x)`) as on a `&mut [T]` kernel
    /// parameter. Bind it with `let` in the kernel (`let hits = HITS.view();`).
    #[inline(always)]
    pub fn view(&'static self) -> GlobalMut<'static, E> {
        #[cfg(not(target_arch = "nvptx64"))]
        let meta = self.meta();
        #[cfg(target_arch = "nvptx64")]
        let meta = ();
        // SAFETY: the static holds `N` elements of `E` for the whole program, accessed only
        // through views and relaxed atomic copies; `meta` describes exactly that memory.
        unsafe { super::view::View::from_raw_parts(self.cell.get() as *mut E, N, meta) }
    }
}

#[cfg(not(target_arch = "nvptx64"))]
impl<D: SymbolDef> DeviceGlobal<D> {
    /// The description for the running launch: with racecheck's shadow when it checks races.
    fn meta(&self) -> crate::device::backend::MetaPtr {
        crate::device::backend::static_meta::<D>(self.cell.get(), &self.metas)
    }

    /// Overwrites the value (`copy_to_symbol` in the emulator).
    pub(crate) fn write(&self, value: &D::Value) {
        // SAFETY: the static is valid and aligned for `D::Value`; concurrent kernel accesses go
        // through relaxed atomics as this store does.
        unsafe { crate::device::backend::store_relaxed(self.cell.get(), *value) }
    }

    /// Reads the value (`copy_from_symbol` in the emulator).
    pub(crate) fn read(&self) -> D::Value {
        // SAFETY: as in `write`.
        unsafe { crate::device::backend::load_relaxed(self.cell.get()) }
    }

    /// The symbol's GPU address, looked up once.
    #[cfg(feature = "gpu")]
    pub(crate) fn gpu_address(&self) -> Result<u64, crate::device::backend::Error> {
        crate::device::backend::symbol_address::<D>(&self.gpu_address)
    }
}
