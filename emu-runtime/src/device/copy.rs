//! [`DeviceCopy`]: the types that can live in device memory.

/// A plain-data type that can be stored in global or shared memory and passed to kernels.
///
/// Implemented for the integer and float primitives, `bool`, and arrays of `DeviceCopy` types.
/// For your own `#[repr(C)]` structs of such fields, `#[derive(DeviceCopy)]` implements it after
/// checking at compile time that the struct has no padding (write a CUDA struct's padding as a
/// field, `_pad: [u8; 3]`); or implement it by hand (`unsafe impl`) after checking the rules below.
///
/// # Safety
///
/// Implementors must be `#[repr(C)]` (or primitives/arrays) and:
/// * have **no padding bytes** (the emulator copies values as whole machine words);
/// * accept the **all-zero bit pattern** as a valid value (`DeviceBuffer::zeroed` relies on it);
/// * contain no references or pointers into host memory (the value may be copied to a GPU).
pub unsafe trait DeviceCopy: Copy + Send + Sync + 'static {
    /// The lengths of the arrays nested in `Self`, outermost first, 0 past the last (for
    /// reports: `t[2][1]`). Not meant to be set by hand: arrays set it, other types keep the
    /// default.
    #[doc(hidden)]
    const __EMU_DIMS: [usize; 3] = [0; 3];
}

macro_rules! impl_device_copy {
    ($($t:ty),*) => { $(
        // SAFETY: primitives have no padding, and zero is a valid value of each.
        unsafe impl DeviceCopy for $t {}
    )* };
}
impl_device_copy!(u8, u16, u32, u64, u128, usize, i8, i16, i32, i64, i128, isize, f32, f64, bool, ());

// SAFETY: an array of padding-free, zero-valid elements is padding-free and zero-valid.
unsafe impl<T: DeviceCopy, const N: usize> DeviceCopy for [T; N] {
    const __EMU_DIMS: [usize; 3] = [N, T::__EMU_DIMS[0], T::__EMU_DIMS[1]];
}

/// The all-zero value of `T`: what a faulting load gives on the host (memcheck).
#[inline]
pub(crate) fn zero<T: DeviceCopy>() -> T {
    // SAFETY: every `DeviceCopy` type accepts the all-zero bit pattern (the trait's contract).
    unsafe { core::mem::zeroed() }
}

/// A [`DeviceCopy`] type for which every bit pattern is a valid value: what
/// [`View::cast`](crate::device::View::cast) may reinterpret memory as (and from).
///
/// Implemented for the integer and float primitives and arrays of them (not `bool`, whose
/// only valid bytes are 0 and 1).
///
/// # Safety
///
/// Every bit pattern of `size_of::<Self>()` bytes must be a valid `Self` (besides the
/// [`DeviceCopy`] requirements).
pub unsafe trait AnyBitPattern: DeviceCopy {}

macro_rules! impl_any_bits {
    ($($t:ty),*) => { $(
        // SAFETY: every bit pattern is a valid integer or float.
        unsafe impl AnyBitPattern for $t {}
    )* };
}
impl_any_bits!(u8, u16, u32, u64, u128, usize, i8, i16, i32, i64, i128, isize, f32, f64);

// SAFETY: an array of elements valid for any bits is valid for any bits.
unsafe impl<T: AnyBitPattern, const N: usize> AnyBitPattern for [T; N] {}
