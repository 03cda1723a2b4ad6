//! Device memory on the host.
//!
//! | module       | job |
//! |--------------|-----|
//! | `buffer`     | `DeviceBuffer` |
//! | `slice`      | `DeviceSlice`, `DeviceSliceMut`: parts of a buffer, as kernel arguments and for partial copies |
//! | `symbol`     | `#[constant]` and `#[device_global]` statics, `copy_to_symbol`, `copy_from_symbol` |
//! | `memory`     | relaxed atomic element accesses, bounds reports, `atomic_add` |
//! | `atomic`     | the other atomics (sub, min/max, exch, and/or/xor, cas, inc/dec) |
//! | `shared_mem` | per-block shared-memory arenas |
//! | `heap`       | the device heap of `device_malloc`/`device_free`: limit, checks, leaks |
//! | `fingerprint` | the device memory kernels can write, hashed for the watchdog |
//! | `stamp`      | the stamps that tie a view of shared memory to its block |

pub(crate) mod atomic;
pub(crate) mod buffer;
pub(crate) mod fingerprint;
pub(crate) mod heap;
pub(crate) mod memory;
pub(crate) mod params;
pub(crate) mod shared_mem;
pub(crate) mod slice;
pub(crate) mod stamp;
pub(crate) mod symbol;
