//! Turning a fiber's stack overflow into a report instead of a segfault.
//!
//! Each fiber stack has a guard page below it. Before the block scheduler resumes a fiber it
//! *arms* this module with the fiber's trap handler and guard range (a thread-local); a
//! `SIGSEGV`/`SIGBUS` handler, installed once and running on the host thread's alternate
//! signal stack (which Rust's runtime sets up for every thread it starts), checks whether the
//! faulting address is in the armed guard page and the stack pointer inside that fiber. If so,
//! it uses corosensei's trap support to make the fiber return `RunnerEnd::StackOverflow` to
//! the scheduler, which reports it and fails the block. Any other fault is passed to the
//! handler that was installed before (Rust's own stack-overflow handler, or the default
//! action).
//!
//! With `EMU_SCHEDULE=threads` each OS fiber's thread runs its GPU thread on a guarded
//! coroutine stack of its own and arms the handler for it on that thread (`arm_trap`), so an
//! overflow there is reported the same way.
//!
//! The same trap support ends a fiber whose GPU thread is blocked in a system call
//! (`stuck.rs`): its monitor sends `SIGURG`, and the handler here makes the armed fiber return
//! `RunnerEnd::Blocked` if the monitor asked for it and the interrupted instruction is a
//! system call (`syscall` on x86-64, `svc #0` on AArch64, just before the program counter or,
//! for a call the kernel restarts, at it); otherwise the call goes on.
//!
//! Limits: x86-64 and AArch64 Linux only (elsewhere an overflow stays a crash). Values on the
//! overflowed (or blocked) fiber's stack are abandoned without running their destructors.

use std::cell::Cell;

use corosensei::trap::CoroutineTrapHandler;

use crate::host::sched::fiber::{Fiber, RunnerEnd};

thread_local! {
    /// The fiber about to run on this host thread (null when none): one pointer store per
    /// resumption; the signal handler asks it for its trap handler only when a fault happens.
    static ARMED: Cell<*const Fiber> = const { Cell::new(std::ptr::null()) };
    /// The coroutine an OS fiber's thread (`EMU_SCHEDULE=threads`) runs its GPU thread on,
    /// armed on that thread for as long as it runs (`arm_trap`).
    static ARMED_TRAP: Cell<Option<CoroutineTrapHandler<RunnerEnd>>> = const { Cell::new(None) };
}

/// Arms the handler, on this host thread, with the trap handler of a coroutine about to run
/// here (an OS fiber's body, `os_fiber.rs`); [`disarm`] (or [`disarm_trap`]) before the
/// coroutine is dropped.
pub(crate) fn arm_trap(trap: CoroutineTrapHandler<RunnerEnd>) {
    ARMED_TRAP.with(|a| a.set(Some(trap)));
}

/// Disarms what [`arm_trap`] armed.
pub(crate) fn disarm_trap() {
    ARMED_TRAP.with(|a| a.set(None));
}

/// Arms the handler for `fiber`, about to be resumed on this host thread.
///
/// The fiber must stay at this address until it suspends or finishes, and [`disarm`] must be
/// called as soon as the resumption returns, before the fiber is moved or dropped: arm and
/// disarm bracket exactly one `Fiber::resume` (`sched/block.rs`: `start`, `resume`).
#[inline(always)]
pub(crate) fn arm(fiber: &Fiber) {
    ARMED.with(|a| a.set(fiber));
}

/// Disarms the handler (after each resumption, and when the block's fibers are done).
#[inline]
pub(crate) fn disarm() {
    ARMED.with(|a| a.set(std::ptr::null()));
}

fn armed_trap() -> Option<CoroutineTrapHandler<RunnerEnd>> {
    let f = ARMED.with(|a| a.get());
    // SAFETY: `arm`'s contract: a non-null pointer names a live fiber that is running (the
    // fault happened while it ran, or it is suspended in place). `trap_handler` only reads
    // the stack bounds.
    unsafe { f.as_ref() }.and_then(|f| f.trap_handler()).or_else(|| ARMED_TRAP.with(|a| a.get()))
}

// Not under miri: it cannot install signal handlers, and runs without fibers anyway.
#[cfg(all(target_os = "linux", any(target_arch = "x86_64", target_arch = "aarch64"), not(miri)))]
mod imp {
    use std::mem::MaybeUninit;
    use std::sync::Once;

    use corosensei::trap::CoroutineTrapHandler;

    use super::armed_trap;
    use crate::host::sched::fiber::RunnerEnd;

    static mut PREV_SEGV: MaybeUninit<libc::sigaction> = MaybeUninit::uninit();
    static mut PREV_BUS: MaybeUninit<libc::sigaction> = MaybeUninit::uninit();
    static mut PREV_URG: MaybeUninit<libc::sigaction> = MaybeUninit::uninit();

    /// Installs the handler of the monitor's `SIGURG` (`stuck.rs`), once.
    pub(crate) fn install_blocked() {
        static ONCE: Once = Once::new();
        ONCE.call_once(|| {
            // SAFETY: as in `install`.
            unsafe {
                let mut act: libc::sigaction = std::mem::zeroed();
                act.sa_sigaction = blocked as *const () as usize;
                act.sa_flags = libc::SA_SIGINFO | libc::SA_ONSTACK | libc::SA_RESTART;
                libc::sigemptyset(&mut act.sa_mask);
                libc::sigaction(libc::SIGURG, &act, (&raw mut PREV_URG).cast());
            }
        });
    }

    /// Whether the instruction at or just before `pc` is a system call (reading only inside
    /// `pc`'s page, which holds the code being run).
    #[cfg(target_arch = "x86_64")]
    unsafe fn at_system_call(uc: *mut libc::ucontext_t) -> bool {
        // SAFETY: the kernel passes a valid ucontext; the bytes read lie in the page of the
        // interrupted instruction, which is mapped and readable (code).
        unsafe {
            let pc = (*uc).uc_mcontext.gregs[libc::REG_RIP as usize] as usize;
            let syscall = |p: usize| *(p as *const [u8; 2]) == [0x0f, 0x05];
            (pc & 0xfff >= 2 && syscall(pc - 2)) || (pc & 0xfff <= 0xffe && syscall(pc))
        }
    }

    #[cfg(target_arch = "aarch64")]
    unsafe fn at_system_call(uc: *mut libc::ucontext_t) -> bool {
        // SAFETY: as for x86-64.
        unsafe {
            let pc = (*uc).uc_mcontext.pc as usize;
            let svc = |p: usize| (p as *const u32).read_unaligned() == 0xd400_0001;
            (pc & 0xfff >= 4 && svc(pc - 4)) || (pc & 0xfff <= 0xffc && svc(pc))
        }
    }

    /// The monitor's signal (`stuck.rs`): ends the armed fiber with `RunnerEnd::Blocked` if
    /// the monitor marked this thread and it is in a system call.
    extern "C" fn blocked(sig: libc::c_int, info: *mut libc::siginfo_t, ctx: *mut libc::c_void) {
        let uc = ctx as *mut libc::ucontext_t;
        let w = crate::host::sched::stuck::me_raw();
        // SAFETY: `w` is this thread's registered worker, which lives until the thread ends;
        // `ctx` comes from the kernel; the thread-locals read are const-initialised without
        // destructors.
        unsafe {
            if !w.is_null() && (*w).stop.swap(false, std::sync::atomic::Ordering::Relaxed) {
                if let Some(trap) = armed_trap() {
                    if trap.stack_ptr_in_bounds(stack_pointer(uc)) && at_system_call(uc) {
                        super::disarm();
                        super::disarm_trap();
                        redirect(uc, trap, RunnerEnd::Blocked);
                        return;
                    }
                }
                return;
            }
            // Not ours: the handler that was there before, if any.
            let prev = &*(&raw const PREV_URG).cast::<libc::sigaction>();
            if prev.sa_sigaction == libc::SIG_DFL || prev.sa_sigaction == libc::SIG_IGN {
                return;
            }
            if prev.sa_flags & libc::SA_SIGINFO != 0 {
                let f: extern "C" fn(libc::c_int, *mut libc::siginfo_t, *mut libc::c_void) =
                    std::mem::transmute(prev.sa_sigaction);
                f(sig, info, ctx);
            } else {
                let f: extern "C" fn(libc::c_int) = std::mem::transmute(prev.sa_sigaction);
                f(sig);
            }
        }
    }

    pub(crate) fn install() {
        static ONCE: Once = Once::new();
        ONCE.call_once(|| {
            // SAFETY: plain sigaction calls; the previous actions are written before our handler
            // can run (it is installed by the same call) and never written again.
            unsafe {
                let mut act: libc::sigaction = std::mem::zeroed();
                act.sa_sigaction = handler as *const () as usize;
                act.sa_flags = libc::SA_SIGINFO | libc::SA_ONSTACK | libc::SA_NODEFER;
                libc::sigemptyset(&mut act.sa_mask);
                libc::sigaction(libc::SIGSEGV, &act, (&raw mut PREV_SEGV).cast());
                libc::sigaction(libc::SIGBUS, &act, (&raw mut PREV_BUS).cast());
            }
        });
    }

    #[cfg(target_arch = "x86_64")]
    unsafe fn stack_pointer(uc: *mut libc::ucontext_t) -> usize {
        // SAFETY: the kernel passes a valid ucontext to SA_SIGINFO handlers.
        unsafe { (*uc).uc_mcontext.gregs[libc::REG_RSP as usize] as usize }
    }

    #[cfg(target_arch = "aarch64")]
    unsafe fn stack_pointer(uc: *mut libc::ucontext_t) -> usize {
        // SAFETY: as above.
        unsafe { (*uc).uc_mcontext.sp as usize }
    }

    #[cfg(target_arch = "x86_64")]
    unsafe fn redirect(uc: *mut libc::ucontext_t, trap: CoroutineTrapHandler<RunnerEnd>, end: RunnerEnd) {
        // SAFETY: the caller checked that the stack pointer is inside the armed fiber (a
        // stack overflow of it, or it is blocked in a system call), as `setup_trap_handler`
        // requires; we then update exactly the registers it names.
        unsafe {
            let r = trap.setup_trap_handler(move || end);
            let g = &mut (*uc).uc_mcontext.gregs;
            g[libc::REG_RIP as usize] = r.rip as i64;
            g[libc::REG_RSP as usize] = r.rsp as i64;
            g[libc::REG_RBP as usize] = r.rbp as i64;
            g[libc::REG_RDI as usize] = r.rdi as i64;
            g[libc::REG_RSI as usize] = r.rsi as i64;
        }
    }

    #[cfg(target_arch = "aarch64")]
    unsafe fn redirect(uc: *mut libc::ucontext_t, trap: CoroutineTrapHandler<RunnerEnd>, end: RunnerEnd) {
        // SAFETY: as for x86-64.
        unsafe {
            let r = trap.setup_trap_handler(move || end);
            let m = &mut (*uc).uc_mcontext;
            m.pc = r.pc;
            m.sp = r.sp;
            m.regs[0] = r.x0;
            m.regs[1] = r.x1;
            m.regs[29] = r.x29;
            m.regs[30] = r.lr;
        }
    }

    extern "C" fn handler(sig: libc::c_int, info: *mut libc::siginfo_t, ctx: *mut libc::c_void) {
        let uc = ctx as *mut libc::ucontext_t;
        // SAFETY: `info` and `ctx` come from the kernel for an SA_SIGINFO handler. ARMED is a
        // const-initialised thread-local without a destructor: reading it is a plain load.
        unsafe {
            let addr = (*info).si_addr() as usize;
            if let Some(trap) = armed_trap() {
                let sp = stack_pointer(uc);
                // The usable part of a fiber stack is mapped read-write, so a fault whose address
                // lies inside the fiber's mapping is a touch of its guard page.
                if trap.stack_ptr_in_bounds(addr) && trap.stack_ptr_in_bounds(sp) {
                    super::disarm();
                    super::disarm_trap();
                    redirect(uc, trap, RunnerEnd::StackOverflow);
                    return;
                }
            }
            let prev = if sig == libc::SIGSEGV {
                (&raw const PREV_SEGV).cast::<libc::sigaction>()
            } else {
                (&raw const PREV_BUS).cast::<libc::sigaction>()
            };
            let prev = &*prev;
            if prev.sa_sigaction == libc::SIG_DFL || prev.sa_sigaction == libc::SIG_IGN {
                // Restore the default action and return: the fault repeats and kills the
                // process as it would have without us.
                libc::sigaction(sig, prev, std::ptr::null_mut());
            } else if prev.sa_flags & libc::SA_SIGINFO != 0 {
                let f: extern "C" fn(libc::c_int, *mut libc::siginfo_t, *mut libc::c_void) =
                    std::mem::transmute(prev.sa_sigaction);
                f(sig, info, ctx);
            } else {
                let f: extern "C" fn(libc::c_int) = std::mem::transmute(prev.sa_sigaction);
                f(sig);
            }
        }
    }
}

#[cfg(not(all(target_os = "linux", any(target_arch = "x86_64", target_arch = "aarch64"), not(miri))))]
mod imp {
    pub(crate) fn install() {}
    pub(crate) fn install_blocked() {}
}

pub(crate) use imp::{install, install_blocked};
