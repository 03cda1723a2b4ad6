//! Printing from kernels: `kprintln!` and `kprint!` (and `println!`/`print!` inside `#[kernel]`
//! and `#[device]` functions, which the attributes rewrite to them).
//!
//! On the host they are `println!`/`print!`. On the GPU the text is formatted with `core::fmt`
//! into a 256-byte buffer per call (longer text is cut) and printed with CUDA's `vprintf`, so
//! `{}`, `{:?}` and `{:.3}` work the same on both sides.

use core::fmt;

/// Prints to the standard output, with a newline, from a kernel (CUDA's `printf`).
#[macro_export]
macro_rules! kprintln {
    () => { $crate::__private::kprint_args(::core::format_args!(""), true) };
    ($($arg:tt)*) => { $crate::__private::kprint_args(::core::format_args!($($arg)*), true) };
}

/// Prints to the standard output from a kernel (CUDA's `printf`).
#[macro_export]
macro_rules! kprint {
    ($($arg:tt)*) => { $crate::__private::kprint_args(::core::format_args!($($arg)*), false) };
}

/// Prints `args` (and a newline when `newline`).
#[doc(hidden)]
pub fn kprint_args(args: fmt::Arguments<'_>, newline: bool) {
    #[cfg(not(target_arch = "nvptx64"))]
    {
        if newline {
            std::println!("{args}");
        } else {
            std::print!("{args}");
        }
    }
    #[cfg(target_arch = "nvptx64")]
    {
        use core::fmt::Write as _;
        let mut buf = Buffer { bytes: [0; 256], len: 0 };
        let _ = buf.write_fmt(args);
        if newline {
            buf.push(b'\n');
        }
        let end = buf.len.min(buf.bytes.len() - 1);
        buf.bytes[end] = 0;
        #[repr(C)]
        struct Args {
            text: *const u8,
        }
        let a = Args { text: buf.bytes.as_ptr() };
        // SAFETY: `%s` with one pointer to a NUL-terminated string, passed as vprintf's
        // argument block.
        unsafe { core::arch::nvptx::vprintf(b"%s\0".as_ptr(), &a as *const Args as *const core::ffi::c_void) };
    }
}

#[cfg(target_arch = "nvptx64")]
struct Buffer {
    bytes: [u8; 256],
    len: usize,
}

#[cfg(target_arch = "nvptx64")]
impl Buffer {
    fn push(&mut self, b: u8) {
        if self.len < self.bytes.len() - 1 {
            self.bytes[self.len] = b;
            self.len += 1;
        }
    }
}

#[cfg(target_arch = "nvptx64")]
impl fmt::Write for Buffer {
    fn write_str(&mut self, s: &str) -> fmt::Result {
        for &b in s.as_bytes() {
            self.push(b);
        }
        Ok(())
    }
}
