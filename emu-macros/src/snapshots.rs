//! Expansion snapshots: each `tests/expand/NAME.rs` (at the workspace root) is expanded by the
//! macros' own stages, pretty-printed, and compared with the checked-in
//! `tests/expand/NAME.expanded.rs`. A change to an expansion fails this test with the first
//! differing line; when the change is intended, re-bless with
//!
//! ```text
//! EMU_BLESS=1 cargo test -p emu-macros snapshots
//! ```
//!
//! and review the diff of the `.expanded.rs` files. The items with `#[kernel]`/`#[device]`
//! are expanded (one level: the runtime's macros such as `shared_array!` stay as written);
//! other items are kept as they are. `embedded_ptx` is not consulted (no `DEVICEEMU_PTX_DIR`
//! here), so the launcher's PTX is `None`.

use std::path::{Path, PathBuf};

use proc_macro2::TokenStream;
use quote::{quote, ToTokens};

fn dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../tests/expand")
}

/// The expansion of every item of `source`.
fn expand_file(source: &str) -> String {
    let file: syn::File = syn::parse_str(source).expect("a snapshot input parses");
    let mut out = TokenStream::new();
    for item in file.items {
        let syn::Item::Fn(mut f) = item else {
            item.to_tokens(&mut out);
            continue;
        };
        let pos = f.attrs.iter().position(|a| a.path().is_ident("kernel") || a.path().is_ident("device"));
        let Some(pos) = pos else {
            f.to_tokens(&mut out);
            continue;
        };
        let attr = f.attrs.remove(pos);
        let args = match &attr.meta {
            syn::Meta::List(l) => l.tokens.clone(),
            _ => TokenStream::new(),
        };
        let item = quote!(#f);
        out.extend(match attr.path().is_ident("kernel") {
            true => crate::kernel2(args, item),
            false => crate::device2(args, item),
        });
    }
    let expanded: syn::File = syn::parse2(out).expect("the expansion parses as a file");
    prettyplease::unparse(&expanded)
}

#[test]
fn snapshots() {
    let bless = std::env::var_os("EMU_BLESS").is_some();
    let mut inputs: Vec<PathBuf> = std::fs::read_dir(dir())
        .expect("tests/expand exists")
        .filter_map(Result::ok)
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "rs") && !p.to_string_lossy().ends_with(".expanded.rs"))
        .collect();
    inputs.sort();
    assert!(inputs.len() >= 3, "the snapshot inputs are missing: {inputs:?}");
    let mut failed = Vec::new();
    for input in &inputs {
        let got = expand_file(&std::fs::read_to_string(input).unwrap());
        let path = input.with_extension("expanded.rs");
        if bless {
            std::fs::write(&path, &got).unwrap();
            continue;
        }
        let want = std::fs::read_to_string(&path).unwrap_or_default();
        if got != want {
            let line = got
                .lines()
                .zip(want.lines())
                .position(|(a, b)| a != b)
                .unwrap_or(got.lines().count().min(want.lines().count()));
            let (g, w) = (got.lines().nth(line).unwrap_or("<end>"), want.lines().nth(line).unwrap_or("<end>"));
            failed.push(format!("{}: line {}:\n  expanded: {g}\n  snapshot: {w}", path.display(), line + 1));
        }
    }
    assert!(failed.is_empty(), "expansions changed (re-bless with EMU_BLESS=1 if intended):\n{}", failed.join("\n"));
}

/// The items of `source`'s expansion named `name`, each with whether it is only for rustdoc
/// (`cfg(all(doc, ..))`) and whether it is hidden from it (`doc(hidden)`); the nvptx forms
/// are left out.
fn items_named(source: &str, name: &str) -> Vec<(syn::Item, bool, bool)> {
    let file: syn::File = syn::parse_str(&expand_file(source)).unwrap();
    let has = |attrs: &[syn::Attribute], what: &str| {
        attrs.iter().any(|a| a.to_token_stream().to_string().replace(' ', "").contains(what))
    };
    file.items
        .into_iter()
        .filter_map(|item| {
            let (ident, attrs) = match &item {
                syn::Item::Fn(f) => (f.sig.ident.to_string(), f.attrs.clone()),
                syn::Item::Struct(s) => (s.ident.to_string(), s.attrs.clone()),
                _ => return None,
            };
            // The nvptx forms are not what rustdoc sees on the host.
            (ident == name && !has(&attrs, "cfg(target_arch=\"nvptx64\")")).then(|| {
                let (doc_only, hidden) = (has(&attrs, "cfg(all(doc,"), has(&attrs, "doc(hidden)"));
                (item, doc_only, hidden)
            })
        })
        .collect()
}

#[test]
fn rustdoc_sees_the_kernel_as_written() {
    let src = "/// Adds.\n#[kernel]\npub fn add(a: f32, x: &[f32], y: &mut [f32]) { let i = thread_idx().x; y[i] += a * x[i]; }";
    let items = items_named(src, "add");
    // The rustdoc form: the user's signature, doc comments and a line on `launch!`.
    let doc: Vec<_> = items.iter().filter(|(_, doc_only, _)| *doc_only).collect();
    assert_eq!(doc.len(), 1, "one rustdoc form: {items:#?}");
    let syn::Item::Fn(f) = &doc[0].0 else { panic!("the rustdoc form is a function") };
    assert!(!doc[0].2, "the rustdoc form is not hidden");
    let want: syn::Signature = syn::parse_quote!(fn add(a: f32, x: &[f32], y: &mut [f32]));
    assert_eq!(f.sig.to_token_stream().to_string(), want.to_token_stream().to_string());
    assert!(matches!(f.vis, syn::Visibility::Public(_)));
    let docs: Vec<String> =
        f.attrs.iter().filter(|a| a.path().is_ident("doc")).map(|a| a.to_token_stream().to_string()).collect();
    assert!(docs[0].contains("Adds."), "{docs:?}");
    assert!(docs.iter().any(|d| d.contains("launch!(add<<<grid, block>>>(...))")), "{docs:?}");
    // Every other item of that name (the launcher struct, the direct-call error) is hidden,
    // and the host form is no longer a free function.
    let others: Vec<_> = items.iter().filter(|(_, doc_only, _)| !doc_only).collect();
    assert!(others.iter().any(|(i, _, _)| matches!(i, syn::Item::Struct(_))), "{items:#?}");
    for (item, _, hidden) in &others {
        assert!(*hidden, "shown by rustdoc: {}", item.to_token_stream());
        if let syn::Item::Fn(f) = item {
            assert!(
                f.sig.generics.params.iter().all(|p| !p.to_token_stream().to_string().contains("const")),
                "the host form is a free function"
            );
        }
    }
}
