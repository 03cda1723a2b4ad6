//! What a launch tells its caller.
//!
//! | module       | job |
//! |--------------|-----|
//! | `findings`   | findings and their compute-sanitizer-shaped rendering |
//! | `error`      | the public error type |
//! | `last_error` | `get_last_error` / `peek_at_last_error` |

pub(crate) mod error;
pub(crate) mod findings;
pub(crate) mod last_error;

pub(crate) use findings::*;
