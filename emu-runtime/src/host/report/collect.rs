//! A block's findings while it runs, before the launch gathers them into its report.

use std::cell::RefCell;

use crate::host::report::Finding;

/// The findings of the running block, each with the linear index of its thread.
#[derive(Default)]
pub(crate) struct Findings(RefCell<Vec<(u32, Finding)>>);

impl Findings {
    /// Records a finding that does not stop the block (initcheck, racecheck), once per kind
    /// and call site (pair of sites for a race): a repeat only adds to the first one's count.
    pub(crate) fn note(&self, thread: u32, f: Finding) {
        let mut findings = self.0.borrow_mut();
        for (_, g) in findings.iter_mut() {
            match (&f, g) {
                (Finding::UninitializedAccess { at, space, .. }, Finding::UninitializedAccess { at: a, space: s, count, .. })
                    if a == at && s == space =>
                {
                    *count += 1;
                    return;
                }
                (
                    Finding::Race { first_at, second_at, .. },
                    Finding::Race { first_at: fa, second_at: sa, count, .. },
                ) if (fa == first_at && sa == second_at) || (fa == second_at && sa == first_at) => {
                    *count += 1;
                    return;
                }
                _ => {}
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
