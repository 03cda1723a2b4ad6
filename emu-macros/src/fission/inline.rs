//! Helpers that wait, written out in the region form's copy of a kernel body. CUB's block
//! collectives and SHOC's `scanLocalMem` are `__device__` functions with barriers; called
//! from a kernel they kept it on the general path (a call that may wait). A `#[device]`
//! helper of the kernel's own source file and module (found as `local_macros.rs` finds
//! macros: `Span::local_file`, kept as text) is written out where the kernel calls it:
//!
//! * as a statement of its own: `f(a, b);`, `let x = f(a, b);` (with or without a type),
//!   `x = f(a, b);`, or `let x = f(a, b) OP e;` with `e` a value of locals (the call is
//!   evaluated first either way);
//! * when the helper is a plain function (no generics, no `self`, no `async`/`unsafe`/`const`),
//!   its parameters plain names, and its body has no `return`, no `?` and no item;
//! * when the helper waits: its body names a barrier or warp collective, calls `.sync()`, or
//!   calls a helper that waits (found the same way, to a fixpoint);
//! * or, in a kernel with barriers, when it takes a view (a slice reference or a `Shared`;
//!   `takes_a_view`; a lane loop calls it, `lower.rs`): called, its
//!   accesses are its own, each checked where fission cannot see it (CUB's
//!   `LoadDirectStriped`: an `i32` index converted and checked for each of a thread's loads),
//!   and its region has no faster form; written out, they are the region's, which the
//!   views-checked and range-proved forms take. If the region form then fails (the body
//!   brings what region code cannot have), `lower.rs` lowers it again with the waiting
//!   helpers alone written out.
//!
//! Written out: each parameter is bound to its argument, `let p: T = a;` (a slice type as the
//! view a kernel passes, as `#[device]` makes it), except that an argument that is a local's
//! name (`temp_storage`, `cta`) or a reference to one (`&mut items`, for a reference
//! parameter; `*p` is then the local itself) stands for the parameter itself, so that
//! a shared view or a block handle stays what fission knows, and a local array stays one
//! value (not for a parameter the body binds again, nor for a local passed twice); a
//! reference parameter whose argument is anything else leaves the call as it is; every name the helper binds gets a name of its own (`__emu_in{n}_{name}`); the
//! body's statements follow, then the tail's value goes where the call's went. The helpers it
//! calls are written out in turn (8 deep at most).
//!
//! The file's other functions (plain ones, `#[device]` helpers expanded after the kernel,
//! inherent `impl` functions) are read from the same text to judge their calls in region code
//! (`select`, `quiet_call`): one whose body cannot wait or spin (`quiet`) keeps the kernel in
//! region form, as a helper that publishes "does not wait" does.
//!
//! Only the region form's copy changes (before `rewrite.rs`, which then rewrites it as it
//! does the kernel); the per-thread forms keep the call. The written-out statements, read
//! from text, carry the call's span, so a checker would report their accesses at the call's
//! line: under a per-access checker such a kernel takes the general path, whose reports name
//! the helper's own lines (`__private::Guard::written_out`). Without a checker, an access out
//! of bounds in a written-out helper is reported with the same kind, thread, block, view and
//! index as the general path's report, but at the line of the call in the kernel, not the
//! helper's (`EMU_PATH=general` gives the helper's line): a span for the helper's own text
//! is not one the kernel's expansion can make.

use std::cell::RefCell;
use std::collections::{HashMap, HashSet};
use std::path::PathBuf;
use std::rc::Rc;

use proc_macro2::{Span, TokenStream, TokenTree};
use quote::{quote, quote_spanned};
use syn::spanned::Spanned;
use syn::visit::Visit;
use syn::visit_mut::VisitMut;
use syn::{Block, Expr, FnArg, Ident, Pat, Stmt};

/// A helper of the file: its text and module path (`None`: two helpers of the name).
type Helpers = HashMap<String, Option<(Vec<String>, String)>>;

/// The kernels of a file: their module paths.
type Kernels = HashMap<String, Vec<String>>;

/// The `const`s of a file with an integer value (`const_value`), by name (`None`: two of the
/// name that differ, or a value not computed).
type Consts = HashMap<String, Option<i128>>;

/// The functions of a file other than kernels (free functions, `#[device]` or not, by name;
/// inherent `impl` functions as `Type::name`; `None`: two of the key).
type Functions = HashMap<String, Option<Function>>;

/// A function of the kernel's file ([`Functions`]).
struct Function {
    module: Vec<String>,
    text: String,
    /// The `impl`'s type, for an `impl` function (`Self::f` in its body).
    self_ty: Option<String>,
    /// A `#[device]` helper, whose loops are progress points of the per-thread forms.
    device: bool,
}

thread_local! {
    static FILES: RefCell<HashMap<PathBuf, Rc<Helpers>>> = RefCell::new(HashMap::new());
    static FUNCTIONS: RefCell<HashMap<PathBuf, Rc<Functions>>> = RefCell::new(HashMap::new());
    /// The functions of the file that the kernel or helper being lowered may call from region
    /// code (`select`, `quiet_call`).
    static QUIET: RefCell<HashSet<String>> = RefCell::new(HashSet::new());
    static KERNELS: RefCell<HashMap<PathBuf, Rc<Kernels>>> = RefCell::new(HashMap::new());
    static CONSTS: RefCell<HashMap<PathBuf, Rc<Consts>>> = RefCell::new(HashMap::new());
}

/// The kernel body `block` (of kernel `name`, before `rewrite.rs`) with the waiting helpers
/// of its file written out, and with `accessing` also those that take a view (a slice or a
/// `Shared`), or `None` when there is nothing to write out.
///
/// A helper that takes a view indexes it where fission cannot see: called from region code,
/// each of its accesses is checked on its own (CUB's `LoadDirectStriped`: an `i32` index
/// converted and checked for each of a thread's loads), and the region has no faster form.
/// Written out, its accesses are the region's own, which the views-checked and range-proved
/// forms take. `lower.rs` asks for it first, and without it when the region form then fails.
/// The `bool` says whether a helper that does not wait was written out.
pub(crate) fn helpers(block: &Block, name: &str, accessing: bool) -> Option<(Block, bool)> {
    if !proc_macro::is_available() {
        return None;
    }
    let file = proc_macro::Span::call_site().local_file()?;
    let (helpers, kernels) = read(&file);
    let module = kernels.get(name)?.clone();
    let parsed: HashMap<String, syn::ItemFn> = helpers
        .iter()
        .filter_map(|(n, h)| {
            let (m, text) = h.as_ref()?;
            (*m == module).then(|| syn::parse_str::<syn::ItemFn>(text).ok().map(|f| (n.clone(), f))).flatten()
        })
        .collect();
    let waiting = waiting(&parsed);
    let mut chosen = waiting.clone();
    if accessing {
        chosen.extend(parsed.iter().filter(|(_, f)| takes_a_view(f)).map(|(n, _)| n.clone()));
    }
    if chosen.is_empty() {
        return None;
    }
    let mut out = block.clone();
    let mut w = Writer { helpers: &parsed, chosen: &chosen, fresh: 0, changed: false, written: HashSet::new() };
    let mut any = false;
    // Helpers that call helpers: written out in turn, 8 deep at most.
    for _ in 0..8 {
        w.changed = false;
        w.list(&mut out.stmts);
        if !w.changed {
            break;
        }
        any = true;
    }
    let quiet_written = w.written.iter().any(|n| !waiting.contains(n));
    any.then_some((out, quiet_written))
}

/// The `#[device]` functions and `#[kernel]`s of the file at `path`, by name.
fn read(path: &PathBuf) -> (Rc<Helpers>, Rc<Kernels>) {
    let cached = FILES.with(|f| f.borrow().get(path).cloned());
    if let Some(h) = cached {
        let k = KERNELS.with(|k| k.borrow().get(path).cloned()).unwrap_or_default();
        return (h, k);
    }
    let mut found = Found::default();
    if let Ok(text) = std::fs::read_to_string(path) {
        if let Ok(file) = syn::parse_file(&text) {
            found.visit_file(&file);
        }
    }
    let (h, k) = (Rc::new(found.helpers), Rc::new(found.kernels));
    // Values only: tokens of one expansion must not outlive it.
    let consts: Consts = found
        .const_exprs
        .iter()
        .map(|(n, e)| (n.clone(), e.as_ref().and_then(|e| const_value(e, &found.const_exprs, 0))))
        .collect();
    CONSTS.with(|c| c.borrow_mut().insert(path.clone(), Rc::new(consts)));
    FUNCTIONS.with(|f| f.borrow_mut().insert(path.clone(), Rc::new(found.functions)));
    FILES.with(|f| f.borrow_mut().insert(path.clone(), h.clone()));
    KERNELS.with(|f| f.borrow_mut().insert(path.clone(), k.clone()));
    (h, k)
}

/// The integer `const`s of the kernel's source file (CUB's `member_mask`, `0xffffffff`, and
/// `RAKING_THREADS`, computed from others), by name; empty outside a macro expansion.
pub(crate) fn file_consts() -> HashMap<String, i128> {
    if !proc_macro::is_available() {
        return HashMap::new();
    }
    let Some(file) = proc_macro::Span::call_site().local_file() else { return HashMap::new() };
    read(&file);
    let consts = CONSTS.with(|c| c.borrow().get(&file).cloned()).unwrap_or_default();
    consts.iter().filter_map(|(n, v)| Some((n.clone(), (*v)?))).collect()
}

/// The value of a `const`'s integer expression: literals, other `const`s of the file, casts
/// to integer types, arithmetic, comparisons and `if`; `None` for anything else, or where
/// the arithmetic overflows.
fn const_value(e: &Expr, consts: &HashMap<String, Option<Expr>>, depth: usize) -> Option<i128> {
    use syn::BinOp::*;
    if depth > 32 {
        return None;
    }
    let v = |e: &Expr| const_value(e, consts, depth + 1);
    let block = |b: &Block| match &b.stmts[..] {
        [Stmt::Expr(e, None)] => v(e),
        _ => None,
    };
    match e {
        Expr::Lit(syn::ExprLit { lit: syn::Lit::Int(i), .. }) => i.base10_parse::<i128>().ok(),
        Expr::Lit(syn::ExprLit { lit: syn::Lit::Bool(b), .. }) => Some(b.value as i128),
        Expr::Path(p) if p.qself.is_none() => v(consts.get(&p.path.get_ident()?.to_string())?.as_ref()?),
        Expr::Paren(p) => v(&p.expr),
        Expr::Group(g) => v(&g.expr),
        Expr::Cast(c) => {
            let x = v(&c.expr)?;
            let syn::Type::Path(t) = &*c.ty else { return None };
            Some(match t.path.get_ident()?.to_string().as_str() {
                "i8" => x as i8 as i128,
                "u8" => x as u8 as i128,
                "i16" => x as i16 as i128,
                "u16" => x as u16 as i128,
                "i32" => x as i32 as i128,
                "u32" => x as u32 as i128,
                "i64" | "isize" => x as i64 as i128,
                "u64" | "usize" => x as u64 as i128,
                _ => return None,
            })
        }
        Expr::Unary(u) if matches!(u.op, syn::UnOp::Neg(_)) => v(&u.expr)?.checked_neg(),
        Expr::Binary(b) => {
            let (l, r) = (v(&b.left)?, v(&b.right)?);
            match b.op {
                Add(_) => l.checked_add(r),
                Sub(_) => l.checked_sub(r),
                Mul(_) => l.checked_mul(r),
                Div(_) => l.checked_div(r),
                Rem(_) => l.checked_rem(r),
                Shl(_) => u32::try_from(r).ok().filter(|&r| r < 64).and_then(|r| l.checked_shl(r)),
                Shr(_) => u32::try_from(r).ok().filter(|&r| r < 64).and_then(|r| l.checked_shr(r)),
                BitAnd(_) => Some(l & r),
                BitOr(_) => Some(l | r),
                BitXor(_) => Some(l ^ r),
                Lt(_) => Some((l < r) as i128),
                Le(_) => Some((l <= r) as i128),
                Gt(_) => Some((l > r) as i128),
                Ge(_) => Some((l >= r) as i128),
                Eq(_) => Some((l == r) as i128),
                Ne(_) => Some((l != r) as i128),
                And(_) => Some((l != 0 && r != 0) as i128),
                Or(_) => Some((l != 0 || r != 0) as i128),
                _ => None,
            }
        }
        Expr::If(i) => {
            let otherwise = match &*i.else_branch.as_ref()?.1 {
                Expr::Block(b) => block(&b.block),
                e => v(e),
            };
            if v(&i.cond)? != 0 {
                block(&i.then_branch)
            } else {
                otherwise
            }
        }
        _ => None,
    }
}

#[derive(Default)]
struct Found {
    module: Vec<String>,
    helpers: Helpers,
    kernels: Kernels,
    functions: Functions,
    const_exprs: HashMap<String, Option<Expr>>,
}

impl Found {
    fn function(&mut self, key: String, f: &syn::ItemFn, self_ty: Option<String>, device: bool) {
        let entry = if self.functions.contains_key(&key) {
            None
        } else {
            Some(Function { module: self.module.clone(), text: quote!(#f).to_string(), self_ty, device })
        };
        self.functions.insert(key, entry);
    }
}

impl<'a> Visit<'a> for Found {
    fn visit_item_mod(&mut self, m: &'a syn::ItemMod) {
        self.module.push(m.ident.to_string());
        syn::visit::visit_item_mod(self, m);
        self.module.pop();
    }
    fn visit_item_const(&mut self, c: &'a syn::ItemConst) {
        let name = c.ident.to_string();
        let e = (*c.expr).clone();
        match self.const_exprs.get(&name) {
            // Two of the name: the value only if they are written alike.
            Some(Some(old)) if quote!(#old).to_string() != quote!(#e).to_string() => {
                self.const_exprs.insert(name, None);
            }
            Some(_) => {}
            None => {
                self.const_exprs.insert(name, Some(e));
            }
        }
    }
    fn visit_item_fn(&mut self, f: &'a syn::ItemFn) {
        let has = |n: &str| f.attrs.iter().any(|a| a.path().segments.last().is_some_and(|s| s.ident == n));
        let name = f.sig.ident.to_string();
        if has("device") {
            let entry = if self.helpers.contains_key(&name) {
                None
            } else {
                Some((self.module.clone(), quote!(#f).to_string()))
            };
            self.helpers.insert(name, entry);
        } else if has("kernel") {
            // Two kernels of the name (in two modules): no module is known to be the one
            // that holds the kernel being lowered, so none of its helpers and functions are.
            let module = match self.kernels.get(&name) {
                Some(m) if *m != self.module => vec!["<two kernels of the name>".to_string()],
                _ => self.module.clone(),
            };
            self.kernels.insert(name, module);
            return;
        }
        self.function(f.sig.ident.to_string(), f, None, has("device"));
    }
    fn visit_item_impl(&mut self, i: &'a syn::ItemImpl) {
        // Inherent functions of a type named by a plain path (`impl V3 { fn new(..) }`).
        let syn::Type::Path(t) = &*i.self_ty else { return };
        if i.trait_.is_some() || t.qself.is_some() {
            return;
        }
        let Some(ty) = t.path.segments.last().map(|s| s.ident.to_string()) else { return };
        for item in &i.items {
            if let syn::ImplItem::Fn(f) = item {
                let f = syn::ItemFn {
                    attrs: f.attrs.clone(),
                    vis: f.vis.clone(),
                    sig: f.sig.clone(),
                    block: Box::new(f.block.clone()),
                };
                self.function(format!("{ty}::{}", f.sig.ident), &f, Some(ty.clone()), false);
            }
        }
    }
}

/// Makes the functions of the file that kernel or helper `name` may call from region code
/// the ones [`quiet_call`] accepts, until the next call: the free functions of its module and
/// the inherent `impl` functions of the file whose bodies cannot wait or spin (`quiet`), so
/// that `max3(a, b, c)`, `V3::new(x, y, z)` and a `#[device]` helper written below the kernel
/// keep it in region form. Nothing outside a macro expansion.
pub(crate) fn select(name: &str) {
    let quiet = (|| {
        if !proc_macro::is_available() {
            return None;
        }
        let file = proc_macro::Span::call_site().local_file()?;
        let (helpers, kernels) = read(&file);
        let module = match kernels.get(name) {
            Some(m) => m.clone(),
            None => helpers.get(name)?.as_ref()?.0.clone(),
        };
        let functions = FUNCTIONS.with(|f| f.borrow().get(&file).cloned())?;
        Some(quiet(&functions, &module))
    })()
    .unwrap_or_default();
    QUIET.with(|q| *q.borrow_mut() = quiet);
}

/// Whether `path` (a call's function) is a function of the file that [`select`] found quiet.
pub(crate) fn quiet_call(path: &syn::Path) -> bool {
    let key = path.segments.iter().map(|s| s.ident.to_string()).collect::<Vec<_>>().join("::");
    QUIET.with(|q| q.borrow().contains(&key))
}

/// The functions of `functions` a region may call where `module`'s code calls them (free
/// functions of `module`, `impl` functions anywhere in the file): those whose bodies name no
/// barrier or warp collective, have no `async` or item, use only the macros region code may,
/// and call only built-ins, standard functions, constructors and other quiet functions (the
/// largest such set). A `#[device]` helper may not loop with `while` or `loop` either: each is a
/// progress point of its per-thread forms, where a spin-wait on another thread's write ends,
/// and would spin in a region. A plain function's loops have none on any path, so a region
/// runs it as the general path does. Method calls are judged as in region code.
fn quiet(functions: &Functions, module: &[String]) -> HashSet<String> {
    let candidates: HashMap<&String, (syn::ItemFn, &Function)> = functions
        .iter()
        .filter_map(|(k, v)| {
            let f = v.as_ref()?;
            if f.self_ty.is_none() && f.module.as_slice() != module {
                return None;
            }
            Some((k, (syn::parse_str::<syn::ItemFn>(&f.text).ok()?, f)))
        })
        .collect();
    let mut quiet: HashSet<String> = candidates.keys().map(|k| (*k).clone()).collect();
    loop {
        let kept: HashSet<String> = quiet
            .iter()
            .filter(|k| candidates.get(k).is_some_and(|(item, f)| quiet_body(&item.block, f, &quiet)))
            .cloned()
            .collect();
        if kept.len() == quiet.len() {
            return kept;
        }
        quiet = kept;
    }
}

fn quiet_body(b: &Block, f: &Function, quiet: &HashSet<String>) -> bool {
    struct Q<'q> {
        ok: bool,
        f: &'q Function,
        quiet: &'q HashSet<String>,
    }
    impl<'a> Visit<'a> for Q<'_> {
        fn visit_expr(&mut self, e: &'a Expr) {
            match e {
                Expr::While(_) | Expr::Loop(_) if self.f.device => self.ok = false,
                Expr::Async(_) | Expr::Await(_) => self.ok = false,
                Expr::Call(c) => match &*c.func {
                    Expr::Path(p) if p.qself.is_none() => {
                        let segs: Vec<String> = p
                            .path
                            .segments
                            .iter()
                            .map(|s| match (s.ident == "Self", &self.f.self_ty) {
                                (true, Some(t)) => t.clone(),
                                _ => s.ident.to_string(),
                            })
                            .collect();
                        if !super::allowed_call(&p.path) && !self.quiet.contains(&segs.join("::")) {
                            self.ok = false;
                        }
                    }
                    _ => self.ok = false,
                },
                Expr::Macro(m) => self.mac(&m.mac),
                _ => {}
            }
            syn::visit::visit_expr(self, e);
        }
        fn visit_stmt_macro(&mut self, m: &'a syn::StmtMacro) {
            self.mac(&m.mac);
        }
        fn visit_item(&mut self, _: &'a syn::Item) {
            self.ok = false;
        }
    }
    impl Q<'_> {
        fn mac(&mut self, m: &syn::Macro) {
            // The macros region code may use (printing, assertions): their arguments are
            // checked as the body's own tokens.
            let std = m.path.segments.len() == 1 && super::MACROS.iter().any(|n| m.path.segments[0].ident == n);
            self.ok &= std;
        }
    }
    let tokens = quote!(#b);
    if names_wait(tokens) {
        return false;
    }
    let mut q = Q { ok: true, f, quiet };
    q.visit_block(b);
    q.ok
}

/// Whether `tokens` (macro arguments included) name a barrier, a warp collective or `sync`
/// (`cta.sync()`, `cg::sync(g)`), but not the module `std::sync` (`std::sync::atomic::Ordering`).
fn names_wait(tokens: TokenStream) -> bool {
    let tokens: Vec<TokenTree> = tokens.into_iter().collect();
    tokens.iter().enumerate().any(|(k, t)| match t {
        TokenTree::Ident(i) => {
            let i = i.to_string();
            let module = matches!(tokens.get(k + 1), Some(TokenTree::Punct(p)) if p.as_char() == ':');
            super::BARRIERS.iter().chain(super::WARP.iter()).any(|b| *b == i) || (i == "sync" && !module)
        }
        TokenTree::Group(g) => names_wait(g.stream()),
        _ => false,
    })
}

/// The helpers that wait: a barrier, a warp collective or `.sync()` named in the body, or a
/// call of one that waits.
fn waiting(helpers: &HashMap<String, syn::ItemFn>) -> HashSet<String> {
    let mut out: HashSet<String> = HashSet::new();
    loop {
        let before = out.len();
        for (n, f) in helpers {
            if out.contains(n) {
                continue;
            }
            let ids = super::uniform::idents_of(&Stmt::Expr(
                Expr::Block(syn::ExprBlock { attrs: vec![], label: None, block: (*f.block).clone() }),
                None,
            ));
            let block = &f.block;
            if names_wait(quote!(#block)) || ids.iter().any(|i| out.contains(i)) {
                out.insert(n.clone());
            }
        }
        if out.len() == before {
            return out;
        }
    }
}

struct Writer<'a> {
    helpers: &'a HashMap<String, syn::ItemFn>,
    chosen: &'a HashSet<String>,
    fresh: usize,
    changed: bool,
    /// The helpers written out.
    written: HashSet<String>,
}

/// Where the call's value goes.
enum Target {
    Nothing,
    Let(syn::Local),
    Assign(Expr),
}

impl Writer<'_> {
    fn list(&mut self, stmts: &mut Vec<Stmt>) {
        let mut k = 0;
        while k < stmts.len() {
            if let Some(out) = self.write_out(&stmts[k]) {
                let n = out.len();
                stmts.splice(k..=k, out);
                self.changed = true;
                k += n;
                continue;
            }
            if let Stmt::Expr(e, _) = &mut stmts[k] {
                self.nested(e);
            }
            k += 1;
        }
    }

    fn nested(&mut self, e: &mut Expr) {
        match e {
            Expr::If(i) => {
                self.list(&mut i.then_branch.stmts);
                if let Some((_, e)) = &mut i.else_branch {
                    self.nested(e);
                }
            }
            Expr::While(w) => self.list(&mut w.body.stmts),
            Expr::ForLoop(f) => self.list(&mut f.body.stmts),
            Expr::Loop(l) => self.list(&mut l.body.stmts),
            Expr::Block(b) => self.list(&mut b.block.stmts),
            _ => {}
        }
    }

    /// The statements that replace `s`, if it calls a chosen helper where one can be
    /// written out.
    fn write_out(&mut self, s: &Stmt) -> Option<Vec<Stmt>> {
        let (call, target, rest): (&Expr, Target, Option<(syn::BinOp, Expr)>) = match s {
            Stmt::Expr(e @ Expr::Call(_), Some(_)) => (e, Target::Nothing, None),
            Stmt::Expr(Expr::Assign(a), Some(_)) if matches!(&*a.right, Expr::Call(_)) => {
                (&*a.right, Target::Assign((*a.left).clone()), None)
            }
            Stmt::Local(l) if l.attrs.is_empty() => {
                let init = l.init.as_ref().filter(|i| i.diverge.is_none())?;
                match &*init.expr {
                    e @ Expr::Call(_) => (e, Target::Let(l.clone()), None),
                    Expr::Binary(b)
                        if matches!(&*b.left, Expr::Call(_))
                            && !super::is_assign(&b.op)
                            && super::pure_expr(&b.right) =>
                    {
                        (&*b.left, Target::Let(l.clone()), Some((b.op, (*b.right).clone())))
                    }
                    _ => return None,
                }
            }
            _ => return None,
        };
        let Expr::Call(c) = call else { return None };
        let Expr::Path(p) = &*c.func else { return None };
        let name = p.path.get_ident()?.to_string();
        if p.qself.is_some() || !self.chosen.contains(&name) {
            return None;
        }
        let f = self.helpers.get(&name)?;
        let span = call.span();
        let (stmts, tail) = self.body(f, &c.args.iter().cloned().collect::<Vec<_>>(), span)?;
        self.written.insert(name);
        let mut out = stmts;
        let value = match (tail, rest) {
            (Some(t), Some((op, e))) => Some(quote_spanned!(span=> #t #op #e)),
            (Some(t), None) => Some(quote_spanned!(span=> #t)),
            (None, None) => None,
            (None, Some(_)) => return None,
        };
        match (target, value) {
            (Target::Nothing, Some(v)) => out.push(syn::parse_quote_spanned!(span=> #v;)),
            (Target::Nothing, None) => {}
            (Target::Assign(place), Some(v)) => out.push(syn::parse_quote_spanned!(span=> #place = #v;)),
            (Target::Let(mut l), Some(v)) => {
                l.init = Some(syn::LocalInit {
                    eq_token: Default::default(),
                    expr: Box::new(syn::parse2(v).ok()?),
                    diverge: None,
                });
                out.push(Stmt::Local(l));
            }
            (_, None) => return None,
        }
        Some(out)
    }

    /// The helper `f`'s statements for a call with `args`, and its tail value.
    fn body(&mut self, f: &syn::ItemFn, args: &[Expr], span: Span) -> Option<(Vec<Stmt>, Option<TokenStream>)> {
        let sig = &f.sig;
        if !sig.generics.params.is_empty()
            || sig.asyncness.is_some()
            || sig.unsafety.is_some()
            || sig.constness.is_some()
            || sig.inputs.len() != args.len()
            || !plain_body(&f.block)
        {
            return None;
        }
        let n = self.fresh;
        self.fresh += 1;
        let mut rename: HashMap<String, Ident> = HashMap::new();
        let mut subst: HashMap<String, Expr> = HashMap::new();
        let mut deref: HashMap<String, Expr> = HashMap::new();
        let mut binds = Vec::new();
        let derefs = derefs(&f.block);
        let mut bound = Bound(HashSet::new());
        bound.visit_block(&f.block);
        // A local passed twice (`f(x, &mut x)`): the value is the one before the call, so
        // neither argument stands for the local.
        let arg_local = |a: &Expr| match a {
            Expr::Reference(r) => super::path_name(&r.expr),
            Expr::Paren(p) => match &*p.expr {
                Expr::Reference(r) => super::path_name(&r.expr),
                _ => None,
            },
            a => super::path_name(a),
        };
        let twice: HashSet<String> = {
            let names: Vec<String> = args.iter().filter_map(arg_local).collect();
            names.iter().filter(|n| names.iter().filter(|m| m == n).count() > 1).cloned().collect()
        };
        for (input, arg) in sig.inputs.iter().zip(args) {
            // `(&mut x)`: what an outer helper's reference parameter became.
            let arg = match arg {
                Expr::Paren(p) if matches!(&*p.expr, Expr::Reference(_)) => &*p.expr,
                a => a,
            };
            let FnArg::Typed(pt) = input else { return None };
            let Pat::Ident(pi) = &*pt.pat else { return None };
            if pi.by_ref.is_some() || pi.subpat.is_some() {
                return None;
            }
            let pname = pi.ident.to_string();
            let is_ref = matches!(&*pt.ty, syn::Type::Reference(_));
            // A local's name, or a reference to one for a reference parameter (not for a
            // parameter the body binds again, `let mut x = x;`).
            let stands_for = match arg {
                _ if bound.0.contains(&pname) || arg_local(arg).is_some_and(|l| twice.contains(&l)) => None,
                Expr::Path(p) if p.qself.is_none() && pi.mutability.is_none() => {
                    p.path.get_ident().map(|i| Expr::Path(syn::parse_quote_spanned!(span=> #i)))
                }
                // `(&mut items)`: indexing and method calls through it reach the local, and it
                // passes on as the reference it is; `*p` is the local itself (CUB's
                // `*block_aggregate = ..`).
                Expr::Reference(r) if is_ref && !kept(&f.block, &pname) => match &*r.expr {
                    Expr::Path(p) if p.qself.is_none() && p.path.get_ident().is_some() => {
                        if derefs.contains(&pname) {
                            let local = p.path.get_ident()?;
                            deref.insert(pname.clone(), Expr::Path(syn::parse_quote_spanned!(span=> #local)));
                        }
                        Some(syn::parse_quote_spanned!(span=> (#arg)))
                    }
                    _ => None,
                },
                _ => None,
            };
            if let Some(e) = stands_for {
                subst.insert(pname, e);
                continue;
            }
            if is_ref {
                // A reference kept in a local of its own, perhaps across a barrier: not a
                // value fission keeps per thread.
                return None;
            }
            let fresh = Ident::new(&format!("__emu_in{n}_{pname}"), span);
            let mut ty = (*pt.ty).clone();
            crate::lower::slices_to_views(&mut ty);
            let m = pi.mutability;
            binds.push(syn::parse_quote_spanned!(span=> let #m #fresh: #ty = #arg;));
            rename.insert(pname, fresh);
        }
        // Every name the body binds gets one of its own.
        for b in bound.0 {
            rename.entry(b.clone()).or_insert_with(|| Ident::new(&format!("__emu_in{n}_{b}"), span));
        }
        let mut block = (*f.block).clone();
        Rename { names: &rename, subst: &subst, deref: &deref, span }.visit_block_mut(&mut block);
        let mut stmts = block.stmts;
        let tail = match stmts.last() {
            Some(Stmt::Expr(_, None)) => match stmts.pop() {
                Some(Stmt::Expr(e, None)) => Some(quote!(#e)),
                _ => None,
            },
            _ => None,
        };
        binds.extend(stmts);
        Some((binds, tail))
    }
}

/// Whether helper `f` takes a view: a parameter of a slice reference type (`&[T]`,
/// `&mut [T]`) or of a `Shared` view.
fn takes_a_view(f: &syn::ItemFn) -> bool {
    f.sig.inputs.iter().any(|i| match i {
        FnArg::Typed(pt) => match &*pt.ty {
            syn::Type::Reference(r) => matches!(&*r.elem, syn::Type::Slice(_)),
            syn::Type::Path(p) => p.path.segments.last().is_some_and(|s| s.ident == "Shared"),
            _ => false,
        },
        FnArg::Receiver(_) => false,
    })
}

/// Whether a helper's body can be written out: no `return`, `?`, item, or macro that is not a
/// known one (whose tokens renaming could not see into).
fn plain_body(b: &Block) -> bool {
    struct Plain(bool);
    impl<'a> Visit<'a> for Plain {
        fn visit_expr(&mut self, e: &'a Expr) {
            match e {
                Expr::Return(_) | Expr::Try(_) | Expr::Async(_) | Expr::Closure(_) => self.0 = false,
                Expr::Macro(m) if m.mac.path.segments.last().is_none_or(|s| s.ident != "shared_array") => {
                    self.0 = false
                }
                _ => syn::visit::visit_expr(self, e),
            }
        }
        fn visit_stmt_macro(&mut self, _: &'a syn::StmtMacro) {
            self.0 = false;
        }
        fn visit_item(&mut self, _: &'a syn::Item) {
            self.0 = false;
        }
    }
    let mut p = Plain(true);
    p.visit_block(b);
    p.0
}

/// Whether a `let` of body `b` may keep reference parameter `p`, or a reference through it,
/// in a local of its own (`let q = p;`, `let e = &mut p[0];`, `let it = p.iter_mut();`): such a
/// local would borrow the caller's local across the region form's loops. A `let` whose value
/// names `p` only in reads (`let x = p[3] + 1;`, `let y = *p;`) or passes it to a function
/// (`let s = thread_reduce(p);`) keeps a value.
fn kept(b: &Block, p: &str) -> bool {
    struct K<'p>(&'p str, bool);
    impl<'a> Visit<'a> for K<'_> {
        fn visit_local(&mut self, l: &'a syn::Local) {
            if let Some(init) = &l.init {
                let names = super::uniform::idents_of(&Stmt::Expr((*init.expr).clone(), None));
                if names.contains(self.0) && !reads_only(&init.expr, self.0) {
                    self.1 = true;
                }
            }
            syn::visit::visit_local(self, l);
        }
    }
    /// `p` appears as `*p` or as the base of `p[i]` read by value, nowhere bare.
    fn reads_only(e: &Expr, p: &str) -> bool {
        match e {
            Expr::Path(x) => !x.path.is_ident(p),
            Expr::Reference(_) => !super::uniform::idents_of(&Stmt::Expr(e.clone(), None)).contains(p),
            Expr::Unary(u)
                if matches!(u.op, syn::UnOp::Deref(_)) && super::path_name(&u.expr).as_deref() == Some(p) =>
            {
                true
            }
            Expr::Index(i) => {
                (super::path_name(&i.expr).as_deref() == Some(p) || reads_only(&i.expr, p)) && reads_only(&i.index, p)
            }
            Expr::MethodCall(m) => {
                super::path_name(&m.receiver).as_deref() != Some(p)
                    && reads_only(&m.receiver, p)
                    && m.args.iter().all(|a| reads_only(a, p))
            }
            Expr::Binary(x) => reads_only(&x.left, p) && reads_only(&x.right, p),
            Expr::Unary(u) => reads_only(&u.expr, p),
            Expr::Cast(c) => reads_only(&c.expr, p),
            Expr::Paren(x) => reads_only(&x.expr, p),
            Expr::Field(f) => reads_only(&f.base, p),
            Expr::Lit(_) => true,
            // Passed on to a function (`thread_reduce(inputs)`), whose value the `let` keeps.
            Expr::Call(c) => {
                c.args.iter().all(|a| matches!(a, Expr::Path(x) if x.path.is_ident(p)) || reads_only(a, p))
            }
            _ => !super::uniform::idents_of(&Stmt::Expr(e.clone(), None)).contains(p),
        }
    }
    let mut k = K(p, false);
    k.visit_block(b);
    k.1
}

/// The names a body dereferences (`*p`).
fn derefs(b: &Block) -> HashSet<String> {
    struct D(HashSet<String>);
    impl<'a> Visit<'a> for D {
        fn visit_expr_unary(&mut self, u: &'a syn::ExprUnary) {
            if let (syn::UnOp::Deref(_), Some(n)) = (u.op, super::path_name(&u.expr)) {
                self.0.insert(n);
            }
            syn::visit::visit_expr_unary(self, u);
        }
    }
    let mut d = D(HashSet::new());
    d.visit_block(b);
    d.0
}

/// The names a body binds (`let`, `for`, closures' and patterns' names).
struct Bound(HashSet<String>);

impl<'a> Visit<'a> for Bound {
    fn visit_pat_ident(&mut self, p: &'a syn::PatIdent) {
        self.0.insert(p.ident.to_string());
        syn::visit::visit_pat_ident(self, p);
    }
}

/// Renames the names of `names` (single-segment paths and bindings), spanning the helper's
/// tokens at the call.
struct Rename<'a> {
    names: &'a HashMap<String, Ident>,
    /// Parameters that stand for their argument.
    subst: &'a HashMap<String, Expr>,
    /// Reference parameters whose `*p` is the local they refer to.
    deref: &'a HashMap<String, Expr>,
    span: Span,
}

impl VisitMut for Rename<'_> {
    fn visit_expr_mut(&mut self, e: &mut Expr) {
        if let Expr::Unary(u) = e {
            if let (syn::UnOp::Deref(_), Some(x)) = (u.op, super::path_name(&u.expr).and_then(|n| self.deref.get(&n))) {
                *e = x.clone();
                return;
            }
        }
        if let Expr::Path(p) = e {
            if let Some(x) = p.path.get_ident().and_then(|i| self.subst.get(&i.to_string())) {
                if p.qself.is_none() {
                    *e = x.clone();
                    return;
                }
            }
        }
        syn::visit_mut::visit_expr_mut(self, e);
    }
    fn visit_expr_path_mut(&mut self, p: &mut syn::ExprPath) {
        if p.qself.is_none() && p.path.leading_colon.is_none() && p.path.segments.len() == 1 {
            if let Some(new) = self.names.get(&p.path.segments[0].ident.to_string()) {
                p.path.segments[0].ident = new.clone();
            }
        }
        syn::visit_mut::visit_expr_path_mut(self, p);
    }
    fn visit_pat_ident_mut(&mut self, p: &mut syn::PatIdent) {
        if let Some(new) = self.names.get(&p.ident.to_string()) {
            p.ident = new.clone();
        }
        syn::visit_mut::visit_pat_ident_mut(self, p);
    }
    fn visit_field_value_mut(&mut self, f: &mut syn::FieldValue) {
        // `Foo { x }` names the local `x`: `Foo { x: renamed }`.
        if f.colon_token.is_none() {
            f.colon_token = Some(Default::default());
        }
        syn::visit_mut::visit_field_value_mut(self, f);
    }
    fn visit_span_mut(&mut self, s: &mut Span) {
        *s = self.span;
    }
    fn visit_macro_mut(&mut self, m: &mut syn::Macro) {
        m.tokens = rename_tokens(m.tokens.clone(), self.names);
    }
}

fn rename_tokens(t: TokenStream, names: &HashMap<String, Ident>) -> TokenStream {
    t.into_iter()
        .map(|tt| match tt {
            TokenTree::Ident(i) => match names.get(&i.to_string()) {
                Some(n) => TokenTree::Ident(n.clone()),
                None => TokenTree::Ident(i),
            },
            TokenTree::Group(g) => {
                let mut n = proc_macro2::Group::new(g.delimiter(), rename_tokens(g.stream(), names));
                n.set_span(g.span());
                TokenTree::Group(n)
            }
            tt => tt,
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The quiet functions of `file` for code of module `module`.
    fn quiet_in(file: &str, module: &[&str]) -> Vec<String> {
        let mut found = Found::default();
        found.visit_file(&syn::parse_file(file).unwrap());
        let module: Vec<String> = module.iter().map(|m| m.to_string()).collect();
        let mut q: Vec<String> = quiet(&found.functions, &module).into_iter().collect();
        q.sort();
        q
    }

    #[test]
    fn functions_that_cannot_wait_are_quiet_and_the_rest_are_not() {
        let file = r#"
            fn max3(a: i32, b: i32, c: i32) -> i32 { a.max(b).max(c) }
            fn clamp01(v: f32) -> f32 { f32::min(f32::max(v, 0.0), 1.0) }
            fn uses_max3(a: i32) -> i32 { assert!(a >= 0, "negative"); max3(a, 1, 2) }
            fn search(v: &[u32], x: u32) -> usize { let mut lo = 0; while lo < v.len() && v[lo] < x { lo += 1; } lo }
            fn publish(s: Shared<f32>, t: usize, v: f32) -> f32 { s.store(t, v); sync_threads(); s.load(0) }
            fn via_publish(s: Shared<f32>) -> f32 { publish(s, 0, 1.0) }
            fn in_a_macro() { my_macro!(); }
            fn votes(p: bool) -> u32 { ballot_sync(0xffffffff, p) }
            fn calls_unknown(x: f32) -> f32 { other::f(x) }
            fn calls_a_closure(g: impl Fn(f32) -> f32) -> f32 { g(1.0) }
            fn recursive(n: u32) -> u32 { if n == 0 { 0 } else { recursive(n - 1) } }
            fn ordered(v: Shared<u32>) -> u32 { v.atomic_load(0, std::sync::atomic::Ordering::Acquire) }
            fn group_sync(g: cg::ThreadBlock) { cg::sync(g) }
            #[device] fn device_spins(f: Shared<u32>) { while f[0] == 0 {} }
            #[device] fn device_quiet(x: f32) -> f32 { x * 2.0 }
            #[kernel] fn k(out: &mut [f32]) { out[0] = 1.0; }
            struct V3 { x: f32 }
            impl V3 {
                fn new(x: f32) -> V3 { V3 { x } }
                fn twice(x: f32) -> V3 { Self::new(x * 2.0) }
                fn wait(self) -> f32 { cg::this_thread_block().sync(); self.x }
            }
            impl Clone for V3 { fn clone(&self) -> V3 { V3 { x: self.x } } }
            mod inner { fn other_module(x: f32) -> f32 { x } }
        "#;
        assert_eq!(
            quiet_in(file, &[]),
            ["V3::new", "V3::twice", "clamp01", "device_quiet", "max3", "ordered", "recursive", "search", "uses_max3",]
        );
        // From inside `inner`: its own free function and the file's `impl` functions.
        assert_eq!(quiet_in(file, &["inner"]), ["V3::new", "V3::twice", "other_module"]);
    }
}
