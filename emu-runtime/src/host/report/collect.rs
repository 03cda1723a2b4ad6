//! A block's findings while it runs, before the launch gathers them into its report.

use std::cell::RefCell;

use crate::host::report::Finding;

/// The findings of the running block, each with the linear index of its thread.
#[derive(Default)]
pub(crate) struct Findings(RefCell<Vec<(u32, Finding)>>);

impl Findings {
    /// Records a finding that does not stop the block (initcheck, racecheck), once per kind
    /// and call site (pair of sites for a race): a repeat adds to the count of the one
    /// recorded, which names the lowest thread (the lowest pair, for a race) of all the
    /// repeats, so that the report does not depend on the order the threads ran in. A race
    /// names its lower thread (block, then thread) first.
    pub(crate) fn note(&self, thread: u32, f: Finding) {
        let f = lower_first(f);
        let mut findings = self.0.borrow_mut();
        for (t, g) in findings.iter_mut() {
            let same = match (&f, &*g) {
                (Finding::UninitializedAccess { at, space, .. }, Finding::UninitializedAccess { at: a, space: s, .. }) => {
                    a == at && s == space
                }
                (Finding::Race { first_at, second_at, .. }, Finding::Race { first_at: fa, second_at: sa, .. }) => {
                    (fa == first_at && sa == second_at) || (fa == second_at && sa == first_at)
                }
                _ => false,
            };
            if same {
                let count = counter(g).map_or(1, |c| *c) + 1;
                if rank(&f) < rank(g) {
                    *g = f;
                    *t = thread;
                }
                if let Some(c) = counter(g) {
                    *c = count;
                }
                return;
            }
        }
        findings.push((thread, f));
    }

    /// Records a finding.
    pub(crate) fn record(&self, thread: u32, f: Finding) {
        self.0.borrow_mut().push((thread, f));
    }

    /// The findings recorded since the last call.
    pub(crate) fn take(&self) -> Vec<(u32, Finding)> {
        std::mem::take(&mut *self.0.borrow_mut())
    }
}

/// The count of a finding noted once per site.
fn counter(f: &mut Finding) -> Option<&mut usize> {
    match f {
        Finding::UninitializedAccess { count, .. } | Finding::Race { count, .. } => Some(count),
        _ => None,
    }
}

/// `(z, y, x)`: the order of linear indices.
fn key(d: crate::device::Dim3) -> (u32, u32, u32) {
    (d.z, d.y, d.x)
}

/// Which of two repeats a report names: the lower threads.
fn rank(f: &Finding) -> [(u32, u32, u32); 4] {
    match f {
        Finding::Race { first_block, first_thread, block, thread, .. } => {
            [key(*first_block), key(*first_thread), key(*block), key(*thread)]
        }
        Finding::UninitializedAccess { thread, block, .. } => [key(*block), key(*thread), (0, 0, 0), (0, 0, 0)],
        _ => [(0, 0, 0); 4],
    }
}

/// A race with its lower thread (block, then thread) first: the two accesses are concurrent,
/// so neither is earlier, and this names them the same whichever ran first.
fn lower_first(f: Finding) -> Finding {
    match f {
        Finding::Race { first, first_at, first_thread, first_block, second, second_at, thread, block, name, index, element, count }
            if (key(block), key(thread)) < (key(first_block), key(first_thread)) =>
        {
            Finding::Race {
                first: second,
                first_at: second_at,
                first_thread: thread,
                first_block: block,
                second: first,
                second_at: first_at,
                thread: first_thread,
                block: first_block,
                name,
                index,
                element,
                count,
            }
        }
        f => f,
    }
}
