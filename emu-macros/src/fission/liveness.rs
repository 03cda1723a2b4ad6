//! Liveness across barriers, a pass of loop fission: how each statement-level local of a
//! kernel with barriers lives from one region to the next (`Lives`). The region loops keep a
//! value per thread only where a later region may read it; the rest are cheaper kinds.
//!
//! * **uniform**: the uniformity pass (`uniform.rs`) proved it block-uniform: one scalar per
//!   block, computed between the region loops;
//! * **recomputed**: immutable and computed from the thread's indices, constants, parameters
//!   and immutable uniform values (`pure_index`): each region that reads it computes it again,
//!   which costs less than storing it;
//! * **per thread** (`Lanes`): read in a run other than its own, inside its scope: a slot per
//!   thread, taken at the start of each region that uses it and put back at its end;
//! * **local**: read only in its own run, an ordinary local of that region.

use std::collections::{HashMap, HashSet};

use syn::Expr;

use super::{pure_index, Program};

/// How a local lives across barriers.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(super) enum Lives {
    Uniform,
    Recomputed,
    Lanes,
    /// Used only in its own run: an ordinary local of that run.
    Local,
}

/// The liveness pass's result ([`classify`]): each statement-level local's kind.
#[derive(Default)]
pub(super) struct Liveness {
    pub(super) kinds: HashMap<String, Lives>,
}

/// Classifies the locals of `p` given the uniformity pass's names. A closure that would live
/// per thread is refused: it would be kept in a slot of its type for the next region, and
/// each region's copy of its expression is a closure of another type.
pub(super) fn classify(p: &Program, uniform: &HashSet<String>) -> Result<Liveness, String> {
    let ctx = p.ctx.to_string();
    let locals = p.bound_names();
    let mut kinds = HashMap::new();
    // Recomputed: immutable, computed from indices, constants, parameters and immutable
    // uniform values.
    let fixed: HashSet<String> =
        uniform.iter().filter(|n| p.by_name.get(*n).is_none_or(|&i| !p.locals[i].mutable)).cloned().collect();
    let mut recomputed: HashSet<String> = HashSet::new();
    for l in &p.locals {
        if uniform.contains(&l.name) || l.mutable || p.assigned_inside.contains(&l.name) {
            continue;
        }
        if pure_index(&l.init, &fixed, &recomputed, &p.params, &locals, &ctx) {
            recomputed.insert(l.name.clone());
        }
    }
    for l in &p.locals {
        let k = if uniform.contains(&l.name) {
            Lives::Uniform
        } else if recomputed.contains(&l.name) {
            Lives::Recomputed
        } else if p
            .mentions
            .iter()
            .any(|(run, names)| *run != l.run && names.contains(&l.name) && p.scope[&l.name].contains(run))
        {
            Lives::Lanes
        } else {
            Lives::Local
        };
        // A per-thread closure would be kept in a slot of its type for the next region,
        // and each region's copy of its expression is a closure of another type.
        if k == Lives::Lanes && matches!(l.init, Expr::Closure(_)) {
            return Err(format!("a closure, `{}`, kept for each thread across a barrier", l.name));
        }
        kinds.insert(l.name.clone(), k);
    }
    Ok(Liveness { kinds })
}

#[cfg(test)]
mod tests {
    use quote::quote;

    use super::Lives;
    use crate::fission::tests::decode_body;

    #[test]
    fn each_local_gets_the_cheapest_kind_that_keeps_its_value() {
        let d = decode_body(quote! {
            let s = shared_array![f32; 256];
            let tid = thread_idx().x as usize;
            let base = block_idx().x as usize * 256;
            let v = inp[base + tid] * 2.0;
            let w = v + 1.0;
            let mut acc = 0.0f32;
            acc += w;
            s[tid] = w;
            sync_threads();
            let left = s[(tid + 255) % 256];
            out[base + tid] = (v + acc + left) as i32;
        })
        .expect("decoded");
        let kind = |n: &str| d.program.liveness.kinds.get(n).copied();
        // The thread's own index, computed again in each region that reads it.
        assert_eq!(kind("tid"), Some(Lives::Recomputed));
        // The block's offset: one value per block.
        assert_eq!(kind("base"), Some(Lives::Uniform));
        // A load, and a sum, read after the barrier: a slot per thread.
        assert_eq!(kind("v"), Some(Lives::Lanes));
        assert_eq!(kind("acc"), Some(Lives::Lanes));
        // Read only in the region that binds them.
        assert_eq!(kind("w"), Some(Lives::Local));
        assert_eq!(kind("left"), Some(Lives::Local));
    }

    #[test]
    fn a_closure_kept_per_thread_across_a_barrier_is_refused() {
        let why = decode_body(quote! {
            let t = thread_idx().x;
            let f = move |x: u32| x + t;
            sync_threads();
            out[t as usize] = f(1) as i32;
        })
        .err()
        .expect("refused");
        assert!(why.contains("a closure, `f`, kept for each thread across a barrier"), "{why}");
        // The same closure read in its own region is an ordinary local.
        let d = decode_body(quote! {
            let t = thread_idx().x;
            let f = move |x: u32| x + t;
            out[t as usize] = f(1) as i32;
            sync_threads();
            out[t as usize] += 1;
        })
        .expect("decoded");
        assert_eq!(d.program.liveness.kinds.get("f"), Some(&Lives::Local));
    }
}
