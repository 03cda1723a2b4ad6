//! CUDA's vector types (`uint4`, `uint2`, `float4`, `uchar4`): `#[repr(C)]` structs with the
//! fields `x`, `y`, `z`, `w`, as the ports use them (`key.x`, `val_4.w`).
use deviceemu::{AnyBitPattern, DeviceCopy};

macro_rules! vector {
    ($(#[$doc:meta])* $name:ident, $t:ty, $($f:ident),+) => {
        $(#[$doc])*
        #[derive(Clone, Copy, Default, Debug, PartialEq)]
        #[repr(C)]
        pub struct $name {
            $(
                #[allow(missing_docs)]
                pub $f: $t,
            )+
        }
        // SAFETY: fields of one primitive type: no padding, and all-zero is a valid value.
        unsafe impl DeviceCopy for $name {}
        // SAFETY: every bit pattern of each field is a valid value of its primitive type.
        unsafe impl AnyBitPattern for $name {}
    };
}

vector!(
    /// CUDA's `uint4`.
    Uint4, u32, x, y, z, w
);
vector!(
    /// CUDA's `uint2`.
    Uint2, u32, x, y
);
vector!(
    /// CUDA's `float4`.
    Float4, f32, x, y, z, w
);
vector!(
    /// CUDA's `uchar4`.
    Uchar4, u8, x, y, z, w
);
