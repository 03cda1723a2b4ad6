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
    #[doc(hidden)]
    fn name(&'static self) -> &'static str;
    /// Writes `src` over elements `first..` of an array static (checked by the caller).
    #[doc(hidden)]
    fn write_at<E: DeviceCopy>(&'static self, first: usize, src: &[E]) -> Result<(), Error>
    where
        Self::Value: AsMut<[E]>,
    {
        if on_gpu()? {
            #[cfg(feature = "gpu")]
            return crate::gpu::copy::upload(self.address()? + (first * std::mem::size_of::<E>()) as u64, src);
        }
        let mut v = self.read()?;
        v.as_mut()[first..first + src.len()].copy_from_slice(src);
        self.write(&v)
    }
    /// Reads elements `first..first + dst.len()` of an array static (checked by the caller).
    #[doc(hidden)]
    fn read_at<E: DeviceCopy>(&'static self, first: usize, dst: &mut [E]) -> Result<(), Error>
    where
        Self::Value: AsRef<[E]>,
    {
        if on_gpu()? {
            #[cfg(feature = "gpu")]
            return crate::gpu::copy::download(self.address()? + (first * std::mem::size_of::<E>()) as u64, dst);
        }
        let v = self.read()?;
        dst.copy_from_slice(&v.as_ref()[first..first + dst.len()]);
        Ok(())
    }
    /// The static's address on the GPU.
    #[cfg(feature = "gpu")]
    #[doc(hidden)]
    fn address(&'static self) -> Result<u64, Error>;
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
    fn name(&'static self) -> &'static str {
        Constant::name(self)
    }
    #[cfg(feature = "gpu")]
    fn address(&'static self) -> Result<u64, Error> {
        self.gpu_address()
    }
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
    fn name(&'static self) -> &'static str {
        DeviceGlobal::name(self)
    }
    #[cfg(feature = "gpu")]
    fn address(&'static self) -> Result<u64, Error> {
        self.gpu_address()
    }
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

/// Checks a partial copy of `count` elements of `E` at `offset` bytes into a symbol of `n`
/// elements; the element index it starts at, or `cudaErrorInvalidValue` (1) naming the
/// symbol's size, as `cudaMemcpyToSymbol` refuses a copy past the symbol's end.
fn element_range<E>(name: &str, offset: usize, count: usize, n: usize) -> Result<usize, Error> {
    let size = std::mem::size_of::<E>().max(1);
    let total = n * size;
    let bytes = count.checked_mul(size);
    let fits = bytes.and_then(|b| offset.checked_add(b)).is_some_and(|end| end <= total);
    if offset % size != 0 || !fits {
        let what = if offset % size != 0 {
            format!("the offset {offset} is not a multiple of the element size {size}")
        } else {
            format!("{} bytes at offset {offset} do not fit", count.saturating_mul(size))
        };
        let e = Error::InvalidValue {
            message: format!(
                "symbol copy of `{name}` ({n} elements of {size} bytes, {total} bytes): {what}; copy at most {total} bytes in all, at an offset that is a multiple of {size}"
            ),
        };
        crate::host::report::last_error::record(&e);
        return Err(e);
    }
    Ok(offset / size)
}

/// Copies `src` into the array static `symbol` starting `offset` **bytes** in
/// (`cudaMemcpyToSymbol(symbol, src, count, offset)`): `copy_to_symbol_at(&TAPS, 4 *
/// size_of::<f32>(), &more)?` writes elements 4 onwards. The rest of the static keeps its
/// value.
///
/// # Errors
///
/// `cudaErrorInvalidValue` (1) when the copy would end past the static's end or `offset` is
/// not a multiple of the element size (nothing is written).
pub fn copy_to_symbol_at<E: DeviceCopy, const N: usize, S: Symbol<Value = [E; N]>>(
    symbol: &'static S,
    offset: usize,
    src: &[E],
) -> Result<(), Error> {
    let first = element_range::<E>(symbol.name(), offset, src.len(), N)?;
    let r = symbol.write_at(first, src);
    if let Err(e) = &r {
        crate::host::report::last_error::record(e);
    }
    r
}

/// Copies `dst.len()` elements of the array static `symbol`, starting `offset` **bytes** in,
/// into `dst` (`cudaMemcpyFromSymbol(dst, symbol, count, offset)`).
///
/// # Errors
///
/// `cudaErrorInvalidValue` (1) when the range ends past the static's end or `offset` is not a
/// multiple of the element size (`dst` is left as it was).
pub fn copy_from_symbol_at<E: DeviceCopy, const N: usize, S: Symbol<Value = [E; N]>>(
    dst: &mut [E],
    symbol: &'static S,
    offset: usize,
) -> Result<(), Error> {
    let first = element_range::<E>(symbol.name(), offset, dst.len(), N)?;
    let r = symbol.read_at(first, dst);
    if let Err(e) = &r {
        crate::host::report::last_error::record(e);
    }
    r
}
