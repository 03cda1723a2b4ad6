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
                (
                    Finding::UninitializedAccess { at, space, .. },
                    Finding::UninitializedAccess { at: a, space: s, .. },
                ) => a == at && s == space,
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
        Finding::Race {
            first,
            first_at,
            first_thread,
            first_block,
            second,
            second_at,
            thread,
            block,
            name,
            index,
            element,
            count,
            warp_synchronous,
        } if (key(block), key(thread)) < (key(first_block), key(first_thread)) => Finding::Race {
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
            warp_synchronous,
        },
        f => f,
    }
}

/// The findings of one launch, as its blocks hand them in: every one is counted, and only the
/// `keep` lowest by (block, thread) are stored (all of them when `keep` is 0), so a launch in
/// which every thread faults runs in bounded memory. Which ones are stored does not depend on
/// the order blocks finish in, nor on `EMU_SEED`: the lowest keys win.
///
/// A finding that could not be stored any more is not built at all: [`would_keep`] answers
/// with two relaxed loads (the blocks are handed out in increasing order, so once the store is
/// full nearly every later block is past its largest key).
///
/// [`would_keep`]: LaunchFindings::would_keep
pub(crate) struct LaunchFindings {
    keep: usize,
    kept: std::sync::Mutex<Vec<((u64, u32), Finding)>>,
    /// Whether `kept` holds `keep` findings, and the block of its largest key then: a finding
    /// of a later block would not be stored.
    full: AtomicBool,
    last_block: AtomicU64,
    total: AtomicU64,
    /// Whether every finding counted is a hazard (a race or an uninitialised read), which
    /// `EMU_CHECK_ACTION=report` lets through.
    only_hazards: AtomicBool,
}

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering::Relaxed};

impl LaunchFindings {
    /// A collector storing at most `keep` findings (`0`: all).
    pub(crate) fn new(keep: usize) -> Self {
        LaunchFindings {
            keep: if keep == 0 { usize::MAX } else { keep },
            kept: std::sync::Mutex::new(Vec::new()),
            full: AtomicBool::new(false),
            last_block: AtomicU64::new(u64::MAX),
            total: AtomicU64::new(0),
            only_hazards: AtomicBool::new(true),
        }
    }

    /// Whether a finding of block `block` could still be stored.
    #[inline(always)]
    pub(crate) fn would_keep(&self, block: u64) -> bool {
        !self.full.load(Relaxed) || block <= self.last_block.load(Relaxed)
    }

    /// Counts `n` findings that were not offered (`would_keep` said no); `hazards` says whether
    /// they all are hazards.
    pub(crate) fn count(&self, n: u64, hazards: bool) {
        if n > 0 {
            self.total.fetch_add(n, Relaxed);
            if !hazards {
                self.only_hazards.store(false, Relaxed);
            }
        }
    }

    /// Counts finding `f` of thread `thread` of block `block`, and stores it if it is among the
    /// `keep` lowest so far.
    pub(crate) fn add(&self, block: u64, thread: u32, f: Finding) {
        self.count(1, f.is_hazard());
        self.offer(block, thread, f);
    }

    /// Stores finding `f` of thread `thread` of block `block` if it is among the `keep` lowest
    /// so far, without counting it (its caller counts it).
    pub(crate) fn offer(&self, block: u64, thread: u32, f: Finding) {
        if !self.would_keep(block) {
            return;
        }
        let key = (block, thread);
        let mut kept = self.kept.lock().unwrap_or_else(|e| e.into_inner());
        // After the equal keys already there: one thread's findings stay in program order.
        let at = kept.partition_point(|(k, _)| *k <= key);
        if at >= self.keep {
            return;
        }
        kept.insert(at, (key, f));
        if kept.len() > self.keep {
            kept.pop();
        }
        if kept.len() == self.keep {
            let last = kept.last().map_or(u64::MAX, |(k, _)| k.0);
            self.last_block.store(last, Relaxed);
            self.full.store(true, Relaxed);
        }
    }

    /// The stored findings, sorted by block and thread, how many were counted in all, and
    /// whether all of those are hazards.
    pub(crate) fn into_parts(self) -> (Vec<Finding>, u64, bool) {
        let kept = self.kept.into_inner().unwrap_or_else(|e| e.into_inner());
        let total = self.total.into_inner();
        (kept.into_iter().map(|(_, f)| f).collect(), total, self.only_hazards.into_inner())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::device::Dim3;

    fn panic_at(block: u64, thread: u32) -> Finding {
        Finding::Panic {
            message: format!("{block}/{thread}"),
            at: None,
            thread: Dim3::new(thread, 0, 0),
            block: Dim3::new(block as u32, 0, 0),
        }
    }

    #[test]
    fn keeps_the_lowest_whatever_the_order_and_counts_all() {
        let mut keys: Vec<(u64, u32)> = (0..50u64).flat_map(|b| (0..4u32).map(move |t| (b, t))).collect();
        // A fixed scramble: blocks finishing out of order.
        keys.sort_by_key(|&(b, t)| (b * 7919 + u64::from(t) * 104_729) % 211);
        let c = LaunchFindings::new(5);
        for &(b, t) in &keys {
            c.add(b, t, panic_at(b, t));
        }
        let (kept, total, hazards) = c.into_parts();
        assert_eq!(total, 200);
        assert!(!hazards);
        let names: Vec<Dim3> = kept.iter().map(Finding::thread).collect();
        assert_eq!(names, (0..4).map(|t| Dim3::new(t, 0, 0)).chain([Dim3::new(0, 0, 0)]).collect::<Vec<_>>());
        assert_eq!(kept[4].block(), Dim3::new(1, 0, 0));
    }

    #[test]
    fn the_gate_closes_once_full_and_zero_keeps_all() {
        let c = LaunchFindings::new(2);
        assert!(c.would_keep(9));
        c.add(3, 0, panic_at(3, 0));
        c.add(4, 0, panic_at(4, 0));
        assert!(!c.would_keep(5));
        assert!(c.would_keep(4));
        c.count(10, false);
        assert_eq!(c.into_parts().1, 12);
        let all = LaunchFindings::new(0);
        for b in 0..100 {
            all.add(b, 0, panic_at(b, 0));
        }
        assert_eq!(all.into_parts().0.len(), 100);
    }
}
