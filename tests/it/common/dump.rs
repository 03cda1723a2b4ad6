//! Reading the H200 oracle dumps (`tests/data/tex_oracle.bin`, `tests/data/tex_int_oracle.bin`):
//! little-endian words at a cursor. Shared by `tex_oracle.rs` and `tex_int_oracle.rs`.

#![allow(dead_code)] // each test crate uses a subset

use deviceemu::texture::AddressMode;

/// A cursor over a dump's bytes.
pub(crate) struct Reader<'a> {
    pub(crate) b: &'a [u8],
    pub(crate) at: usize,
}

impl Reader<'_> {
    pub(crate) fn u32(&mut self) -> u32 {
        let v = u32::from_le_bytes(self.b[self.at..self.at + 4].try_into().unwrap());
        self.at += 4;
        v
    }
    pub(crate) fn f32(&mut self) -> f32 {
        f32::from_bits(self.u32())
    }
    pub(crate) fn f32s(&mut self, n: usize) -> Vec<f32> {
        (0..n).map(|_| self.f32()).collect()
    }
}

/// The probes' addressing-mode code (`cudaAddressModeWrap` = 0 … `cudaAddressModeBorder` = 3).
pub(crate) fn mode(v: u32) -> AddressMode {
    [AddressMode::Wrap, AddressMode::Clamp, AddressMode::Mirror, AddressMode::Border][v as usize]
}
