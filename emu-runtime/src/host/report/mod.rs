//! What a launch tells its caller.
//!
//! | module       | job |
//! |--------------|-----|
//! | `findings`   | findings and their compute-sanitizer-shaped rendering |
//! | `collect`    | a block's findings while it runs, and a launch's (bounded: counted past the print limit) |
//! | `error`      | the public error type |
//! | `last_error` | `get_last_error` / `peek_at_last_error` |

mod collect;
pub(crate) mod error;
pub(crate) mod findings;
pub(crate) mod last_error;

pub(crate) use collect::{Findings, LaunchFindings};
pub(crate) use findings::*;
