//! The block's vote at a `sync_threads_or`, `sync_threads_and` or `sync_threads_count` in the
//! region form (`emu-macros/src/fission/normalise.rs`, `vote_barriers`).
//!
//! The macro writes `x = sync_threads_or(p);` as `vote_put(&vote, p);` in each thread's code
//! before a plain barrier, then `let voted = vote_seal(&vote);` and `x = voted.trues > 0;` in
//! block-level code after it: each live thread adds its predicate once, the block takes the
//! count once per barrier, and the count starts again from zero for the next one. Threads that
//! exited do not vote, as on the general path, where the barrier counts the threads that reach
//! it.

use std::cell::Cell;

/// The votes of one block since its last sealed barrier.
#[derive(Debug, Default)]
pub struct Vote {
    /// Threads whose predicate was true.
    trues: Cell<u32>,
    /// Threads that voted.
    voters: Cell<u32>,
}

/// What a sealed vote counted: `sync_threads_or` is `trues > 0`, `sync_threads_and` is
/// `trues == voters`, `sync_threads_count` is `trues`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Voted {
    /// Threads whose predicate was true.
    pub trues: u32,
    /// Threads that voted.
    pub voters: u32,
}

/// A block's vote, before any thread has voted.
#[inline(always)]
pub fn vote_new() -> Vote {
    Vote::default()
}

/// The running thread's predicate `p`.
#[inline(always)]
pub fn vote_put(v: &Vote, p: bool) {
    // A block has at most 1024 threads (`LaunchConfig` checks it), each voting once per
    // barrier: the counts cannot wrap, and saturate if ever they did.
    v.trues.set(v.trues.get().saturating_add(u32::from(p)));
    v.voters.set(v.voters.get().saturating_add(1));
}

/// The counts of the barrier just passed; the next barrier's vote starts from zero.
#[inline(always)]
pub fn vote_seal(v: &Vote) -> Voted {
    Voted { trues: v.trues.replace(0), voters: v.voters.replace(0) }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_seal_counts_the_votes_since_the_last_and_starts_again() {
        let v = vote_new();
        assert_eq!(vote_seal(&v), Voted { trues: 0, voters: 0 });
        for p in [true, false, true] {
            vote_put(&v, p);
        }
        assert_eq!(vote_seal(&v), Voted { trues: 2, voters: 3 });
        vote_put(&v, false);
        assert_eq!(vote_seal(&v), Voted { trues: 0, voters: 1 });
    }
}
