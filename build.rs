//! Build script of deviceemu.
//!
//! * Tells crates that depend on deviceemu where it lives (`DEP_DEVICEEMU_ROOT`), so that their
//!   `deviceemu_build::kernels` can compile kernels against the same deviceemu.
//! * With the `gpu` feature, compiles the kernels of this package's examples and tests to PTX.

use std::path::Path;

fn main() {
    let root = std::env::var("CARGO_MANIFEST_DIR").expect("cargo sets CARGO_MANIFEST_DIR");
    println!("cargo:root={root}");
    println!("cargo:rerun-if-changed=build.rs");
    if std::env::var_os("CARGO_FEATURE_GPU").is_none() {
        return;
    }
    // Only when deviceemu's own workspace is being built (its target directory is inside the
    // checkout), or when asked: a crate that depends on deviceemu builds its own kernels.
    println!("cargo:rerun-if-env-changed=DEVICEEMU_OWN_PTX");
    let out_dir = std::env::var("OUT_DIR").unwrap_or_default();
    let own = Path::new(&out_dir).starts_with(&root) || std::env::var_os("DEVICEEMU_OWN_PTX").is_some();
    if !own {
        return;
    }
    let mut sources = Vec::new();
    for dir in ["examples", "tests"] {
        println!("cargo:rerun-if-changed={dir}");
        let mut files = Vec::new();
        // Example kernels may live in subfolders (`examples/fp_sweep/kernels.rs`). Of `tests`,
        // its top level (the separate test crates) and the integration-test binary's folders,
        // `tests/it/` (not `tests/ui`, which holds trybuild cases that must not compile, nor
        // the ported corpora, `tests/it/ported/corpus` and `tests/it/fp/fp_corpus`, whose
        // kernels have no PTX).
        if dir == "examples" {
            rs_files(&Path::new(&root).join(dir), true, &mut files);
        } else {
            rs_files(&Path::new(&root).join(dir), false, &mut files);
            rs_files(&Path::new(&root).join("tests/it"), true, &mut files);
        }
        files.sort();
        for path in files {
            let has_kernels = path.extension().is_some_and(|e| e == "rs")
                && std::fs::read_to_string(&path).is_ok_and(|t| t.contains("#[kernel"));
            if has_kernels {
                let rel = path.strip_prefix(&root).expect("under the manifest dir").to_string_lossy().into_owned();
                sources.push(rel);
            }
        }
    }
    // `DEVICEEMU_PTX_ONLY=a,b`: only the files whose path contains `a` or `b` (a quicker
    // build while working on a few kernel files; the others then have no PTX).
    println!("cargo:rerun-if-env-changed=DEVICEEMU_PTX_ONLY");
    if let Ok(only) = std::env::var("DEVICEEMU_PTX_ONLY") {
        sources.retain(|s| only.split(',').any(|w| !w.is_empty() && s.contains(w)));
    }
    // PTX of files that no longer exist must not linger.
    if let Ok(out) = std::env::var("OUT_DIR") {
        let dir = Path::new(&out).join("deviceemu-ptx");
        let keep: Vec<String> =
            sources.iter().map(|s| format!("{}.ptx", deviceemu_build::ptx_name(Path::new(s)))).collect();
        for e in std::fs::read_dir(&dir).into_iter().flatten().filter_map(Result::ok) {
            let name = e.file_name().to_string_lossy().into_owned();
            if name.ends_with(".ptx") && !keep.contains(&name) {
                let _ = std::fs::remove_file(e.path());
            }
        }
    }
    // Build each file on its own, so that one file whose kernels cannot target the GPU (e.g. a
    // kernel using `println!`) does not stop the others; its kernels then say they have no PTX.
    for s in &sources {
        if let Err(e) = deviceemu_build::kernels(&[s.as_str()]) {
            let first = e.to_string().lines().take(12).collect::<Vec<_>>().join(" | ");
            println!("cargo:warning=no PTX for {s}: {first}");
        }
    }
}

/// The `.rs` files in `dir`, and in its subfolders when `recurse`.
fn rs_files(dir: &Path, recurse: bool, out: &mut Vec<std::path::PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else { return };
    for e in entries.filter_map(Result::ok) {
        let p = e.path();
        if p.is_dir() {
            let corpus = p.file_name().is_some_and(|n| n == "corpus" || n == "fp_corpus");
            if recurse && !corpus {
                rs_files(&p, true, out);
            }
        } else {
            out.push(p);
        }
    }
}
