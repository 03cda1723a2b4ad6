//! The kernel's own expression macros written out for fission. CUDA code ported as written
//! keeps its `#define`s of index arithmetic (`#define Index3D(nx,ny,i,j,k)
//! ((i)+(nx)*((j)+(ny)*(k)))`, `UMAD(a, b, c)`) as `macro_rules!` next to the kernel. A proc
//! macro sees a call of one only as tokens, so fission could not tell whether it waits, and
//! its analyses stopped there.
//!
//! This pass finds the `macro_rules!` of the kernel's own source file (`Span::local_file`, read
//! and parsed once per file and compilation; kept as text, as a `proc_macro` token lives for
//! one expansion only) and writes out each call of a macro that is *simple*, in the region
//! form's copy of a kernel body (`fission::lower`) and in the copy of a helper's body that
//! `fission/helpers.rs` classifies. The per-thread forms and the GPU form keep the call (so
//! the macro stays used, and reports inside its arguments keep their place). Simple means:
//!
//! * every rule's matcher is empty or a comma-separated list of `$name:expr`, `$name:ident`,
//!   `$name:literal` or `$name:tt` (no repetitions, no other tokens);
//! * its transcriber uses no `$crate`, no repetition, and binds or runs nothing (`let`,
//!   closures, `match`, loops, items): what it expands to is one expression;
//! * no identifier of the transcriber other than its `$` fragments is a name the function
//!   binds (a parameter or a local): those resolve at the macro's definition, where a local of
//!   the kernel is not visible (hygiene), and writing the macro out would change what they name;
//! * the call's arguments are arithmetic on names, literals, fields and calls of the index
//!   built-ins (`thread_idx()`, ..): the body it sits in has been rewritten already
//!   (`rewrite.rs`), which left the tokens of the call alone, so an access written out of
//!   an argument would not be a checked one.
//!
//! A call is expanded as rustc would: the first rule whose matcher takes the arguments
//! (`expr` arguments parsed as expressions and kept as one, so `UMUL!(a + b, c)` is `(a + b) *
//! c`), the fragments substituted, nested calls of simple macros expanded in turn (16 deep at
//! most). A macro defined twice in the file (two modules), or defined elsewhere, is left as it
//! is; fission then keeps the general path for it (`fission/mod.rs`, `check_macro`).
//!
//! The macros defined in the body itself are a second pass, [`body`], which runs before the
//! body is rewritten and changes every form of the function.

use std::cell::RefCell;
use std::collections::{HashMap, HashSet};
use std::path::PathBuf;
use std::rc::Rc;

use proc_macro2::{Delimiter, Group, Span, TokenStream, TokenTree};
use syn::parse::Parser;
use syn::punctuated::Punctuated;
use syn::spanned::Spanned;
use syn::visit::Visit;
use syn::visit_mut::VisitMut;
use syn::{Block, Expr, Token};

/// A fragment kind of a matcher.
#[derive(Clone, Copy, PartialEq, Debug)]
enum Frag {
    Expr,
    Ident,
    Literal,
    Tt,
}

/// One rule: its fragments, in order, and its transcriber (as text: see the module's doc).
#[derive(Clone, Debug)]
struct Rule {
    params: Vec<(String, Frag)>,
    body: String,
}

/// The simple macros of one file, by name (`None`: defined twice, or not simple).
type Macros = HashMap<String, Option<Rc<Vec<Rule>>>>;

thread_local! {
    static FILES: RefCell<HashMap<PathBuf, Rc<Macros>>> = RefCell::new(HashMap::new());
}

/// Writes out the calls of the source file's simple macros in `block` (a `#[kernel]` or
/// `#[device]` body whose function binds `bound`). Outside a real macro expansion (unit
/// tests), or when the file cannot be read, nothing changes.
pub(crate) fn expand(block: &mut Block, sig: &syn::Signature) {
    if !proc_macro::is_available() {
        return;
    }
    let Some(file) = proc_macro::Span::call_site().local_file() else { return };
    let macros = FILES.with(|f| f.borrow_mut().entry(file.clone()).or_insert_with(|| Rc::new(read(&file))).clone());
    expand_with(block, sig, &macros);
}

/// The simple macros of the file at `path`.
fn read(path: &PathBuf) -> Macros {
    let Ok(text) = std::fs::read_to_string(path) else { return Macros::new() };
    let Ok(file) = syn::parse_file(&text) else { return Macros::new() };
    let mut found = Found(Macros::new());
    found.visit_file(&file);
    found.0
}

struct Found(Macros);

impl<'a> Visit<'a> for Found {
    fn visit_item_macro(&mut self, m: &'a syn::ItemMacro) {
        if let (Some(name), true) = (&m.ident, m.mac.path.is_ident("macro_rules")) {
            let rules = rules(m.mac.tokens.clone(), false).map(Rc::new);
            let name = name.to_string();
            // Twice in the file: a call cannot tell which one is in scope.
            let entry = if self.0.contains_key(&name) { None } else { rules };
            self.0.insert(name, entry);
        }
    }
}

/// A `macro_rules!` body's rules, if every one is simple (`statements`: its transcriber may
/// also be statements, as a body's own macro may: see [`body`]).
fn rules(tokens: TokenStream, statements: bool) -> Option<Vec<Rule>> {
    let mut out = Vec::new();
    let mut it = tokens.into_iter().peekable();
    while it.peek().is_some() {
        let Some(TokenTree::Group(matcher)) = it.next() else { return None };
        match (it.next(), it.next()) {
            (Some(TokenTree::Punct(a)), Some(TokenTree::Punct(b))) if a.as_char() == '=' && b.as_char() == '>' => {}
            _ => return None,
        }
        let Some(TokenTree::Group(body)) = it.next() else { return None };
        if matches!(it.peek(), Some(TokenTree::Punct(p)) if p.as_char() == ';') {
            it.next();
        }
        let params = matcher_params(matcher.stream())?;
        let body = body.stream();
        if !simple_transcriber(&body, statements) {
            return None;
        }
        out.push(Rule { params, body: body.to_string() });
    }
    (!out.is_empty()).then_some(out)
}

/// `$a:expr, $b:ident, ..` (an optional trailing comma).
fn matcher_params(tokens: TokenStream) -> Option<Vec<(String, Frag)>> {
    let toks: Vec<TokenTree> = tokens.into_iter().collect();
    let mut params = Vec::new();
    let mut i = 0;
    while i < toks.len() {
        let (
            TokenTree::Punct(d),
            Some(TokenTree::Ident(name)),
            Some(TokenTree::Punct(c)),
            Some(TokenTree::Ident(kind)),
        ) = (&toks[i], toks.get(i + 1), toks.get(i + 2), toks.get(i + 3))
        else {
            return None;
        };
        if d.as_char() != '$' || c.as_char() != ':' {
            return None;
        }
        let frag = match kind.to_string().as_str() {
            "expr" => Frag::Expr,
            "ident" => Frag::Ident,
            "literal" => Frag::Literal,
            "tt" => Frag::Tt,
            _ => return None,
        };
        params.push((name.to_string(), frag));
        i += 4;
        match toks.get(i) {
            None => {}
            Some(TokenTree::Punct(p)) if p.as_char() == ',' => i += 1,
            _ => return None,
        }
    }
    Some(params)
}

/// Whether a transcriber is one expression that binds nothing: no `$crate`, no repetition,
/// no `let`, `|`-closure, `match`, `macro_rules`, `fn` or other item keyword.
fn simple_transcriber(tokens: &TokenStream, statements: bool) -> bool {
    let toks: Vec<TokenTree> = tokens.clone().into_iter().collect();
    for (i, t) in toks.iter().enumerate() {
        match t {
            TokenTree::Group(g) => {
                if !simple_transcriber(&g.stream(), statements) {
                    return false;
                }
            }
            TokenTree::Ident(id) => {
                let s = id.to_string();
                if [
                    "let",
                    "match",
                    "macro_rules",
                    "fn",
                    "struct",
                    "enum",
                    "impl",
                    "static",
                    "const",
                    "mod",
                    "use",
                    "move",
                    "async",
                    "loop",
                    "while",
                    "for",
                    "return",
                    "break",
                    "continue",
                ]
                .contains(&s.as_str())
                {
                    return false;
                }
            }
            TokenTree::Punct(p) => {
                let c = p.as_char();
                if c == '|' || (c == ';' && !statements) || c == '\'' {
                    // A closure (or `||`), or a statement: not one plain expression. (A `|`
                    // between operands is an or; rare in index macros, and safe to decline.)
                    // A label (`'a`) is hygienic: declined too.
                    return false;
                }
                if c == '$' {
                    match toks.get(i + 1) {
                        Some(TokenTree::Ident(id)) if id != "crate" => {}
                        _ => return false,
                    }
                }
            }
            TokenTree::Literal(_) => {}
        }
    }
    true
}

/// The names a function binds: its parameters and every identifier pattern of its body.
fn bound_names(block: &Block, sig: &syn::Signature) -> HashSet<String> {
    struct Names(HashSet<String>);
    impl<'a> Visit<'a> for Names {
        fn visit_pat_ident(&mut self, p: &'a syn::PatIdent) {
            self.0.insert(p.ident.to_string());
            syn::visit::visit_pat_ident(self, p);
        }
    }
    let mut n = Names(HashSet::new());
    for input in &sig.inputs {
        n.visit_fn_arg(input);
    }
    n.visit_block(block);
    n.0
}

fn expand_with(block: &mut Block, sig: &syn::Signature, macros: &Macros) {
    if macros.values().all(Option::is_none) {
        return;
    }
    let bound = bound_names(block, sig);
    let mut e = Expander { macros, bound, depth: 0 };
    e.visit_block_mut(block);
}

struct Expander<'a> {
    macros: &'a Macros,
    bound: HashSet<String>,
    depth: usize,
}

impl Expander<'_> {
    /// The expansion of `m`, if it is a call of a simple macro whose rules take its arguments.
    fn expansion(&self, m: &syn::Macro) -> Option<Expr> {
        let rules = self.macros.get(&m.path.get_ident()?.to_string())?.as_ref()?;
        let (body, tokens) = call(rules, m, arithmetic)?;
        // Hygiene: an identifier of the transcriber that the function binds would name
        // the function's local once written out, not what the macro's definition sees.
        if idents(&body).iter().any(|i| self.bound.contains(i)) {
            return None;
        }
        syn::parse2::<Expr>(tokens).ok()
    }
}

/// Call `m` written out by the first of `rules` whose matcher takes its arguments (an `expr`
/// argument parses as an expression that `expr_fits` accepts, and is kept as one operand):
/// that rule's transcriber, and what it transcribes to, its own tokens spanned at the call.
fn call(rules: &[Rule], m: &syn::Macro, expr_fits: impl Fn(&Expr) -> bool) -> Option<(TokenStream, TokenStream)> {
    let args: Vec<TokenStream> = split_commas(m.tokens.clone());
    for rule in rules {
        if rule.params.len() != args.len() {
            continue;
        }
        let mut subst = HashMap::new();
        let ok = rule.params.iter().zip(&args).all(|((n, frag), a)| {
            let fits = match frag {
                Frag::Expr => syn::parse2::<Expr>(a.clone()).is_ok_and(|e| expr_fits(&e)),
                Frag::Ident => syn::parse2::<syn::Ident>(a.clone()).is_ok(),
                Frag::Literal => syn::parse2::<syn::Lit>(a.clone()).is_ok(),
                Frag::Tt => a.clone().into_iter().count() == 1,
            };
            if fits {
                let toks = if *frag == Frag::Expr { paren(a.clone()) } else { a.clone() };
                subst.insert(n.clone(), toks);
            }
            fits
        });
        if !ok {
            continue;
        }
        let body: TokenStream = rule.body.parse().ok()?;
        let tokens = transcribe(&body, &subst, m.path.span())?;
        return Some((body, tokens));
    }
    None
}

impl VisitMut for Expander<'_> {
    fn visit_expr_mut(&mut self, e: &mut Expr) {
        if let Expr::Macro(m) = e {
            if self.depth < 16 {
                if let Some(mut x) = self.expansion(&m.mac) {
                    self.depth += 1;
                    self.visit_expr_mut(&mut x);
                    self.depth -= 1;
                    *e = x;
                    return;
                }
            }
        }
        syn::visit_mut::visit_expr_mut(self, e);
    }
    fn visit_stmt_mut(&mut self, s: &mut syn::Stmt) {
        // `UMAD!(..);` as a statement of its own: an expression statement once written out.
        if let syn::Stmt::Macro(m) = s {
            if m.attrs.is_empty() && self.depth < 16 {
                if let Some(x) = self.expansion(&m.mac) {
                    *s = syn::Stmt::Expr(x, m.semi_token);
                }
            }
        }
        syn::visit_mut::visit_stmt_mut(self, s);
    }
    fn visit_item_mut(&mut self, _: &mut syn::Item) {}
}

/// Whether `e` is arithmetic on names, literals, fields, the index built-ins and simple
/// macros' calls (which are expanded, or else left for fission to decline).
fn arithmetic(e: &Expr) -> bool {
    match e {
        Expr::Lit(_) | Expr::Path(_) | Expr::Macro(_) => true,
        Expr::Field(f) => arithmetic(&f.base),
        Expr::Binary(b) => arithmetic(&b.left) && arithmetic(&b.right),
        Expr::Unary(u) => !matches!(u.op, syn::UnOp::Deref(_)) && arithmetic(&u.expr),
        Expr::Cast(c) => arithmetic(&c.expr),
        Expr::Paren(p) => arithmetic(&p.expr),
        Expr::Group(g) => arithmetic(&g.expr),
        Expr::Call(c) => {
            c.args.is_empty()
                && matches!(&*c.func, Expr::Path(p) if p.path.segments.last().is_some_and(|s| {
                    ["thread_idx", "block_idx", "block_dim", "grid_dim", "warp_size", "lane_id"].iter().any(|n| s.ident == n)
                }))
        }
        _ => false,
    }
}

/// The top-level comma-separated parts of a macro call's tokens (a trailing comma dropped).
fn split_commas(tokens: TokenStream) -> Vec<TokenStream> {
    if tokens.is_empty() {
        return Vec::new();
    }
    // Commas inside generic arguments (`f::<A, B>(x)`) are not top-level for an expression:
    // let syn split where it can, and fall back to plain commas.
    if let Ok(p) = Punctuated::<Expr, Token![,]>::parse_terminated.parse2(tokens.clone()) {
        return p.into_iter().map(|e| quote::quote!(#e)).collect();
    }
    let mut parts = vec![TokenStream::new()];
    for t in tokens {
        match &t {
            TokenTree::Punct(p) if p.as_char() == ',' => parts.push(TokenStream::new()),
            _ => parts.last_mut().expect("one part at least").extend([t]),
        }
    }
    if parts.last().is_some_and(TokenStream::is_empty) {
        parts.pop();
    }
    parts
}

/// `(tokens)`, unless they are one token tree already (a name, a literal, a group).
fn paren(tokens: TokenStream) -> TokenStream {
    if tokens.clone().into_iter().count() == 1 {
        return tokens;
    }
    TokenStream::from(TokenTree::Group(Group::new(Delimiter::Parenthesis, tokens)))
}

/// The identifiers of a transcriber that are not `$` fragments.
fn idents(tokens: &TokenStream) -> Vec<String> {
    let mut out = Vec::new();
    let mut dollar = false;
    for t in tokens.clone() {
        match &t {
            TokenTree::Group(g) => out.extend(idents(&g.stream())),
            TokenTree::Ident(i) if !dollar => out.push(i.to_string()),
            _ => {}
        }
        dollar = matches!(&t, TokenTree::Punct(p) if p.as_char() == '$');
    }
    out
}

/// The transcriber with its fragments substituted, its own tokens spanned at the call.
fn transcribe(body: &TokenStream, subst: &HashMap<String, TokenStream>, span: Span) -> Option<TokenStream> {
    let mut out = TokenStream::new();
    let mut it = body.clone().into_iter();
    while let Some(t) = it.next() {
        match t {
            TokenTree::Punct(p) if p.as_char() == '$' => {
                let Some(TokenTree::Ident(name)) = it.next() else { return None };
                out.extend(subst.get(&name.to_string())?.clone());
            }
            TokenTree::Group(g) => {
                let mut n = Group::new(g.delimiter(), transcribe(&g.stream(), subst, span)?);
                n.set_span(span);
                out.extend([TokenTree::Group(n)]);
            }
            mut t => {
                t.set_span(span);
                out.extend([t]);
            }
        }
    }
    Some(out)
}

// ---------------------------------------------------------------------------------------------
// The body's own macros.

/// Writes out, in every form of the function, the calls of the `macro_rules!` defined in its
/// own body (CUDA's `#define SUM(s) if (tid < s) { Avg[tid] += Avg[tid + s]; }` ported next to
/// the code that uses it), before the body is rewritten: an index of a view in the macro's
/// transcriber is then an access like any other, where left as tokens it was not one (rustc's
/// "cannot index into a value of type `View`"), and fission sees the code.
///
/// A macro is written out when its rules are simple as the file's are (see the module's doc),
/// its transcriber may also be statements, and writing it out cannot change what its names
/// mean: each identifier of the transcriber that the function binds is bound once in the
/// function, and visible where the macro is defined (so the call, later in the same block,
/// sees the same binding). A call becomes the transcriber with its fragments substituted, in
/// a block of its own when it is statements; its tokens take the call's span, as rustc places
/// what a macro expands to at its call. A definition all of whose calls were written out is
/// dropped; the others are left as they are.
pub(crate) fn body(block: &mut Block, sig: &syn::Signature) {
    let mut counts: HashMap<String, usize> = HashMap::new();
    {
        struct Count<'a>(&'a mut HashMap<String, usize>);
        impl<'a> Visit<'a> for Count<'_> {
            fn visit_pat_ident(&mut self, p: &'a syn::PatIdent) {
                *self.0.entry(p.ident.to_string()).or_default() += 1;
                syn::visit::visit_pat_ident(self, p);
            }
            fn visit_item(&mut self, _: &'a syn::Item) {}
        }
        let mut c = Count(&mut counts);
        for input in &sig.inputs {
            c.visit_fn_arg(input);
        }
        c.visit_block(block);
    }
    let mut params = Vec::new();
    for input in &sig.inputs {
        if let syn::FnArg::Typed(pt) = input {
            pat_idents(&pt.pat, &mut params);
        }
    }
    let mut b = BodyMacros { counts, scopes: vec![params], defs: vec![Vec::new()], expanded: HashSet::new(), depth: 0 };
    b.block(block);
    // Drop the definitions whose every call was written out.
    let mut left = HashSet::new();
    UsedMacros(&mut left).visit_block(block);
    drop_defs(block, &b.expanded, &left);
}

/// A body macro in scope: its rules (`None`: not written out).
struct BodyDef {
    name: String,
    rules: Option<Rc<Vec<Rule>>>,
}

struct BodyMacros {
    /// How many times the function binds each name.
    counts: HashMap<String, usize>,
    /// The names bound so far, per enclosing block.
    scopes: Vec<Vec<String>>,
    /// The macros defined so far, per enclosing block (a later one hides an earlier one).
    defs: Vec<Vec<BodyDef>>,
    /// The macros at least one call of which was written out.
    expanded: HashSet<String>,
    depth: usize,
}

impl BodyMacros {
    fn block(&mut self, b: &mut Block) {
        self.scopes.push(Vec::new());
        self.defs.push(Vec::new());
        for s in std::mem::take(&mut b.stmts) {
            self.stmt_into(s, &mut b.stmts);
        }
        self.scopes.pop();
        self.defs.pop();
    }

    /// Statement `s`, written out into `out`: a call of a body macro in statement position
    /// becomes the transcriber's statements, in the enclosing block (a transcriber binds
    /// nothing, so they need no block of their own), the call's `;` ending the last.
    fn stmt_into(&mut self, mut s: syn::Stmt, out: &mut Vec<syn::Stmt>) {
        if let syn::Stmt::Macro(m) = &s {
            if m.attrs.is_empty() {
                if let Some(mut stmts) = self.expansion(&m.mac) {
                    if let (Some(semi), Some(syn::Stmt::Expr(_, end @ None))) = (m.semi_token, stmts.last_mut()) {
                        *end = Some(semi);
                    }
                    self.depth += 1;
                    for x in stmts {
                        self.stmt_into(x, out);
                    }
                    self.depth -= 1;
                    return;
                }
            }
        }
        self.stmt(&mut s);
        out.push(s);
    }

    fn stmt(&mut self, s: &mut syn::Stmt) {
        match s {
            syn::Stmt::Item(syn::Item::Macro(m)) if m.mac.path.is_ident("macro_rules") => {
                let Some(name) = m.ident.as_ref().map(|i| i.to_string()) else { return };
                let rules = rules(m.mac.tokens.clone(), true).filter(|rules| self.hygienic(rules)).map(Rc::new);
                self.defs.last_mut().expect("in a block").push(BodyDef { name, rules });
            }
            syn::Stmt::Local(l) => {
                if let Some(init) = &mut l.init {
                    self.expr(&mut init.expr);
                    if let Some((_, d)) = &mut init.diverge {
                        self.expr(d);
                    }
                }
                let mut names = Vec::new();
                pat_idents(&l.pat, &mut names);
                self.scopes.last_mut().expect("in a block").extend(names);
            }
            syn::Stmt::Expr(e, _) => self.expr(e),
            _ => {}
        }
    }

    fn expr(&mut self, e: &mut Expr) {
        struct V<'a>(&'a mut BodyMacros);
        impl VisitMut for V<'_> {
            fn visit_expr_mut(&mut self, e: &mut Expr) {
                if let Expr::Macro(m) = e {
                    if let Some(stmts) = self.0.expansion(&m.mac) {
                        let span = m.mac.path.span();
                        let mut x = match (stmts.len(), stmts.first()) {
                            (1, Some(syn::Stmt::Expr(x, None))) => paren_expr(x.clone()),
                            _ => block_expr(stmts, span),
                        };
                        self.0.depth += 1;
                        self.visit_expr_mut(&mut x);
                        self.0.depth -= 1;
                        *e = x;
                        return;
                    }
                }
                syn::visit_mut::visit_expr_mut(self, e);
            }
            fn visit_block_mut(&mut self, b: &mut Block) {
                self.0.block(b);
            }
            fn visit_item_mut(&mut self, _: &mut syn::Item) {}
        }
        V(self).visit_expr_mut(e);
    }

    /// Whether writing out a macro defined here keeps what its transcriber's names mean.
    fn hygienic(&self, rules: &[Rule]) -> bool {
        rules.iter().all(|r| {
            let Ok(body) = r.body.parse::<TokenStream>() else { return false };
            idents(&body).iter().all(|i| match self.counts.get(i) {
                None => true,
                Some(&n) => n == 1 && self.scopes.iter().any(|s| s.contains(i)),
            })
        })
    }

    /// The statements a call of a body macro in scope is written out as.
    fn expansion(&mut self, m: &syn::Macro) -> Option<Vec<syn::Stmt>> {
        let name = m.path.get_ident()?.to_string();
        let def = self.defs.iter().rev().flat_map(|d| d.iter().rev()).find(|d| d.name == name)?;
        let rules = def.rules.clone()?;
        if self.depth >= 16 {
            return None;
        }
        let (_, tokens) = call(&rules, m, |_| true)?;
        let stmts = Block::parse_within.parse2(tokens).ok()?;
        self.expanded.insert(name);
        Some(stmts)
    }
}

/// `{ stmts }` as an expression.
fn block_expr(stmts: Vec<syn::Stmt>, span: Span) -> Expr {
    Expr::Block(syn::ExprBlock {
        attrs: Vec::new(),
        label: None,
        block: Block { brace_token: syn::token::Brace(span), stmts },
    })
}

/// `(x)`.
fn paren_expr(x: Expr) -> Expr {
    Expr::Paren(syn::ExprParen { attrs: Vec::new(), paren_token: Default::default(), expr: Box::new(x) })
}

/// The identifiers a pattern binds.
fn pat_idents(p: &syn::Pat, out: &mut Vec<String>) {
    struct P<'a>(&'a mut Vec<String>);
    impl<'a> Visit<'a> for P<'_> {
        fn visit_pat_ident(&mut self, p: &'a syn::PatIdent) {
            self.0.push(p.ident.to_string());
            syn::visit::visit_pat_ident(self, p);
        }
    }
    P(out).visit_pat(p);
}

/// The names of the macros a body still calls (by path, or as `NAME !` in a macro's tokens).
struct UsedMacros<'a>(&'a mut HashSet<String>);

impl<'a> Visit<'a> for UsedMacros<'_> {
    fn visit_macro(&mut self, m: &'a syn::Macro) {
        if let Some(i) = m.path.get_ident() {
            self.0.insert(i.to_string());
        }
        fn scan(t: TokenStream, out: &mut HashSet<String>) {
            let toks: Vec<TokenTree> = t.into_iter().collect();
            for (k, t) in toks.iter().enumerate() {
                match t {
                    TokenTree::Group(g) => scan(g.stream(), out),
                    TokenTree::Ident(i) if matches!(toks.get(k + 1), Some(TokenTree::Punct(p)) if p.as_char() == '!') =>
                    {
                        out.insert(i.to_string());
                    }
                    _ => {}
                }
            }
        }
        scan(m.tokens.clone(), self.0);
    }
    fn visit_item_macro(&mut self, m: &'a syn::ItemMacro) {
        // A definition's own rules: scanned as tokens (a macro's use inside another's body).
        if !m.mac.path.is_ident("macro_rules") {
            self.visit_macro(&m.mac);
            return;
        }
        let mut inner = HashSet::new();
        UsedMacros(&mut inner).visit_macro(&m.mac);
        inner.remove("macro_rules");
        self.0.extend(inner);
    }
}

/// Drops the body's definitions of macros in `expanded` that nothing calls any more.
fn drop_defs(block: &mut Block, expanded: &HashSet<String>, left: &HashSet<String>) {
    struct D<'a>(&'a HashSet<String>, &'a HashSet<String>);
    impl VisitMut for D<'_> {
        fn visit_block_mut(&mut self, b: &mut Block) {
            b.stmts.retain(|s| match s {
                syn::Stmt::Item(syn::Item::Macro(m)) if m.mac.path.is_ident("macro_rules") => {
                    // Kept unless written out and called no more.
                    m.ident.as_ref().is_none_or(|i| {
                        let name = i.to_string();
                        !self.0.contains(&name) || self.1.contains(&name)
                    })
                }
                _ => true,
            });
            syn::visit_mut::visit_block_mut(self, b);
        }
        fn visit_item_mut(&mut self, _: &mut syn::Item) {}
    }
    D(expanded, left).visit_block_mut(block);
}

#[cfg(test)]
mod tests {
    use super::*;
    use quote::quote;

    fn macros(src: &str) -> Macros {
        let file = syn::parse_file(src).unwrap();
        let mut f = Found(Macros::new());
        f.visit_file(&file);
        f.0
    }

    fn expanded(src: &str, body: TokenStream) -> String {
        let m = macros(src);
        let mut f: syn::ItemFn = syn::parse2(quote!(fn k(nx: usize) #body)).unwrap();
        let sig = f.sig.clone();
        expand_with(&mut f.block, &sig, &m);
        let b = &f.block;
        quote!(#b).to_string()
    }

    const SRC: &str = "
        macro_rules! Index3D { ($nx:expr, $ny:expr, $i:expr, $j:expr, $k:expr) => { (($i) + ($nx) * (($j) + ($ny) * ($k))) }; }
        macro_rules! UMUL { ($a:expr, $b:expr) => { (($a) * ($b)) }; }
        macro_rules! UMAD { ($a:expr, $b:expr, $c:expr) => { (UMUL!(($a), ($b)) + ($c)) }; }
        macro_rules! LOCAL { () => { nx + 1 }; }
        macro_rules! BINDS { ($a:expr) => {{ let t = $a; t * t }}; }
        mod m { macro_rules! TWICE { () => { 1 }; } }
        macro_rules! TWICE { () => { 2 }; }
    ";

    #[test]
    fn index_macros_are_written_out_with_their_arguments_kept_whole() {
        let got = expanded(
            SRC,
            quote!({
                let x = a[Index3D!(nx, 4, i + 1, j, k)];
            }),
        );
        // `i + 1` stays one operand: `(i + 1)` in the rule's `($i)`. (A string, not `quote!`:
        // rustfmt would drop the doubled parentheses from code in a macro call.)
        assert_eq!(got, "{ let x = a [(((i + 1)) + (nx) * ((j) + (4) * (k)))] ; }");
    }

    #[test]
    fn nested_macros_are_expanded_in_turn() {
        let got = expanded(
            SRC,
            quote!({
                let p = UMAD!(a + b, c, d);
            }),
        );
        assert!(!got.contains('!'), "{got}");
        assert!(got.contains("(a + b)"), "{got}");
    }

    #[test]
    fn macros_that_bind_or_name_a_local_or_are_defined_twice_are_left_alone() {
        for call in [quote!(LOCAL!()), quote!(BINDS!(3)), quote!(TWICE!()), quote!(UNKNOWN!(1))] {
            let got = expanded(SRC, quote!({ let y = #call; }));
            assert!(got.contains('!'), "{got}");
        }
        // A rule whose arity does not fit is no expansion either.
        let got = expanded(
            SRC,
            quote!({
                let y = UMUL!(1);
            }),
        );
        assert!(got.contains("UMUL !"), "{got}");
    }

    #[test]
    fn statement_macros_become_expression_statements() {
        let got = expanded(
            SRC,
            quote!({
                UMUL!(x, y);
            }),
        );
        assert_eq!(
            got,
            quote!({
                ((x) * (y));
            })
            .to_string()
        );
    }

    fn body_expanded(f: TokenStream) -> String {
        let mut f: syn::ItemFn = syn::parse2(f).unwrap();
        let sig = f.sig.clone();
        body(&mut f.block, &sig);
        let b = &f.block;
        quote!(#b).to_string()
    }

    #[test]
    fn a_body_macro_of_statements_is_written_out_and_its_definition_dropped() {
        let got = body_expanded(quote!(
            fn k(a: &mut [f32]) {
                let tid = 3;
                macro_rules! SUM {
                    ($s:expr) => {
                        if tid < $s {
                            a[tid] += a[tid + $s];
                        }
                    };
                }
                SUM!(s + 1);
                let x = SUM!(2);
            }
        ));
        assert!(!got.contains("macro_rules") && !got.contains("SUM"), "{got}");
        assert!(got.contains("let tid = 3 ; if tid < (s + 1) { a [tid] += a [tid + (s + 1)] ; } ; let x"), "{got}");
        assert!(got.contains("let x = (if tid < 2 { a [tid] += a [tid + 2] ; }) ;"), "{got}");
    }

    #[test]
    fn body_macros_that_hygiene_would_read_otherwise_are_left_alone() {
        for f in [
            // `k` bound again after the macro: the macro reads the first.
            quote!(
                fn f(o: &mut [u32]) {
                    let k = 1;
                    macro_rules! M {
                        () => {
                            k
                        };
                    }
                    let k = 2;
                    o[0] = M!();
                }
            ),
            // `k` bound only after the macro: not visible to it.
            quote!(
                fn f(o: &mut [u32]) {
                    macro_rules! M {
                        () => {
                            k
                        };
                    }
                    let k = 2;
                    o[0] = M!();
                }
            ),
            // A `let` in the transcriber binds a hygienic name.
            quote!(
                fn f(o: &mut [u32]) {
                    macro_rules! M {
                        ($a:expr) => {{
                            let t = $a;
                            t * t
                        }};
                    }
                    o[0] = M!(2);
                }
            ),
        ] {
            let got = body_expanded(f);
            assert!(got.contains("macro_rules") && got.contains("M !"), "{got}");
        }
        // Defined in an inner block: not in scope after it; the call outside stays a call.
        let got = body_expanded(quote!(
            fn f(o: &mut [u32]) {
                {
                    macro_rules! M {
                        () => {
                            1
                        };
                    }
                    o[0] = M!();
                }
                o[1] = M!();
            }
        ));
        assert!(got.contains("o [0] = (1)") && got.contains("o [1] = M ! ()"), "{got}");
    }

    #[test]
    fn a_body_macro_that_calls_itself_stops_at_sixteen_levels_and_is_kept() {
        let got = body_expanded(quote!(
            fn f(o: &mut [u32]) {
                macro_rules! R {
                    () => {
                        1 + R!()
                    };
                }
                o[0] = R!();
            }
        ));
        assert!(got.contains("macro_rules") && got.matches("(1 +").count() == 16, "{got}");
    }
}
