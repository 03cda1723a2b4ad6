//! Symbol copies at an offset (`cudaMemcpyToSymbol(sym, src, count, offset)` and
//! `cudaMemcpyFromSymbol(dst, sym, count, offset)`): `copy_to_symbol_at` and
//! `copy_from_symbol_at` on `#[constant]` and `#[device_global]` arrays, with the offset in
//! bytes as in CUDA; kernels see the patched values, the rest keeps its value, and a copy past
//! the end or at a misaligned offset is `cudaErrorInvalidValue` (1) and writes nothing.

use deviceemu::prelude::*;
use deviceemu::{copy_from_symbol_at, copy_to_symbol_at, get_last_error};

#[constant]
static COEFFS: [f32; 8] = [0.0; 8];

#[device_global]
static SLOTS: [u32; 6] = [0; 6];

/// `out[i] = COEFFS[i]` and `SLOTS[i] += 1` for each thread's index.
#[kernel]
pub fn read_symbols(out: &mut [f32], slots_out: &mut [u32]) {
    let i = thread_idx().x as usize;
    let slots = SLOTS.view();
    if i < 8 {
        out[i] = COEFFS[i];
    }
    if i < 6 {
        slots[i] += 1;
        slots_out[i] = slots[i];
    }
}

/// A second array for the error test (tests run in parallel; each static has one user).
#[device_global]
static GUARDED: [u32; 6] = [0; 6];

#[test]
fn partial_copies_patch_the_range_and_keep_the_rest() -> Result<(), deviceemu::Error> {
    let f = std::mem::size_of::<f32>();
    copy_to_symbol(&COEFFS, &[1.0; 8])?;
    copy_to_symbol_at(&COEFFS, 3 * f, &[5.0, 6.0])?;
    copy_to_symbol_at(&COEFFS, 7 * f, &[9.0])?;
    copy_to_symbol_at(&COEFFS, 0, &[])?;
    copy_to_symbol(&SLOTS, &[10, 20, 30, 40, 50, 60])?;
    copy_to_symbol_at(&SLOTS, 4, &[100, 200])?;
    let mut out = DeviceBuffer::<f32>::zeroed(8)?;
    let mut slots_out = DeviceBuffer::<u32>::zeroed(6)?;
    launch!(read_symbols<<<1, 32>>>(&mut out, &mut slots_out))?;
    assert_eq!(out.to_vec()?, [1.0, 1.0, 1.0, 5.0, 6.0, 1.0, 1.0, 9.0]);
    assert_eq!(slots_out.to_vec()?, [11, 101, 201, 41, 51, 61]);
    // Reads at an offset see what the kernel wrote.
    let mut back = [0u32; 3];
    copy_from_symbol_at(&mut back, &SLOTS, 3 * 4)?;
    assert_eq!(back, [41, 51, 61]);
    let mut c = [0.0f32; 2];
    copy_from_symbol_at(&mut c, &COEFFS, 6 * f)?;
    assert_eq!(c, [1.0, 9.0]);
    Ok(())
}

#[test]
fn a_copy_past_the_end_or_misaligned_is_invalid_value_and_writes_nothing() -> Result<(), deviceemu::Error> {
    copy_to_symbol(&GUARDED, &[1, 2, 3, 4, 5, 6])?;
    let _ = get_last_error();
    // Two elements at element 5 end past the sixth.
    let e = copy_to_symbol_at(&GUARDED, 5 * 4, &[7, 8]).unwrap_err();
    assert_eq!(e.code(), 1);
    let text = e.to_string();
    assert!(
        text.contains("symbol copy of `GUARDED` (6 elements of 4 bytes, 24 bytes): 8 bytes at offset 20 do not fit"),
        "{text}"
    );
    assert_eq!(get_last_error().map_err(|e| e.code()), Err(1));
    // An offset inside an element.
    let e = copy_to_symbol_at(&GUARDED, 2, &[7]).unwrap_err();
    assert_eq!(e.code(), 1);
    assert!(e.to_string().contains("the offset 2 is not a multiple of the element size 4"), "{e}");
    // An offset past the end, and an overflowing one.
    assert_eq!(copy_to_symbol_at(&GUARDED, 28, &[]).unwrap_err().code(), 1);
    assert_eq!(copy_to_symbol_at(&GUARDED, usize::MAX - 3, &[1]).unwrap_err().code(), 1);
    let mut dst = [0u32; 7];
    let e = copy_from_symbol_at(&mut dst, &GUARDED, 0).unwrap_err();
    assert_eq!(e.code(), 1);
    assert_eq!(dst, [0; 7], "a refused read leaves the destination");
    let _ = get_last_error();
    let mut all = [0u32; 6];
    copy_from_symbol_at(&mut all, &GUARDED, 0)?;
    assert_eq!(all, [1, 2, 3, 4, 5, 6], "nothing was written");
    // The last element, exactly.
    copy_to_symbol_at(&GUARDED, 20, &[66])?;
    copy_from_symbol_at(&mut all, &GUARDED, 0)?;
    assert_eq!(all, [1, 2, 3, 4, 5, 66]);
    Ok(())
}
