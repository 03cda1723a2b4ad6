// The README's build.rs, unchanged.
fn main() {
    deviceemu_build::kernels(&["src/kernels.rs"]).unwrap_or_else(|e| panic!("{e}"));
}
