//! Build-script helper of deviceemu: compiles a crate's kernels to PTX for the `gpu` feature.
//!
//! In the crate that defines kernels, add a `gpu` feature that enables `deviceemu/gpu`, add
//! `deviceemu-build` as a build-dependency, and a `build.rs`:
//!
//! ```no_run
//! // build.rs
//! deviceemu_build::kernels(&["src/kernels.rs"]).unwrap_or_else(|e| panic!("{e}"));
//! ```
//!
//! With the `gpu` feature on, this compiles the `#[kernel]` and `#[device]` functions of each
//! listed file to PTX with rustc's `nvptx64-nvidia-cuda` target, and `#[kernel]` embeds that
//! PTX in the host binary; without it, it does nothing. From each file it keeps the `use`
//! declarations, `const` items, `#[constant]` and `#[device_global]` statics, `#[repr(C)]`
//! structs and their `DeviceCopy` impls, and the functions marked `#[kernel]` or `#[device]`;
//! everything else (`main`, tests, host helpers) is left out, so kernels and host code can
//! share a file. A kernel may only call `#[device]` functions, `deviceemu`'s device API, `core`
//! and `libm`.
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
            BuildError::Source { path, message } => {
                write!(f, "deviceemu: cannot read kernels from {}: {message}", path.display())
            }
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
    source.to_string_lossy().chars().map(|c| if c.is_ascii_alphanumeric() { c } else { '_' }).collect()
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
    println!("cargo:rerun-if-changed={}", manifest.join("Cargo.toml").display());
    // After `rustup component add rust-src` a plain rebuild must run this again.
    if let Some(sysroot) = sysroot() {
        let core = rust_src_core(&sysroot);
        let watch = if core.exists() { core } else { sysroot.join("lib/rustlib") };
        println!("cargo:rerun-if-changed={}", watch.display());
    }
    let paths: Vec<PathBuf> = sources.iter().map(PathBuf::from).collect();
    let unchecked = std::env::var_os("CARGO_FEATURE_UNCHECKED_GPU").is_some();
    for s in build_with(&manifest, &root, &out, &paths, unchecked)? {
        println!("cargo:warning={}", s.to_string().replace('\n', " "));
    }
    println!("cargo:rustc-env=DEVICEEMU_PTX_DIR={}", out.display());
    Ok(())
}

/// Builds PTX for `sources` (relative to `manifest`) against the deviceemu at `root`, writing
/// `out/NAME.ptx` for each. Used by [`kernels`]; public for tools that build PTX outside a
/// build script.
pub fn build(manifest: &Path, root: &Path, out: &Path, sources: &[PathBuf]) -> Result<(), BuildError> {
    build_with(manifest, root, out, sources, false).map(|_| ())
}

/// A kernel (or helper) left out of a file's PTX because it does not compile for
/// `nvptx64-nvidia-cuda`; the file's other kernels are still built.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Skipped {
    /// The source file.
    pub file: PathBuf,
    /// The function's name.
    pub name: String,
    /// Why: the compiler's first error for it, or what is missing.
    pub reason: String,
}

impl fmt::Display for Skipped {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "deviceemu: `{}` in {} cannot be compiled for the GPU and was left out of its PTX (it still runs in \
             the emulator; mark it #[kernel(host_only)] to say so): {}",
            self.name,
            self.file.display(),
            self.reason
        )
    }
}

/// As [`build`]; `unchecked` compiles the kernels without bounds checks (deviceemu's
/// `unchecked-gpu` feature; set by [`kernels`] when the crate's own `unchecked-gpu` feature is
/// on). Returns the kernels and helpers that were left out because they do not compile for the
/// GPU (their files' other kernels are built without them).
pub fn build_with(
    manifest: &Path,
    root: &Path,
    out: &Path,
    sources: &[PathBuf],
    unchecked: bool,
) -> Result<Vec<Skipped>, BuildError> {
    check_rust_src()?;
    std::fs::create_dir_all(out).map_err(|e| BuildError::Other(format!("cannot create {}: {e}", out.display())))?;
    let target_dir = out.join("target");
    let deps = dependencies(manifest);
    let mut skipped = Vec::new();
    for rel in sources {
        let path = manifest.join(rel);
        let text = std::fs::read_to_string(&path)
            .map_err(|e| BuildError::Source { path: path.clone(), message: e.to_string() })?;
        let mut items = extract_items(&text).map_err(|message| BuildError::Source { path: path.clone(), message })?;
        if items.iter().all(|i| i.kind != Kind::Kernel) {
            continue; // no kernels in this file
        }
        let kernel_names: Vec<String> =
            items.iter().filter(|i| i.kind == Kind::Kernel).map(|i| i.name.clone()).collect();
        // `use super::*`, `use crate::*` and `use crate::m::Name` in a kernel file: what the
        // module it names defines goes along too (its constants, structs, impls, helpers and
        // imports, kept when the kernels mention them), and the import itself is left out.
        let mut seen = vec![manifest.join(rel)];
        let mut queue = imported_files(manifest, rel, &text);
        while let Some(file) = queue.pop() {
            if seen.contains(&file) {
                continue;
            }
            seen.push(file.clone());
            println!("cargo:rerun-if-changed={}", file.display());
            let ptext = std::fs::read_to_string(&file).unwrap_or_default();
            let Ok(mut pitems) = extract_items_of(&ptext, true) else { continue };
            if let Ok(frel) = file.strip_prefix(manifest) {
                queue.extend(imported_files(manifest, frel, &ptext));
            }
            // The file's own items win over the imported ones of the same name.
            pitems.retain(|p| match p.kind {
                Kind::Use => !items.iter().any(|i| i.text == p.text),
                Kind::Impl => true,
                _ => !items.iter().any(|i| i.name == p.name && !matches!(i.kind, Kind::Use | Kind::Impl)),
            });
            pitems.append(&mut items);
            items = pitems;
        }
        let name = ptx_name(rel);
        let dir = out.join("crates").join(&name);
        std::fs::create_dir_all(&dir).map_err(|e| BuildError::Other(e.to_string()))?;
        let ptx = out.join(format!("{name}.ptx"));
        // A stale file from an earlier build must not survive a failed one.
        let _ = std::fs::remove_file(&ptx);
        // Compile; a function the compiler's errors point at is left out and the rest is built
        // again, until it compiles or an error points at nothing that can be left out.
        loop {
            let (lib_src, lines) = assemble(&items);
            let extra: String = deps
                .iter()
                .filter(|(crate_name, _)| words_of(&lib_src).contains(crate_name.as_str()))
                .map(|(_, line)| format!("{line}\n"))
                .collect();
            let manifest_text = format!(
                "[package]\nname = \"deviceemu-ptx-{pkg}\"\nversion = \"0.0.0\"\nedition = \"2021\"\n\n\
                 [lib]\npath = \"lib.rs\"\ncrate-type = [\"cdylib\"]\n\n\
                 [dependencies]\ndeviceemu = {{ path = {root:?}{features} }}\n{extra}\n\
                 [profile.release]\nopt-level = 3\ncodegen-units = 1\n\n[workspace]\n",
                pkg = name.to_lowercase().replace('_', "-"),
                root = root.display().to_string(),
                features = if unchecked { ", features = [\"unchecked-gpu\"]" } else { "" },
            );
            write_if_changed(&dir.join("Cargo.toml"), &manifest_text)?;
            let lib = format!("{LIB_HEADER}{lib_src}\n");
            write_if_changed(&dir.join("lib.rs"), &lib)?;
            let output = match compile(&dir, &target_dir, &ptx) {
                Ok(()) => break,
                Err(output) => output,
            };
            let bad = blamed_items(&output, &lines, LIB_HEADER.lines().count());
            let droppable: Vec<usize> = bad.iter().map(|(i, _)| *i).filter(|&i| items[i].kind != Kind::Other).collect();
            if droppable.is_empty() || items.iter().filter(|i| i.kind == Kind::Kernel).count() == 0 {
                return Err(BuildError::Compile { path: path.clone(), output });
            }
            for (i, reason) in bad.iter().rev().filter(|(i, _)| droppable.contains(i)) {
                let item = &items[*i];
                let reason = missing_device_hint(reason, &text);
                if item.kind == Kind::Kernel || item.kind == Kind::Device {
                    skipped.push(Skipped { file: rel.clone(), name: item.name.clone(), reason });
                }
            }
            let mut k = 0;
            items.retain(|_| {
                k += 1;
                !droppable.contains(&(k - 1))
            });
            if items.iter().all(|i| i.kind != Kind::Kernel) {
                break; // nothing left for the GPU in this file
            }
        }
        let left_out: Vec<&Skipped> =
            skipped.iter().filter(|k| k.file == *rel && kernel_names.contains(&k.name)).collect();
        if !left_out.is_empty() {
            // The launch of a kernel left out says why, in the build warning's words
            // (`LEFT_OUT` lines, read by the GPU launcher); a file whose every kernel was left
            // out gets a module with no entry, so that its launches find them.
            let mut ptx_text = std::fs::read_to_string(&ptx).unwrap_or_else(|_| EMPTY_MODULE.to_owned());
            for k in left_out {
                ptx_text.push_str(&format!("{LEFT_OUT}{} {}\n", k.name, k.to_string().replace('\n', " ")));
            }
            std::fs::write(&ptx, ptx_text).map_err(|e| BuildError::Other(e.to_string()))?;
        }
        if !ptx.exists() {
            continue;
        }
        let bounds = launch_bounds(&text);
        if !bounds.is_empty() {
            let ptx_text = std::fs::read_to_string(&ptx).map_err(|e| BuildError::Other(e.to_string()))?;
            std::fs::write(&ptx, apply_launch_bounds(&ptx_text, &bounds))
                .map_err(|e| BuildError::Other(e.to_string()))?;
        }
    }
    Ok(skipped)
}

/// The start of a line that a file's PTX carries for each of its kernels that was left out:
/// `// deviceemu: left out: NAME WARNING`, the build warning's text after the name. The GPU
/// launcher reports it when the kernel is launched (`gpu::left_out`).
pub const LEFT_OUT: &str = "// deviceemu: left out: ";

/// The PTX of a file whose every kernel was left out: a module with no entry.
const EMPTY_MODULE: &str = "//\n// Generated by deviceemu-build: every kernel of this file was left out.\n//\n\n.version 7.8\n.target sm_90\n.address_size 64\n\n";

const LIB_HEADER: &str = "// Generated by deviceemu-build: a file's kernels and what they use, one item a line.\n\
     #![no_std]\n#![feature(abi_ptx, asm_experimental_arch)]\n#![allow(unused_imports, dead_code)]\nextern crate deviceemu;\n";

/// The generated crate's text, one item a line (so that a compiler error's line names the
/// item), and for each line the index of its item.
fn assemble(items: &[Item]) -> (String, Vec<usize>) {
    let kept = Kept::of(items);
    let mut text = String::new();
    let mut lines = Vec::new();
    for (i, item) in items.iter().enumerate() {
        if !kept.contains(i) {
            continue;
        }
        let one_line = item.text.replace('\n', " ");
        text.push_str(&one_line);
        text.push('\n');
        lines.push(i);
    }
    (text, lines)
}

/// The items that go into the generated crate: kernels, `#[device]` functions, structs and
/// impls, and the constants, plain helper functions and `use` declarations they mention
/// (transitively).
struct Kept(Vec<bool>);

impl Kept {
    fn of(items: &[Item]) -> Kept {
        let mut keep: Vec<bool> =
            items.iter().map(|i| matches!(i.kind, Kind::Kernel | Kind::Device | Kind::Other)).collect();
        loop {
            let body: String = items
                .iter()
                .zip(&keep)
                .filter(|(_, k)| **k)
                .map(|(i, _)| i.text.as_str())
                .collect::<Vec<_>>()
                .join("\n");
            let words = words_of(&body);
            let mut grew = false;
            for (i, item) in items.iter().enumerate() {
                if !keep[i] && matches!(item.kind, Kind::Mentioned | Kind::Impl) && words.contains(item.name.as_str()) {
                    keep[i] = true;
                    grew = true;
                }
            }
            if !grew {
                break;
            }
        }
        let body: String =
            items.iter().zip(&keep).filter(|(_, k)| **k).map(|(i, _)| i.text.as_str()).collect::<Vec<_>>().join("\n");
        let words = words_of(&body);
        for (i, item) in items.iter().enumerate() {
            if item.kind == Kind::Use {
                keep[i] = item.name == "*" || words.contains(item.name.as_str());
            }
        }
        Kept(keep)
    }

    fn contains(&self, i: usize) -> bool {
        self.0[i]
    }
}

/// For each compiler error in `output` that points at a line of the generated `lib.rs`, the
/// index of the item on that line and the error's first line.
fn blamed_items(output: &str, lines: &[usize], header: usize) -> Vec<(usize, String)> {
    let mut out: Vec<(usize, String)> = Vec::new();
    let mut message: Option<String> = None;
    for l in output.lines() {
        if l.starts_with("error") {
            message = Some(l.to_owned());
            continue;
        }
        let Some(msg) = &message else { continue };
        let Some(at) = l.trim_start().strip_prefix("--> ") else { continue };
        let mut parts = at.rsplitn(3, ':');
        let (_col, line, file) = (parts.next(), parts.next(), parts.next());
        if !file.is_some_and(|f| f == "lib.rs" || f.ends_with("/lib.rs"))
            || file.is_some_and(|f| !f.contains("deviceemu-ptx") && f.contains('/'))
        {
            continue;
        }
        let Some(line) = line.and_then(|n| n.parse::<usize>().ok()) else { continue };
        if line > header && line - header <= lines.len() {
            let item = lines[line - header - 1];
            if !out.iter().any(|(i, _)| *i == item) {
                out.push((item, msg.clone()));
            }
            message = None;
        }
    }
    out
}

/// Turns rustc's "cannot find function `f`" about a function of the kernel file that is not a
/// GPU function into advice to mark it `#[device]`.
fn missing_device_hint(reason: &str, source: &str) -> String {
    let Some(name) = reason.split("cannot find function `").nth(1).and_then(|r| r.split('`').next()) else {
        return reason.to_owned();
    };
    if source.contains(&format!("fn {name}")) {
        format!("{reason}: `{name}` does not compile for the GPU; mark it #[device] (and keep it to core, libm and deviceemu's device API)")
    } else {
        format!("{reason}: a GPU function must be a #[device] function of the same file, or come from deviceemu, core or libm")
    }
}

/// The user crate's `[dependencies]` as lines for the generated crate (name with `-` as `_`,
/// and the dependency without its default features, paths made absolute), so that kernels can
/// use `half`, `libm` and other `no_std` crates the crate depends on.
fn dependencies(manifest: &Path) -> Vec<(String, String)> {
    let Ok(text) = std::fs::read_to_string(manifest.join("Cargo.toml")) else { return Vec::new() };
    let mut out = Vec::new();
    let mut in_deps = false;
    for line in text.lines() {
        let t = line.trim();
        if t.starts_with('[') {
            in_deps = t == "[dependencies]";
            continue;
        }
        if !in_deps || t.starts_with('#') {
            continue;
        }
        let Some((name, value)) = t.split_once('=') else { continue };
        let name = name.trim().trim_matches('"');
        let value = value.trim();
        if name == "deviceemu" || name.is_empty() {
            continue;
        }
        let spec = if value.starts_with('"') {
            format!("{{ version = {value}, default-features = false }}")
        } else if value.starts_with('{') && value.ends_with('}') {
            let mut v = value.to_owned();
            if let Some(p) = v.find("path") {
                let rest = &v[p..];
                if let (Some(a), Some(b)) = (rest.find('"'), rest[rest.find('"').unwrap_or(0) + 1..].find('"')) {
                    let rel = &rest[a + 1..a + 1 + b];
                    let abs = manifest.join(rel).display().to_string();
                    v = format!("{}path = {abs:?}{}", &v[..p], &rest[a + 1 + b + 1..]);
                }
            }
            if !v.contains("default-features") {
                v = format!(
                    "{}, default-features = false }}",
                    v.trim_end_matches('}').trim_end().trim_end_matches(',')
                );
            }
            v
        } else {
            continue;
        };
        out.push((name.replace('-', "_"), format!("{name} = {spec}")));
    }
    out
}

fn env(name: &str) -> Result<String, BuildError> {
    std::env::var(name)
        .map_err(|_| BuildError::Other(format!("{name} is not set; call deviceemu_build::kernels from a build script")))
}

fn write_if_changed(path: &Path, text: &str) -> Result<(), BuildError> {
    if std::fs::read_to_string(path).ok().as_deref() != Some(text) {
        std::fs::write(path, text).map_err(|e| BuildError::Other(format!("cannot write {}: {e}", path.display())))?;
    }
    Ok(())
}

fn sysroot() -> Option<PathBuf> {
    let rustc = std::env::var("RUSTC").unwrap_or_else(|_| "rustc".into());
    let out = Command::new(rustc).args(["--print", "sysroot"]).output().ok()?;
    Some(PathBuf::from(String::from_utf8_lossy(&out.stdout).trim()))
}

fn rust_src_core(sysroot: &Path) -> PathBuf {
    sysroot.join("lib/rustlib/src/rust/library/core/Cargo.toml")
}

fn check_rust_src() -> Result<(), BuildError> {
    let sysroot = sysroot().ok_or_else(|| BuildError::Other("cannot run rustc --print sysroot".into()))?;
    if rust_src_core(&sysroot).exists() {
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
        .args([
            "rustc",
            "--release",
            "--quiet",
            "--target",
            "nvptx64-nvidia-cuda",
            "-Zbuild-std=core",
            "--crate-type=cdylib",
        ])
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
            "RUSTC"
                | "RUSTC_WRAPPER"
                | "RUSTC_WORKSPACE_WRAPPER"
                | "RUSTFLAGS"
                | "CARGO_ENCODED_RUSTFLAGS"
                | "CARGO_TARGET_DIR"
                | "CARGO_BUILD_TARGET"
                | "RUSTUP_TOOLCHAIN"
                | "CARGO_MAKEFLAGS"
                | "DEVICEEMU_PTX_DIR"
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

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    /// `#[kernel]`: always kept.
    Kernel,
    /// `#[device]`: always kept.
    Device,
    /// `#[repr(C)]` structs and their `DeviceCopy`/`Clone`/`Copy` impls: always kept.
    Other,
    /// Constants and plain functions: kept when a kept item mentions them.
    Mentioned,
    /// An `impl` block: kept when its type is kept (its name is that of the type).
    Impl,
    /// One imported name (or `*`) of a `use`: kept when a kept item mentions it.
    Use,
}

#[derive(Debug, Clone)]
struct Item {
    kind: Kind,
    /// The function's, constant's or imported name (`*` for a glob).
    name: String,
    text: String,
}

fn is_host_only(attrs: &[syn::Attribute]) -> bool {
    attrs.iter().any(|a| {
        a.path().segments.last().is_some_and(|s| s.ident == "kernel")
            && a.to_token_stream().to_string().contains("host_only")
    })
}

/// The items of `source` that may go into its GPU crate (see [`extract`]). With `parent`,
/// `source` is the parent module of a kernel file that says `use super::*`: its constants,
/// structs, helpers and imports go along when the kernels mention them, its kernels do not.
fn extract_items_of(source: &str, parent: bool) -> Result<Vec<Item>, String> {
    let file = syn::parse_file(source).map_err(|e| e.to_string())?;
    let mut items = Vec::new();
    let mut uses = Vec::new();
    for item in file.items {
        let (kind, name) = match &item {
            syn::Item::Use(u) => {
                if !is_cfg_test(&u.attrs) {
                    flatten_use(&u.tree, String::new(), &mut uses);
                }
                continue;
            }
            syn::Item::Const(c) if !is_cfg_test(&c.attrs) => (Kind::Mentioned, c.ident.to_string()),
            // `#[constant]` and `#[device_global]` statics: always kept (the host finds them
            // in the module by name).
            syn::Item::Static(st) if has_attr(&st.attrs, "constant") || has_attr(&st.attrs, "device_global") => {
                (Kind::Other, st.ident.to_string())
            }
            syn::Item::Fn(f) if is_host_only(&f.attrs) || (parent && has_attr(&f.attrs, "kernel")) => continue,
            syn::Item::Fn(f) if parent && has_attr(&f.attrs, "device") => (Kind::Mentioned, f.sig.ident.to_string()),
            syn::Item::Fn(f) if has_attr(&f.attrs, "kernel") => (Kind::Kernel, f.sig.ident.to_string()),
            syn::Item::Fn(f) if has_attr(&f.attrs, "device") => (Kind::Device, f.sig.ident.to_string()),
            // A plain function a kernel calls: it goes along, and is left out again (with its
            // callers, and a message saying `#[device]` is needed) if it does not compile.
            syn::Item::Fn(f)
                if f.sig.ident != "main"
                    && !is_cfg_test(&f.attrs)
                    && !has_attr(&f.attrs, "test")
                    && f.sig.asyncness.is_none() =>
            {
                (Kind::Mentioned, f.sig.ident.to_string())
            }
            syn::Item::Struct(s) if has_attr(&s.attrs, "repr") && !is_cfg_test(&s.attrs) => {
                (Kind::Other, s.ident.to_string())
            }
            // Other structs (a kernel's local helper type): when a kept item mentions them.
            syn::Item::Struct(s) if !is_cfg_test(&s.attrs) => (Kind::Mentioned, s.ident.to_string()),
            // Inherent impls and the impls of `DeviceCopy`, `Clone`, `Copy`, `Default` and
            // core's operator and comparison traits, of a struct that goes along.
            syn::Item::Impl(i) if !is_cfg_test(&i.attrs) && carried_impl(i) => match self_type_name(i) {
                Some(name) => (Kind::Impl, name),
                None => continue,
            },
            _ => continue,
        };
        items.push(Item { kind, name, text: item.to_token_stream().to_string() });
    }
    if !parent && !items.iter().any(|i| i.kind == Kind::Kernel) {
        return Ok(Vec::new());
    }
    let device_crate =
        |path: &str| ["deviceemu::", "crate::", "self::", "core::", "libm::"].iter().any(|p| path.starts_with(p));
    let mut use_items: Vec<Item> = Vec::new();
    for (path, name) in uses {
        let leaf = name.split(" as ").last().unwrap_or(&name).to_owned();
        if path.starts_with("crate::") || (path.starts_with("super::") && name != "*") {
            // Followed by `imported_files`: the named module's items go into the crate.
            continue;
        }
        let text = if path.starts_with("super::") && !parent {
            // The generated crate has no parent module: a kernel file's `use super::*` (how a
            // `src/kernels.rs` reaches the prelude its parent imports) becomes the prelude.
            "use deviceemu::prelude::*;".to_owned()
        } else if name == "*" {
            if !device_crate(&path) {
                continue;
            }
            format!("use {path}*;")
        } else {
            format!("use {path}{name};")
        };
        if !use_items.iter().any(|u| u.text == text) {
            use_items.push(Item { kind: Kind::Use, name: if name == "*" { "*".into() } else { leaf }, text });
        }
    }
    use_items.extend(items);
    Ok(use_items)
}

fn extract_items(source: &str) -> Result<Vec<Item>, String> {
    extract_items_of(source, false)
}

/// Whether an `impl` block goes along with its type: inherent impls, and impls of
/// `DeviceCopy`, `Clone`, `Copy`, `Default` and core's operator and comparison traits (a
/// `Display` impl, say, would not compile without `std` and is not needed by kernels).
fn carried_impl(i: &syn::ItemImpl) -> bool {
    const TRAITS: &[&str] = &[
        "DeviceCopy",
        "Clone",
        "Copy",
        "Default",
        "PartialEq",
        "Eq",
        "PartialOrd",
        "Ord",
        "Add",
        "Sub",
        "Mul",
        "Div",
        "Rem",
        "Neg",
        "Not",
        "BitAnd",
        "BitOr",
        "BitXor",
        "Shl",
        "Shr",
        "AddAssign",
        "SubAssign",
        "MulAssign",
        "DivAssign",
        "RemAssign",
        "BitAndAssign",
        "BitOrAssign",
        "BitXorAssign",
        "ShlAssign",
        "ShrAssign",
        "Index",
        "IndexMut",
        "From",
    ];
    match &i.trait_ {
        None => true,
        Some((_, p, _)) => p.segments.last().is_some_and(|s| TRAITS.iter().any(|t| s.ident == t)),
    }
}

/// The name of the type an `impl` block is for (`impl<T> P<T>` -> `P`).
fn self_type_name(i: &syn::ItemImpl) -> Option<String> {
    match &*i.self_ty {
        syn::Type::Path(p) if p.qself.is_none() => p.path.segments.last().map(|s| s.ident.to_string()),
        _ => None,
    }
}

/// The files of the modules that `text` (the file `rel`) imports from with `use super::...`
/// or `use crate::...` (glob or named): the parent module's file, the crate root
/// (`src/lib.rs` or `src/main.rs`) or `src/a/b.rs` / `src/a/b/mod.rs` for `crate::a::b`.
/// A named import brings the whole file; only what the kernels mention is kept.
fn imported_files(manifest: &Path, rel: &Path, text: &str) -> Vec<PathBuf> {
    let Ok(file) = syn::parse_file(text) else { return Vec::new() };
    let mut uses = Vec::new();
    for item in &file.items {
        if let syn::Item::Use(u) = item {
            if !is_cfg_test(&u.attrs) {
                flatten_use(&u.tree, String::new(), &mut uses);
            }
        }
    }
    let mut out = Vec::new();
    for (path, _) in uses {
        let found = if path.starts_with("super::") {
            if path != "super::" {
                continue; // `super::m::Name`: not followed
            }
            parent_file(manifest, rel)
        } else if let Some(module) = path.strip_prefix("crate::") {
            module_file(manifest, rel, module)
        } else {
            None
        };
        if let Some(f) = found {
            if !out.contains(&f) {
                out.push(f);
            }
        }
    }
    out
}

/// The file of the module `module` (`a::b::`, or empty for the crate root) of the crate that
/// `rel` belongs to, when `rel` is under `src/`.
fn module_file(manifest: &Path, rel: &Path, module: &str) -> Option<PathBuf> {
    if !rel.starts_with("src") {
        return None; // an example's or a test's file is its own crate root
    }
    let segs: Vec<&str> = module.split("::").filter(|s| !s.is_empty()).collect();
    let candidates: Vec<PathBuf> = if segs.is_empty() {
        vec![PathBuf::from("src/lib.rs"), PathBuf::from("src/main.rs")]
    } else {
        let base = Path::new("src").join(segs.join("/"));
        vec![base.with_extension("rs"), base.join("mod.rs")]
    };
    candidates.into_iter().map(|c| manifest.join(c)).find(|c| c.exists())
}

/// The parent module's file of the module file `rel` (`src/kernels.rs` -> `src/lib.rs` or
/// `src/main.rs`; `src/a/b.rs` -> `src/a.rs` or `src/a/mod.rs`), if it exists.
fn parent_file(manifest: &Path, rel: &Path) -> Option<PathBuf> {
    let dir = rel.parent()?;
    let mut candidates = Vec::new();
    if dir == Path::new("src") {
        candidates.extend([dir.join("lib.rs"), dir.join("main.rs")]);
    } else {
        candidates.extend([dir.with_extension("rs"), dir.join("mod.rs"), dir.join("lib.rs"), dir.join("main.rs")]);
    }
    candidates.into_iter().map(|c| manifest.join(c)).find(|c| c.exists() && c.as_path() != manifest.join(rel))
}

/// Keeps the items of `source` that kernels need: `#[kernel]` functions (except
/// `#[kernel(host_only)]` ones) and `#[device]` functions, `#[repr(C)]` structs and their
/// `DeviceCopy` impls, and the constants, plain functions and `use` declarations (one per
/// imported name, plus glob imports of deviceemu, core and libm) they mention, transitively.
/// One item a line.
pub fn extract(source: &str) -> Result<String, String> {
    let items = extract_items(source)?;
    Ok(assemble(&items).0.trim_end().to_owned())
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
            if a.path().segments.last().is_none_or(|s| s.ident != "kernel") {
                continue;
            }
            let Ok(syn::Meta::List(lb)) = a.parse_args::<syn::Meta>() else { continue };
            if !lb.path.is_ident("launch_bounds") {
                continue;
            }
            let Ok(nums) =
                lb.parse_args_with(syn::punctuated::Punctuated::<syn::LitInt, syn::Token![,]>::parse_terminated)
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
    fn host_only_kernels_plain_helpers_and_use_super() {
        let src = "use super::*; use half::f16; use std::thread; \
                   fn clamp(i: i64) -> i64 { i } fn unused_host() {} \
                   #[kernel] fn k(x: &mut [f32]) { x[clamp(0) as usize] = f16::from_f32(1.0).to_f32(); } \
                   #[kernel(host_only)] fn h(x: &mut [f32]) { let _ = thread::current(); }";
        let out = extract(src).unwrap();
        assert!(out.contains("use deviceemu::prelude::*;"), "use super::* becomes the prelude: {out}");
        assert!(!out.contains("super"), "{out}");
        assert!(out.contains("use half::f16;"), "{out}");
        assert!(out.contains("fn clamp"), "a helper kernels call goes along: {out}");
        assert!(!out.contains("unused_host") && !out.contains("fn h") && !out.contains("thread"), "{out}");
        // One item a line, so that a compiler error's line names the item.
        assert_eq!(out.lines().filter(|l| l.contains("fn ")).count(), 2, "{out}");
    }

    #[test]
    fn errors_are_blamed_on_the_items_of_their_lines() {
        let items = extract_items(
            "use deviceemu::prelude::*; #[kernel] fn a(x: &mut [f32]) {} #[kernel] fn b(x: &mut [f32]) {}",
        )
        .unwrap();
        let (_, lines) = assemble(&items);
        let header = LIB_HEADER.lines().count();
        // Line header+1 is the `use`, +2 kernel a, +3 kernel b.
        let out = format!(
            "error[E0433]: cannot find module or crate `std`\n  --> lib.rs:{}:10\n   |\nerror: aborting\n",
            header + 3
        );
        let blamed = blamed_items(&out, &lines, header);
        assert_eq!(blamed.len(), 1);
        assert_eq!(items[blamed[0].0].name, "b");
        assert!(blamed[0].1.contains("cannot find module or crate `std`"));
        // An error in another file (deviceemu's own source) blames nothing.
        assert!(blamed_items("error: x\n --> /src/deviceemu/src/lib.rs:3:1\n", &lines, header).is_empty());
    }

    #[test]
    fn dependencies_go_to_the_gpu_crate_without_default_features() {
        let dir = std::env::temp_dir().join(format!("deviceemu-build-deps-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(
            dir.join("Cargo.toml"),
            "[package]\nname = \"u\"\n[dependencies]\ndeviceemu = { path = \"..\" }\nhalf = \"2\"\nmy-math = { path = \"m\" }\n[dev-dependencies]\nproptest = \"1\"\n",
        )
        .unwrap();
        let deps = dependencies(&dir);
        let _ = std::fs::remove_dir_all(&dir);
        assert_eq!(deps.len(), 2, "{deps:?}");
        assert_eq!(deps[0], ("half".into(), "half = { version = \"2\", default-features = false }".into()));
        assert_eq!(deps[1].0, "my_math");
        assert!(deps[1].1.contains(&format!("path = {:?}", dir.join("m").display().to_string())), "{deps:?}");
        assert!(deps[1].1.ends_with("default-features = false }"), "{deps:?}");
    }

    /// A crate laid out on disk for the import-following tests: (path, text) pairs.
    fn crate_on_disk(tag: &str, files: &[(&str, &str)]) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("deviceemu-build-{tag}-{}", std::process::id()));
        for (path, text) in files {
            let p = dir.join(path);
            std::fs::create_dir_all(p.parent().unwrap()).unwrap();
            std::fs::write(p, text).unwrap();
        }
        dir
    }

    #[test]
    fn use_crate_is_followed_like_use_super() {
        let dir = crate_on_disk(
            "crate-imports",
            &[
                ("src/lib.rs", "pub use deviceemu::prelude::*; pub mod kernels; pub mod util; pub const N: usize = 4; fn host() {}"),
                ("src/util.rs", "pub fn twice(x: f32) -> f32 { 2.0 * x } pub fn unused() {}"),
                ("src/kernels.rs", "use crate::*; use crate::util::twice; #[kernel] fn k(x: &mut [f32]) { x[N - 1] = twice(1.0); }"),
            ],
        );
        let files = imported_files(
            &dir,
            Path::new("src/kernels.rs"),
            &std::fs::read_to_string(dir.join("src/kernels.rs")).unwrap(),
        );
        assert_eq!(files, vec![dir.join("src/lib.rs"), dir.join("src/util.rs")]);
        // The imports themselves are not in the generated crate (it has no such modules).
        let own = extract("use crate::*; use crate::util::twice; #[kernel] fn k(x: &mut [f32]) {}").unwrap();
        assert!(!own.contains("crate::"), "{own}");
        // An example is its own crate root: `use crate::*` names nothing to follow.
        assert!(imported_files(&dir, Path::new("examples/e.rs"), "use crate::*;").is_empty());
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn impl_blocks_of_carried_structs_go_along() {
        let out = extract(
            "use deviceemu::prelude::*; #[repr(C)] #[derive(Clone, Copy)] struct P { a: f32 }              unsafe impl DeviceCopy for P {} impl P { fn bump(&mut self) { self.a += 1.0; } }              impl core::ops::Add for P { type Output = P; fn add(self, o: P) -> P { P { a: self.a + o.a } } }              impl std::fmt::Display for P { fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result { Ok(()) } }              struct Acc { s: f32 } impl Acc { fn add(&mut self, x: f32) { self.s += x; } }              struct Host { v: u8 } impl Host { fn h(&self) {} }              #[kernel] fn k(v: &mut [P]) { let mut p = v[0]; p.bump(); let mut a = Acc { s: 0.0 }; a.add(p.a); v[0] = p + p; }",
        )
        .unwrap();
        assert!(out.contains("fn bump"), "{out}");
        assert!(out.contains("fn add (self"), "{out}");
        assert!(out.contains("struct Acc") && out.contains("fn add (& mut self"), "{out}");
        assert!(!out.contains("Display"), "{out}");
        assert!(!out.contains("Host"), "{out}");
    }

    #[test]
    fn ptx_names_are_path_based() {
        assert_eq!(ptx_name(Path::new("examples/saxpy.rs")), "examples_saxpy_rs");
    }
}
