//! Device memory on the host.
//!
//! | module       | job |
//! |--------------|-----|
//! | `buffer`     | `DeviceBuffer` |
//! | `memory`     | relaxed atomic element accesses, bounds reports, `atomic_add` |
//! | `atomic`     | the other atomics (sub, min/max, exch, and/or/xor, cas, inc/dec) |
//! | `shared_mem` | per-block shared-memory arenas |

pub(crate) mod atomic;
pub(crate) mod buffer;
pub(crate) mod memory;
pub(crate) mod shared_mem;
