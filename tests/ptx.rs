//! With the `gpu` feature, every kernel of the examples and tests is compiled to PTX by the
//! build script; this test validates each PTX module with `ptxas -arch=sm_90` (from the PyPI
//! wheel `nvidia-cuda-nvcc-cu12`, or `$PTXAS`). It says when it is skipped.
#![cfg(feature = "gpu")]

use std::path::PathBuf;
use std::process::Command;

fn ptxas() -> Option<PathBuf> {
    if let Ok(p) = std::env::var("PTXAS") {
        return Some(PathBuf::from(p));
    }
    let out = Command::new("python3")
        .args([
            "-c",
            "import nvidia.cuda_nvcc, os; print(os.path.join(list(nvidia.cuda_nvcc.__path__)[0], 'bin', 'ptxas'))",
        ])
        .output()
        .ok()?;
    let p = PathBuf::from(String::from_utf8_lossy(&out.stdout).trim());
    p.exists().then_some(p)
}

#[test]
fn every_ptx_module_passes_ptxas() {
    let Some(dir) = option_env!("DEVICEEMU_PTX_DIR").map(PathBuf::from) else {
        skipped(
            "ptxas",
            "the build script built no PTX (target directory outside the checkout? set DEVICEEMU_OWN_PTX=1)",
        );
        return;
    };
    let Some(ptxas) = ptxas() else {
        skipped("ptxas", "ptxas not found (pip install nvidia-cuda-nvcc-cu12, or set PTXAS)");
        return;
    };
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .expect("the build script wrote PTX")
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "ptx"))
        .collect();
    files.sort();
    let names: Vec<String> = files.iter().map(|f| f.file_stem().unwrap().to_string_lossy().into_owned()).collect();
    for expected in [
        "examples_saxpy_rs",
        "examples_blur_rs",
        "examples_reduction_rs",
        "examples_matmul_rs",
        "examples_histogram_rs",
        "examples_gpu_vs_emu_rs",
        "tests_it_api_results_rs",
        "tests_it_api_errors_rs",
        "tests_it_memory_atomics_rs",
        "tests_it_memory_atomics_ordered_rs",
        "examples_memory_api_kernels_rs",
        "tests_it_memory_memory_api_rs",
        "tests_it_fission_port_shared_rs",
    ] {
        assert!(
            names.iter().any(|n| n == expected),
            "no PTX for {expected}: the build script failed on it (see its warnings); have {names:?}"
        );
    }
    let mut kernels = 0;
    for f in &files {
        let text = std::fs::read_to_string(f).unwrap();
        kernels += text.matches(".entry").count();
        // A module that calls the device runtime (`launch!` in a kernel) has unresolved
        // `__cudaCDP2*` externs until it is linked with libcudadevrt (gpu/link.rs): ptxas
        // checks it compile-only (`-c`, relocatable), as `nvcc -rdc=true` compiles it.
        let devrt = text.contains(".extern .func") && text.contains("__cudaCDP2");
        let mut cmd = Command::new(&ptxas);
        cmd.args(["-arch=sm_90", "-o", "/dev/null"]);
        if devrt {
            cmd.arg("-c");
        }
        let out = cmd.arg(f).output().expect("ptxas runs");
        let err = String::from_utf8_lossy(&out.stderr);
        if f.ends_with("tests_it_api_errors_rs.ptx") {
            // tests/it/api/errors.rs has a kernel that asks for 64 KiB of static shared memory on
            // purpose; ptxas must reject exactly that, as nvcc would.
            assert!(
                err.contains("Entry function 'too_much_shared' uses too much shared data"),
                "{}: {err}",
                f.display()
            );
            assert_eq!(err.lines().filter(|l| l.contains("error")).count(), 1, "{}: {err}", f.display());
        } else {
            assert!(out.status.success(), "ptxas rejected {}:\n{err}", f.display());
        }
    }
    println!("ptxas accepted {} PTX modules with {kernels} kernels", files.len());
    assert!(kernels >= 40, "expected the examples' and tests' kernels, found {kernels}");
}

/// `examples/reduction.rs`'s `block_sum` is declared `launch_bounds(256)`, so LLVM knows
/// `tid < block_dim().x <= 256` and, in the tree, `tid < s <= 128`: its shared-tile indices
/// need no check, and the only `trap` left is the one for `partial[block_idx().x]` (nvcc's
/// loop, which has no checks, is what the GPU benchmark compares it with).
#[test]
fn launch_bounds_remove_the_checks_of_the_reduction_tree() {
    let Some(dir) = option_env!("DEVICEEMU_PTX_DIR").map(PathBuf::from) else {
        skipped(
            "ptxas",
            "the build script built no PTX (target directory outside the checkout? set DEVICEEMU_OWN_PTX=1)",
        );
        return;
    };
    let text = std::fs::read_to_string(dir.join("examples_reduction_rs.ptx"))
        .expect("the build script wrote the reduction's PTX");
    let start = text.find(".entry block_sum(").expect("block_sum is in the module");
    let end = start + text[start..].find("\n}\n").expect("the entry ends");
    let body = &text[start..end];
    assert!(body.contains(".maxntid 256, 1, 1"), "{body}");
    assert_eq!(body.matches("trap;").count(), 1, "a bounds check is back in block_sum:\n{body}");
}

/// The ordered and volatile loads and stores of `tests/it/memory/atomics_ordered.rs`'s `ptx_forms` are
/// their PTX instructions (global views through generic addresses, shared views in `.shared`),
/// SeqCst as `fence.sc` then the acquire load or relaxed store (as libcu++ emits them), and the
/// spin's acquire load stays inside its loop.
#[test]
fn ordered_and_volatile_accesses_are_their_ptx_instructions() {
    let Some(dir) = option_env!("DEVICEEMU_PTX_DIR").map(PathBuf::from) else {
        skipped(
            "ptxas",
            "the build script built no PTX (target directory outside the checkout? set DEVICEEMU_OWN_PTX=1)",
        );
        return;
    };
    let text = std::fs::read_to_string(dir.join("tests_it_memory_atomics_ordered_rs.ptx"))
        .expect("the build script wrote the PTX of tests/it/memory/atomics_ordered.rs");
    let start = text.find(".entry ptx_forms(").expect("ptx_forms is in the module");
    let end = start + text[start..].find("\n}\n").expect("the entry ends");
    let body = &text[start..end];
    for ins in [
        "st.relaxed.gpu.b32",
        "st.release.gpu.b32",
        "st.release.cta.b32",
        "st.relaxed.sys.b32",
        "st.volatile.b32",
        "st.release.gpu.shared.b64",
        "st.relaxed.cta.shared.b64",
        "st.volatile.shared.b64",
        "ld.relaxed.gpu.b32",
        "ld.acquire.gpu.b32",
        "ld.acquire.cta.b32",
        "ld.relaxed.sys.b32",
        "ld.volatile.b32",
        "ld.acquire.gpu.shared.b64",
        "ld.relaxed.cta.shared.b64",
        "ld.volatile.shared.b64",
        "fence.sc.gpu;",
        "fence.sc.cta;",
    ] {
        assert!(body.contains(ins), "no {ins} in ptx_forms:\n{body}");
    }
    // SeqCst: the fence comes right before the access (store of 3 to g[2], load of g[2]).
    let fences = body.matches("fence.sc.gpu;").count();
    assert_eq!(fences, 2, "one fence.sc.gpu per SeqCst access at device scope:\n{body}");
    // The spin: a loop label, then the acquire load of g[6], then a branch back to the label.
    let spin = body.rfind("ld.acquire.gpu.b32").unwrap();
    let label = body[..spin].rfind("$L__BB").expect("a loop label before the spin's load");
    let name = body[label..].split(':').next().unwrap();
    assert!(
        body[spin..].contains(&format!("{name};")),
        "the spin's load is not inside its loop (no branch back to {name}):\n{body}"
    );
}

/// `#[constant]` statics live in `.const` (read through `cvta.const`, with their initial value
/// in an exported `.global` the module loader copies in) and `#[device_global]` statics in
/// `.global`, under the names the host looks up (`cuModuleGetGlobal`).
#[test]
fn constants_are_const_variables_and_device_globals_global_ones() {
    let Some(dir) = option_env!("DEVICEEMU_PTX_DIR").map(PathBuf::from) else {
        skipped(
            "ptxas",
            "the build script built no PTX (target directory outside the checkout? set DEVICEEMU_OWN_PTX=1)",
        );
        return;
    };
    let text = std::fs::read_to_string(dir.join("examples_memory_api_kernels_rs.ptx"))
        .expect("the build script wrote the PTX of examples/memory_api/kernels.rs");
    for decl in [
        ".visible .const .align 4 .b8 __emu_const_TAPS[20];",
        ".visible .const .align 4 .b8 __emu_const_AFFINE[8];",
        ".visible .global .align 4 .b8 __emu_cinit_TAPS[20]",
        ".visible .global .align 4 .b8 __emu_global_HITS[16];",
        ".visible .global .align 8 .b8 __emu_global_TOTAL[8] = {7};",
    ] {
        assert!(text.contains(decl), "no `{decl}` in the module:\n{text}");
    }
    let start = text.find(".entry filter5(").expect("filter5 is in the module");
    let body = &text[start..start + text[start..].find("\n}\n").expect("the entry ends")];
    assert!(
        body.contains("mov.u64 %rd") && body.contains("__emu_const_TAPS;") && body.contains("cvta.const.u64"),
        "{body}"
    );
}

/// A user crate nobody on the team wrote (tests/user_crate: a kernel file with several
/// kernels, a plain helper and a `#[device]` one, `half` and `libm`, `use super::*` for the
/// prelude and the parent's constant, and one kernel that uses `std`): its PTX is built with
/// the host-only kernel left out, named in a warning, and every other kernel in the module.
#[test]
fn a_user_crate_with_a_host_only_kernel_still_gets_ptx_for_the_others() {
    let Some(ptx_dir) = option_env!("DEVICEEMU_PTX_DIR").map(PathBuf::from) else {
        skipped(
            "ptxas",
            "the build script built no PTX (target directory outside the checkout? set DEVICEEMU_OWN_PTX=1)",
        );
        return;
    };
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let fixture = root.join("tests/user_crate");
    let out = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("user-crate-ptx");
    std::fs::create_dir_all(&out).unwrap();
    // Share the build script's nvptx target directory: `core` for nvptx is built once.
    let shared = out.join("target");
    if !shared.exists() {
        std::os::unix::fs::symlink(ptx_dir.join("target"), &shared).unwrap();
    }
    let skipped_kernels = deviceemu_build::build_with(&fixture, &root, &out, &[PathBuf::from("src/kernels.rs")], false)
        .unwrap_or_else(|e| panic!("{e}"));
    let names: Vec<&str> = skipped_kernels.iter().map(|s| s.name.as_str()).collect();
    assert_eq!(names, ["host_thread_ids"], "{skipped_kernels:?}");
    let warning = skipped_kernels[0].to_string();
    assert!(warning.contains("`host_thread_ids` in src/kernels.rs cannot be compiled for the GPU"), "{warning}");
    let ptx_file = out.join("src_kernels_rs.ptx");
    let text = std::fs::read_to_string(&ptx_file).unwrap();
    for k in ["box3", "to_half_and_back", "fma_axpy", "tiled_copy"] {
        assert!(text.contains(&format!(".entry {k}(")), "no {k} in the fixture's PTX");
    }
    assert!(!text.contains(".entry host_thread_ids("));
    match ptxas() {
        Some(ptxas) => {
            let out = Command::new(&ptxas)
                .args(["-arch=sm_90", "-o", "/dev/null"])
                .arg(&ptx_file)
                .output()
                .expect("ptxas runs");
            assert!(
                out.status.success(),
                "ptxas rejected the fixture's PTX:\n{}",
                String::from_utf8_lossy(&out.stderr)
            );
        }
        None => skipped("ptxas", "ptxas not found, so the fixture's PTX was built but not checked"),
    }
}

/// The fixture's ported module (issue 30, items 12-14): `use crate::*` is followed to the
/// crate root (its prelude import and `TILE`), `impl P { fn bump }` goes along with `P`, and
/// the kernel that calls `f64::exp` is the only one left out; its PTX carries the build
/// warning for the launch to report (801, not the driver's 500).
#[test]
fn a_ported_module_with_use_crate_and_methods_gets_ptx() {
    let Some(ptx_dir) = option_env!("DEVICEEMU_PTX_DIR").map(PathBuf::from) else {
        skipped(
            "ptxas",
            "the build script built no PTX (target directory outside the checkout? set DEVICEEMU_OWN_PTX=1)",
        );
        return;
    };
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let fixture = root.join("tests/user_crate");
    let out = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("user-crate-ported-ptx");
    std::fs::create_dir_all(&out).unwrap();
    if !out.join("target").exists() {
        std::os::unix::fs::symlink(ptx_dir.join("target"), out.join("target")).unwrap();
    }
    let left_out = deviceemu_build::build_with(&fixture, &root, &out, &[PathBuf::from("src/ported.rs")], false)
        .unwrap_or_else(|e| panic!("{e}"));
    let names: Vec<&str> = left_out.iter().map(|s| s.name.as_str()).collect();
    assert_eq!(names, ["std_exp"], "{left_out:?}");
    let ptx_file = out.join("src_ported_rs.ptx");
    let text = std::fs::read_to_string(&ptx_file).unwrap();
    assert!(text.contains(".entry step(") && text.contains(".entry tile_index("), "{text}");
    let marker = format!("{}std_exp {}", deviceemu_build::LEFT_OUT, left_out[0]);
    assert!(text.contains(&marker), "the PTX carries the warning: {marker}");
    if let Some(ptxas) = ptxas() {
        let out =
            Command::new(&ptxas).args(["-arch=sm_90", "-o", "/dev/null"]).arg(&ptx_file).output().expect("ptxas runs");
        assert!(out.status.success(), "ptxas rejected the PTX:\n{}", String::from_utf8_lossy(&out.stderr));
    }
    // A file whose every kernel is left out still gets a module (no entries), which ptxas
    // accepts, so that each launch can say why.
    let tmp = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("all-left-out");
    std::fs::create_dir_all(tmp.join("src")).unwrap();
    std::fs::write(tmp.join("Cargo.toml"), "[package]\nname = \"all-left-out\"\nversion = \"0.0.0\"\n").unwrap();
    std::fs::write(
        tmp.join("src/k.rs"),
        "use deviceemu::prelude::*;\n#[kernel] pub fn e(x: &mut [f64]) { x[0] = x[0].exp(); }\n",
    )
    .unwrap();
    let out = tmp.join("out");
    std::fs::create_dir_all(&out).unwrap();
    if !out.join("target").exists() {
        std::os::unix::fs::symlink(ptx_dir.join("target"), out.join("target")).unwrap();
    }
    let left_out = deviceemu_build::build_with(&tmp, &root, &out, &[PathBuf::from("src/k.rs")], false)
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(left_out.len(), 1, "{left_out:?}");
    let ptx_file = out.join("src_k_rs.ptx");
    let text = std::fs::read_to_string(&ptx_file).unwrap();
    assert!(text.contains(&format!("{}e ", deviceemu_build::LEFT_OUT)) && !text.contains(".entry"), "{text}");
    if let Some(ptxas) = ptxas() {
        let out =
            Command::new(&ptxas).args(["-arch=sm_90", "-o", "/dev/null"]).arg(&ptx_file).output().expect("ptxas runs");
        assert!(out.status.success(), "ptxas rejected the empty module:\n{}", String::from_utf8_lossy(&out.stderr));
    }
}

/// A kernel that calls a plain function which cannot compile for the GPU is left out with a
/// message saying `#[device]` is needed, and the file's other kernel is built.
#[test]
fn a_helper_that_cannot_compile_for_the_gpu_names_the_kernels_it_takes_along() {
    let Some(ptx_dir) = option_env!("DEVICEEMU_PTX_DIR").map(PathBuf::from) else {
        skipped(
            "ptxas",
            "the build script built no PTX (target directory outside the checkout? set DEVICEEMU_OWN_PTX=1)",
        );
        return;
    };
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    let tmp = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("helper-crate");
    std::fs::create_dir_all(tmp.join("src")).unwrap();
    std::fs::write(tmp.join("Cargo.toml"), "[package]\nname = \"helper-crate\"\nversion = \"0.0.0\"\n").unwrap();
    std::fs::write(
        tmp.join("src/k.rs"),
        "use deviceemu::prelude::*;\n\
         fn now_ns() -> u32 { std::time::SystemTime::now().elapsed().map(|d| d.subsec_nanos()).unwrap_or(0) }\n\
         #[kernel] pub fn stamp(out: &mut [u32]) { out[0] = now_ns(); }\n\
         #[kernel] pub fn ones(out: &mut [u32]) { out[thread_idx().x as usize] = 1; }\n",
    )
    .unwrap();
    let out = tmp.join("out");
    std::fs::create_dir_all(&out).unwrap();
    if !out.join("target").exists() {
        std::os::unix::fs::symlink(ptx_dir.join("target"), out.join("target")).unwrap();
    }
    let skipped_items = deviceemu_build::build_with(&tmp, &root, &out, &[PathBuf::from("src/k.rs")], false)
        .unwrap_or_else(|e| panic!("{e}"));
    let stamp = skipped_items.iter().find(|s| s.name == "stamp").unwrap_or_else(|| panic!("{skipped_items:?}"));
    assert!(stamp.reason.contains("mark it #[device]"), "{stamp}");
    let text = std::fs::read_to_string(out.join("src_k_rs.ptx")).unwrap();
    assert!(text.contains(".entry ones(") && !text.contains(".entry stamp("));
}

/// Says that a test did not run, on the real stderr (libtest captures `println!`), or fails it
/// when `DEVICEEMU_REQUIRE` (a comma list such as `gdb,lldb,ptxas`, set by `.ci/run`) names
/// `what`: there a skip must not pass.
fn skipped(what: &str, why: &str) {
    use std::io::Write as _;
    let required = std::env::var("DEVICEEMU_REQUIRE").unwrap_or_default();
    if required.split(',').any(|r| r.trim() == what) {
        panic!("DEVICEEMU_REQUIRE={required} names {what}, but {why}");
    }
    let _ = writeln!(std::io::stderr(), "SKIPPED: {why}");
}
