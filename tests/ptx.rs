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
        .args(["-c", "import nvidia.cuda_nvcc, os; print(os.path.join(list(nvidia.cuda_nvcc.__path__)[0], 'bin', 'ptxas'))"])
        .output()
        .ok()?;
    let p = PathBuf::from(String::from_utf8_lossy(&out.stdout).trim());
    p.exists().then_some(p)
}

#[test]
fn every_ptx_module_passes_ptxas() {
    let Some(dir) = option_env!("DEVICEEMU_PTX_DIR").map(PathBuf::from) else {
        skipped("the build script built no PTX (target directory outside the checkout? set DEVICEEMU_OWN_PTX=1)");
        return;
    };
    let Some(ptxas) = ptxas() else {
        skipped("ptxas not found (pip install nvidia-cuda-nvcc-cu12, or set PTXAS)");
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
    for expected in ["examples_saxpy_rs", "examples_reduction_rs", "examples_matmul_rs", "examples_histogram_rs", "examples_gpu_vs_emu_rs", "tests_results_rs", "tests_errors_rs", "tests_atomics_rs", "tests_atomics_ordered_rs"] {
        assert!(names.iter().any(|n| n == expected), "no PTX for {expected}: the build script failed on it (see its warnings); have {names:?}");
    }
    let mut kernels = 0;
    for f in &files {
        let text = std::fs::read_to_string(f).unwrap();
        kernels += text.matches(".entry").count();
        let out = Command::new(&ptxas).args(["-arch=sm_90", "-o", "/dev/null"]).arg(f).output().expect("ptxas runs");
        let err = String::from_utf8_lossy(&out.stderr);
        if f.ends_with("tests_errors_rs.ptx") {
            // tests/errors.rs has a kernel that asks for 64 KiB of static shared memory on
            // purpose; ptxas must reject exactly that, as nvcc would.
            assert!(err.contains("Entry function 'too_much_shared' uses too much shared data"), "{}: {err}", f.display());
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
        skipped("the build script built no PTX (target directory outside the checkout? set DEVICEEMU_OWN_PTX=1)");
        return;
    };
    let text = std::fs::read_to_string(dir.join("examples_reduction_rs.ptx")).expect("the build script wrote the reduction's PTX");
    let start = text.find(".entry block_sum(").expect("block_sum is in the module");
    let end = start + text[start..].find("\n}\n").expect("the entry ends");
    let body = &text[start..end];
    assert!(body.contains(".maxntid 256, 1, 1"), "{body}");
    assert_eq!(body.matches("trap;").count(), 1, "a bounds check is back in block_sum:\n{body}");
}

/// The ordered and volatile loads and stores of `tests/atomics_ordered.rs`'s `ptx_forms` are
/// their PTX instructions (global views through generic addresses, shared views in `.shared`),
/// SeqCst as `fence.sc` then the acquire load or relaxed store (as libcu++ emits them), and the
/// spin's acquire load stays inside its loop.
#[test]
fn ordered_and_volatile_accesses_are_their_ptx_instructions() {
    let Some(dir) = option_env!("DEVICEEMU_PTX_DIR").map(PathBuf::from) else {
        skipped("the build script built no PTX (target directory outside the checkout? set DEVICEEMU_OWN_PTX=1)");
        return;
    };
    let text = std::fs::read_to_string(dir.join("tests_atomics_ordered_rs.ptx")).expect("the build script wrote the PTX of tests/atomics_ordered.rs");
    let start = text.find(".entry ptx_forms(").expect("ptx_forms is in the module");
    let end = start + text[start..].find("\n}\n").expect("the entry ends");
    let body = &text[start..end];
    for ins in [
        "st.relaxed.gpu.b32", "st.release.gpu.b32", "st.release.cta.b32", "st.relaxed.sys.b32", "st.volatile.b32",
        "st.release.gpu.shared.b64", "st.relaxed.cta.shared.b64", "st.volatile.shared.b64", "ld.relaxed.gpu.b32",
        "ld.acquire.gpu.b32", "ld.acquire.cta.b32", "ld.relaxed.sys.b32", "ld.volatile.b32", "ld.acquire.gpu.shared.b64",
        "ld.relaxed.cta.shared.b64", "ld.volatile.shared.b64", "fence.sc.gpu;", "fence.sc.cta;",
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
    assert!(body[spin..].contains(&format!("{name};")), "the spin's load is not inside its loop (no branch back to {name}):\n{body}");
}

/// Says that a test did not run, on the real stderr (libtest captures `println!`).
fn skipped(why: &str) {
    use std::io::Write as _;
    let _ = writeln!(std::io::stderr(), "SKIPPED: {why}");
}
