// The README's build.rs, with the fixture's second kernel file.
fn main() {
    deviceemu_build::kernels(&["src/kernels.rs", "src/ported.rs"]).unwrap_or_else(|e| panic!("{e}"));
}
