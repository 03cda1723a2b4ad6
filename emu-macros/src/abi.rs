//! The runtime calls the macro's own output makes that later stages of the macro read back:
//! the rewrite's accesses of views (`rewrite.rs`), normalisation's votes and fission's proved
//! accesses and hand-overs (`fission/`). Each is a function of `::deviceemu::__private`
//! (`emu-runtime/src/__private.rs` and what it re-exports). Fission decodes such a call here,
//! once, into its kind ([`Rt`]) and, for a view access, its parts ([`Access`]), instead of each
//! pass matching path names and argument counts of its own.

use syn::{Expr, ExprCall};

/// A runtime function the macro's output calls and fission reads back.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum Rt {
    /// `load(checked, &v, i)`: a view's element (`rewrite.rs`).
    Load,
    /// `store(checked, &v, i, x)`.
    Store,
    /// `row(&t, r)`: a row of a 2-D view, read.
    Row,
    /// `row_write(&t, r)`: a row of a 2-D view, written.
    RowWrite,
    /// `load_in_bounds(&v, i)`: a load whose bound a region's proof covers.
    LoadInBounds,
    /// `store_in_bounds(&v, i, x)`.
    StoreInBounds,
    /// `load_row_in_bounds(&t, r, c)`.
    LoadRowInBounds,
    /// `store_row_in_bounds(&t, r, c, x)`.
    StoreRowInBounds,
    /// `Index::to_index(i)`.
    ToIndex,
    /// `vote_new()`: a voting barrier's block-wide vote (`normalise.rs`, `vote_barriers`).
    VoteNew,
    /// `vote_put(&vote, p)`: a thread's vote.
    VotePut,
    /// `vote_seal(&vote)`: the vote's counts, once per block.
    VoteSeal,
    /// `xchg_put(&x, t, v)`: a lowered warp shuffle's hand-over (`fission/mod.rs`).
    XchgPut,
}

/// Each function's name in `__private` and its number of arguments.
const TABLE: [(Rt, &str, usize); 13] = [
    (Rt::Load, "load", 3),
    (Rt::Store, "store", 4),
    (Rt::Row, "row", 2),
    (Rt::RowWrite, "row_write", 2),
    (Rt::LoadInBounds, "load_in_bounds", 2),
    (Rt::StoreInBounds, "store_in_bounds", 3),
    (Rt::LoadRowInBounds, "load_row_in_bounds", 3),
    (Rt::StoreRowInBounds, "store_row_in_bounds", 4),
    (Rt::ToIndex, "to_index", 1),
    (Rt::VoteNew, "vote_new", 0),
    (Rt::VotePut, "vote_put", 2),
    (Rt::VoteSeal, "vote_seal", 1),
    (Rt::XchgPut, "xchg_put", 3),
];

impl Rt {
    /// The function's name in `__private`.
    #[cfg(test)]
    pub(crate) fn name(self) -> &'static str {
        TABLE.iter().find(|(r, ..)| *r == self).map(|(_, n, _)| *n).expect("every kind is in TABLE")
    }

    /// What `c` calls: one of these functions through a path with a `__private` segment
    /// (`::deviceemu::__private::load`, `__private::Index::to_index`) and with its number of
    /// arguments. Anything else, a user's function of the same name included, is `None`.
    pub(crate) fn of(c: &ExprCall) -> Option<Rt> {
        let Expr::Path(p) = &*c.func else { return None };
        if p.qself.is_some() || !p.path.segments.iter().any(|s| s.ident == "__private") {
            return None;
        }
        let last = p.path.segments.last()?.ident.to_string();
        TABLE.iter().find(|(_, n, arity)| *n == last && *arity == c.args.len()).map(|(r, ..)| *r)
    }
}

/// A view access of the rewrite, decoded: `load(checked, &v, i)` or `store(checked, &v, i, x)`.
pub(crate) struct Access<'a> {
    /// `__EMU_CHECKED` or `Valid` (`__private::Access`).
    pub(crate) checked: &'a Expr,
    /// The view argument as written: `&v`, or `&row(&t, r)` for a row of a 2-D view.
    pub(crate) view: &'a Expr,
    pub(crate) index: &'a Expr,
    /// The stored value (`None`: a load).
    pub(crate) value: Option<&'a Expr>,
}

impl<'a> Access<'a> {
    pub(crate) fn of(c: &'a ExprCall) -> Option<Self> {
        let a = &c.args;
        match Rt::of(c)? {
            Rt::Load => Some(Access { checked: &a[0], view: &a[1], index: &a[2], value: None }),
            Rt::Store => Some(Access { checked: &a[0], view: &a[1], index: &a[2], value: Some(&a[3]) }),
            _ => None,
        }
    }

    pub(crate) fn is_store(&self) -> bool {
        self.value.is_some()
    }

    /// The expression the view argument borrows (`v` of `&v`) when it is a shared borrow.
    pub(crate) fn viewed(&self) -> Option<&'a Expr> {
        match self.view {
            Expr::Reference(r) if r.mutability.is_none() => Some(&r.expr),
            _ => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn call(src: &str) -> ExprCall {
        syn::parse_str(src).expect("a call")
    }

    #[test]
    fn each_kind_decodes_from_its_path_with_its_arity_only() {
        for (kind, name, arity) in TABLE {
            assert_eq!(kind.name(), name);
            let args = vec!["a"; arity].join(", ");
            let c = call(&format!("::deviceemu::__private::{name}({args})"));
            assert_eq!(Rt::of(&c), Some(kind), "{name}");
            // One argument more or less is another function.
            let more = vec!["a"; arity + 1].join(", ");
            assert_eq!(Rt::of(&call(&format!("::deviceemu::__private::{name}({more})"))), None);
            // The same name outside `__private` is the user's.
            assert_eq!(Rt::of(&call(&format!("{name}({args})"))), None, "{name}");
            assert_eq!(Rt::of(&call(&format!("crate::math::{name}({args})"))), None, "{name}");
        }
        let c = call("::deviceemu::__private::Index::to_index(i)");
        assert_eq!(Rt::of(&c), Some(Rt::ToIndex));
    }

    #[test]
    fn accesses_decode_into_their_parts() {
        let c = call("::deviceemu::__private::store(__EMU_CHECKED, &v, i + 1, x * 2.0)");
        let a = Access::of(&c).expect("a store");
        assert!(a.is_store());
        let (index, value, checked) = (a.index, a.value.expect("a value"), a.checked);
        assert_eq!(quote::quote!(#index).to_string(), "i + 1");
        assert_eq!(quote::quote!(#value).to_string(), "x * 2.0");
        assert_eq!(quote::quote!(#checked).to_string(), "__EMU_CHECKED");
        let c = call("::deviceemu::__private::load(__EMU_CHECKED, &v, i)");
        let a = Access::of(&c).expect("a load");
        assert!(!a.is_store());
        assert!(matches!(a.viewed(), Some(Expr::Path(p)) if p.path.is_ident("v")));
        let c = call("::deviceemu::__private::load(__EMU_CHECKED, &mut v, i)");
        assert!(Access::of(&c).expect("a load").viewed().is_none());
        // A proved access is no access of the rewrite's.
        let c = call("::deviceemu::__private::load_in_bounds(&v, i)");
        assert!(Access::of(&c).is_none());
    }
}
