//! `copy_to_symbol` and `copy_from_symbol`: the host's copies of `#[constant]` and
//! `#[device_global]` statics (`cudaMemcpyToSymbol`, `cudaMemcpyFromSymbol`), in the emulator
//! or, when the target is the GPU, to and from the variable of the static's PTX module
//! (`cuModuleGetGlobal` and a copy). The statics themselves are `device/symbol.rs`.

use crate::device::{Constant, DeviceCopy, DeviceGlobal, SymbolDef};
use crate::host::report::error::Error;

mod sealed {
    pub trait Sealed {}
}

/// A `#[constant]` or `#[device_global]` static: what [`copy_to_symbol`] and
/// [`copy_from_symbol`] take.
pub trait Symbol: sealed::Sealed + Sync + 'static {
    /// The static's type.
    type Value: DeviceCopy;
    #[doc(hidden)]
    fn write(&'static self, value: &Self::Value) -> Result<(), Error>;
    #[doc(hidden)]
    fn read(&'static self) -> Result<Self::Value, Error>;
}

/// Whether copies go to the GPU (the `gpu` feature and the GPU as target).
fn on_gpu() -> Result<bool, Error> {
    #[cfg(feature = "gpu")]
    return Ok(crate::host::config::effective()?.get_target() == crate::host::config::Target::Gpu);
    #[cfg(not(feature = "gpu"))]
    Ok(false)
}

#[cfg(feature = "gpu")]
fn download<T: DeviceCopy>(addr: u64) -> Result<T, Error> {
    // SAFETY: all-zero bytes are a valid `T` (a `DeviceCopy` requirement).
    let mut v = [unsafe { std::mem::zeroed::<T>() }];
    crate::gpu::copy::download(addr, &mut v)?;
    Ok(v[0])
}

impl<D: SymbolDef> sealed::Sealed for Constant<D> {}
impl<D: SymbolDef> Symbol for Constant<D> {
    type Value = D::Value;
    fn write(&'static self, value: &D::Value) -> Result<(), Error> {
        if on_gpu()? {
            #[cfg(feature = "gpu")]
            return crate::gpu::copy::upload(self.gpu_address()?, std::slice::from_ref(value));
        }
        self.publish(value);
        Ok(())
    }
    fn read(&'static self) -> Result<D::Value, Error> {
        if on_gpu()? {
            #[cfg(feature = "gpu")]
            return download(self.gpu_address()?);
        }
        Ok(**self)
    }
}

impl<D: SymbolDef> sealed::Sealed for DeviceGlobal<D> {}
impl<D: SymbolDef> Symbol for DeviceGlobal<D> {
    type Value = D::Value;
    fn write(&'static self, value: &D::Value) -> Result<(), Error> {
        if on_gpu()? {
            #[cfg(feature = "gpu")]
            return crate::gpu::copy::upload(self.gpu_address()?, std::slice::from_ref(value));
        }
        DeviceGlobal::write(self, value);
        Ok(())
    }
    fn read(&'static self) -> Result<D::Value, Error> {
        if on_gpu()? {
            #[cfg(feature = "gpu")]
            return download(self.gpu_address()?);
        }
        Ok(DeviceGlobal::read(self))
    }
}

/// Copies `src` into the `#[constant]` or `#[device_global]` static `symbol`
/// (`cudaMemcpyToSymbol(symbol, src, sizeof(symbol))`): `copy_to_symbol(&FILTER, &taps)?`.
///
/// The whole static is written; launches that start afterwards see the new value. In the
/// emulator a constant keeps each value it had (kernels may still read it): a few bytes per
/// copy. When the target is the GPU the copy goes to the static's variable in the PTX module
/// of the file that declares it (`cuModuleGetGlobal`).
pub fn copy_to_symbol<S: Symbol>(symbol: &'static S, src: &S::Value) -> Result<(), Error> {
    let r = symbol.write(src);
    if let Err(e) = &r {
        crate::host::report::last_error::record(e);
    }
    r
}

/// Copies the `#[constant]` or `#[device_global]` static `symbol` into `dst`
/// (`cudaMemcpyFromSymbol(dst, symbol, sizeof(symbol))`): `copy_from_symbol(&mut hits, &HITS)?`.
pub fn copy_from_symbol<S: Symbol>(dst: &mut S::Value, symbol: &'static S) -> Result<(), Error> {
    match symbol.read() {
        Ok(v) => {
            *dst = v;
            Ok(())
        }
        Err(e) => {
            crate::host::report::last_error::record(&e);
            Err(e)
        }
    }
}
