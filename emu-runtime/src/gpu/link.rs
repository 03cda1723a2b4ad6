//! Linking a PTX module with CUDA's device runtime (`libcudadevrt.a`) when it is loaded.
//!
//! A kernel that launches kernels (`launch!` in a kernel body) compiles to PTX that calls the
//! device runtime's `__cudaCDP2*` functions (`device/devrt.rs`); such a module cannot be
//! loaded as it is (the driver's JIT reports the unresolved externs). [`needs_devrt`] tells
//! the two kinds apart; [`link_with_devrt`] runs the driver's JIT linker as `nvcc -rdc=true`'s
//! link step does: `cuLinkCreate`, `cuLinkAddData` (the PTX), `cuLinkAddFile` (the library,
//! `CU_JIT_INPUT_LIBRARY`), `cuLinkComplete`, and returns the cubin, which the caller loads.
//! Modules without device-runtime calls load as before, without the library.
//!
//! `libcudadevrt.a` is looked for at `$EMU_CUDADEVRT` (the file itself), then under
//! `$CUDA_PATH` and `$CUDA_HOME` (`lib64/`, `lib/`, `targets/x86_64-linux/lib/`), then in
//! `/usr/local/cuda/lib64` and `/usr/local/cuda/targets/x86_64-linux/lib`.

use std::ffi::{c_void, CString};
use std::path::PathBuf;

use cudarc::driver::sys;

use crate::host::report::error::Error;

/// Whether `ptx` calls the device runtime (and must be linked with `libcudadevrt`).
pub(crate) fn needs_devrt(ptx: &str) -> bool {
    ptx.contains(".extern .func") && ptx.contains("__cudaCDP2")
}

/// Where `libcudadevrt.a` is looked for, in order.
fn candidates() -> Vec<PathBuf> {
    let mut c = Vec::new();
    if let Some(p) = std::env::var_os("EMU_CUDADEVRT") {
        c.push(PathBuf::from(p));
    }
    for var in ["CUDA_PATH", "CUDA_HOME"] {
        if let Some(root) = std::env::var_os(var) {
            let root = PathBuf::from(root);
            for sub in ["lib64", "lib", "targets/x86_64-linux/lib"] {
                c.push(root.join(sub).join("libcudadevrt.a"));
            }
        }
    }
    c.push(PathBuf::from("/usr/local/cuda/lib64/libcudadevrt.a"));
    c.push(PathBuf::from("/usr/local/cuda/targets/x86_64-linux/lib/libcudadevrt.a"));
    c
}

/// The first `libcudadevrt.a` of [`candidates`], or an error that lists where it looked.
pub(crate) fn find_devrt() -> Result<PathBuf, Error> {
    find_in(&candidates())
}

fn find_in(c: &[PathBuf]) -> Result<PathBuf, Error> {
    if let Some(p) = c.iter().find(|p| p.is_file()) {
        return Ok(p.clone());
    }
    let looked: Vec<String> = c.iter().map(|p| p.display().to_string()).collect();
    Err(Error::NotSupported {
        message: format!(
            "this module launches kernels from the device (dynamic parallelism) and must be linked with CUDA's device \
             runtime, but libcudadevrt.a was not found; looked at: {}. Set EMU_CUDADEVRT to the file, or CUDA_PATH / \
             CUDA_HOME to the CUDA toolkit",
            looked.join(", ")
        ),
    })
}

fn check(r: sys::CUresult, what: &str, log: &[u8]) -> Result<(), Error> {
    if r == sys::CUresult::CUDA_SUCCESS {
        return Ok(());
    }
    let end = log.iter().position(|&b| b == 0).unwrap_or(log.len());
    let log = String::from_utf8_lossy(&log[..end]);
    let e = super::driver_error(cudarc::driver::DriverError(r), what);
    Err(match e {
        Error::Driver { code, name, message } if !log.trim().is_empty() => {
            Error::Driver { code, name, message: format!("{message}; the JIT linker said: {}", log.trim()) }
        }
        e => e,
    })
}

/// Links `ptx` with `libcudadevrt.a` into a cubin for the current context's device.
pub(crate) fn link_with_devrt(ptx: &str) -> Result<Vec<u8>, Error> {
    let lib = find_devrt()?;
    let lib_c = CString::new(lib.to_string_lossy().into_owned())
        .map_err(|_| Error::InvalidValue { message: format!("the path {} holds a NUL byte", lib.display()) })?;
    let ptx_c =
        CString::new(ptx).map_err(|_| Error::InvalidValue { message: "the PTX module holds a NUL byte".into() })?;
    let mut error_log = vec![0u8; 1 << 14];
    let mut options =
        [sys::CUjit_option::CU_JIT_ERROR_LOG_BUFFER, sys::CUjit_option::CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES];
    let mut values = [error_log.as_mut_ptr() as *mut c_void, error_log.len() as *mut c_void];
    let mut state: sys::CUlinkState = std::ptr::null_mut();
    // SAFETY: two options with their values (a buffer that outlives the link state, and its
    // size), and a place for the state.
    let r = unsafe { sys::cuLinkCreate_v2(2, options.as_mut_ptr(), values.as_mut_ptr(), &mut state) };
    check(r, "creating the JIT linker (cuLinkCreate)", &error_log)?;
    let linked = (|| {
        let name = c"deviceemu-kernels.ptx";
        // SAFETY: `state` is a live link state; the data is the NUL-terminated PTX, its size
        // counting the NUL; no options.
        let r = unsafe {
            sys::cuLinkAddData_v2(
                state,
                sys::CUjitInputType::CU_JIT_INPUT_PTX,
                ptx_c.as_ptr() as *mut c_void,
                ptx_c.as_bytes_with_nul().len(),
                name.as_ptr(),
                0,
                std::ptr::null_mut(),
                std::ptr::null_mut(),
            )
        };
        check(r, "adding the kernels' PTX to the JIT linker (cuLinkAddData)", &error_log)?;
        // SAFETY: `state` is live; the path is NUL-terminated; no options.
        let r = unsafe {
            sys::cuLinkAddFile_v2(
                state,
                sys::CUjitInputType::CU_JIT_INPUT_LIBRARY,
                lib_c.as_ptr(),
                0,
                std::ptr::null_mut(),
                std::ptr::null_mut(),
            )
        };
        check(r, &format!("adding {} to the JIT linker (cuLinkAddFile)", lib.display()), &error_log)?;
        let mut cubin: *mut c_void = std::ptr::null_mut();
        let mut size = 0usize;
        // SAFETY: `state` is live; the outputs are valid places.
        let r = unsafe { sys::cuLinkComplete(state, &mut cubin, &mut size) };
        check(r, "linking the kernels with the device runtime (cuLinkComplete)", &error_log)?;
        // SAFETY: the linker's image is `size` bytes at `cubin`, valid until `cuLinkDestroy`;
        // it is copied out before.
        Ok(unsafe { std::slice::from_raw_parts(cubin as *const u8, size) }.to_vec())
    })();
    // SAFETY: `state` was created above and is not used afterwards.
    unsafe {
        let _ = sys::cuLinkDestroy(state);
    }
    linked
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_modules_that_call_the_device_runtime_are_linked() {
        let plain = ".version 7.8\n.target sm_90\n.visible .entry k()\n{\n\tret;\n}\n";
        assert!(!needs_devrt(plain));
        let cdp = ".extern .func  (.param .b32 func_retval0) __cudaCDP2LaunchDeviceV2\n(\n\t.param .b64 a,\n\t.param .b64 b\n)\n;\n";
        assert!(needs_devrt(cdp));
    }

    #[test]
    fn a_missing_library_is_an_error_that_says_where_it_looked() {
        let c = [PathBuf::from("/nonexistent/a/libcudadevrt.a"), PathBuf::from("/nonexistent/b/libcudadevrt.a")];
        let e = find_in(&c).unwrap_err();
        assert_eq!(e.code(), 801);
        let m = e.to_string();
        assert!(
            m.contains("/nonexistent/a/libcudadevrt.a, /nonexistent/b/libcudadevrt.a") && m.contains("EMU_CUDADEVRT"),
            "{m}"
        );
        let here = std::env::current_exe().unwrap();
        assert_eq!(find_in(&[c[0].clone(), here.clone()]).unwrap(), here);
    }
}
