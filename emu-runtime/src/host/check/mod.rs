//! The per-access checkers (initcheck, racecheck), behind one hook for each kind of access.
//!
//! `#[kernel]` runs a kernel's checked copy only when one of them is on (`__private::per_access`),
//! so these hooks are never reached otherwise; here they ask the running launch which ones.

use std::panic::Location;

use crate::device::{Space, View, ViewKind};
use crate::host::sched::context;

pub(crate) mod initcheck;
pub(crate) mod racecheck;
pub(crate) mod synccheck;

/// Whether `config` asks for a checker that watches each access.
pub(crate) fn any(checks: crate::host::config::Checks) -> bool {
    checks.initcheck || checks.racecheck
}

/// A checked load of element `i` (in bounds).
#[inline(never)]
pub(crate) fn on_load<T, K: ViewKind>(view: &View<T, K>, i: usize, at: &'static Location<'static>) {
    on_access(view, i, false, at);
}

/// A checked store to element `i` (in bounds).
#[inline(never)]
pub(crate) fn on_store<T, K: ViewKind>(view: &View<T, K>, i: usize, at: &'static Location<'static>) {
    on_access(view, i, true, at);
}

fn on_access<T, K: ViewKind>(view: &View<T, K>, i: usize, write: bool, at: &'static Location<'static>) {
    let block = context::block_for("a memory access");
    let checks = block.launch().config.get_checks();
    if checks.initcheck {
        if write {
            initcheck::on_store(view, i, at);
        } else {
            initcheck::on_load(view, i, at);
        }
    }
    if checks.racecheck {
        match K::SPACE {
            Space::Shared => racecheck::on_shared(block, view, i, write, at),
            Space::Global => racecheck::on_global(block, view, i, write, at),
        }
    }
}
