//! The seams of loop fission: the one hazard of running a kernel's thread code as region
//! loops that its barriers do not already cover. Thread code on both sides of a loop's (or a
//! uniform `if`'s) edge with no barrier between is one region on the general path, where each
//! thread runs both stretches before the next thread starts; as two region loops, every
//! thread runs the first before any runs the second. [`check`] refuses a kernel where the two
//! orders can be told apart through memory (`footprint.rs`).

use super::footprint::{Footprint, Roots};
use super::{Node, Program};

/// Thread code on both sides of a loop's edge with no barrier between is one region on
/// the general path, where each thread runs both stretches before the next thread starts;
/// as two region loops, every thread runs the first before any runs the second. The two
/// orders cannot be told apart when the memory one stretch writes is memory the other does
/// not touch (`footprint.rs`: private code touches none). Else refuse. `open` is the
/// memory thread code touched since the last barrier.
pub(super) fn check(p: &Program, roots: &Roots, nodes: &[Node], open: &mut Footprint) -> Result<(), String> {
    for n in nodes {
        match n {
            Node::Run(stmts, _) => open.join(&p.footprint(roots, stmts)),
            Node::Barrier(..) => *open = Footprint::default(),
            Node::While { body, .. } | Node::For { body, .. } => {
                let before = open.clone();
                let head = head_footprint(p, roots, body);
                let mut tail = Footprint::default();
                check(p, roots, body, &mut tail)?;
                // Entering: what ran before the loop, then the body's head.
                if before.conflicts(&head) {
                    return Err("thread code before a loop with barriers and at the start of its body".into());
                }
                // Iterating: the body's tail, then its head.
                if tail.conflicts(&head) {
                    return Err("thread code at the end of a loop body with barriers and at its start".into());
                }
                // Leaving (or skipping the loop): the tail (or what ran before) stays open.
                open.join(&tail);
            }
            Node::If { then, otherwise, .. } => {
                let before = open.clone();
                for branch in [then, otherwise] {
                    if before.conflicts(&head_footprint(p, roots, branch)) {
                        return Err(
                            "thread code before a uniform `if` with barriers and at the start of its branch".into()
                        );
                    }
                    let mut o = before.clone();
                    check(p, roots, branch, &mut o)?;
                    open.join(&o);
                }
            }
        }
    }
    Ok(())
}

/// The memory a loop body or branch may touch before its first barrier. A nested loop or
/// `if` may run no barrier (no pass, or a branch without one): its head and the code after
/// it count.
fn head_footprint(p: &Program, roots: &Roots, body: &[Node]) -> Footprint {
    let mut fp = Footprint::default();
    for n in body {
        match n {
            Node::Run(stmts, _) => fp.join(&p.footprint(roots, stmts)),
            Node::Barrier(..) => return fp,
            Node::While { body, .. } | Node::For { body, .. } => fp.join(&head_footprint(p, roots, body)),
            Node::If { then, otherwise, .. } => {
                fp.join(&head_footprint(p, roots, then));
                fp.join(&head_footprint(p, roots, otherwise));
            }
        }
    }
    fp
}

#[cfg(test)]
mod tests {
    use quote::quote;

    use crate::fission::tests::decode_body;

    #[test]
    fn code_that_touches_the_same_memory_across_a_loops_edge_is_refused() {
        // Each thread stores `out[t]` right before the loop and loads its neighbour's at the
        // start of the body, with no barrier between: one region on the general path, where
        // thread 0 loads `out[1]` before thread 1 stores it; as two region loops, after.
        let why = decode_body(quote! {
            let t = thread_idx().x as usize;
            out[t] = 1;
            for _k in 0..4 {
                let x = out[(t + 1) % 32];
                sync_threads();
                out[t] = x;
            }
        })
        .err()
        .expect("refused");
        assert_eq!(why, "thread code before a loop with barriers and at the start of its body");
    }

    #[test]
    fn private_code_on_both_sides_of_an_edge_is_kept() {
        // Parboil's sgemm zeroes its accumulators before its tile loop: the thread's own values.
        let d = decode_body(quote! {
            let t = thread_idx().x as usize;
            let mut acc = 0i32;
            for k in 0..4 {
                acc += k;
                sync_threads();
            }
            out[t] = acc;
        });
        assert!(d.is_ok(), "{:?}", d.err());
    }
}
