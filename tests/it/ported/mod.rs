//! The corpus of ported kernels (`tests/it/ported/corpus/`): each kernel runs on its default path and on
//! the general path (`EMU_PATH=general`) and must agree with its serial reference (bit for bit:
//! each reference keeps its kernel's order of floating-point operations). Each test prints the
//! path the default launch took (`deviceemu::__private::last_path()`); `cargo test --test it
//! -- ported:: --nocapture` shows them, and `benches/corpus.rs` times the kernels.

#[path = "corpus/mod.rs"]
mod corpus;

use deviceemu::{with_config, Config, ExecPath};

/// Runs the corpus entry `name` on the default path and on the general path and compares each
/// with its serial reference; prints the default path.
fn run(name: &str) {
    let entry = corpus::all().into_iter().find(|e| e.name == name).unwrap_or_else(|| panic!("no corpus entry {name}"));
    let mut case = (entry.make)(corpus::Size::Test);
    case.serial();
    case.launch();
    let path = deviceemu::__private::last_path();
    assert!(["regions", "lanes", "general"].contains(&path), "{name}: unexpected path {path}");
    case.check().unwrap_or_else(|e| panic!("{name} on the default path ({path}): {e}"));
    let base = Config::from_env().unwrap();
    with_config(base.path(ExecPath::General), || case.launch());
    case.check().unwrap_or_else(|e| panic!("{name} on the general path: {e}"));
    eprintln!("corpus: {name} ({}, {}): default path {path}", entry.suite, entry.original);
}

macro_rules! corpus_tests {
    ($($name:ident)*) => {
        $(
            #[test]
            fn $name() {
                run(stringify!($name));
            }
        )*

        /// Every corpus entry has a test here.
        #[test]
        fn every_entry_is_tested() {
            let tested = [$(stringify!($name)),*];
            for e in corpus::all() {
                assert!(tested.contains(&e.name), "{} has no test in tests/it/ported/mod.rs", e.name);
            }
        }
    };
}

corpus_tests! {
    shoc_reduce shoc_scan_reduce shoc_scan_bottom shoc_stencil2d shoc_sort_blocks shoc_sort_offsets
    shoc_sort_reorder shoc_sort_scan shoc_sort_add_uniform shoc_triad
    parboil_sgemm parboil_stencil parboil_histo_prescan parboil_histo_main parboil_mri_q
    samples_reduce0 samples_reduce1 samples_reduce2 samples_reduce3 samples_reduce4 samples_reduce6
    samples_transpose_coalesced samples_transpose_nbc samples_matrix_mul samples_conv_rows samples_conv_cols
    samples_histogram256 samples_merge_histogram256 samples_bitonic_sort samples_scan_exclusive samples_uniform_update
    cub_block_reduce cub_block_scan
    polybench_gemm polybench_conv2d polybench_jacobi2d
}
