//! Build-script helper of deviceemu: compiles a crate's kernels to PTX for the `gpu` feature.
//!
//! In the crate that defines kernels, add a `gpu` feature that enables `deviceemu/gpu`, add
//! `emu-build` as a build-dependency, and a `build.rs`:
//!
//! ```no_run
//! // build.rs
//! emu_build::kernels(&["src/kernels.rs"]).unwrap_or_else(|e| panic!("{e}"));
//! ```
//!
//! With the `gpu` feature on, this compiles the `#[kernel]` and `#[device]` functions of each
//! listed file to PTX with rustc's `nvptx64-nvidia-cuda` target, and `#[kernel]` embeds that
//! PTX in the host binary; without it, it does nothing. From each file it keeps the `use`
//! declarations, `const` items, `#[repr(C)]` structs and their `DeviceCopy` impls, and the
//! functions marked `#[kernel]` or `#[device]`; everything else (`main`, tests, host helpers)
//! is left out, so kernels and host code can share a file. A kernel may only call `#[device]`
//! functions, `deviceemu`'s device API, `core` and `libm`.
//!
//! How: a small `no_std` crate per file is generated under `OUT_DIR`, and a nested cargo runs
//! `RUSTC_BOOTSTRAP=1 cargo rustc --release --target nvptx64-nvidia-cuda -Zbuild-std=core
//! --crate-type=cdylib -- -Ctarget-cpu=sm_90 --emit=asm=FILE.ptx` with fat LTO (the recipe of
//! ARCHITECTURE.md, "The PTX build recipe"). It needs the `rust-src` component: `rustup component add rust-src`.

use std::fmt;
use std::path::{Path, PathBuf};
use std::process::Command;

use quote::ToTokens;

/// What went wrong while building PTX.
#[derive(Debug)]
#[non_exhaustive]
pub enum BuildError {
    /// A kernel source file could not be read or parsed.
    Source {
        /// The file.
        path: PathBuf,
        /// Why.
        message: String,
    },
    /// The `rust-src` component, needed to build `core` for NVPTX, is missing.
    MissingRustSrc,
    /// The nested cargo build for NVPTX failed.
    Compile {
        /// The file whose kernels failed to build.
        path: PathBuf,
        /// The compiler's output.
        output: String,
    },
    /// Something else failed: an environment variable missing, an I/O error.
    Other(String),
}

impl fmt::Display for BuildError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            BuildError::Source { path, message } => write!(f, "deviceemu: cannot read kernels from {}: {message}", path.display()),
            BuildError::MissingRustSrc => write!(
                f,
                "deviceemu: building kernels for the GPU needs the Rust standard library sources; \
                 run `rustup component add rust-src` and build again"
            ),
            BuildError::Compile { path, output } => write!(
                f,
                "deviceemu: compiling the kernels of {} for nvptx64-nvidia-cuda failed:\n{output}",
                path.display()
            ),
            BuildError::Other(m) => write!(f, "deviceemu: {m}"),
        }
    }
}

impl std::error::Error for BuildError {}

/// The name of the PTX file (without extension) for kernels defined in `source`, a path
/// relative to the crate's manifest directory. `#[kernel]` computes the same name.
pub fn ptx_name(source: &Path) -> String {
    source
        .to_string_lossy()
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
        .collect()
}

/// Compiles the kernels of `sources` (paths relative to the manifest directory) to PTX, if
/// the crate is being built with its `gpu` feature. Call it from `build.rs`.
pub fn kernels(sources: &[&str]) -> Result<(), BuildError> {
    for s in sources {
        println!("cargo:rerun-if-changed={s}");
    }
    println!("cargo:rerun-if-env-changed=DEVICEEMU_ROOT");
    if std::env::var_os("CARGO_FEATURE_GPU").is_none() {
        return Ok(());
    }
    let manifest = PathBuf::from(env("CARGO_MANIFEST_DIR")?);
    let out = PathBuf::from(env("OUT_DIR")?).join("deviceemu-ptx");
    let root = match std::env::var("DEP_DEVICEEMU_ROOT").or_else(|_| std::env::var("DEVICEEMU_ROOT")) {
        Ok(r) => PathBuf::from(r),
        Err(_) => manifest.clone(), // deviceemu building its own examples and tests
    };
    // Rebuild when deviceemu itself changes (a path dependency being worked on).
    for dir in ["src", "emu-runtime/src", "emu-macros/src", "Cargo.toml"] {
        let p = root.join(dir);
        if p.exists() {
            println!("cargo:rerun-if-changed={}", p.display());
        }
    }
    let paths: Vec<PathBuf> = sources.iter().map(PathBuf::from).collect();
    let unchecked = std::env::var_os("CARGO_FEATURE_UNCHECKED_GPU").is_some();
    build_with(&manifest, &root, &out, &paths, unchecked)?;
    println!("cargo:rustc-env=DEVICEEMU_PTX_DIR={}", out.display());
    Ok(())
}

/// Builds PTX for `sources` (relative to `manifest`) against the deviceemu at `root`, writing
/// `out/NAME.ptx` for each. Used by [`kernels`]; public for tools that build PTX outside a
/// build script.
pub fn build(manifest: &Path, root: &Path, out: &Path, sources: &[PathBuf]) -> Result<(), BuildError> {
    build_with(manifest, root, out, sources, false)
}

/// As [`build`]; `unchecked` compiles the kernels without bounds checks (deviceemu's
/// `unchecked-gpu` feature; set by [`kernels`] when the crate's own `unchecked-gpu` feature is
/// on).
pub fn build_with(manifest: &Path, root: &Path, out: &Path, sources: &[PathBuf], unchecked: bool) -> Result<(), BuildError> {
    check_rust_src()?;
    std::fs::create_dir_all(out).map_err(|e| BuildError::Other(format!("cannot create {}: {e}", out.display())))?;
    let target_dir = out.join("target");
    for rel in sources {
        let path = manifest.join(rel);
        let text = std::fs::read_to_string(&path)
            .map_err(|e| BuildError::Source { path: path.clone(), message: e.to_string() })?;
        let kernel_src = extract(&text).map_err(|message| BuildError::Source { path: path.clone(), message })?;
        if kernel_src.is_empty() {
            continue; // no kernels in this file
        }
        let name = ptx_name(rel);
        let dir = out.join("crates").join(&name);
        std::fs::create_dir_all(&dir).map_err(|e| BuildError::Other(e.to_string()))?;
        let manifest_text = format!(
            "[package]\nname = \"deviceemu-ptx-{pkg}\"\nversion = \"0.0.0\"\nedition = \"2021\"\n\n\
             [lib]\npath = \"lib.rs\"\ncrate-type = [\"cdylib\"]\n\n\
             [dependencies]\ndeviceemu = {{ path = {root:?}{features} }}\n\n\
             [profile.release]\nopt-level = 3\ncodegen-units = 1\n\n[workspace]\n",
            pkg = name.to_lowercase().replace('_', "-"),
            root = root.display().to_string(),
            features = if unchecked { ", features = [\"unchecked-gpu\"]" } else { "" },
        );
        write_if_changed(&dir.join("Cargo.toml"), &manifest_text)?;
        let lib = format!(
            "// Generated by emu-build from {}: its kernels and what they use.\n\
             #![no_std]\n#![feature(abi_ptx, asm_experimental_arch)]\n#![allow(unused_imports, dead_code)]\n\
             extern crate deviceemu;\n{kernel_src}\n",
            rel.display()
        );
        write_if_changed(&dir.join("lib.rs"), &lib)?;
        let ptx = out.join(format!("{name}.ptx"));
        // A stale file from an earlier build must not survive a failed one.
        let _ = std::fs::remove_file(&ptx);
        compile(&dir, &target_dir, &ptx).map_err(|output| BuildError::Compile { path: path.clone(), output })?;
        let bounds = launch_bounds(&text);
        if !bounds.is_empty() {
            let ptx_text = std::fs::read_to_string(&ptx).map_err(|e| BuildError::Other(e.to_string()))?;
            std::fs::write(&ptx, apply_launch_bounds(&ptx_text, &bounds)).map_err(|e| BuildError::Other(e.to_string()))?;
        }
    }
    Ok(())
}

fn env(name: &str) -> Result<String, BuildError> {
    std::env::var(name).map_err(|_| BuildError::Other(format!("{name} is not set; call emu_build::kernels from a build script")))
}

fn write_if_changed(path: &Path, text: &str) -> Result<(), BuildError> {
    if std::fs::read_to_string(path).ok().as_deref() != Some(text) {
        std::fs::write(path, text).map_err(|e| BuildError::Other(format!("cannot write {}: {e}", path.display())))?;
    }
    Ok(())
}

fn check_rust_src() -> Result<(), BuildError> {
    let rustc = std::env::var("RUSTC").unwrap_or_else(|_| "rustc".into());
    let out = Command::new(rustc).args(["--print", "sysroot"]).output().map_err(|e| BuildError::Other(e.to_string()))?;
    let sysroot = String::from_utf8_lossy(&out.stdout).trim().to_owned();
    let core = Path::new(&sysroot).join("lib/rustlib/src/rust/library/core/Cargo.toml");
    if core.exists() {
        Ok(())
    } else {
        Err(BuildError::MissingRustSrc)
    }
}

/// Runs the nested cargo that turns the generated crate in `dir` into `ptx`.
fn compile(dir: &Path, target_dir: &Path, ptx: &Path) -> Result<(), String> {
    let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
    let mut cmd = Command::new(cargo);
    cmd.current_dir(dir)
        .args(["rustc", "--release", "--quiet", "--target", "nvptx64-nvidia-cuda", "-Zbuild-std=core", "--crate-type=cdylib"])
        .arg("--target-dir")
        .arg(target_dir)
        .arg("--")
        .args(["-Ctarget-cpu=sm_90", "-Clinker=true"])
        .arg(format!("--emit=asm={}", ptx.display()));
    // The outer build's variables would leak into the nested one (ARCHITECTURE.md, "The PTX build recipe").
    for (k, _) in std::env::vars_os() {
        let k = k.to_string_lossy().into_owned();
        if matches!(
            k.as_str(),
            "RUSTC" | "RUSTC_WRAPPER" | "RUSTC_WORKSPACE_WRAPPER" | "RUSTFLAGS" | "CARGO_ENCODED_RUSTFLAGS"
                | "CARGO_TARGET_DIR" | "CARGO_BUILD_TARGET" | "RUSTUP_TOOLCHAIN" | "CARGO_MAKEFLAGS" | "DEVICEEMU_PTX_DIR"
        ) || k.starts_with("CARGO_FEATURE_")
            || k.starts_with("CARGO_CFG_")
            || k.starts_with("CARGO_PKG_")
            || k.starts_with("DEP_")
        {
            cmd.env_remove(&k);
        }
    }
    cmd.env("RUSTC_BOOTSTRAP", "1").env("CARGO_PROFILE_RELEASE_LTO", "fat");
    let output = cmd.output().map_err(|e| format!("cannot run cargo: {e}"))?;
    if output.status.success() && ptx.exists() {
        Ok(())
    } else {
        // Only the errors matter here; the host build already shows the warnings.
        let text = String::from_utf8_lossy(&output.stderr);
        let first_error = text.lines().position(|l| l.starts_with("error")).unwrap_or(0);
        Err(text.lines().skip(first_error).collect::<Vec<_>>().join("\n"))
    }
}

fn has_attr(attrs: &[syn::Attribute], name: &str) -> bool {
    attrs.iter().any(|a| a.path().segments.last().is_some_and(|s| s.ident == name))
}

fn is_cfg_test(attrs: &[syn::Attribute]) -> bool {
    attrs.iter().any(|a| a.path().is_ident("cfg") && a.to_token_stream().to_string().contains("test"))
}

/// Keeps the items of `source` that kernels need: `const`, `#[repr(C)]` structs and their
/// `DeviceCopy` impls, `#[kernel]` and `#[device]` functions, and the `use` declarations
/// (split into one per imported name) of the names those items mention, plus glob imports.
pub fn extract(source: &str) -> Result<String, String> {
    let file = syn::parse_file(source).map_err(|e| e.to_string())?;
    let mut keep = Vec::new();
    let mut consts = Vec::new();
    let mut uses = Vec::new();
    for item in file.items {
        let kept = match &item {
            syn::Item::Use(u) => {
                if !is_cfg_test(&u.attrs) {
                    flatten_use(&u.tree, String::new(), &mut uses);
                }
                false
            }
            syn::Item::Const(c) => {
                if !is_cfg_test(&c.attrs) {
                    consts.push((c.ident.to_string(), item.to_token_stream().to_string()));
                }
                false
            }
            syn::Item::Fn(f) => has_attr(&f.attrs, "kernel") || has_attr(&f.attrs, "device"),
            syn::Item::Struct(s) => has_attr(&s.attrs, "repr") && !is_cfg_test(&s.attrs),
            syn::Item::Impl(i) => i.trait_.as_ref().is_some_and(|(_, p, _)| {
                p.segments.last().is_some_and(|s| s.ident == "DeviceCopy" || s.ident == "Clone" || s.ident == "Copy")
            }),
            _ => false,
        };
        if kept {
            keep.push(item.to_token_stream().to_string());
        }
    }
    if keep.is_empty() {
        return Ok(String::new());
    }
    // Constants the kept items mention, and those they mention in turn.
    let mut body = keep.join("\n");
    loop {
        let words = words_of(&body);
        let (used, rest): (Vec<_>, Vec<_>) = consts.into_iter().partition(|(name, _)| words.contains(name.as_str()));
        consts = rest;
        if used.is_empty() {
            break;
        }
        for (_, text) in used {
            body.push('\n');
            body.push_str(&text);
        }
    }
    let words = words_of(&body);
    let device_crate = |path: &str| ["deviceemu::", "crate::", "super::", "self::", "core::", "libm::"].iter().any(|p| path.starts_with(p));
    let mut out: Vec<String> = uses
        .into_iter()
        .filter(|(path, name)| {
            let leaf = name.split(" as ").last().unwrap_or(name);
            if name == "*" {
                device_crate(path)
            } else {
                words.contains(leaf)
            }
        })
        .map(|(path, name)| if name == "*" { format!("use {path}*;") } else { format!("use {path}{name};") })
        .collect();
    out.dedup();
    out.push(body);
    Ok(out.join("\n"))
}

fn words_of(text: &str) -> std::collections::HashSet<String> {
    text.split(|c: char| !(c.is_alphanumeric() || c == '_')).filter(|w| !w.is_empty()).map(str::to_owned).collect()
}

/// The kernels of `source` declared `#[kernel(launch_bounds(T[, B]))]`: (name, T, B or 0).
pub fn launch_bounds(source: &str) -> Vec<(String, u32, u32)> {
    let Ok(file) = syn::parse_file(source) else { return Vec::new() };
    let mut out = Vec::new();
    for item in file.items {
        let syn::Item::Fn(f) = item else { continue };
        for a in &f.attrs {
            if !a.path().segments.last().is_some_and(|s| s.ident == "kernel") {
                continue;
            }
            let Ok(syn::Meta::List(lb)) = a.parse_args::<syn::Meta>() else { continue };
            if !lb.path.is_ident("launch_bounds") {
                continue;
            }
            let Ok(nums) = lb.parse_args_with(syn::punctuated::Punctuated::<syn::LitInt, syn::Token![,]>::parse_terminated)
            else {
                continue;
            };
            let v: Vec<u32> = nums.iter().filter_map(|n| n.base10_parse().ok()).collect();
            if let Some(&t) = v.first() {
                out.push((f.sig.ident.to_string(), t, v.get(1).copied().unwrap_or(0)));
            }
        }
    }
    out
}

/// Adds `.maxntid` (and `.minnctapersm`) to the `.entry` of each kernel in `bounds`, as nvcc
/// does for `__launch_bounds__`; `ptxas` then budgets registers for that occupancy.
pub fn apply_launch_bounds(ptx: &str, bounds: &[(String, u32, u32)]) -> String {
    let mut out = ptx.to_owned();
    for (name, threads, blocks) in bounds {
        let Some(entry) = out.find(&format!(".entry {name}(")) else { continue };
        let Some(body) = out[entry..].find("\n{").map(|k| entry + k) else { continue };
        let mut directives = format!("\n.maxntid {threads}, 1, 1");
        if *blocks > 0 {
            directives.push_str(&format!("\n.minnctapersm {blocks}"));
        }
        out.insert_str(body, &directives);
    }
    out
}

/// Flattens a `use` tree into (path prefix, imported name or `*` or `name as alias`) pairs.
fn flatten_use(tree: &syn::UseTree, prefix: String, out: &mut Vec<(String, String)>) {
    match tree {
        syn::UseTree::Path(p) => flatten_use(&p.tree, format!("{prefix}{}::", p.ident), out),
        syn::UseTree::Name(n) => out.push((prefix, n.ident.to_string())),
        syn::UseTree::Rename(r) => out.push((prefix, format!("{} as {}", r.ident, r.rename))),
        syn::UseTree::Glob(_) => out.push((prefix, "*".to_owned())),
        syn::UseTree::Group(g) => {
            for t in &g.items {
                flatten_use(t, prefix.clone(), out);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn extract_keeps_kernels_and_drops_host_code() {
        let src = r#"
            use deviceemu::prelude::*;
            const N: usize = 4;
            #[kernel] fn k(x: &mut [f32]) { x[0] = 1.0; }
            #[device] fn helper(a: f32) -> f32 { a }
            fn main() { println!("host"); }
            #[test] fn t() {}
            #[repr(C)] #[derive(Clone, Copy)] struct P { a: f32 }
            unsafe impl DeviceCopy for P {}
            struct HostOnly(Vec<u8>);
        "#;
        let out = extract(src).unwrap();
        assert!(out.contains("fn k"));
        assert!(out.contains("fn helper"));
        assert!(!out.contains("const N"), "unused constants are left out");
        assert!(out.contains("struct P"));
        assert!(out.contains("DeviceCopy for P"));
        assert!(!out.contains("fn main"));
        assert!(!out.contains("fn t"));
        assert!(!out.contains("HostOnly"));
        let out = extract(
            "use deviceemu::{prelude::*, Error}; use proptest::prelude::*; use std::time::Instant; \
             const A: usize = B; const B: usize = 2; const SRC: &str = \"x\"; \
             #[kernel] fn k(x: &mut [f32]) { x[0] = A as f32; }",
        )
        .unwrap();
        assert!(out.contains("const A") && out.contains("const B"), "{out}");
        assert!(!out.contains("SRC"), "{out}");
        assert!(!out.contains("proptest"), "{out}");
        assert!(extract("fn main() {}").unwrap().is_empty());
        assert!(out.contains("use deviceemu::prelude::*;"), "{out}");
        assert!(!out.contains("Error"), "{out}");
        assert!(!out.contains("Instant"), "{out}");
    }

    #[test]
    fn launch_bounds_become_ptx_directives() {
        let src = "#[kernel(launch_bounds(256, 8))] pub fn mm(x: &mut [f32]) {} #[kernel] fn other() {}";
        let b = launch_bounds(src);
        assert_eq!(b, vec![("mm".to_owned(), 256, 8)]);
        let ptx = ".visible .entry mm(\n\t.param .u64 p\n)\n{\n\tret;\n}\n";
        let patched = apply_launch_bounds(ptx, &b);
        assert!(patched.contains(")\n.maxntid 256, 1, 1\n.minnctapersm 8\n{"), "{patched}");
    }

    #[test]
    fn ptx_names_are_path_based() {
        assert_eq!(ptx_name(Path::new("examples/saxpy.rs")), "examples_saxpy_rs");
    }
}
