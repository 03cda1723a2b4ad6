//! Helper classification: whether a `#[device]` helper may wait (reach a barrier or warp
//! collective), spin, or call something that may, decided once where the helper is expanded
//! and published for the kernels that call it.
//!
//! * `#[device] fn foo` is classified by fission's own check of region code (`Checker` in
//!   helper mode) over its rewritten body: no barrier or collective named, no `while` or
//!   `loop` (each has a progress point), only `for` loops over ranges its immutable scalar
//!   parameters bound, only calls of pure functions or of helpers classified before it as not
//!   waiting. The helper's expansion publishes the answer as a macro next to it,
//!   `macro_rules! __emu_waits_foo { () => { false } }`, and records it here for the kernels
//!   and helpers expanded after it in the same compilation.
//! * A kernel whose region code calls `foo` (by its bare name) where `foo` is recorded here
//!   keeps its region form, and its launcher evaluates `__emu_waits_foo!()`: `false` takes the
//!   region form, `true` the general path (with the reason for `EMU_VERBOSE`). Next to the
//!   kernel, a module of its own re-exports `__private::helper_may_wait` (which says `true`)
//!   under that name, glob-imported (`fallbacks`). The helper's macro is found first where it
//!   is in scope: textually (the helper earlier in the kernel's module or an enclosing one),
//!   or through the helper's private `use` of it (its module, and modules inside it that
//!   glob-import it, `use super::*`); an explicit item beats a glob. Elsewhere (a helper of a
//!   sibling module, a plain function of that name) the fallback says the call may wait.
//!
//! Measured with rustc 1.95 on the shapes `tests/it/fission/fission_normalise.rs` has: the helper in
//! the kernel's module, in a parent the kernel's module glob-imports, in a sibling module
//! imported by name or by glob. One shape does not compile: a kernel in a module inside the
//! helper's that imports the helper by name (`use super::foo;`), where the textual macro and
//! the kernel's glob are ambiguous to rustc (E0659); `use super::*` there, or a path call
//! (`super::foo(..)`, which fission treats as a helper that may wait), avoids it.
//!
//! The record is per compilation (a proc-macro process compiles one crate), and a helper
//! expanded after the kernel is not in it yet: the kernel then treats the call as before, as
//! one that may wait. So does a name two helpers share. What it cannot see: a kernel in a module inside the helper's that binds
//! another function of the helper's name (`use other::foo;`) is classified by the outer
//! helper's macro.

use std::cell::RefCell;
use std::collections::HashMap;
use std::sync::Mutex;

use proc_macro2::{Span, TokenStream};
use quote::quote;
use syn::visit::Visit;
use syn::{Block, Ident};

/// The helpers expanded so far in this compilation, and whether each may wait (`None`: two
/// helpers of that name, whose macros a call cannot tell apart).
static HELPERS: Mutex<Option<HashMap<String, Option<bool>>>> = Mutex::new(None);

thread_local! {
    /// The recorded helpers the kernel being lowered calls from region code.
    static CALLED: RefCell<Vec<String>> = const { RefCell::new(Vec::new()) };
}

/// Whether `name` is a helper expanded earlier in this compilation.
pub(super) fn known(name: &str) -> bool {
    HELPERS.lock().map(|h| h.as_ref().is_some_and(|h| h.get(name).is_some_and(Option::is_some))).unwrap_or(false)
}

/// Whether the recorded helper `name` may wait (unknown: yes).
pub(super) fn waits(name: &str) -> bool {
    HELPERS.lock().map(|h| h.as_ref().and_then(|h| h.get(name).copied().flatten()).unwrap_or(true)).unwrap_or(true)
}

pub(super) fn reset_called() {
    CALLED.with(|c| c.borrow_mut().clear());
}

pub(super) fn called(name: &str) {
    CALLED.with(|c| {
        let mut c = c.borrow_mut();
        if !c.iter().any(|n| n == name) {
            c.push(name.to_string());
        }
    });
}

pub(super) fn take_called() -> Vec<String> {
    CALLED.with(|c| std::mem::take(&mut *c.borrow_mut()))
}

/// The name of helper `name`'s published macro.
pub(crate) fn macro_name(name: &str) -> Ident {
    Ident::new(&format!("__emu_waits_{name}"), Span::call_site())
}

/// Classifies the helper `name` (its rewritten body; `scalars` its immutable scalar
/// parameters), records it, and returns its published macro.
pub(crate) fn classify(name: &str, block: &Block, scalars: &[String]) -> TokenStream {
    let mut w = super::Waits::default();
    w.visit_block(block);
    let waits = w.barrier || w.warp || {
        let bounded = crate::progress::Bounded::of(block, scalars);
        super::BOUNDED.with(|b| *b.borrow_mut() = Some(bounded));
        let mut c = super::Checker { inner: 0, error: None, closures: Default::default(), helper_mode: true };
        c.visit_block(block);
        super::BOUNDED.with(|b| *b.borrow_mut() = None);
        c.error.is_some()
    };
    if let Ok(mut h) = HELPERS.lock() {
        // A second helper of the name (another module's): a kernel cannot tell which one its
        // macro is, and a macro-expanded `macro_rules!` may not shadow another where it is
        // used (E0659), so calls of that name count as waiting from now on.
        let h = h.get_or_insert_with(HashMap::new);
        let entry = if h.contains_key(name) { None } else { Some(waits) };
        h.insert(name.to_string(), entry);
    }
    let m = macro_name(name);
    quote! {
        #[doc(hidden)]
        #[allow(unused_macros)]
        macro_rules! #m {
            () => {
                #waits
            };
        }
        #[allow(unused_imports)]
        use #m;
    }
}

/// The kernel's fallbacks, next to it: `__private::helper_may_wait` (which says `true`) under
/// each helper's macro name, in a module of the kernel's own, glob-imported. A helper's own
/// macro, where it is in scope (the same module, or a module inside it), is found first.
pub(crate) fn fallbacks(kernel: &Ident, helpers: &[String]) -> TokenStream {
    if helpers.is_empty() {
        return TokenStream::new();
    }
    let rt = quote!(::deviceemu::__private);
    let module = Ident::new(&format!("__emu_helpers_{kernel}"), Span::call_site());
    let names = helpers.iter().map(|n| macro_name(n));
    quote! {
        #[cfg(not(target_arch = "nvptx64"))]
        #[doc(hidden)]
        #[allow(non_snake_case)]
        mod #module {
            #(
                #[allow(unused_imports)]
                pub(crate) use #rt::helper_may_wait as #names;
            )*
        }
        #[cfg(not(target_arch = "nvptx64"))]
        #[allow(unused_imports)]
        use #module::*;
    }
}

/// The launcher's choice between the region form (`regions`) and the general path
/// (`general`, with the reason) for a kernel whose region code calls `helpers`.
pub(crate) fn choose(helpers: &[String], regions: TokenStream, general: impl Fn(String) -> TokenStream) -> TokenStream {
    let mut out = regions;
    for name in helpers.iter().rev() {
        let m = macro_name(name);
        let g = general(format!("a call of `{name}`, which may wait or spin (a helper)"));
        out = quote!(if #m!() { #g } else { #out });
    }
    out
}
