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
