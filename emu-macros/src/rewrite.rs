//! Lowering (stage 3), part 1: rewrite a kernel's or a helper's body into checked accesses.
//!
//! * Index expressions on *views* become checked accesses through `::deviceemu::__private`:
//!   `v[i]` → `load(&v, i)`, `v[i] = e` → `store(&v, i, e)`, `v[i] op= e` → load, `op=`,
//!   store, and `t[r][c]` goes through `row(&t, r)`. Each call carries the span of the user's
//!   expression, so `#[track_caller]` reports the user's line.
//! * In a kernel, `return` becomes `return exit_here()`: the kernel function returns where the
//!   thread exited, which synccheck needs.
//!
//! A name is a view when it is bound to one: a kernel slice parameter, a `#[device]`
//! parameter of type `Global<T>`/`GlobalMut<T>`/`Shared<T>`, a `let` whose value is
//! `shared_array![..]`, `dynamic_shared::<T>()`, `v.row(i)`, `v.cast::<U>()`, `STATIC.view()`
//! (a `#[device_global]`), another view, a tuple of views, or an `if`/`match`/block whose
//! every branch is such a value; or a binding with a view type annotation. Every other binding
//! of the same name shadows it, with Rust's scoping: blocks, closures, `for`, `match` arms,
//! `if let`/`while let`.

use proc_macro2::{Span, TokenStream};
use quote::{quote, quote_spanned, ToTokens};
use syn::punctuated::Punctuated;
use syn::spanned::Spanned;
use syn::visit_mut::{self, VisitMut};
use syn::{BinOp, Block, Expr, Pat, Stmt, Token, Type};

/// The view-ness of an expression's value.
#[derive(Clone, PartialEq, Debug)]
enum Shape {
    View,
    Tuple(Vec<Shape>),
    Plain,
}

/// Rewrites index expressions and `return`s in a function body.
pub(crate) struct Rewriter {
    scopes: Vec<Vec<(String, bool)>>,
    /// Rewrite `return` (kernels only), and only outside closures.
    rewrite_returns: bool,
    closure_depth: usize,
    /// Set when anything was rewritten (used to leave macro tokens untouched otherwise).
    changed: bool,
    /// Set when a checked access was written (it reads the `checked()` flag).
    accessed: bool,
    /// Errors to emit next to the expansion.
    pub(crate) errors: Vec<syn::Error>,
    /// Prefix of the PTX names of this function's `.shared` arrays, and how many were named.
    shared_prefix: String,
    shared_count: usize,
    /// The `let` binding the `shared_array!` being rewritten initialises, if it is one.
    shared_binding: Option<String>,
    /// Set while the place of a store is rewritten: its `row` calls report a bad row index
    /// as a write.
    row_write: bool,
}

fn rt(span: Span) -> TokenStream {
    quote_spanned!(span=> ::deviceemu::__private)
}

/// Whether `c` calls a function that may take views: a path to a function (a tuple struct or
/// variant, `Some(v)`, is left alone: it is generic, and `pass` would leave its type unknown),
/// not one of the runtime's own.
fn passes_views(c: &syn::ExprCall) -> bool {
    match &*c.func {
        Expr::Path(p) => {
            p.qself.is_none()
                && !p.path.segments.iter().any(|s| s.ident == "__private")
                && p.path
                    .segments
                    .last()
                    .is_some_and(|s| s.ident.to_string().starts_with(|ch: char| ch.is_lowercase() || ch == '_'))
        }
        _ => false,
    }
}

/// Whether `e` names a static by Rust's convention (`HITS`, `module::HITS`).
fn is_static_path(e: &Expr) -> bool {
    let Expr::Path(p) = e else { return false };
    p.qself.is_none()
        && p.path.segments.last().is_some_and(|s| {
            let s = s.ident.to_string();
            s.chars().any(|c| c.is_ascii_uppercase()) && !s.chars().any(|c| c.is_ascii_lowercase())
        })
}

/// Whether `ty` names a view type (`Global<T>`, `GlobalMut<T>`, `Shared<T>`, `View<T, K>`).
pub(crate) fn is_view_type(ty: &Type) -> bool {
    match ty {
        Type::Path(p) => p
            .path
            .segments
            .last()
            .is_some_and(|s| matches!(s.ident.to_string().as_str(), "Global" | "GlobalMut" | "Shared" | "View")),
        Type::Paren(p) => is_view_type(&p.elem),
        Type::Group(g) => is_view_type(&g.elem),
        _ => false,
    }
}

fn type_shape(ty: &Type) -> Shape {
    match ty {
        Type::Tuple(t) => Shape::Tuple(t.elems.iter().map(type_shape).collect()),
        t if is_view_type(t) => Shape::View,
        _ => Shape::Plain,
    }
}

impl Rewriter {
    /// A rewriter whose outermost scope holds `views` (names bound to views).
    pub(crate) fn new(
        views: impl IntoIterator<Item = (String, bool)>,
        rewrite_returns: bool,
        shared_prefix: String,
    ) -> Self {
        Rewriter {
            scopes: vec![views.into_iter().collect()],
            rewrite_returns,
            closure_depth: 0,
            changed: false,
            accessed: false,
            errors: Vec::new(),
            shared_prefix,
            shared_count: 0,
            shared_binding: None,
            row_write: false,
        }
    }

    /// `shared_array![T; N]` → the host macro on the host, and on the GPU a `.shared`
    /// variable of its own (declared with `global_asm!`) viewed through `cvta.shared`.
    fn rewrite_shared_array(&mut self, e: &mut Expr) {
        let Expr::Macro(m) = e else { return };
        let parsed = syn::parse::Parser::parse2(
            |input: syn::parse::ParseStream<'_>| {
                let ty: Type = input.parse()?;
                let _: Token![;] = input.parse()?;
                let n: Expr = input.parse()?;
                Ok((ty, n))
            },
            m.mac.tokens.clone(),
        );
        let Ok((ty, mut n)) = parsed else { return }; // the macro reports its own syntax errors
        if runtime_len(&n) {
            self.errors.push(syn::Error::new_spanned(
                &n,
                "the length of `shared_array!` must be known at compile time (a literal or a `const`): for a length \
                 chosen at launch, use `dynamic_shared::<T>()` and give its size in bytes as the launch's third \
                 parameter, `launch!(k<<<grid, block, bytes>>>(args))`",
            ));
            // One element, so that the error does not cascade into the compiler's own.
            n = syn::parse_quote!(1);
            m.mac.tokens = quote!(#ty; 1);
        }
        let name = format!("{}_{}", self.shared_prefix, self.shared_count);
        self.shared_count += 1;
        let decl = format!(".shared .align {{a}} .b8 {name}[{{n}}];");
        let addr = format!("mov.u32 {{p}}, {name};");
        let span = m.span();
        let mut original = m.clone();
        if let Some(b) = self.shared_binding.take() {
            // The host macro's named form: reports call the array by its binding.
            let tokens = &m.mac.tokens;
            original.mac.tokens = quote!(@named #b, #tokens);
        }
        let view = syn::Ident::new("__emu_view", Span::mixed_site());
        let modname = syn::Ident::new(&format!("{name}_decl"), Span::call_site());
        *e = syn::parse_quote_spanned! {span=> {
            #[cfg(not(target_arch = "nvptx64"))]
            let #view = #original;
            #[cfg(target_arch = "nvptx64")]
            let #view = {
                // `global_asm!` is an item: give it a module of its own.
                #[allow(unused_imports, non_snake_case)]
                mod #modname {
                    use super::*;
                    ::core::arch::global_asm!(
                        #decl,
                        a = const ::deviceemu::__private::shared_align::<#ty>(),
                        n = const ::core::mem::size_of::<[#ty; #n]>(),
                    );
                }
                let p: u32;
                // SAFETY: reads the `.shared` address of the array declared above.
                unsafe { ::core::arch::asm!(#addr, p = out(reg32) p, options(pure, nomem, nostack)) };
                // SAFETY: the array holds `N` elements of `T`.
                unsafe { ::deviceemu::__private::shared_view::<#ty>(p, #n) }
            };
            #view
        }};
        self.changed = true;
    }

    /// `shared_scalar![T]` → `__private::shared_scalar(..)` of a one-element shared array,
    /// rewritten as `shared_array![T; 1]` is (a `.shared` variable of its own on the GPU).
    fn rewrite_shared_scalar(&mut self, e: &mut Expr) {
        let Expr::Macro(m) = e else { return };
        // The type, and the tokens after it (none, when it is written right).
        let parsed = syn::parse::Parser::parse2(
            |input: syn::parse::ParseStream<'_>| {
                let ty: Type = input.parse()?;
                let rest: TokenStream = input.parse()?;
                Ok((ty, rest))
            },
            m.mac.tokens.clone(),
        );
        let span = m.span();
        let ty = match parsed {
            Ok((ty, rest)) if rest.is_empty() => ty,
            Ok((ty, rest)) => {
                self.errors.push(syn::Error::new_spanned(
                    &rest,
                    "`shared_scalar!` takes one type and no length: `shared_scalar![u32]`; for an array, \
                     use `shared_array![T; N]`",
                ));
                ty
            }
            Err(_) => return, // the macro reports its own syntax errors
        };
        let mut array: Expr = syn::parse_quote_spanned!(span=> ::deviceemu::shared_array![#ty; 1]);
        self.rewrite_shared_array(&mut array);
        let r = rt(span);
        *e = syn::parse_quote_spanned!(span=> #r::shared_scalar(#array));
        self.changed = true;
    }

    fn is_view(&self, name: &str) -> bool {
        for scope in self.scopes.iter().rev() {
            if let Some((_, v)) = scope.iter().rev().find(|(n, _)| n == name) {
                return *v;
            }
        }
        false
    }

    /// Whether `c` calls a local (a closure): its parameters' types may be inferred from the
    /// call, so its view arguments are passed as they are.
    fn calls_a_local(&self, c: &syn::ExprCall) -> bool {
        let Expr::Path(p) = &*c.func else { return false };
        p.path.get_ident().is_some_and(|name| {
            let name = name.to_string();
            self.scopes.iter().any(|scope| scope.iter().any(|(n, _)| *n == name))
        })
    }

    fn bind(&mut self, name: String, view: bool) {
        self.scopes.last_mut().expect("a scope is open").push((name, view));
    }

    /// Binds every name in `pat`, as views where `shape` says so.
    fn bind_pat(&mut self, pat: &Pat, shape: &Shape) {
        match (pat, shape) {
            (Pat::Ident(pi), _) if pi.subpat.is_none() => self.bind(pi.ident.to_string(), *shape == Shape::View),
            (Pat::Type(pt), _) => {
                let s = match type_shape(&pt.ty) {
                    Shape::Plain => shape.clone(),
                    s => s,
                };
                self.bind_pat(&pt.pat, &s)
            }
            (Pat::Tuple(pt), Shape::Tuple(shapes)) if pt.elems.len() == shapes.len() => {
                for (p, s) in pt.elems.iter().zip(shapes) {
                    self.bind_pat(p, s);
                }
            }
            (Pat::Paren(pp), _) => self.bind_pat(&pp.pat, shape),
            _ => {
                let mut names = Vec::new();
                collect_idents(pat, &mut names);
                for n in names {
                    self.bind(n, false);
                }
            }
        }
    }

    fn shape_of(&self, e: &Expr) -> Shape {
        match e {
            Expr::Path(p) if p.qself.is_none() && p.path.segments.len() == 1 => {
                if self.is_view(&p.path.segments[0].ident.to_string()) {
                    Shape::View
                } else {
                    Shape::Plain
                }
            }
            Expr::Macro(m) if m.mac.path.segments.last().is_some_and(|s| s.ident == "shared_array") => Shape::View,
            Expr::Call(c) => match &*c.func {
                Expr::Path(p) if p.path.segments.last().is_some_and(|s| s.ident == "dynamic_shared") => Shape::View,
                // `dynamic_shared_parts::<(A, B)>([n, m])`: a tuple of views, one per part.
                Expr::Path(p) if p.path.segments.last().is_some_and(|s| s.ident == "dynamic_shared_parts") => {
                    match parts_count(p, c) {
                        Some(k) => Shape::Tuple(vec![Shape::View; k]),
                        None => Shape::Plain,
                    }
                }
                Expr::Path(p)
                    if p.path.segments.last().is_some_and(|s| s.ident == "shared_array" || s.ident == "row")
                        && p.path.segments.iter().any(|s| s.ident == "__private") =>
                {
                    Shape::View
                }
                _ => Shape::Plain,
            },
            Expr::Reference(_) | Expr::Index(_) if self.subview(e).is_some() => Shape::View,
            Expr::MethodCall(m)
                if (m.method == "row" || m.method == "cast" || m.method == "slice")
                    && self.shape_of(&m.receiver) == Shape::View =>
            {
                Shape::View
            }
            // `cluster.map_shared_rank(&tile, rank)`: the same array in another block of the
            // cluster (distributed shared memory).
            Expr::MethodCall(m) if m.method == "map_shared_rank" && m.args.len() == 2 => Shape::View,
            // `HITS.view()`: a `#[device_global]` static (an upper-case path).
            Expr::MethodCall(m) if m.method == "view" && m.args.is_empty() && is_static_path(&m.receiver) => {
                Shape::View
            }
            Expr::Paren(p) => self.shape_of(&p.expr),
            Expr::Group(g) => self.shape_of(&g.expr),
            Expr::Tuple(t) => {
                let shapes: Vec<Shape> = t.elems.iter().map(|e| self.shape_of(e)).collect();
                if shapes.iter().all(|s| *s == Shape::Plain) {
                    Shape::Plain
                } else {
                    Shape::Tuple(shapes)
                }
            }
            Expr::Block(b) => self.block_shape(&b.block),
            Expr::If(i) => match &i.else_branch {
                Some((_, e)) => {
                    let a = self.block_shape(&i.then_branch);
                    if a == self.shape_of(e) {
                        a
                    } else {
                        Shape::Plain
                    }
                }
                None => Shape::Plain,
            },
            Expr::Match(m) => {
                let mut shapes = m.arms.iter().map(|a| self.shape_of(&a.body));
                match shapes.next() {
                    Some(first) if shapes.all(|s| s == first) => first,
                    _ => Shape::Plain,
                }
            }
            Expr::Cast(c) => type_shape(&c.ty),
            _ => Shape::Plain,
        }
    }

    fn block_shape(&self, b: &Block) -> Shape {
        match b.stmts.last() {
            Some(Stmt::Expr(e, None)) => self.shape_of(e),
            _ => Shape::Plain,
        }
    }

    /// Whether `e` is an index chain rooted at a view: `v[i]`, `t[r][c]`.
    fn is_view_place(&self, e: &Expr) -> bool {
        match e {
            Expr::Index(ix) => !matches!(strip_group(&ix.index), Expr::Range(_)) && self.is_view_root(&ix.expr),
            Expr::Paren(p) => self.is_view_place(&p.expr),
            _ => false,
        }
    }

    fn is_view_root(&self, e: &Expr) -> bool {
        match e {
            Expr::Path(p) if p.qself.is_none() && p.path.segments.len() == 1 => {
                self.is_view(&p.path.segments[0].ident.to_string())
            }
            Expr::Index(ix) => self.is_view_root(&ix.expr),
            Expr::Paren(p) => self.is_view_root(&p.expr),
            Expr::Field(_) | Expr::MethodCall(_) | Expr::Call(_) => false,
            _ => false,
        }
    }

    /// For `v[a..b]` (or `&v[a..b]`, `&mut v[a..]`, parenthesised) with `v` a view: `v` and
    /// the range. Such an expression is the sub-view `v.slice(a..b)` (CUDA's `&v[a]`).
    fn subview<'e>(&self, e: &'e Expr) -> Option<(&'e Expr, &'e Expr)> {
        match e {
            Expr::Paren(p) => self.subview(&p.expr),
            Expr::Group(g) => self.subview(&g.expr),
            Expr::Reference(r) => self.subview(&r.expr),
            Expr::Index(ix) if matches!(strip_group(&ix.index), Expr::Range(_)) => {
                let root = strip_group(&ix.expr);
                let is_view = matches!(root, Expr::Path(p) if p.qself.is_none() && p.path.segments.len() == 1 && self.is_view(&p.path.segments[0].ident.to_string()));
                is_view.then_some((&*ix.expr, &*ix.index))
            }
            _ => None,
        }
    }

    /// `&v[a..b]` becomes `v.slice(a..b)` (its bounds rewritten first: they may read views).
    fn rewrite_subview(&mut self, e: &mut Expr) {
        let (view, range) = self.subview(e).map(|(v, r)| (v.clone(), r.clone())).expect("checked by the caller");
        let mut range = range;
        self.visit_expr_mut(&mut range);
        let span = e.span();
        *e = syn::parse_quote_spanned!(span=> #view.slice(#range));
        self.changed = true;
    }

    /// Whether `e` is a place inside an element of a view, below the element itself: a field,
    /// a tuple field or an element of an array field of `v[i]` (`v[i].a.b`, `v[i].0`,
    /// `v[i].m[k]`), at any depth.
    fn is_part_place(&self, e: &Expr) -> bool {
        match e {
            Expr::Paren(p) => self.is_part_place(&p.expr),
            Expr::Group(g) => self.is_part_place(&g.expr),
            Expr::Field(f) => self.is_elem_place(&f.base),
            Expr::Index(ix) => !self.is_view_place(e) && self.is_part_place(&ix.expr),
            _ => false,
        }
    }

    /// Whether `e` is an element of a view (`v[i]`, `t[r][c]`) or a place inside one.
    fn is_elem_place(&self, e: &Expr) -> bool {
        self.is_view_place(e) || self.is_part_place(e)
    }

    /// For a place `e` in an element of a view (see [`Self::is_elem_place`]): the view, the
    /// element's index, and the projection from the element (`__emu_e`, a `&mut T`) to the
    /// part, all rewritten; inner indices go through `Index::to_index`, so that a part's
    /// arrays take every integer type as views do.
    fn split_part(&mut self, e: &mut Expr) -> (TokenStream, TokenStream, TokenStream) {
        let mut root = None;
        let proj = self.projection(e, &mut root);
        let (view, index) = root.expect("a part place has an element at its root");
        (view, index, proj)
    }

    fn projection(&mut self, e: &mut Expr, root: &mut Option<(TokenStream, TokenStream)>) -> TokenStream {
        if self.is_view_place(e) {
            *root = Some(self.split_place(e));
            let elem = part_elem();
            return quote!((*#elem));
        }
        match e {
            Expr::Paren(p) => {
                let inner = self.projection(&mut p.expr, root);
                quote!((#inner))
            }
            Expr::Group(g) => self.projection(&mut g.expr, root),
            Expr::Field(f) => {
                let base = self.projection(&mut f.base, root);
                let member = &f.member;
                let dot = &f.dot_token;
                quote!(#base #dot #member)
            }
            Expr::Index(ix) => {
                let base = self.projection(&mut ix.expr, root);
                self.visit_expr_mut(&mut ix.index);
                let index = &ix.index;
                let r = rt(index.span());
                quote_spanned!(ix.bracket_token.span.join()=> #base[#r::Index::to_index(#index)])
            }
            _ => unreachable!("projection is only called on places in elements"),
        }
    }

    /// `part(&view, index, |__emu_e| &mut projection)` for a place in an element.
    fn part_of(&mut self, e: &mut Expr, span: Span) -> TokenStream {
        let (view, index, proj) = self.split_part(e);
        let r = rt(span);
        let elem = part_elem();
        quote_spanned!(span=> #r::part(&#view, #index, |#elem| &mut #proj))
    }

    /// For a view place `base[i]`, returns the view expression (with `row` calls for inner
    /// indices) and the last index, both already rewritten.
    fn split_place(&mut self, e: &mut Expr) -> (TokenStream, TokenStream) {
        match e {
            Expr::Paren(p) => self.split_place(&mut p.expr),
            Expr::Index(ix) => {
                self.visit_expr_mut(&mut ix.index);
                let index = ix.index.to_token_stream();
                let view = self.view_expr(&mut ix.expr);
                (view, index)
            }
            _ => unreachable!("split_place is only called on view places"),
        }
    }

    /// The view an index chain's base denotes: a name, or `row(&t, r)` for `t[r]`.
    fn view_expr(&mut self, e: &mut Expr) -> TokenStream {
        match e {
            Expr::Paren(p) => self.view_expr(&mut p.expr),
            Expr::Index(ix) => {
                let span = ix.span();
                let (inner, index) = self.split_place(e);
                let r = rt(span);
                if self.row_write {
                    quote_spanned!(span=> #r::row_write(&#inner, #index))
                } else {
                    quote_spanned!(span=> #r::row(&#inner, #index))
                }
            }
            other => other.to_token_stream(),
        }
    }

    fn rewrite_macro(&mut self, mac: &mut syn::Macro) {
        if mac.path.segments.last().is_some_and(|s| s.ident == "shared_array" || s.ident == "shared_scalar") {
            return;
        }
        if is_device_launch(mac) {
            return self.device_launch(mac);
        }
        // `println!`/`print!` work on the GPU too, through the device printf.
        if mac.path.is_ident("println") || mac.path.is_ident("print") {
            let span = mac.path.segments[0].ident.span();
            let k = if mac.path.is_ident("println") { "kprintln" } else { "kprint" };
            let k = syn::Ident::new(k, span);
            mac.path = syn::parse_quote_spanned!(span=> ::deviceemu::#k);
        }
        let parser = Punctuated::<Expr, Token![,]>::parse_terminated;
        let Ok(mut args) = syn::parse::Parser::parse2(parser, mac.tokens.clone()) else { return };
        let before = self.changed;
        self.changed = false;
        for a in args.iter_mut() {
            self.visit_expr_mut(a);
        }
        if self.changed {
            mac.tokens = args.to_token_stream();
        }
        self.changed |= before;
    }

    /// `launch!(k<<<..>>>(args))` in a kernel or helper is a device-side launch: its tokens
    /// get the marker `launch_impl!` expands for (`launch.rs`), and its arguments are
    /// rewritten like any expression (`launch!(k<<<1, 1>>>(v, v[i]))`).
    fn device_launch(&mut self, mac: &mut syn::Macro) {
        let mut tokens: Vec<proc_macro2::TokenTree> = mac.tokens.clone().into_iter().collect();
        if let Some(proc_macro2::TokenTree::Group(g)) = tokens.last_mut() {
            if g.delimiter() == proc_macro2::Delimiter::Parenthesis {
                let parser = Punctuated::<Expr, Token![,]>::parse_terminated;
                if let Ok(mut args) = syn::parse::Parser::parse2(parser, g.stream()) {
                    let before = self.changed;
                    self.changed = false;
                    for a in args.iter_mut() {
                        self.visit_expr_mut(a);
                    }
                    if self.changed {
                        let span = g.span();
                        let mut ng =
                            proc_macro2::Group::new(proc_macro2::Delimiter::Parenthesis, args.to_token_stream());
                        ng.set_span(span);
                        *g = ng;
                    }
                    self.changed |= before;
                }
            }
        }
        let marker = proc_macro2::Ident::new("__emu_device_launch", Span::call_site());
        let rest: TokenStream = tokens.into_iter().collect();
        mac.tokens = quote::quote!(#marker ; #rest);
        self.changed = true;
    }

    fn with_scope(&mut self, f: impl FnOnce(&mut Self)) {
        self.scopes.push(Vec::new());
        f(self);
        self.scopes.pop();
    }

    /// Visits an `if`/`while` condition, binding `let` patterns into the current scope.
    fn visit_cond(&mut self, cond: &mut Expr) {
        match cond {
            Expr::Let(l) => {
                self.visit_expr_mut(&mut l.expr);
                let shape = self.shape_of(&l.expr);
                self.bind_pat(&l.pat, if matches!(&*l.pat, Pat::Ident(_)) { &shape } else { &Shape::Plain });
            }
            Expr::Binary(b) if matches!(b.op, BinOp::And(_)) => {
                self.visit_cond(&mut b.left);
                self.visit_cond(&mut b.right);
            }
            other => self.visit_expr_mut(other),
        }
    }
}

/// Whether `mac` is a `launch!(k<<<..>>>(..))` (not yet marked as a device-side launch).
pub(crate) fn is_device_launch(mac: &syn::Macro) -> bool {
    fn triple_lt(t: &[proc_macro2::TokenTree]) -> bool {
        t.windows(3).any(|w| w.iter().all(|x| matches!(x, proc_macro2::TokenTree::Punct(p) if p.as_char() == '<')))
    }
    if mac.path.segments.last().is_none_or(|s| s.ident != "launch") {
        return false;
    }
    let tokens: Vec<proc_macro2::TokenTree> = mac.tokens.clone().into_iter().collect();
    let marked = matches!(tokens.first(), Some(proc_macro2::TokenTree::Ident(i)) if i == "__emu_device_launch");
    !marked && triple_lt(&tokens)
}

fn collect_idents(pat: &Pat, out: &mut Vec<String>) {
    struct C<'a>(&'a mut Vec<String>);
    impl<'ast> syn::visit::Visit<'ast> for C<'_> {
        fn visit_pat_ident(&mut self, i: &'ast syn::PatIdent) {
            self.0.push(i.ident.to_string());
            syn::visit::visit_pat_ident(self, i);
        }
        fn visit_expr(&mut self, _: &'ast Expr) {}
    }
    syn::visit::Visit::visit_pat(&mut C(out), pat);
}

/// Whether a `shared_array!` length is surely not a constant: it reads a local (a lowercase
/// name), a field, a method's result or an element. Calls may be `const fn`s, and paths with
/// several segments or uppercase names are taken for constants.
fn runtime_len(n: &Expr) -> bool {
    match n {
        Expr::Path(p) if p.qself.is_none() && p.path.segments.len() == 1 => {
            p.path.segments[0].ident.to_string().chars().any(|c| c.is_lowercase())
        }
        Expr::Field(_) | Expr::MethodCall(_) | Expr::Index(_) => true,
        Expr::Binary(b) => runtime_len(&b.left) || runtime_len(&b.right),
        Expr::Paren(p) => runtime_len(&p.expr),
        Expr::Group(g) => runtime_len(&g.expr),
        Expr::Cast(c) => runtime_len(&c.expr),
        Expr::Unary(u) => runtime_len(&u.expr),
        _ => false,
    }
}

fn compound_op(op: &BinOp) -> bool {
    compound_to_binary(op).is_some()
}

/// The binary operator of compound assignment `op` (`+` of `+=`).
pub(crate) fn compound_to_binary(op: &syn::BinOp) -> Option<syn::BinOp> {
    use syn::BinOp as B;
    Some(match op {
        B::AddAssign(t) => B::Add(syn::Token![+](t.spans[0])),
        B::SubAssign(t) => B::Sub(syn::Token![-](t.spans[0])),
        B::MulAssign(t) => B::Mul(syn::Token![*](t.spans[0])),
        B::DivAssign(t) => B::Div(syn::Token![/](t.spans[0])),
        B::RemAssign(t) => B::Rem(syn::Token![%](t.spans[0])),
        B::BitAndAssign(t) => B::BitAnd(syn::Token![&](t.spans[0])),
        B::BitOrAssign(t) => B::BitOr(syn::Token![|](t.spans[0])),
        B::BitXorAssign(t) => B::BitXor(syn::Token![^](t.spans[0])),
        B::ShlAssign(t) => B::Shl(syn::Token![<<]([t.spans[0], t.spans[1]])),
        B::ShrAssign(t) => B::Shr(syn::Token![>>]([t.spans[0], t.spans[1]])),
        _ => return None,
    })
}

/// The number of parts of `dynamic_shared_parts::<(A, B, ..)>([n, m, ..])`: the turbofish
/// tuple's length, or else the length array's.
fn parts_count(p: &syn::ExprPath, c: &syn::ExprCall) -> Option<usize> {
    if let Some(seg) = p.path.segments.last() {
        if let syn::PathArguments::AngleBracketed(a) = &seg.arguments {
            if let Some(syn::GenericArgument::Type(Type::Tuple(t))) = a.args.first() {
                return Some(t.elems.len());
            }
        }
    }
    match c.args.first() {
        Some(Expr::Array(a)) => Some(a.elems.len()),
        _ => None,
    }
}

/// The binding `let name = shared_array![..]` (or `let mut name: T = ..`) initialises.
fn shared_binding(pat: &syn::Pat, init: &Expr) -> Option<String> {
    let Expr::Macro(m) = init else { return None };
    if !m.mac.path.segments.last().is_some_and(|s| s.ident == "shared_array" || s.ident == "shared_scalar") {
        return None;
    }
    match pat {
        syn::Pat::Ident(p) => Some(p.ident.to_string()),
        syn::Pat::Type(t) => match &*t.pat {
            syn::Pat::Ident(p) => Some(p.ident.to_string()),
            _ => None,
        },
        _ => None,
    }
}

/// The rewriting of accesses: `e` is a view place (`v[i]`), or an assignment to one.
impl Rewriter {
    /// `call`, made where it is written: in a helper (which is `#[track_caller]` when it calls
    /// a barrier), a closure called on the spot, so that the access's reports name the helper's
    /// line rather than its caller's (closures are never `#[track_caller]`); in a kernel, as
    /// it is.
    fn pinned(&self, span: Span, call: TokenStream) -> TokenStream {
        if self.rewrite_returns {
            call
        } else {
            quote_spanned!(span=> (|| #call)())
        }
    }

    /// `v[i] = value` → `store(checked, &v, i, value)`.
    fn rewrite_store(&mut self, e: &mut Expr) {
        let Expr::Assign(a) = e else { return };
        self.visit_expr_mut(&mut a.right);
        let span = a.left.span();
        self.row_write = true;
        let (view, index) = self.split_place(&mut a.left);
        self.row_write = false;
        let value = &a.right;
        let r = rt(span);
        let v = syn::Ident::new("__emu_value", Span::mixed_site());
        let c = checked();
        let call = self.pinned(span, quote_spanned!(span=> #r::store(#c, &#view, #index, #v)));
        *e = syn::parse_quote_spanned!(span=> { let #v = #value; #call });
        self.changed = true;
        self.accessed = true;
    }

    /// `v[i] op= value` → a load, `op=` and a store, each operand evaluated once.
    fn rewrite_compound(&mut self, e: &mut Expr) {
        let Expr::Binary(b) = e else { return };
        self.visit_expr_mut(&mut b.right);
        let span = b.left.span();
        let (view, index) = self.split_place(&mut b.left);
        let (value, op) = (&b.right, &b.op);
        let r = rt(span);
        let (v, i, w, old) = (
            syn::Ident::new("__emu_value", Span::mixed_site()),
            syn::Ident::new("__emu_index", Span::mixed_site()),
            syn::Ident::new("__emu_view", Span::mixed_site()),
            syn::Ident::new("__emu_old", Span::mixed_site()),
        );
        let c = checked();
        let view = self.pinned(span, view);
        let load = self.pinned(span, quote_spanned!(span=> #r::load(#c, &#w, #i)));
        let store = self.pinned(span, quote_spanned!(span=> #r::store(#c, &#w, #i, #old)));
        *e = syn::parse_quote_spanned!(span=> {
            let #v = #value;
            let #w = #view;
            let #i = #index;
            let mut #old = #load;
            #old #op #v;
            #store
        });
        self.changed = true;
        self.accessed = true;
    }

    /// `v[i]` → `load(checked, &v, i)`.
    fn rewrite_load(&mut self, e: &mut Expr) {
        let span = e.span();
        let (view, index) = self.split_place(e);
        let r = rt(span);
        let c = checked();
        let call = self.pinned(span, quote_spanned!(span=> #r::load(#c, &#view, #index)));
        *e = syn::parse_quote_spanned!(span=> #call);
        self.changed = true;
        self.accessed = true;
    }
}

/// The local a part's projection closure takes: the element, as a `&mut T`.
fn part_elem() -> syn::Ident {
    syn::Ident::new("__emu_e", Span::mixed_site())
}

/// Methods of the primitive numbers that take `self` by value, which a call on an element
/// (`x[i].sqrt()`) reads as a copy of it: `val(load(..)).sqrt()`. `val` only derefs, so a
/// user's method of one of these names that takes `&mut self` is a compile error, never a
/// write to a copy that is thrown away; every other method call on an element goes through a
/// [`PartMut`](::deviceemu::__private::PartMut), which writes the element back when the method
/// borrowed it mutably.
const BY_VALUE_METHODS: [&str; 44] = [
    "abs",
    "sqrt",
    "cbrt",
    "mul_add",
    "exp",
    "exp2",
    "exp_m1",
    "ln",
    "ln_1p",
    "log",
    "log2",
    "log10",
    "sin",
    "cos",
    "tan",
    "asin",
    "acos",
    "atan",
    "atan2",
    "sinh",
    "cosh",
    "tanh",
    "floor",
    "ceil",
    "round",
    "trunc",
    "fract",
    "signum",
    "powi",
    "powf",
    "recip",
    "hypot",
    "min",
    "max",
    "clamp",
    "copysign",
    "to_bits",
    "is_nan",
    "is_finite",
    "count_ones",
    "leading_zeros",
    "trailing_zeros",
    "pow",
    "rem_euclid",
];

/// The rewriting of places inside elements (`v[i].x`, `v[i].m[k]`), method calls on elements,
/// and `&mut` borrows of elements passed to functions (`device/part.rs`).
impl Rewriter {
    /// `v[i].a.b` (read) → `part(&v, i, |e| &mut e.a.b).load(checked)`.
    fn rewrite_part_load(&mut self, e: &mut Expr) {
        let span = e.span();
        let part = self.part_of(e, span);
        let c = checked();
        let call = self.pinned(span, quote_spanned!(span=> #part.load(#c)));
        *e = syn::parse_quote_spanned!(span=> #call);
        self.changed = true;
        self.accessed = true;
    }

    /// `v[i].a.b = value` → `{ let x = value; part(..).store(checked, x) }`.
    fn rewrite_part_store(&mut self, e: &mut Expr) {
        let Expr::Assign(a) = e else { return };
        self.visit_expr_mut(&mut a.right);
        let span = a.left.span();
        self.row_write = true;
        let part = self.part_of(&mut a.left, span);
        self.row_write = false;
        let value = &a.right;
        let v = syn::Ident::new("__emu_value", Span::mixed_site());
        let c = checked();
        let call = self.pinned(span, quote_spanned!(span=> #part.store(#c, #v)));
        *e = syn::parse_quote_spanned!(span=> { let #v = #value; #call });
        self.changed = true;
        self.accessed = true;
    }

    /// `v[i].a.b op= value` → the part read, `op=` and written back, each operand evaluated
    /// once.
    fn rewrite_part_compound(&mut self, e: &mut Expr) {
        let Expr::Binary(b) = e else { return };
        self.visit_expr_mut(&mut b.right);
        let span = b.left.span();
        self.row_write = true;
        let part = self.part_of(&mut b.left, span);
        self.row_write = false;
        let (value, op) = (&b.right, &b.op);
        let (v, p, old) = (
            syn::Ident::new("__emu_value", Span::mixed_site()),
            syn::Ident::new("__emu_part", Span::mixed_site()),
            syn::Ident::new("__emu_old", Span::mixed_site()),
        );
        let c = checked();
        let part = self.pinned(span, part);
        let load = self.pinned(span, quote_spanned!(span=> #p.load(#c)));
        let store = self.pinned(span, quote_spanned!(span=> #p.store(#c, #old)));
        *e = syn::parse_quote_spanned!(span=> {
            let #v = #value;
            let #p = #part;
            let mut #old = #load;
            #old #op #v;
            #store
        });
        self.changed = true;
        self.accessed = true;
    }

    /// A method call on an element or a part of one. Atomic and volatile methods on a row of
    /// an array of arrays (`t[r].atomic_add(c, 1)`) are the row view's. The primitive numbers'
    /// by-value methods read a copy ([`BY_VALUE_METHODS`]). Any other method gets the part
    /// through a `PartMut`, written back after the call if the method borrowed it mutably:
    /// `{ let mut g = part(..).guard(checked, true); let r = (*g).m(args); PartMut::finish(g); r }`.
    fn rewrite_method_on_place(&mut self, e: &mut Expr) {
        let Expr::MethodCall(m) = e else { return };
        let name = m.method.to_string();
        let span = m.receiver.span();
        let r = rt(span);
        if (name.starts_with("atomic_") || name.starts_with("volatile_")) && self.is_view_place(&m.receiver) {
            let (view, index) = self.split_place(&mut m.receiver);
            *m.receiver = syn::parse_quote_spanned!(span=> #r::row(&#view, #index));
            for a in m.args.iter_mut() {
                self.visit_expr_mut(a);
            }
            self.changed = true;
            return;
        }
        if BY_VALUE_METHODS.contains(&name.as_str()) {
            self.visit_expr_mut(&mut m.receiver);
            let recv = &m.receiver;
            *m.receiver = syn::parse_quote_spanned!(span=> #r::val(#recv));
            for a in m.args.iter_mut() {
                self.visit_expr_mut(a);
            }
            self.changed = true;
            return;
        }
        let part = self.part_of(&mut m.receiver, span);
        let g = syn::Ident::new("__emu_guard", Span::mixed_site().located_at(span));
        *m.receiver = syn::parse_quote_spanned!(span=> (*#g));
        let c = checked();
        let guard = self.pinned(span, quote_spanned!(span=> #part.guard(#c, true)));
        let finish = self.pinned(span, quote_spanned!(span=> #r::PartMut::finish(#g)));
        // The arguments (and their own `&mut` borrows of elements) are rewritten inside.
        let mut call = Expr::MethodCall(m.clone());
        self.visit_expr_mut(&mut call);
        let ret = syn::Ident::new("__emu_ret", Span::mixed_site());
        *e = syn::parse_quote_spanned!(span=> {
            #[allow(unused_mut)]
            let mut #g = #guard;
            let #ret = #call;
            #finish;
            #ret
        });
        self.changed = true;
        self.accessed = true;
    }

    /// Whether `a` is `&mut` of an element or of a part of one.
    fn is_mut_borrow_of_place(&self, a: &Expr) -> bool {
        matches!(a, Expr::Reference(r) if r.mutability.is_some() && self.is_elem_place(&r.expr))
    }

    /// A call (of a function or a method) with `&mut` borrows of elements among its arguments
    /// (`swap(&mut v[i], &mut v[j])`, `bump(&mut v[i].a)`): each is a `PartMut` made before the
    /// call and written back after it, so that what the callee writes through the reference
    /// reaches memory, as on a GPU. `e`'s other parts are rewritten as usual.
    fn rewrite_mut_args(&mut self, e: &mut Expr) {
        let span = e.span();
        let args = match e {
            Expr::Call(c) => &mut c.args,
            Expr::MethodCall(m) => &mut m.args,
            _ => return,
        };
        let mut guards = Vec::new();
        let indices: Vec<usize> =
            args.iter().enumerate().filter(|(_, a)| self.is_mut_borrow_of_place(a)).map(|(k, _)| k).collect();
        for k in indices {
            let arg = args.iter_mut().nth(k).expect("an argument");
            let Expr::Reference(rf) = arg else { continue };
            let aspan = rf.span();
            let part = self.part_of(&mut rf.expr, aspan);
            let g = quote::format_ident!("__emu_arg{}", guards.len(), span = Span::mixed_site().located_at(aspan));
            let c = checked();
            // The callee may only write: its read of the copy is not a read of memory that
            // initcheck or racecheck should see.
            let guard = self.pinned(aspan, quote_spanned!(aspan=> #part.guard(#c, false)));
            *arg = syn::parse_quote_spanned!(aspan=> &mut *#g);
            guards.push((g, guard, aspan));
        }
        // The call itself, its receiver and other arguments included.
        match &mut *e {
            Expr::Call(c) => self.visit_call(c),
            Expr::MethodCall(m) if self.is_elem_place(&m.receiver) => self.rewrite_method_on_place(e),
            other => visit_mut::visit_expr_mut(self, other),
        }
        let call = &*e;
        let ret = syn::Ident::new("__emu_ret", Span::mixed_site());
        let lets = guards.iter().map(|(g, guard, aspan)| quote_spanned!(*aspan=> let mut #g = #guard;));
        let finishes = guards.iter().map(|(g, _, aspan)| {
            let r = rt(*aspan);
            self.pinned(*aspan, quote_spanned!(*aspan=> #r::PartMut::finish(#g)))
        });
        *e = syn::parse_quote_spanned!(span=> {
            #(#lets)*
            let #ret = #call;
            #(#finishes;)*
            #ret
        });
        self.changed = true;
        self.accessed = true;
    }

    /// A call's arguments: a view passed to a function goes through `pass`, which is the view
    /// itself where the parameter is a view (a `#[device]` helper's) and, where it is
    /// something else (a plain helper's `&[T]`), an error saying to add `#[device]`.
    fn visit_call(&mut self, c: &mut syn::ExprCall) {
        // `dynamic_shared_parts::<P>(lens)` → the runtime's own path, which the barrier
        // regions (`fission`) know makes no thread wait.
        if let Expr::Path(p) = &mut *c.func {
            let internal = p.path.segments.iter().any(|s| s.ident == "__private");
            let last = p.path.segments.last().cloned().filter(|s| s.ident == "dynamic_shared_parts" && !internal);
            if let Some(seg) = last {
                let span = seg.ident.span();
                let r = rt(span);
                let args = &seg.arguments;
                p.path = syn::parse_quote_spanned!(span=> #r::dynamic_shared_parts #args);
                self.changed = true;
            }
        }
        if passes_views(c) && !self.calls_a_local(c) {
            for arg in c.args.iter_mut() {
                if self.shape_of(arg) == Shape::View {
                    let span = arg.span();
                    let r = rt(span);
                    *arg = syn::parse_quote_spanned!(span=> #r::pass(#arg));
                }
            }
        }
        visit_mut::visit_expr_call_mut(self, c);
    }

    /// `&mut v[i]` anywhere but as an argument of a call: a reference into device memory kept
    /// past one call cannot write through. An error that says what to write instead, and an
    /// expression of the same type (a reference to a copy), so that no second error follows.
    fn refuse_mut_borrow(&mut self, e: &mut Expr) {
        let Expr::Reference(rf) = e else { return };
        self.errors.push(syn::Error::new_spanned(
            &*rf,
            "a `&mut` reference into device memory can only be passed straight to a function or method \
             (`f(&mut v[i])`, `v[i].bump()`), which writes the element back when the call returns; \
             to change an element over several statements, copy it, change the copy and store it \
             (`let mut e = v[i]; e.x += 1.0; v[i] = e;`), or write its fields in place (`v[i].x += 1.0`)",
        ));
        let span = rf.span();
        let part = self.part_of(&mut rf.expr, span);
        let c = checked();
        *e = syn::parse_quote_spanned!(span=> &mut #part.load(#c));
        self.changed = true;
        self.accessed = true;
    }
}

/// Writes to statics.
impl Rewriter {
    /// The static a place is rooted in (`SCALE` of `SCALE[i]`, `P` of `P.x`), when it names
    /// one by Rust's convention and is not a view.
    fn static_root(&self, e: &Expr) -> Option<Expr> {
        match e {
            Expr::Index(i) => self.static_root(&i.expr),
            Expr::Field(f) => self.static_root(&f.base),
            Expr::Paren(p) => self.static_root(&p.expr),
            Expr::Path(p) if is_static_path(e) && !p.path.get_ident().is_some_and(|i| self.is_view(&i.to_string())) => {
                Some(e.clone())
            }
            _ => None,
        }
    }

    /// A write to a static (`SCALE[0] = x`, `P.x += 1.0`) is checked not to be a `#[constant]`:
    /// `{ check(SCALE); SCALE[0] = x }`, whose check fails to compile, with a message that says
    /// what to do, for a constant (`__private::WriteToStatic`).
    fn check_static_write(&mut self, e: &mut Expr, root: Expr, left_span: Span) {
        visit_mut::visit_expr_mut(self, e);
        let r = rt(left_span);
        let check = quote_spanned!(left_span=> #root.__emu_write_to());
        *e = syn::parse_quote_spanned! {left_span=> {
            #[allow(unused_imports)]
            use #r::WriteToStatic as _;
            #check;
            #e
        }};
        self.changed = true;
    }
}

impl VisitMut for Rewriter {
    fn visit_block_mut(&mut self, b: &mut Block) {
        self.with_scope(|s| {
            for stmt in &mut b.stmts {
                s.visit_stmt_mut(stmt);
            }
        });
    }

    fn visit_stmt_mut(&mut self, stmt: &mut Stmt) {
        match stmt {
            Stmt::Local(local) => {
                let mut shape = Shape::Plain;
                if let Some(init) = &mut local.init {
                    shape = self.shape_of(&init.expr);
                    self.shared_binding = shared_binding(&local.pat, &init.expr);
                    self.visit_expr_mut(&mut init.expr);
                    if let Some((_, diverge)) = &mut init.diverge {
                        self.visit_expr_mut(diverge);
                    }
                }
                for attr in &mut local.attrs {
                    self.visit_attribute_mut(attr);
                }
                self.bind_pat(&local.pat, &shape);
            }
            Stmt::Item(_) => {} // nested items do not see the body's locals
            Stmt::Macro(m) => self.rewrite_macro(&mut m.mac),
            Stmt::Expr(e, _) => self.visit_expr_mut(e),
        }
    }

    fn visit_expr_mut(&mut self, e: &mut Expr) {
        match e {
            Expr::Reference(_) | Expr::Index(_) if self.subview(e).is_some() => self.rewrite_subview(e),
            Expr::Assign(a) if self.static_root(&a.left).is_some() => {
                let (root, span) = (self.static_root(&a.left).expect("checked"), a.left.span());
                self.check_static_write(e, root, span)
            }
            Expr::Binary(b) if compound_op(&b.op) && self.static_root(&b.left).is_some() => {
                let (root, span) = (self.static_root(&b.left).expect("checked"), b.left.span());
                self.check_static_write(e, root, span)
            }
            Expr::Assign(a) if self.is_view_place(&a.left) => self.rewrite_store(e),
            Expr::Binary(b) if compound_op(&b.op) && self.is_view_place(&b.left) => self.rewrite_compound(e),
            Expr::Index(_) if self.is_view_place(e) => self.rewrite_load(e),
            Expr::Assign(a) if self.is_part_place(&a.left) => self.rewrite_part_store(e),
            Expr::Binary(b) if compound_op(&b.op) && self.is_part_place(&b.left) => self.rewrite_part_compound(e),
            Expr::Field(_) | Expr::Index(_) if self.is_part_place(e) => self.rewrite_part_load(e),
            Expr::Call(c) if c.args.iter().any(|a| self.is_mut_borrow_of_place(a)) => self.rewrite_mut_args(e),
            Expr::MethodCall(m) if m.args.iter().any(|a| self.is_mut_borrow_of_place(a)) => self.rewrite_mut_args(e),
            Expr::MethodCall(m) if self.is_elem_place(&m.receiver) => self.rewrite_method_on_place(e),
            Expr::Reference(r) if r.mutability.is_some() && self.is_elem_place(&r.expr) => self.refuse_mut_borrow(e),
            Expr::Call(c) => self.visit_call(c),
            Expr::Closure(c) => {
                self.closure_depth += 1;
                self.with_scope(|s| {
                    for p in &c.inputs {
                        s.bind_pat(p, &Shape::Plain);
                    }
                    s.visit_expr_mut(&mut c.body);
                });
                self.closure_depth -= 1;
            }
            Expr::ForLoop(f) => {
                self.visit_expr_mut(&mut f.expr);
                self.with_scope(|s| {
                    s.bind_pat(&f.pat, &Shape::Plain);
                    s.visit_block_mut(&mut f.body);
                });
            }
            Expr::Match(m) => {
                self.visit_expr_mut(&mut m.expr);
                for arm in &mut m.arms {
                    self.with_scope(|s| {
                        s.bind_pat(&arm.pat, &Shape::Plain);
                        if let Some((_, g)) = &mut arm.guard {
                            s.visit_expr_mut(g);
                        }
                        s.visit_expr_mut(&mut arm.body);
                    });
                }
            }
            Expr::If(i) => {
                self.with_scope(|s| {
                    s.visit_cond(&mut i.cond);
                    s.visit_block_mut(&mut i.then_branch);
                });
                if let Some((_, els)) = &mut i.else_branch {
                    self.visit_expr_mut(els);
                }
            }
            Expr::While(w) => {
                self.with_scope(|s| {
                    s.visit_cond(&mut w.cond);
                    s.visit_block_mut(&mut w.body);
                });
            }
            Expr::Macro(m) if m.mac.path.segments.last().is_some_and(|s| s.ident == "shared_array") => {
                self.rewrite_shared_array(e)
            }
            Expr::Macro(m) if m.mac.path.segments.last().is_some_and(|s| s.ident == "shared_scalar") => {
                self.rewrite_shared_scalar(e)
            }
            Expr::Macro(m) => self.rewrite_macro(&mut m.mac),
            Expr::Return(ret) if self.rewrite_returns && self.closure_depth == 0 => {
                if let Some(inner) = &mut ret.expr {
                    self.visit_expr_mut(inner);
                }
                let span = ret.return_token.span;
                let r = rt(span);
                *e = match &ret.expr {
                    // A kernel returns nothing: `let () = ..` keeps the compiler's error for a
                    // value.
                    Some(inner) => syn::parse_quote_spanned!(span=> { let () = #inner; return #r::exit_here() }),
                    None => syn::parse_quote_spanned!(span=> return #r::exit_here()),
                };
            }
            _ => visit_mut::visit_expr_mut(self, e),
        }
    }

    fn visit_item_mut(&mut self, _: &mut syn::Item) {}
}

/// The name, in a rewritten body, of the flag that says whether accesses are checked: a const
/// parameter of a kernel's host form, a `const` in its GPU form, a local in a `#[device]`
/// helper (the emitters in `emit/` define each).
pub(crate) fn checked() -> syn::Ident {
    syn::Ident::new("__EMU_CHECKED", Span::mixed_site())
}

/// Rewrites `block` with `views` in scope; returns the errors found, and whether it wrote a
/// checked access.
pub(crate) fn rewrite_block(
    block: &mut Block,
    views: Vec<(String, bool)>,
    kernel: bool,
    fn_name: &str,
) -> (Vec<syn::Error>, bool) {
    // A hash of the function's tokens keeps `.shared` names of same-named functions in
    // different crates or modules apart in the linked PTX module.
    let text = quote!(#block).to_string();
    let hash = text.bytes().fold(0xcbf2_9ce4_8422_2325u64, |h, b| (h ^ b as u64).wrapping_mul(0x100_0000_01b3));
    let prefix = format!("__emu_shared_{fn_name}_{hash:016x}");
    let mut r = Rewriter::new(views, kernel, prefix);
    r.visit_block_mut(block);
    (r.errors, r.accessed)
}

/// `e` without the invisible groups a `macro_rules!` expansion wraps around its fragments.
fn strip_group(e: &Expr) -> &Expr {
    match e {
        Expr::Group(g) => strip_group(&g.expr),
        _ => e,
    }
}
