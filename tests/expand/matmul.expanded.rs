use deviceemu::prelude::*;
///Launcher of the kernel `matmul`: launch it with `launch!(matmul<<<grid, block>>>(args))`.
#[doc(hidden)]
#[allow(non_camel_case_types, dead_code)]
#[cfg(not(target_arch = "nvptx64"))]
pub struct matmul {}
#[cfg(not(target_arch = "nvptx64"))]
impl matmul {
    /// The kernel's name, as reports and the GPU module spell it.
    #[allow(dead_code)]
    pub const NAME: &'static str = "matmul";
    /// The kernel's static facts.
    #[doc(hidden)]
    #[allow(dead_code)]
    pub fn __info() -> &'static ::deviceemu::__private::KernelInfo {
        static __EMU_INFO: ::deviceemu::__private::KernelInfo = ::deviceemu::__private::KernelInfo {
            name: "matmul",
            file: ::core::file!(),
            line: ::core::line!(),
            end_line: ::core::line!(),
            max_threads: 0u32,
            cluster: [0u32, 0u32, 0u32],
        };
        &__EMU_INFO
    }
    /// Launches the kernel on the default stream and waits for it; use `launch!`
    /// rather than calling this directly.
    #[doc(hidden)]
    #[allow(clippy::too_many_arguments, dead_code)]
    pub fn __launch(
        __emu_config: ::deviceemu::__private::LaunchConfig,
        a: impl ::deviceemu::__private::KernelArg<f32>,
        b: impl ::deviceemu::__private::KernelArg<f32>,
        mut c: impl ::deviceemu::__private::KernelArgMut<f32>,
        inner: u32,
        cols: u32,
    ) -> ::core::result::Result<(), ::deviceemu::Error> {
        ::deviceemu::__private::on_default_stream(move || matmul::__run(
            __emu_config,
            a,
            b,
            c,
            inner,
            cols,
        ))
    }
    /// Queues the kernel on a stream (`launch!` with a stream); returns launch-time
    /// errors only. The caller's location (the `launch!` site) names the launch in the
    /// error of a later fault on the GPU.
    #[doc(hidden)]
    #[track_caller]
    #[allow(clippy::too_many_arguments, dead_code, unused_mut)]
    pub fn __launch_on(
        __emu_stream: &::deviceemu::__private::Stream,
        __emu_config: ::deviceemu::__private::LaunchConfig,
        a: impl ::deviceemu::__private::KernelArg<f32>,
        b: impl ::deviceemu::__private::KernelArg<f32>,
        mut c: impl ::deviceemu::__private::KernelArgMut<f32>,
        inner: u32,
        cols: u32,
    ) -> ::core::result::Result<(), ::deviceemu::Error> {
        let __emu_info = matmul::__info();
        const __EMU_PTX: ::core::option::Option<&'static str> = ::core::option::Option::None;
        if let ::core::option::Option::Some(r) = ::deviceemu::__private::launch_on_gpu_stream(
            __emu_info,
            __EMU_PTX,
            __emu_stream,
            __emu_config,
            &[
                ::deviceemu::__private::GpuArg::slice(&a),
                ::deviceemu::__private::GpuArg::slice(&b),
                ::deviceemu::__private::GpuArg::slice(&c),
                ::deviceemu::__private::GpuArg::scalar(&inner),
                ::deviceemu::__private::GpuArg::scalar(&cols),
            ],
        ) {
            return r;
        }
        let mut __emu_queued = ::deviceemu::__private::Queued::new(
            __emu_stream,
            __emu_info,
            &__emu_config,
        )?;
        let a = __emu_queued.read(a);
        let b = __emu_queued.read(b);
        let mut c = __emu_queued.write(c);
        __emu_queued
            .submit(move || matmul::__run(__emu_config, &a, &b, &mut c, inner, cols))
    }
    /// A device-side launch (`launch!` in a `#[kernel]` or `#[device]` body): queues the
    /// kernel as a child of the running block, on the parent's views.
    #[doc(hidden)]
    #[track_caller]
    #[allow(clippy::too_many_arguments, dead_code)]
    pub fn __launch_device<'__emu_l>(
        __emu_config: ::deviceemu::__private::LaunchConfig,
        __emu_stream: ::core::option::Option<&::deviceemu::__private::DeviceStream>,
        a: impl ::deviceemu::__private::DeviceArg<'__emu_l, f32>,
        b: impl ::deviceemu::__private::DeviceArg<'__emu_l, f32>,
        c: impl ::deviceemu::__private::DeviceArgMut<'__emu_l, f32>,
        inner: u32,
        cols: u32,
    ) -> ::core::result::Result<(), ::deviceemu::Error> {
        let __emu_info = matmul::__info();
        let a = <_ as ::deviceemu::__private::DeviceArg<'__emu_l, f32>>::into_view(a);
        let b = <_ as ::deviceemu::__private::DeviceArg<'__emu_l, f32>>::into_view(b);
        let c = <_ as ::deviceemu::__private::DeviceArgMut<'__emu_l, f32>>::into_view(c);
        ::deviceemu::__private::device_launch(
            __emu_info,
            __emu_config,
            __emu_stream,
            ::core::panic::Location::caller(),
            move || matmul::__run_views(
                __emu_config,
                ::deviceemu::__private::launch_checks(),
                a,
                b,
                c,
                inner,
                cols,
            ),
        )
    }
    /// Runs the launch now, on this thread, on views of its buffers (`__run`'s, or a
    /// device-side launch's: the parent's), with the checkers `__emu_checks`.
    #[doc(hidden)]
    #[allow(clippy::too_many_arguments, dead_code)]
    pub fn __run_views(
        __emu_config: ::deviceemu::__private::LaunchConfig,
        __emu_checks: ::deviceemu::__private::Checks,
        a: ::deviceemu::__private::Global<'_, f32>,
        b: ::deviceemu::__private::Global<'_, f32>,
        c: ::deviceemu::__private::GlobalMut<'_, f32>,
        inner: u32,
        cols: u32,
    ) -> ::core::result::Result<(), ::deviceemu::Error> {
        let __emu_info = matmul::__info();
        if ::deviceemu::__private::per_access(__emu_checks) {
            ::deviceemu::__private::launch_regions(
                __emu_info,
                __emu_config,
                &[::deviceemu::__private::Written::of("c", &c)],
                move |__emu_rb| matmul::__regions::<
                    true,
                >(__emu_rb, a, b, c, inner, cols),
                move |__emu_ctx| matmul::matmul::<true>(__emu_ctx, a, b, c, inner, cols),
            )
        } else {
            ::deviceemu::__private::launch_regions(
                __emu_info,
                __emu_config,
                &[::deviceemu::__private::Written::of("c", &c)],
                move |__emu_rb| matmul::__regions::<
                    false,
                >(__emu_rb, a, b, c, inner, cols),
                move |__emu_ctx| matmul::matmul::<false>(__emu_ctx, a, b, c, inner, cols),
            )
        }
    }
    /// Runs the launch now, on this thread.
    #[doc(hidden)]
    #[allow(clippy::too_many_arguments, dead_code)]
    pub fn __run(
        __emu_config: ::deviceemu::__private::LaunchConfig,
        a: impl ::deviceemu::__private::KernelArg<f32>,
        b: impl ::deviceemu::__private::KernelArg<f32>,
        mut c: impl ::deviceemu::__private::KernelArgMut<f32>,
        inner: u32,
        cols: u32,
    ) -> ::core::result::Result<(), ::deviceemu::Error> {
        let __emu_info = matmul::__info();
        const __EMU_PTX: ::core::option::Option<&'static str> = ::core::option::Option::None;
        if let ::core::option::Option::Some(r) = ::deviceemu::__private::launch_on_gpu(
            __emu_info,
            __EMU_PTX,
            __emu_config,
            &[
                ::deviceemu::__private::GpuArg::slice(&a),
                ::deviceemu::__private::GpuArg::slice(&b),
                ::deviceemu::__private::GpuArg::slice(&c),
                ::deviceemu::__private::GpuArg::scalar(&inner),
                ::deviceemu::__private::GpuArg::scalar(&cols),
            ],
        ) {
            return r;
        }
        let __emu_checks = ::deviceemu::__private::launch_checks();
        let __emu_meta_pa = ::deviceemu::__private::meta("a", &a, __emu_checks);
        let a = unsafe { ::deviceemu::__private::global(&a, &__emu_meta_pa) }?;
        let __emu_meta_pb = ::deviceemu::__private::meta("b", &b, __emu_checks);
        let b = unsafe { ::deviceemu::__private::global(&b, &__emu_meta_pb) }?;
        let __emu_meta_pc = ::deviceemu::__private::meta("c", &c, __emu_checks);
        let c = unsafe { ::deviceemu::__private::global_mut(&mut c, &__emu_meta_pc) }?;
        matmul::__run_views(__emu_config, __emu_checks, a, b, c, inner, cols)
    }
}
#[cfg(not(target_arch = "nvptx64"))]
impl matmul {
    ///The kernel `matmul`, as one GPU thread runs it.
    #[doc(hidden)]
    #[allow(
        unused_mut,
        unused_braces,
        unreachable_code,
        clippy::needless_return,
        clippy::too_many_arguments,
        clippy::redundant_closure_call,
        clippy::needless_else,
        clippy::if_same_then_else
    )]
    #[inline]
    pub fn matmul<'__emu_launch, const __EMU_CHECKED: bool>(
        __emu_ctx: ::deviceemu::__private::ThreadCtx,
        a: ::deviceemu::__private::Global<'__emu_launch, f32>,
        b: ::deviceemu::__private::Global<'__emu_launch, f32>,
        c: ::deviceemu::__private::GlobalMut<'__emu_launch, f32>,
        inner: u32,
        cols: u32,
    ) -> impl ::core::future::Future<
        Output = ::deviceemu::__private::Exit,
    > + use<'__emu_launch, __EMU_CHECKED> {
        const _: () = ::deviceemu::__private::assert_kernel_scalar::<u32>();
        const _: () = ::deviceemu::__private::assert_kernel_scalar::<u32>();
        async move {
            let _ = &__emu_ctx;
            {
                let ta = {
                    #[cfg(not(target_arch = "nvptx64"))]
                    let __emu_view = shared_array![@ named "ta", [f32; 16]; 16];
                    #[cfg(target_arch = "nvptx64")]
                    let __emu_view = {
                        #[allow(unused_imports, non_snake_case)]
                        mod __emu_shared_matmul_7314e1115383baa6_0_decl {
                            use super::*;
                            ::core::arch::global_asm!(
                                ".shared .align {a} .b8 __emu_shared_matmul_7314e1115383baa6_0[{n}];",
                                a = const ::deviceemu::__private::shared_align:: < [f32; 16]
                                > (), n = const ::core::mem::size_of:: < [[f32; 16]; 16] >
                                (),
                            );
                        }
                        let p: u32;
                        unsafe {
                            ::core::arch::asm!(
                                "mov.u32 {p}, __emu_shared_matmul_7314e1115383baa6_0;", p =
                                out(reg32) p, options(pure, nomem, nostack)
                            )
                        };
                        unsafe {
                            ::deviceemu::__private::shared_view::<[f32; 16]>(p, 16)
                        }
                    };
                    __emu_view
                };
                let tb = {
                    #[cfg(not(target_arch = "nvptx64"))]
                    let __emu_view = shared_array![@ named "tb", [f32; 16]; 16];
                    #[cfg(target_arch = "nvptx64")]
                    let __emu_view = {
                        #[allow(unused_imports, non_snake_case)]
                        mod __emu_shared_matmul_7314e1115383baa6_1_decl {
                            use super::*;
                            ::core::arch::global_asm!(
                                ".shared .align {a} .b8 __emu_shared_matmul_7314e1115383baa6_1[{n}];",
                                a = const ::deviceemu::__private::shared_align:: < [f32; 16]
                                > (), n = const ::core::mem::size_of:: < [[f32; 16]; 16] >
                                (),
                            );
                        }
                        let p: u32;
                        unsafe {
                            ::core::arch::asm!(
                                "mov.u32 {p}, __emu_shared_matmul_7314e1115383baa6_1;", p =
                                out(reg32) p, options(pure, nomem, nostack)
                            )
                        };
                        unsafe {
                            ::deviceemu::__private::shared_view::<[f32; 16]>(p, 16)
                        }
                    };
                    __emu_view
                };
                let tx = __emu_ctx.thread_idx.x as usize;
                let ty = __emu_ctx.thread_idx.y as usize;
                let row = __emu_ctx.block_idx.y as usize * 16 + ty;
                let col = __emu_ctx.block_idx.x as usize * 16 + tx;
                let kk = inner as usize;
                let nn = cols as usize;
                let mut acc = 0.0f32;
                for t in 0..kk / 16 {
                    {
                        let __emu_value = ::deviceemu::__private::load(
                            __EMU_CHECKED,
                            &a,
                            row * kk + t * 16 + tx,
                        );
                        ::deviceemu::__private::store(
                            __EMU_CHECKED,
                            &::deviceemu::__private::row_write(&ta, ty),
                            tx,
                            __emu_value,
                        )
                    };
                    {
                        let __emu_value = ::deviceemu::__private::load(
                            __EMU_CHECKED,
                            &b,
                            (t * 16 + ty) * nn + col,
                        );
                        ::deviceemu::__private::store(
                            __EMU_CHECKED,
                            &::deviceemu::__private::row_write(&tb, ty),
                            tx,
                            __emu_value,
                        )
                    };
                    {
                        ::deviceemu::__private::barrier_await(
                                ::deviceemu::__private::BarrierOp::Sync,
                                false,
                            )
                            .await;
                    };
                    for j in 0..16 {
                        acc
                            += ::deviceemu::__private::load(
                                __EMU_CHECKED,
                                &::deviceemu::__private::row(&ta, ty),
                                j,
                            )
                                * ::deviceemu::__private::load(
                                    __EMU_CHECKED,
                                    &::deviceemu::__private::row(&tb, j),
                                    tx,
                                );
                    }
                    {
                        ::deviceemu::__private::barrier_await(
                                ::deviceemu::__private::BarrierOp::Sync,
                                false,
                            )
                            .await;
                    };
                }
                {
                    let __emu_value = acc;
                    ::deviceemu::__private::store(
                        __EMU_CHECKED,
                        &c,
                        row * nn + col,
                        __emu_value,
                    )
                };
            };
            ::deviceemu::__private::exit_here()
        }
    }
}
#[cfg(all(not(target_arch = "nvptx64"), not(doc)))]
#[doc(hidden)]
#[allow(dead_code, clippy::too_many_arguments, clippy::extra_unused_lifetimes)]
pub fn matmul<'__emu_call, __EmuArg0, __EmuArg1, __EmuArg2, __EmuArg3, __EmuArg4>(
    _: __EmuArg0,
    _: __EmuArg1,
    _: __EmuArg2,
    _: __EmuArg3,
    _: __EmuArg4,
) -> !
where
    matmul: ::deviceemu::__private::NotAFunction<'__emu_call>,
{
    ::core::unreachable!()
}
#[cfg(all(doc, not(target_arch = "nvptx64")))]
/// A `#[kernel]`: launch it with `launch!(matmul<<<grid, block>>>(...))`.
#[allow(unused_variables, unused_mut, clippy::too_many_arguments)]
pub fn matmul(a: &[f32], b: &[f32], c: &mut [f32], inner: u32, cols: u32) {}
#[cfg(not(target_arch = "nvptx64"))]
impl matmul {
    ///The kernel `matmul` for one whole block: its barrier regions as loops over the block's threads.
    #[doc(hidden)]
    #[allow(
        unused_mut,
        unused_braces,
        unreachable_code,
        clippy::needless_return,
        clippy::too_many_arguments,
        clippy::redundant_closure_call,
        clippy::needless_else,
        clippy::if_same_then_else
    )]
    #[allow(
        unused_variables,
        unused_assignments,
        non_snake_case,
        clippy::never_loop,
        clippy::nonminimal_bool
    )]
    #[inline]
    pub fn __regions<'__emu_launch, const __EMU_CHECKED: bool>(
        __emu_rb: &mut ::deviceemu::__private::Regions<'_>,
        a: ::deviceemu::__private::Global<'__emu_launch, f32>,
        b: ::deviceemu::__private::Global<'__emu_launch, f32>,
        c: ::deviceemu::__private::GlobalMut<'__emu_launch, f32>,
        inner: u32,
        cols: u32,
    ) {
        const _: () = ::deviceemu::__private::assert_kernel_scalar::<u32>();
        const _: () = ::deviceemu::__private::assert_kernel_scalar::<u32>();
        #[allow(unused_variables)]
        let __emu_ctx = __emu_rb.block_ctx();
        #[allow(clippy::needless_borrow)]
        let mut __emu_lanes_acc = {
            use ::deviceemu::__private::{TaggedSlots as _, ZeroSlots as _};
            (&::deviceemu::__private::SlotOf::<f32>::new()).slots(&*__emu_rb)
        };
        let ta = {
            #[cfg(not(target_arch = "nvptx64"))]
            let __emu_view = shared_array![@ named "ta", [f32; 16]; 16];
            #[cfg(target_arch = "nvptx64")]
            let __emu_view = {
                #[allow(unused_imports, non_snake_case)]
                mod __emu_shared_matmul_7314e1115383baa6_0_decl {
                    use super::*;
                    ::core::arch::global_asm!(
                        ".shared .align {a} .b8 __emu_shared_matmul_7314e1115383baa6_0[{n}];",
                        a = const ::deviceemu::__private::shared_align:: < [f32; 16] >
                        (), n = const ::core::mem::size_of:: < [[f32; 16]; 16] > (),
                    );
                }
                let p: u32;
                unsafe {
                    ::core::arch::asm!(
                        "mov.u32 {p}, __emu_shared_matmul_7314e1115383baa6_0;", p =
                        out(reg32) p, options(pure, nomem, nostack)
                    )
                };
                unsafe { ::deviceemu::__private::shared_view::<[f32; 16]>(p, 16) }
            };
            __emu_view
        };
        let tb = {
            #[cfg(not(target_arch = "nvptx64"))]
            let __emu_view = shared_array![@ named "tb", [f32; 16]; 16];
            #[cfg(target_arch = "nvptx64")]
            let __emu_view = {
                #[allow(unused_imports, non_snake_case)]
                mod __emu_shared_matmul_7314e1115383baa6_1_decl {
                    use super::*;
                    ::core::arch::global_asm!(
                        ".shared .align {a} .b8 __emu_shared_matmul_7314e1115383baa6_1[{n}];",
                        a = const ::deviceemu::__private::shared_align:: < [f32; 16] >
                        (), n = const ::core::mem::size_of:: < [[f32; 16]; 16] > (),
                    );
                }
                let p: u32;
                unsafe {
                    ::core::arch::asm!(
                        "mov.u32 {p}, __emu_shared_matmul_7314e1115383baa6_1;", p =
                        out(reg32) p, options(pure, nomem, nostack)
                    )
                };
                unsafe { ::deviceemu::__private::shared_view::<[f32; 16]>(p, 16) }
            };
            __emu_view
        };
        let kk = inner as usize;
        let nn = cols as usize;
        if !__EMU_CHECKED && __emu_rb.tier(::deviceemu::__private::TIER_VECTOR)
            && __emu_rb.in_index_order()
            && {
                let __emu_hi: usize = ::core::cmp::min(usize::MAX, __emu_rb.threads());
                __emu_hi == 0 || (__emu_hi >= ::deviceemu::__private::VECTOR_MIN)
            }
        {
            __emu_rb
                .each_chunk_below(
                    usize::MAX,
                    |
                        __emu_cursor: &::deviceemu::__private::LaneCursor,
                        __emu_c0: usize,
                        __emu_m: usize|
                    {
                        let __emu_m = ::core::cmp::min(
                            __emu_m,
                            ::deviceemu::__private::LANE_CHUNK,
                        );
                        let __emu_lanes_acc = __emu_lanes_acc.window(__emu_c0, __emu_m);
                        #[allow(unused_variables, unused_unsafe)]
                        for __emu_k in 0..__emu_m {
                            let __emu_ctx = __emu_cursor.lane(__emu_c0 + __emu_k);
                            let __emu_t = __emu_c0 + __emu_k;
                            let tx = __emu_ctx.thread_idx.x as usize;
                            let ty = __emu_ctx.thread_idx.y as usize;
                            let row = __emu_ctx.block_idx.y as usize * 16 + ty;
                            let col = __emu_ctx.block_idx.x as usize * 16 + tx;
                            let mut acc = 0.0f32;
                            __emu_lanes_acc.put(__emu_t, acc);
                        }
                    },
                    |__emu_t: usize, __emu_ctx: ::deviceemu::__private::ThreadCtx| {
                        let tx = __emu_ctx.thread_idx.x as usize;
                        let ty = __emu_ctx.thread_idx.y as usize;
                        let row = __emu_ctx.block_idx.y as usize * 16 + ty;
                        let col = __emu_ctx.block_idx.x as usize * 16 + tx;
                        let mut acc = 0.0f32;
                        __emu_lanes_acc.put(__emu_t, acc);
                    },
                );
        } else {
            __emu_rb
                .each({
                    #[inline(always)]
                    |
                        __emu_t: usize,
                        __emu_ctx: ::deviceemu::__private::ThreadCtx,
                    | -> ::core::option::Option<::deviceemu::__private::Exit> {
                        let tx = __emu_ctx.thread_idx.x as usize;
                        let ty = __emu_ctx.thread_idx.y as usize;
                        let row = __emu_ctx.block_idx.y as usize * 16 + ty;
                        let col = __emu_ctx.block_idx.x as usize * 16 + tx;
                        let mut acc = 0.0f32;
                        __emu_lanes_acc.put(__emu_t, acc);
                        ::core::option::Option::None
                    }
                });
        }
        for t in 0..kk / 16 {
            if !__emu_rb.any_live() {
                break;
            }
            if !__EMU_CHECKED && __emu_rb.tier(::deviceemu::__private::TIER_RANGES)
                && (true && ::deviceemu::__private::view_aligned(&a)
                    && match (
                        ::deviceemu::__private::range_add(
                            ::deviceemu::__private::range_add(
                                ::deviceemu::__private::range_mul(
                                    ::deviceemu::__private::range_add(
                                        ::deviceemu::__private::range_mul(
                                            ::core::option::Option::Some(
                                                __emu_ctx.block_idx.y as usize,
                                            ),
                                            ::core::option::Option::Some(16),
                                        ),
                                        ::core::option::Option::Some(0 as usize),
                                    ),
                                    ::core::option::Option::Some(kk),
                                ),
                                ::deviceemu::__private::range_mul(
                                    ::core::option::Option::Some(t),
                                    ::core::option::Option::Some(16),
                                ),
                            ),
                            ::core::option::Option::Some(0 as usize),
                        ),
                        ::deviceemu::__private::range_add(
                            ::deviceemu::__private::range_add(
                                ::deviceemu::__private::range_mul(
                                    ::deviceemu::__private::range_add(
                                        ::deviceemu::__private::range_mul(
                                            ::core::option::Option::Some(
                                                __emu_ctx.block_idx.y as usize,
                                            ),
                                            ::core::option::Option::Some(16),
                                        ),
                                        ::core::option::Option::Some(
                                            (__emu_ctx.block_dim.y - 1) as usize,
                                        ),
                                    ),
                                    ::core::option::Option::Some(kk),
                                ),
                                ::deviceemu::__private::range_mul(
                                    ::core::option::Option::Some(t),
                                    ::core::option::Option::Some(16),
                                ),
                            ),
                            ::core::option::Option::Some(
                                (__emu_ctx.block_dim.x - 1) as usize,
                            ),
                        ),
                    ) {
                        (
                            ::core::option::Option::Some(__emu_lo),
                            ::core::option::Option::Some(__emu_hi),
                        ) => {
                            ::deviceemu::__private::Index::to_index(__emu_lo)
                                <= ::deviceemu::__private::Index::to_index(__emu_hi)
                                && ::deviceemu::__private::Index::to_index(__emu_hi)
                                    < a.len()
                        }
                        _ => false,
                    } && ::deviceemu::__private::view_aligned(&ta)
                    && match (
                        ::core::option::Option::Some(0 as usize),
                        ::core::option::Option::Some(
                            (__emu_ctx.block_dim.y - 1) as usize,
                        ),
                    ) {
                        (
                            ::core::option::Option::Some(__emu_lo),
                            ::core::option::Option::Some(__emu_hi),
                        ) => {
                            ::deviceemu::__private::Index::to_index(__emu_lo)
                                <= ::deviceemu::__private::Index::to_index(__emu_hi)
                                && ::deviceemu::__private::Index::to_index(__emu_hi)
                                    < ta.len()
                        }
                        _ => false,
                    }
                    && match (
                        ::core::option::Option::Some(0 as usize),
                        ::core::option::Option::Some(
                            (__emu_ctx.block_dim.x - 1) as usize,
                        ),
                    ) {
                        (
                            ::core::option::Option::Some(__emu_lo),
                            ::core::option::Option::Some(__emu_hi),
                        ) => {
                            ::deviceemu::__private::Index::to_index(__emu_lo)
                                <= ::deviceemu::__private::Index::to_index(__emu_hi)
                                && ::deviceemu::__private::Index::to_index(__emu_hi)
                                    < ::deviceemu::__private::row_len(&ta)
                        }
                        _ => false,
                    } && ::deviceemu::__private::view_aligned(&b)
                    && match (
                        ::deviceemu::__private::range_add(
                            ::deviceemu::__private::range_mul(
                                ::deviceemu::__private::range_add(
                                    ::deviceemu::__private::range_mul(
                                        ::core::option::Option::Some(t),
                                        ::core::option::Option::Some(16),
                                    ),
                                    ::core::option::Option::Some(0 as usize),
                                ),
                                ::core::option::Option::Some(nn),
                            ),
                            ::deviceemu::__private::range_add(
                                ::deviceemu::__private::range_mul(
                                    ::core::option::Option::Some(
                                        __emu_ctx.block_idx.x as usize,
                                    ),
                                    ::core::option::Option::Some(16),
                                ),
                                ::core::option::Option::Some(0 as usize),
                            ),
                        ),
                        ::deviceemu::__private::range_add(
                            ::deviceemu::__private::range_mul(
                                ::deviceemu::__private::range_add(
                                    ::deviceemu::__private::range_mul(
                                        ::core::option::Option::Some(t),
                                        ::core::option::Option::Some(16),
                                    ),
                                    ::core::option::Option::Some(
                                        (__emu_ctx.block_dim.y - 1) as usize,
                                    ),
                                ),
                                ::core::option::Option::Some(nn),
                            ),
                            ::deviceemu::__private::range_add(
                                ::deviceemu::__private::range_mul(
                                    ::core::option::Option::Some(
                                        __emu_ctx.block_idx.x as usize,
                                    ),
                                    ::core::option::Option::Some(16),
                                ),
                                ::core::option::Option::Some(
                                    (__emu_ctx.block_dim.x - 1) as usize,
                                ),
                            ),
                        ),
                    ) {
                        (
                            ::core::option::Option::Some(__emu_lo),
                            ::core::option::Option::Some(__emu_hi),
                        ) => {
                            ::deviceemu::__private::Index::to_index(__emu_lo)
                                <= ::deviceemu::__private::Index::to_index(__emu_hi)
                                && ::deviceemu::__private::Index::to_index(__emu_hi)
                                    < b.len()
                        }
                        _ => false,
                    } && ::deviceemu::__private::view_aligned(&tb)
                    && match (
                        ::core::option::Option::Some(0 as usize),
                        ::core::option::Option::Some(
                            (__emu_ctx.block_dim.y - 1) as usize,
                        ),
                    ) {
                        (
                            ::core::option::Option::Some(__emu_lo),
                            ::core::option::Option::Some(__emu_hi),
                        ) => {
                            ::deviceemu::__private::Index::to_index(__emu_lo)
                                <= ::deviceemu::__private::Index::to_index(__emu_hi)
                                && ::deviceemu::__private::Index::to_index(__emu_hi)
                                    < tb.len()
                        }
                        _ => false,
                    }
                    && match (
                        ::core::option::Option::Some(0 as usize),
                        ::core::option::Option::Some(
                            (__emu_ctx.block_dim.x - 1) as usize,
                        ),
                    ) {
                        (
                            ::core::option::Option::Some(__emu_lo),
                            ::core::option::Option::Some(__emu_hi),
                        ) => {
                            ::deviceemu::__private::Index::to_index(__emu_lo)
                                <= ::deviceemu::__private::Index::to_index(__emu_hi)
                                && ::deviceemu::__private::Index::to_index(__emu_hi)
                                    < ::deviceemu::__private::row_len(&tb)
                        }
                        _ => false,
                    })
            {
                __emu_rb.note_proved();
                if __emu_rb.tier(::deviceemu::__private::TIER_TURN) {
                    __emu_rb
                        .each_in_turn::<
                            8usize,
                            _,
                            _,
                        >(
                            |
                                __emu_ts: &[usize; 8usize],
                                __emu_ctxs: &[::deviceemu::__private::ThreadCtx; 8usize],
                                __emu_turn: &::deviceemu::__private::Turn<'_>|
                            {
                                let a = a;
                                let b = b;
                                let kk = kk;
                                let nn = nn;
                                let ta = ta;
                                let tb = tb;
                                {
                                    let __emu_t: usize = __emu_ts[0usize];
                                    #[allow(unused_variables)]
                                    let __emu_ctx: ::deviceemu::__private::ThreadCtx = __emu_ctxs[0usize];
                                    __emu_turn.enter(__emu_t);
                                    let tx = __emu_ctx.thread_idx.x as usize;
                                    let ty = __emu_ctx.thread_idx.y as usize;
                                    let row = __emu_ctx.block_idx.y as usize * 16 + ty;
                                    let col = __emu_ctx.block_idx.x as usize * 16 + tx;
                                    {
                                        let __emu_value = ::deviceemu::__private::load_in_bounds(
                                            &a,
                                            ::deviceemu::__private::Index::to_index(
                                                row * kk + t * 16 + tx,
                                            ),
                                        );
                                        ::deviceemu::__private::store_row_in_bounds(
                                            &ta,
                                            ::deviceemu::__private::Index::to_index(ty),
                                            ::deviceemu::__private::Index::to_index(tx),
                                            __emu_value,
                                        )
                                    };
                                    {
                                        let __emu_value = ::deviceemu::__private::load_in_bounds(
                                            &b,
                                            ::deviceemu::__private::Index::to_index(
                                                (t * 16 + ty) * nn + col,
                                            ),
                                        );
                                        ::deviceemu::__private::store_row_in_bounds(
                                            &tb,
                                            ::deviceemu::__private::Index::to_index(ty),
                                            ::deviceemu::__private::Index::to_index(tx),
                                            __emu_value,
                                        )
                                    };
                                }
                                {
                                    let __emu_t: usize = __emu_ts[1usize];
                                    #[allow(unused_variables)]
                                    let __emu_ctx: ::deviceemu::__private::ThreadCtx = __emu_ctxs[1usize];
                                    __emu_turn.enter(__emu_t);
                                    let tx = __emu_ctx.thread_idx.x as usize;
                                    let ty = __emu_ctx.thread_idx.y as usize;
                                    let row = __emu_ctx.block_idx.y as usize * 16 + ty;
                                    let col = __emu_ctx.block_idx.x as usize * 16 + tx;
                                    {
                                        let __emu_value = ::deviceemu::__private::load_in_bounds(
                                            &a,
                                            ::deviceemu::__private::Index::to_index(
                                                row * kk + t * 16 + tx,
                                            ),
                                        );
                                        ::deviceemu::__private::store_row_in_bounds(
                                            &ta,
                                            ::deviceemu::__private::Index::to_index(ty),
                                            ::deviceemu::__private::Index::to_index(tx),
                                            __emu_value,
                                        )
                                    };
                                    {
                                        let __emu_value = ::deviceemu::__private::load_in_bounds(
                                            &b,
                                            ::deviceemu::__private::Index::to_index(
                                                (t * 16 + ty) * nn + col,
                                            ),
                                        );
                                        ::deviceemu::__private::store_row_in_bounds(
                                            &tb,
                                            ::deviceemu::__private::Index::to_index(ty),
                                            ::deviceemu::__private::Index::to_index(tx),
                                            __emu_value,
                                        )
                                    };
                                }
                                {
                                    let __emu_t: usize = __emu_ts[2usize];
                                    #[allow(unused_variables)]
                                    let __emu_ctx: ::deviceemu::__private::ThreadCtx = __emu_ctxs[2usize];
                                    __emu_turn.enter(__emu_t);
                                    let tx = __emu_ctx.thread_idx.x as usize;
                                    let ty = __emu_ctx.thread_idx.y as usize;
                                    let row = __emu_ctx.block_idx.y as usize * 16 + ty;
                                    let col = __emu_ctx.block_idx.x as usize * 16 + tx;
                                    {
                                        let __emu_value = ::deviceemu::__private::load_in_bounds(
                                            &a,
                                            ::deviceemu::__private::Index::to_index(
                                                row * kk + t * 16 + tx,
                                            ),
                                        );
                                        ::deviceemu::__private::store_row_in_bounds(
                                            &ta,
                                            ::deviceemu::__private::Index::to_index(ty),
                                            ::deviceemu::__private::Index::to_index(tx),
                                            __emu_value,
                                        )
                                    };
                                    {
                                        let __emu_value = ::deviceemu::__private::load_in_bounds(
                                            &b,
                                            ::deviceemu::__private::Index::to_index(
                                                (t * 16 + ty) * nn + col,
                                            ),
                                        );
                                        ::deviceemu::__private::store_row_in_bounds(
                                            &tb,
                                            ::deviceemu::__private::Index::to_index(ty),
                                            ::deviceemu::__private::Index::to_index(tx),
                                            __emu_value,
                                        )
                                    };
                                }
                                {
                                    let __emu_t: usize = __emu_ts[3usize];
                                    #[allow(unused_variables)]
                                    let __emu_ctx: ::deviceemu::__private::ThreadCtx = __emu_ctxs[3usize];
                                    __emu_turn.enter(__emu_t);
                                    let tx = __emu_ctx.thread_idx.x as usize;
                                    let ty = __emu_ctx.thread_idx.y as usize;
                                    let row = __emu_ctx.block_idx.y as usize * 16 + ty;
                                    let col = __emu_ctx.block_idx.x as usize * 16 + tx;
                                    {
                                        let __emu_value = ::deviceemu::__private::load_in_bounds(
                                            &a,
                                            ::deviceemu::__private::Index::to_index(
                                                row * kk + t * 16 + tx,
                                            ),
                                        );
                                        ::deviceemu::__private::store_row_in_bounds(
                                            &ta,
                                            ::deviceemu::__private::Index::to_index(ty),
                                            ::deviceemu::__private::Index::to_index(tx),
                                            __emu_value,
                                        )
                                    };
                                    {
                                        let __emu_value = ::deviceemu::__private::load_in_bounds(
                                            &b,
                                            ::deviceemu::__private::Index::to_index(
                                                (t * 16 + ty) * nn + col,
                                            ),
                                        );
                                        ::deviceemu::__private::store_row_in_bounds(
                                            &tb,
                                            ::deviceemu::__private::Index::to_index(ty),
                                            ::deviceemu::__private::Index::to_index(tx),
                                            __emu_value,
                                        )
                                    };
                                }
                                {
                                    let __emu_t: usize = __emu_ts[4usize];
                                    #[allow(unused_variables)]
                                    let __emu_ctx: ::deviceemu::__private::ThreadCtx = __emu_ctxs[4usize];
                                    __emu_turn.enter(__emu_t);
                                    let tx = __emu_ctx.thread_idx.x as usize;
                                    let ty = __emu_ctx.thread_idx.y as usize;
                                    let row = __emu_ctx.block_idx.y as usize * 16 + ty;
                                    let col = __emu_ctx.block_idx.x as usize * 16 + tx;
                                    {
                                        let __emu_value = ::deviceemu::__private::load_in_bounds(
                                            &a,
                                            ::deviceemu::__private::Index::to_index(
                                                row * kk + t * 16 + tx,
                                            ),
                                        );
                                        ::deviceemu::__private::store_row_in_bounds(
                                            &ta,
                                            ::deviceemu::__private::Index::to_index(ty),
                                            ::deviceemu::__private::Index::to_index(tx),
                                            __emu_value,
                                        )
                                    };
                                    {
                                        let __emu_value = ::deviceemu::__private::load_in_bounds(
                                            &b,
                                            ::deviceemu::__private::Index::to_index(
                                                (t * 16 + ty) * nn + col,
                                            ),
                                        );
                                        ::deviceemu::__private::store_row_in_bounds(
                                            &tb,
                                            ::deviceemu::__private::Index::to_index(ty),
                                            ::deviceemu::__private::Index::to_index(tx),
                                            __emu_value,
                                        )
                                    };
                                }
                                {
                                    let __emu_t: usize = __emu_ts[5usize];
                                    #[allow(unused_variables)]
                                    let __emu_ctx: ::deviceemu::__private::ThreadCtx = __emu_ctxs[5usize];
                                    __emu_turn.enter(__emu_t);
                                    let tx = __emu_ctx.thread_idx.x as usize;
                                    let ty = __emu_ctx.thread_idx.y as usize;
                                    let row = __emu_ctx.block_idx.y as usize * 16 + ty;
                                    let col = __emu_ctx.block_idx.x as usize * 16 + tx;
                                    {
                                        let __emu_value = ::deviceemu::__private::load_in_bounds(
                                            &a,
                                            ::deviceemu::__private::Index::to_index(
                                                row * kk + t * 16 + tx,
                                            ),
                                        );
                                        ::deviceemu::__private::store_row_in_bounds(
                                            &ta,
                                            ::deviceemu::__private::Index::to_index(ty),
                                            ::deviceemu::__private::Index::to_index(tx),
                                            __emu_value,
                                        )
                                    };
                                    {
                                        let __emu_value = ::deviceemu::__private::load_in_bounds(
                                            &b,
                                            ::deviceemu::__private::Index::to_index(
                                                (t * 16 + ty) * nn + col,
                                            ),
                                        );
                                        ::deviceemu::__private::store_row_in_bounds(
                                            &tb,
                                            ::deviceemu::__private::Index::to_index(ty),
                                            ::deviceemu::__private::Index::to_index(tx),
                                            __emu_value,
                                        )
                                    };
                                }
                                {
                                    let __emu_t: usize = __emu_ts[6usize];
                                    #[allow(unused_variables)]
                                    let __emu_ctx: ::deviceemu::__private::ThreadCtx = __emu_ctxs[6usize];
                                    __emu_turn.enter(__emu_t);
                                    let tx = __emu_ctx.thread_idx.x as usize;
                                    let ty = __emu_ctx.thread_idx.y as usize;
                                    let row = __emu_ctx.block_idx.y as usize * 16 + ty;
                                    let col = __emu_ctx.block_idx.x as usize * 16 + tx;
                                    {
                                        let __emu_value = ::deviceemu::__private::load_in_bounds(
                                            &a,
                                            ::deviceemu::__private::Index::to_index(
                                                row * kk + t * 16 + tx,
                                            ),
                                        );
                                        ::deviceemu::__private::store_row_in_bounds(
                                            &ta,
                                            ::deviceemu::__private::Index::to_index(ty),
                                            ::deviceemu::__private::Index::to_index(tx),
                                            __emu_value,
                                        )
                                    };
                                    {
                                        let __emu_value = ::deviceemu::__private::load_in_bounds(
                                            &b,
                                            ::deviceemu::__private::Index::to_index(
                                                (t * 16 + ty) * nn + col,
                                            ),
                                        );
                                        ::deviceemu::__private::store_row_in_bounds(
                                            &tb,
                                            ::deviceemu::__private::Index::to_index(ty),
                                            ::deviceemu::__private::Index::to_index(tx),
                                            __emu_value,
                                        )
                                    };
                                }
                                {
                                    let __emu_t: usize = __emu_ts[7usize];
                                    #[allow(unused_variables)]
                                    let __emu_ctx: ::deviceemu::__private::ThreadCtx = __emu_ctxs[7usize];
                                    __emu_turn.enter(__emu_t);
                                    let tx = __emu_ctx.thread_idx.x as usize;
                                    let ty = __emu_ctx.thread_idx.y as usize;
                                    let row = __emu_ctx.block_idx.y as usize * 16 + ty;
                                    let col = __emu_ctx.block_idx.x as usize * 16 + tx;
                                    {
                                        let __emu_value = ::deviceemu::__private::load_in_bounds(
                                            &a,
                                            ::deviceemu::__private::Index::to_index(
                                                row * kk + t * 16 + tx,
                                            ),
                                        );
                                        ::deviceemu::__private::store_row_in_bounds(
                                            &ta,
                                            ::deviceemu::__private::Index::to_index(ty),
                                            ::deviceemu::__private::Index::to_index(tx),
                                            __emu_value,
                                        )
                                    };
                                    {
                                        let __emu_value = ::deviceemu::__private::load_in_bounds(
                                            &b,
                                            ::deviceemu::__private::Index::to_index(
                                                (t * 16 + ty) * nn + col,
                                            ),
                                        );
                                        ::deviceemu::__private::store_row_in_bounds(
                                            &tb,
                                            ::deviceemu::__private::Index::to_index(ty),
                                            ::deviceemu::__private::Index::to_index(tx),
                                            __emu_value,
                                        )
                                    };
                                }
                            },
                            {
                                #[inline(always)]
                                |
                                    __emu_t: usize,
                                    __emu_ctx: ::deviceemu::__private::ThreadCtx,
                                | -> ::core::option::Option<::deviceemu::__private::Exit> {
                                    let tx = __emu_ctx.thread_idx.x as usize;
                                    let ty = __emu_ctx.thread_idx.y as usize;
                                    let row = __emu_ctx.block_idx.y as usize * 16 + ty;
                                    let col = __emu_ctx.block_idx.x as usize * 16 + tx;
                                    {
                                        let __emu_value = ::deviceemu::__private::load_in_bounds(
                                            &a,
                                            ::deviceemu::__private::Index::to_index(
                                                row * kk + t * 16 + tx,
                                            ),
                                        );
                                        ::deviceemu::__private::store_row_in_bounds(
                                            &ta,
                                            ::deviceemu::__private::Index::to_index(ty),
                                            ::deviceemu::__private::Index::to_index(tx),
                                            __emu_value,
                                        )
                                    };
                                    {
                                        let __emu_value = ::deviceemu::__private::load_in_bounds(
                                            &b,
                                            ::deviceemu::__private::Index::to_index(
                                                (t * 16 + ty) * nn + col,
                                            ),
                                        );
                                        ::deviceemu::__private::store_row_in_bounds(
                                            &tb,
                                            ::deviceemu::__private::Index::to_index(ty),
                                            ::deviceemu::__private::Index::to_index(tx),
                                            __emu_value,
                                        )
                                    };
                                    ::core::option::Option::None
                                }
                            },
                        );
                } else {
                    __emu_rb
                        .each({
                            #[inline(always)]
                            |
                                __emu_t: usize,
                                __emu_ctx: ::deviceemu::__private::ThreadCtx,
                            | -> ::core::option::Option<::deviceemu::__private::Exit> {
                                let tx = __emu_ctx.thread_idx.x as usize;
                                let ty = __emu_ctx.thread_idx.y as usize;
                                let row = __emu_ctx.block_idx.y as usize * 16 + ty;
                                let col = __emu_ctx.block_idx.x as usize * 16 + tx;
                                {
                                    let __emu_value = ::deviceemu::__private::load_in_bounds(
                                        &a,
                                        ::deviceemu::__private::Index::to_index(
                                            row * kk + t * 16 + tx,
                                        ),
                                    );
                                    ::deviceemu::__private::store_row_in_bounds(
                                        &ta,
                                        ::deviceemu::__private::Index::to_index(ty),
                                        ::deviceemu::__private::Index::to_index(tx),
                                        __emu_value,
                                    )
                                };
                                {
                                    let __emu_value = ::deviceemu::__private::load_in_bounds(
                                        &b,
                                        ::deviceemu::__private::Index::to_index(
                                            (t * 16 + ty) * nn + col,
                                        ),
                                    );
                                    ::deviceemu::__private::store_row_in_bounds(
                                        &tb,
                                        ::deviceemu::__private::Index::to_index(ty),
                                        ::deviceemu::__private::Index::to_index(tx),
                                        __emu_value,
                                    )
                                };
                                ::core::option::Option::None
                            }
                        });
                }
            } else {
                __emu_rb
                    .each({
                        #[inline(always)]
                        |
                            __emu_t: usize,
                            __emu_ctx: ::deviceemu::__private::ThreadCtx,
                        | -> ::core::option::Option<::deviceemu::__private::Exit> {
                            let tx = __emu_ctx.thread_idx.x as usize;
                            let ty = __emu_ctx.thread_idx.y as usize;
                            let row = __emu_ctx.block_idx.y as usize * 16 + ty;
                            let col = __emu_ctx.block_idx.x as usize * 16 + tx;
                            {
                                let __emu_value = ::deviceemu::__private::load(
                                    __EMU_CHECKED,
                                    &a,
                                    row * kk + t * 16 + tx,
                                );
                                ::deviceemu::__private::store(
                                    __EMU_CHECKED,
                                    &::deviceemu::__private::row_write(&ta, ty),
                                    tx,
                                    __emu_value,
                                )
                            };
                            {
                                let __emu_value = ::deviceemu::__private::load(
                                    __EMU_CHECKED,
                                    &b,
                                    (t * 16 + ty) * nn + col,
                                );
                                ::deviceemu::__private::store(
                                    __EMU_CHECKED,
                                    &::deviceemu::__private::row_write(&tb, ty),
                                    tx,
                                    __emu_value,
                                )
                            };
                            ::core::option::Option::None
                        }
                    });
            }
            __emu_rb.barrier();
            if !__EMU_CHECKED && __emu_rb.tier(::deviceemu::__private::TIER_RANGES)
                && (true && ::deviceemu::__private::view_aligned(&ta)
                    && match (
                        ::core::option::Option::Some(0 as usize),
                        ::core::option::Option::Some(
                            (__emu_ctx.block_dim.y - 1) as usize,
                        ),
                    ) {
                        (
                            ::core::option::Option::Some(__emu_lo),
                            ::core::option::Option::Some(__emu_hi),
                        ) => {
                            ::deviceemu::__private::Index::to_index(__emu_lo)
                                <= ::deviceemu::__private::Index::to_index(__emu_hi)
                                && ::deviceemu::__private::Index::to_index(__emu_hi)
                                    < ta.len()
                        }
                        _ => false,
                    }
                    && match (
                        ::core::option::Option::Some(0),
                        ::deviceemu::__private::range_last(
                            ::core::option::Option::Some(0),
                            ::core::option::Option::Some(16),
                            1,
                            true,
                        ),
                    ) {
                        (
                            ::core::option::Option::Some(__emu_lo),
                            ::core::option::Option::Some(__emu_hi),
                        ) => {
                            ::deviceemu::__private::Index::to_index(__emu_lo)
                                <= ::deviceemu::__private::Index::to_index(__emu_hi)
                                && ::deviceemu::__private::Index::to_index(__emu_hi)
                                    < ::deviceemu::__private::row_len(&ta)
                        }
                        _ => false,
                    } && ::deviceemu::__private::view_aligned(&tb)
                    && match (
                        ::core::option::Option::Some(0),
                        ::deviceemu::__private::range_last(
                            ::core::option::Option::Some(0),
                            ::core::option::Option::Some(16),
                            1,
                            true,
                        ),
                    ) {
                        (
                            ::core::option::Option::Some(__emu_lo),
                            ::core::option::Option::Some(__emu_hi),
                        ) => {
                            ::deviceemu::__private::Index::to_index(__emu_lo)
                                <= ::deviceemu::__private::Index::to_index(__emu_hi)
                                && ::deviceemu::__private::Index::to_index(__emu_hi)
                                    < tb.len()
                        }
                        _ => false,
                    }
                    && match (
                        ::core::option::Option::Some(0 as usize),
                        ::core::option::Option::Some(
                            (__emu_ctx.block_dim.x - 1) as usize,
                        ),
                    ) {
                        (
                            ::core::option::Option::Some(__emu_lo),
                            ::core::option::Option::Some(__emu_hi),
                        ) => {
                            ::deviceemu::__private::Index::to_index(__emu_lo)
                                <= ::deviceemu::__private::Index::to_index(__emu_hi)
                                && ::deviceemu::__private::Index::to_index(__emu_hi)
                                    < ::deviceemu::__private::row_len(&tb)
                        }
                        _ => false,
                    })
            {
                __emu_rb.note_proved();
                if __emu_rb.tier(::deviceemu::__private::TIER_INTERLEAVE) {
                    let __emu_snap_ta = ::deviceemu::__private::Snapshot::of(&ta);
                    let __emu_snap_tb = ::deviceemu::__private::Snapshot::of(&tb);
                    __emu_rb
                        .each_group::<
                            8usize,
                            _,
                            _,
                        >(
                            |
                                __emu_ts: &[usize; 8usize],
                                __emu_ctxs: &[::deviceemu::__private::ThreadCtx; 8usize]|
                            {
                                let tx: [_; 8usize] = ::core::array::from_fn(|
                                    __emu_i: usize|
                                __emu_ctxs[__emu_i].thread_idx.x as usize);
                                let ty: [_; 8usize] = ::core::array::from_fn(|
                                    __emu_i: usize|
                                __emu_ctxs[__emu_i].thread_idx.y as usize);
                                let row: [_; 8usize] = ::core::array::from_fn(|
                                    __emu_i: usize|
                                {
                                    __emu_ctxs[__emu_i].block_idx.y as usize * 16 + ty[__emu_i]
                                });
                                #[allow(unused_mut)]
                                let mut acc: [_; 8usize] = ::core::array::from_fn(|
                                    __emu_i: usize|
                                __emu_lanes_acc.get(__emu_ts[__emu_i]));
                                for j in 0..16 {
                                    for __emu_i in 0..8usize {
                                        acc[__emu_i]
                                            += __emu_snap_ta
                                                .load_row(
                                                    ::deviceemu::__private::Index::to_index(ty[__emu_i]),
                                                    ::deviceemu::__private::Index::to_index(j),
                                                )
                                                * __emu_snap_tb
                                                    .load_row(
                                                        ::deviceemu::__private::Index::to_index(j),
                                                        ::deviceemu::__private::Index::to_index(tx[__emu_i]),
                                                    );
                                    }
                                }
                                for __emu_i in 0..8usize {
                                    __emu_lanes_acc.put(__emu_ts[__emu_i], acc[__emu_i]);
                                }
                            },
                            {
                                #[inline(always)]
                                |
                                    __emu_t: usize,
                                    __emu_ctx: ::deviceemu::__private::ThreadCtx,
                                | -> ::core::option::Option<::deviceemu::__private::Exit> {
                                    let tx = __emu_ctx.thread_idx.x as usize;
                                    let ty = __emu_ctx.thread_idx.y as usize;
                                    let row = __emu_ctx.block_idx.y as usize * 16 + ty;
                                    #[allow(unused_mut)]
                                    let mut acc = __emu_lanes_acc.get(__emu_t);
                                    for j in 0..16 {
                                        acc
                                            += ::deviceemu::__private::load_row_in_bounds(
                                                &ta,
                                                ::deviceemu::__private::Index::to_index(ty),
                                                ::deviceemu::__private::Index::to_index(j),
                                            )
                                                * ::deviceemu::__private::load_row_in_bounds(
                                                    &tb,
                                                    ::deviceemu::__private::Index::to_index(j),
                                                    ::deviceemu::__private::Index::to_index(tx),
                                                );
                                    }
                                    __emu_lanes_acc.put(__emu_t, acc);
                                    ::core::option::Option::None
                                }
                            },
                        );
                } else {
                    __emu_rb
                        .each({
                            #[inline(always)]
                            |
                                __emu_t: usize,
                                __emu_ctx: ::deviceemu::__private::ThreadCtx,
                            | -> ::core::option::Option<::deviceemu::__private::Exit> {
                                let tx = __emu_ctx.thread_idx.x as usize;
                                let ty = __emu_ctx.thread_idx.y as usize;
                                let row = __emu_ctx.block_idx.y as usize * 16 + ty;
                                #[allow(unused_mut)]
                                let mut acc = __emu_lanes_acc.get(__emu_t);
                                for j in 0..16 {
                                    acc
                                        += ::deviceemu::__private::load_row_in_bounds(
                                            &ta,
                                            ::deviceemu::__private::Index::to_index(ty),
                                            ::deviceemu::__private::Index::to_index(j),
                                        )
                                            * ::deviceemu::__private::load_row_in_bounds(
                                                &tb,
                                                ::deviceemu::__private::Index::to_index(j),
                                                ::deviceemu::__private::Index::to_index(tx),
                                            );
                                }
                                __emu_lanes_acc.put(__emu_t, acc);
                                ::core::option::Option::None
                            }
                        });
                }
            } else {
                __emu_rb
                    .each({
                        #[inline(always)]
                        |
                            __emu_t: usize,
                            __emu_ctx: ::deviceemu::__private::ThreadCtx,
                        | -> ::core::option::Option<::deviceemu::__private::Exit> {
                            let tx = __emu_ctx.thread_idx.x as usize;
                            let ty = __emu_ctx.thread_idx.y as usize;
                            let row = __emu_ctx.block_idx.y as usize * 16 + ty;
                            #[allow(unused_mut)]
                            let mut acc = __emu_lanes_acc.get(__emu_t);
                            for j in 0..16 {
                                acc
                                    += ::deviceemu::__private::load(
                                        __EMU_CHECKED,
                                        &::deviceemu::__private::row(&ta, ty),
                                        j,
                                    )
                                        * ::deviceemu::__private::load(
                                            __EMU_CHECKED,
                                            &::deviceemu::__private::row(&tb, j),
                                            tx,
                                        );
                            }
                            __emu_lanes_acc.put(__emu_t, acc);
                            ::core::option::Option::None
                        }
                    });
            }
            __emu_rb.barrier();
        }
        if !__EMU_CHECKED && __emu_rb.tier(::deviceemu::__private::TIER_RANGES)
            && (true && ::deviceemu::__private::view_aligned(&c)
                && match (
                    ::deviceemu::__private::range_add(
                        ::deviceemu::__private::range_mul(
                            ::deviceemu::__private::range_add(
                                ::deviceemu::__private::range_mul(
                                    ::core::option::Option::Some(
                                        __emu_ctx.block_idx.y as usize,
                                    ),
                                    ::core::option::Option::Some(16),
                                ),
                                ::core::option::Option::Some(0 as usize),
                            ),
                            ::core::option::Option::Some(nn),
                        ),
                        ::deviceemu::__private::range_add(
                            ::deviceemu::__private::range_mul(
                                ::core::option::Option::Some(
                                    __emu_ctx.block_idx.x as usize,
                                ),
                                ::core::option::Option::Some(16),
                            ),
                            ::core::option::Option::Some(0 as usize),
                        ),
                    ),
                    ::deviceemu::__private::range_add(
                        ::deviceemu::__private::range_mul(
                            ::deviceemu::__private::range_add(
                                ::deviceemu::__private::range_mul(
                                    ::core::option::Option::Some(
                                        __emu_ctx.block_idx.y as usize,
                                    ),
                                    ::core::option::Option::Some(16),
                                ),
                                ::core::option::Option::Some(
                                    (__emu_ctx.block_dim.y - 1) as usize,
                                ),
                            ),
                            ::core::option::Option::Some(nn),
                        ),
                        ::deviceemu::__private::range_add(
                            ::deviceemu::__private::range_mul(
                                ::core::option::Option::Some(
                                    __emu_ctx.block_idx.x as usize,
                                ),
                                ::core::option::Option::Some(16),
                            ),
                            ::core::option::Option::Some(
                                (__emu_ctx.block_dim.x - 1) as usize,
                            ),
                        ),
                    ),
                ) {
                    (
                        ::core::option::Option::Some(__emu_lo),
                        ::core::option::Option::Some(__emu_hi),
                    ) => {
                        ::deviceemu::__private::Index::to_index(__emu_lo)
                            <= ::deviceemu::__private::Index::to_index(__emu_hi)
                            && ::deviceemu::__private::Index::to_index(__emu_hi)
                                < c.len()
                    }
                    _ => false,
                })
        {
            __emu_rb.note_proved();
            if __emu_rb.tier(::deviceemu::__private::TIER_TURN) {
                __emu_rb
                    .each_in_turn::<
                        8usize,
                        _,
                        _,
                    >(
                        |
                            __emu_ts: &[usize; 8usize],
                            __emu_ctxs: &[::deviceemu::__private::ThreadCtx; 8usize],
                            __emu_turn: &::deviceemu::__private::Turn<'_>|
                        {
                            let c = c;
                            let nn = nn;
                            {
                                let __emu_t: usize = __emu_ts[0usize];
                                #[allow(unused_variables)]
                                let __emu_ctx: ::deviceemu::__private::ThreadCtx = __emu_ctxs[0usize];
                                __emu_turn.enter(__emu_t);
                                let tx = __emu_ctx.thread_idx.x as usize;
                                let ty = __emu_ctx.thread_idx.y as usize;
                                let row = __emu_ctx.block_idx.y as usize * 16 + ty;
                                let col = __emu_ctx.block_idx.x as usize * 16 + tx;
                                #[allow(unused_mut)]
                                let mut acc = __emu_lanes_acc.get(__emu_t);
                                {
                                    let __emu_value = acc;
                                    ::deviceemu::__private::store_in_bounds(
                                        &c,
                                        ::deviceemu::__private::Index::to_index(row * nn + col),
                                        __emu_value,
                                    )
                                };
                            }
                            {
                                let __emu_t: usize = __emu_ts[1usize];
                                #[allow(unused_variables)]
                                let __emu_ctx: ::deviceemu::__private::ThreadCtx = __emu_ctxs[1usize];
                                __emu_turn.enter(__emu_t);
                                let tx = __emu_ctx.thread_idx.x as usize;
                                let ty = __emu_ctx.thread_idx.y as usize;
                                let row = __emu_ctx.block_idx.y as usize * 16 + ty;
                                let col = __emu_ctx.block_idx.x as usize * 16 + tx;
                                #[allow(unused_mut)]
                                let mut acc = __emu_lanes_acc.get(__emu_t);
                                {
                                    let __emu_value = acc;
                                    ::deviceemu::__private::store_in_bounds(
                                        &c,
                                        ::deviceemu::__private::Index::to_index(row * nn + col),
                                        __emu_value,
                                    )
                                };
                            }
                            {
                                let __emu_t: usize = __emu_ts[2usize];
                                #[allow(unused_variables)]
                                let __emu_ctx: ::deviceemu::__private::ThreadCtx = __emu_ctxs[2usize];
                                __emu_turn.enter(__emu_t);
                                let tx = __emu_ctx.thread_idx.x as usize;
                                let ty = __emu_ctx.thread_idx.y as usize;
                                let row = __emu_ctx.block_idx.y as usize * 16 + ty;
                                let col = __emu_ctx.block_idx.x as usize * 16 + tx;
                                #[allow(unused_mut)]
                                let mut acc = __emu_lanes_acc.get(__emu_t);
                                {
                                    let __emu_value = acc;
                                    ::deviceemu::__private::store_in_bounds(
                                        &c,
                                        ::deviceemu::__private::Index::to_index(row * nn + col),
                                        __emu_value,
                                    )
                                };
                            }
                            {
                                let __emu_t: usize = __emu_ts[3usize];
                                #[allow(unused_variables)]
                                let __emu_ctx: ::deviceemu::__private::ThreadCtx = __emu_ctxs[3usize];
                                __emu_turn.enter(__emu_t);
                                let tx = __emu_ctx.thread_idx.x as usize;
                                let ty = __emu_ctx.thread_idx.y as usize;
                                let row = __emu_ctx.block_idx.y as usize * 16 + ty;
                                let col = __emu_ctx.block_idx.x as usize * 16 + tx;
                                #[allow(unused_mut)]
                                let mut acc = __emu_lanes_acc.get(__emu_t);
                                {
                                    let __emu_value = acc;
                                    ::deviceemu::__private::store_in_bounds(
                                        &c,
                                        ::deviceemu::__private::Index::to_index(row * nn + col),
                                        __emu_value,
                                    )
                                };
                            }
                            {
                                let __emu_t: usize = __emu_ts[4usize];
                                #[allow(unused_variables)]
                                let __emu_ctx: ::deviceemu::__private::ThreadCtx = __emu_ctxs[4usize];
                                __emu_turn.enter(__emu_t);
                                let tx = __emu_ctx.thread_idx.x as usize;
                                let ty = __emu_ctx.thread_idx.y as usize;
                                let row = __emu_ctx.block_idx.y as usize * 16 + ty;
                                let col = __emu_ctx.block_idx.x as usize * 16 + tx;
                                #[allow(unused_mut)]
                                let mut acc = __emu_lanes_acc.get(__emu_t);
                                {
                                    let __emu_value = acc;
                                    ::deviceemu::__private::store_in_bounds(
                                        &c,
                                        ::deviceemu::__private::Index::to_index(row * nn + col),
                                        __emu_value,
                                    )
                                };
                            }
                            {
                                let __emu_t: usize = __emu_ts[5usize];
                                #[allow(unused_variables)]
                                let __emu_ctx: ::deviceemu::__private::ThreadCtx = __emu_ctxs[5usize];
                                __emu_turn.enter(__emu_t);
                                let tx = __emu_ctx.thread_idx.x as usize;
                                let ty = __emu_ctx.thread_idx.y as usize;
                                let row = __emu_ctx.block_idx.y as usize * 16 + ty;
                                let col = __emu_ctx.block_idx.x as usize * 16 + tx;
                                #[allow(unused_mut)]
                                let mut acc = __emu_lanes_acc.get(__emu_t);
                                {
                                    let __emu_value = acc;
                                    ::deviceemu::__private::store_in_bounds(
                                        &c,
                                        ::deviceemu::__private::Index::to_index(row * nn + col),
                                        __emu_value,
                                    )
                                };
                            }
                            {
                                let __emu_t: usize = __emu_ts[6usize];
                                #[allow(unused_variables)]
                                let __emu_ctx: ::deviceemu::__private::ThreadCtx = __emu_ctxs[6usize];
                                __emu_turn.enter(__emu_t);
                                let tx = __emu_ctx.thread_idx.x as usize;
                                let ty = __emu_ctx.thread_idx.y as usize;
                                let row = __emu_ctx.block_idx.y as usize * 16 + ty;
                                let col = __emu_ctx.block_idx.x as usize * 16 + tx;
                                #[allow(unused_mut)]
                                let mut acc = __emu_lanes_acc.get(__emu_t);
                                {
                                    let __emu_value = acc;
                                    ::deviceemu::__private::store_in_bounds(
                                        &c,
                                        ::deviceemu::__private::Index::to_index(row * nn + col),
                                        __emu_value,
                                    )
                                };
                            }
                            {
                                let __emu_t: usize = __emu_ts[7usize];
                                #[allow(unused_variables)]
                                let __emu_ctx: ::deviceemu::__private::ThreadCtx = __emu_ctxs[7usize];
                                __emu_turn.enter(__emu_t);
                                let tx = __emu_ctx.thread_idx.x as usize;
                                let ty = __emu_ctx.thread_idx.y as usize;
                                let row = __emu_ctx.block_idx.y as usize * 16 + ty;
                                let col = __emu_ctx.block_idx.x as usize * 16 + tx;
                                #[allow(unused_mut)]
                                let mut acc = __emu_lanes_acc.get(__emu_t);
                                {
                                    let __emu_value = acc;
                                    ::deviceemu::__private::store_in_bounds(
                                        &c,
                                        ::deviceemu::__private::Index::to_index(row * nn + col),
                                        __emu_value,
                                    )
                                };
                            }
                        },
                        {
                            #[inline(always)]
                            |
                                __emu_t: usize,
                                __emu_ctx: ::deviceemu::__private::ThreadCtx,
                            | -> ::core::option::Option<::deviceemu::__private::Exit> {
                                let tx = __emu_ctx.thread_idx.x as usize;
                                let ty = __emu_ctx.thread_idx.y as usize;
                                let row = __emu_ctx.block_idx.y as usize * 16 + ty;
                                let col = __emu_ctx.block_idx.x as usize * 16 + tx;
                                #[allow(unused_mut)]
                                let mut acc = __emu_lanes_acc.get(__emu_t);
                                {
                                    let __emu_value = acc;
                                    ::deviceemu::__private::store_in_bounds(
                                        &c,
                                        ::deviceemu::__private::Index::to_index(row * nn + col),
                                        __emu_value,
                                    )
                                };
                                ::core::option::Option::None
                            }
                        },
                    );
            } else {
                __emu_rb
                    .each({
                        #[inline(always)]
                        |
                            __emu_t: usize,
                            __emu_ctx: ::deviceemu::__private::ThreadCtx,
                        | -> ::core::option::Option<::deviceemu::__private::Exit> {
                            let tx = __emu_ctx.thread_idx.x as usize;
                            let ty = __emu_ctx.thread_idx.y as usize;
                            let row = __emu_ctx.block_idx.y as usize * 16 + ty;
                            let col = __emu_ctx.block_idx.x as usize * 16 + tx;
                            #[allow(unused_mut)]
                            let mut acc = __emu_lanes_acc.get(__emu_t);
                            {
                                let __emu_value = acc;
                                ::deviceemu::__private::store_in_bounds(
                                    &c,
                                    ::deviceemu::__private::Index::to_index(row * nn + col),
                                    __emu_value,
                                )
                            };
                            ::core::option::Option::None
                        }
                    });
            }
        } else {
            __emu_rb
                .each({
                    #[inline(always)]
                    |
                        __emu_t: usize,
                        __emu_ctx: ::deviceemu::__private::ThreadCtx,
                    | -> ::core::option::Option<::deviceemu::__private::Exit> {
                        let tx = __emu_ctx.thread_idx.x as usize;
                        let ty = __emu_ctx.thread_idx.y as usize;
                        let row = __emu_ctx.block_idx.y as usize * 16 + ty;
                        let col = __emu_ctx.block_idx.x as usize * 16 + tx;
                        #[allow(unused_mut)]
                        let mut acc = __emu_lanes_acc.get(__emu_t);
                        {
                            let __emu_value = acc;
                            ::deviceemu::__private::store(
                                __EMU_CHECKED,
                                &c,
                                row * nn + col,
                                __emu_value,
                            )
                        };
                        ::core::option::Option::None
                    }
                });
        }
    }
}
/// The GPU entry point of the kernel (`.entry` in the PTX module).
#[cfg(target_arch = "nvptx64")]
#[export_name = "matmul"]
#[allow(non_snake_case)]
pub unsafe extern "ptx-kernel" fn __emu_entry_matmul(
    a: *const f32,
    a_len: usize,
    b: *const f32,
    b_len: usize,
    c: *mut f32,
    c_len: usize,
    inner: u32,
    cols: u32,
) {
    ::deviceemu::__private::assume_index_facts();
    let a = unsafe {
        ::deviceemu::__private::Global::<f32>::from_raw_parts(a as *mut f32, a_len, ())
    };
    let b = unsafe {
        ::deviceemu::__private::Global::<f32>::from_raw_parts(b as *mut f32, b_len, ())
    };
    let c = unsafe {
        ::deviceemu::__private::GlobalMut::<f32>::from_raw_parts(c, c_len, ())
    };
    matmul(a, b, c, inner, cols);
}
///The kernel `matmul`, as one GPU thread runs it.
#[cfg(target_arch = "nvptx64")]
#[allow(
    unused_mut,
    unused_braces,
    unreachable_code,
    clippy::needless_return,
    clippy::too_many_arguments,
    clippy::redundant_closure_call,
    clippy::needless_else,
    clippy::if_same_then_else
)]
#[inline]
pub fn matmul<'__emu_launch>(
    a: ::deviceemu::__private::Global<'__emu_launch, f32>,
    b: ::deviceemu::__private::Global<'__emu_launch, f32>,
    c: ::deviceemu::__private::GlobalMut<'__emu_launch, f32>,
    inner: u32,
    cols: u32,
) -> ::deviceemu::__private::Exit {
    #[allow(dead_code)]
    const __EMU_CHECKED: bool = false;
    const _: () = ::deviceemu::__private::assert_kernel_scalar::<u32>();
    const _: () = ::deviceemu::__private::assert_kernel_scalar::<u32>();
    {
        let ta = {
            #[cfg(not(target_arch = "nvptx64"))]
            let __emu_view = shared_array![@ named "ta", [f32; 16]; 16];
            #[cfg(target_arch = "nvptx64")]
            let __emu_view = {
                #[allow(unused_imports, non_snake_case)]
                mod __emu_shared_matmul_7314e1115383baa6_0_decl {
                    use super::*;
                    ::core::arch::global_asm!(
                        ".shared .align {a} .b8 __emu_shared_matmul_7314e1115383baa6_0[{n}];",
                        a = const ::deviceemu::__private::shared_align:: < [f32; 16] >
                        (), n = const ::core::mem::size_of:: < [[f32; 16]; 16] > (),
                    );
                }
                let p: u32;
                unsafe {
                    ::core::arch::asm!(
                        "mov.u32 {p}, __emu_shared_matmul_7314e1115383baa6_0;", p =
                        out(reg32) p, options(pure, nomem, nostack)
                    )
                };
                unsafe { ::deviceemu::__private::shared_view::<[f32; 16]>(p, 16) }
            };
            __emu_view
        };
        let tb = {
            #[cfg(not(target_arch = "nvptx64"))]
            let __emu_view = shared_array![@ named "tb", [f32; 16]; 16];
            #[cfg(target_arch = "nvptx64")]
            let __emu_view = {
                #[allow(unused_imports, non_snake_case)]
                mod __emu_shared_matmul_7314e1115383baa6_1_decl {
                    use super::*;
                    ::core::arch::global_asm!(
                        ".shared .align {a} .b8 __emu_shared_matmul_7314e1115383baa6_1[{n}];",
                        a = const ::deviceemu::__private::shared_align:: < [f32; 16] >
                        (), n = const ::core::mem::size_of:: < [[f32; 16]; 16] > (),
                    );
                }
                let p: u32;
                unsafe {
                    ::core::arch::asm!(
                        "mov.u32 {p}, __emu_shared_matmul_7314e1115383baa6_1;", p =
                        out(reg32) p, options(pure, nomem, nostack)
                    )
                };
                unsafe { ::deviceemu::__private::shared_view::<[f32; 16]>(p, 16) }
            };
            __emu_view
        };
        let tx = thread_idx().x as usize;
        let ty = thread_idx().y as usize;
        let row = block_idx().y as usize * 16 + ty;
        let col = block_idx().x as usize * 16 + tx;
        let kk = inner as usize;
        let nn = cols as usize;
        let mut acc = 0.0f32;
        for t in 0..kk / 16 {
            {
                let __emu_value = ::deviceemu::__private::load(
                    __EMU_CHECKED,
                    &a,
                    row * kk + t * 16 + tx,
                );
                ::deviceemu::__private::store(
                    __EMU_CHECKED,
                    &::deviceemu::__private::row_write(&ta, ty),
                    tx,
                    __emu_value,
                )
            };
            {
                let __emu_value = ::deviceemu::__private::load(
                    __EMU_CHECKED,
                    &b,
                    (t * 16 + ty) * nn + col,
                );
                ::deviceemu::__private::store(
                    __EMU_CHECKED,
                    &::deviceemu::__private::row_write(&tb, ty),
                    tx,
                    __emu_value,
                )
            };
            sync_threads();
            for j in 0..16 {
                acc
                    += ::deviceemu::__private::load(
                        __EMU_CHECKED,
                        &::deviceemu::__private::row(&ta, ty),
                        j,
                    )
                        * ::deviceemu::__private::load(
                            __EMU_CHECKED,
                            &::deviceemu::__private::row(&tb, j),
                            tx,
                        );
            }
            sync_threads();
        }
        {
            let __emu_value = acc;
            ::deviceemu::__private::store(__EMU_CHECKED, &c, row * nn + col, __emu_value)
        };
    };
    ::deviceemu::__private::exit_here()
}
#[cfg(target_arch = "nvptx64")]
#[doc(hidden)]
#[allow(non_camel_case_types, dead_code)]
pub struct matmul {}
#[cfg(target_arch = "nvptx64")]
impl matmul {
    /// A device-side launch on the GPU, through the CUDA device runtime.
    #[doc(hidden)]
    #[inline(always)]
    #[allow(clippy::too_many_arguments, dead_code)]
    pub fn __launch_device<'__emu_l>(
        __emu_grid: ::deviceemu::__private::Dim3,
        __emu_block: ::deviceemu::__private::Dim3,
        __emu_shared: usize,
        __emu_stream: ::core::option::Option<&::deviceemu::__private::DeviceStream>,
        a: impl ::deviceemu::__private::DeviceArg<'__emu_l, f32>,
        b: impl ::deviceemu::__private::DeviceArg<'__emu_l, f32>,
        c: impl ::deviceemu::__private::DeviceArgMut<'__emu_l, f32>,
        inner: u32,
        cols: u32,
    ) -> ::core::result::Result<(), ::deviceemu::Error> {
        unsafe {
            let mut __emu_b = ::deviceemu::__private::ParamBuffer::get(
                __emu_entry_matmul as *const (),
                __emu_grid,
                __emu_block,
                __emu_shared,
            )?;
            let a = <_ as ::deviceemu::__private::DeviceArg<
                '__emu_l,
                f32,
            >>::into_view(a);
            __emu_b.push::<*const f32>(a.as_ptr() as *const f32);
            __emu_b.push::<usize>(a.len());
            let b = <_ as ::deviceemu::__private::DeviceArg<
                '__emu_l,
                f32,
            >>::into_view(b);
            __emu_b.push::<*const f32>(b.as_ptr() as *const f32);
            __emu_b.push::<usize>(b.len());
            let c = <_ as ::deviceemu::__private::DeviceArgMut<
                '__emu_l,
                f32,
            >>::into_view(c);
            __emu_b.push::<*mut f32>(c.as_ptr() as *mut f32);
            __emu_b.push::<usize>(c.len());
            __emu_b.push::<u32>(inner);
            __emu_b.push::<u32>(cols);
            __emu_b.launch(__emu_stream)
        }
    }
}
