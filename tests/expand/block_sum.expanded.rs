use deviceemu::prelude::*;
///Launcher of the kernel `block_sum`: launch it with `launch!(block_sum<<<grid, block>>>(args))`.
#[doc(hidden)]
#[allow(non_camel_case_types, dead_code)]
#[cfg(not(target_arch = "nvptx64"))]
pub struct block_sum {}
#[cfg(not(target_arch = "nvptx64"))]
impl block_sum {
    /// The kernel's name, as reports and the GPU module spell it.
    #[allow(dead_code)]
    pub const NAME: &'static str = "block_sum";
    /// The kernel's static facts.
    #[doc(hidden)]
    #[allow(dead_code)]
    pub fn __info() -> &'static ::deviceemu::__private::KernelInfo {
        static __EMU_INFO: ::deviceemu::__private::KernelInfo = ::deviceemu::__private::KernelInfo {
            name: "block_sum",
            file: ::core::file!(),
            line: ::core::line!(),
            end_line: ::core::line!(),
            max_threads: 256u32,
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
        x: impl ::deviceemu::__private::KernelArg<f32>,
        mut sums: impl ::deviceemu::__private::KernelArgMut<f32>,
    ) -> ::core::result::Result<(), ::deviceemu::Error> {
        ::deviceemu::__private::on_default_stream(move || block_sum::__run(
            __emu_config,
            x,
            sums,
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
        x: impl ::deviceemu::__private::KernelArg<f32>,
        mut sums: impl ::deviceemu::__private::KernelArgMut<f32>,
    ) -> ::core::result::Result<(), ::deviceemu::Error> {
        let __emu_info = block_sum::__info();
        const __EMU_PTX: ::core::option::Option<&'static str> = ::core::option::Option::None;
        if let ::core::option::Option::Some(r) = ::deviceemu::__private::launch_on_gpu_stream(
            __emu_info,
            __EMU_PTX,
            __emu_stream,
            __emu_config,
            &[
                ::deviceemu::__private::GpuArg::slice(&x),
                ::deviceemu::__private::GpuArg::slice(&sums),
            ],
        ) {
            return r;
        }
        let mut __emu_queued = ::deviceemu::__private::Queued::new(
            __emu_stream,
            __emu_info,
            &__emu_config,
        )?;
        let x = __emu_queued.read(x);
        let mut sums = __emu_queued.write(sums);
        __emu_queued.submit(move || block_sum::__run(__emu_config, &x, &mut sums))
    }
    /// A device-side launch (`launch!` in a `#[kernel]` or `#[device]` body): queues the
    /// kernel as a child of the running block, on the parent's views.
    #[doc(hidden)]
    #[track_caller]
    #[allow(clippy::too_many_arguments, dead_code)]
    pub fn __launch_device<'__emu_l>(
        __emu_config: ::deviceemu::__private::LaunchConfig,
        __emu_stream: ::core::option::Option<&::deviceemu::__private::DeviceStream>,
        x: impl ::deviceemu::__private::DeviceArg<'__emu_l, f32>,
        sums: impl ::deviceemu::__private::DeviceArgMut<'__emu_l, f32>,
    ) -> ::core::result::Result<(), ::deviceemu::Error> {
        let __emu_info = block_sum::__info();
        let x = <_ as ::deviceemu::__private::DeviceArg<'__emu_l, f32>>::into_view(x);
        let sums = <_ as ::deviceemu::__private::DeviceArgMut<
            '__emu_l,
            f32,
        >>::into_view(sums);
        ::deviceemu::__private::device_launch(
            __emu_info,
            __emu_config,
            __emu_stream,
            ::core::panic::Location::caller(),
            move || block_sum::__run_views(
                __emu_config,
                ::deviceemu::__private::launch_checks(),
                x,
                sums,
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
        x: ::deviceemu::__private::Global<'_, f32>,
        sums: ::deviceemu::__private::GlobalMut<'_, f32>,
    ) -> ::core::result::Result<(), ::deviceemu::Error> {
        let __emu_info = block_sum::__info();
        if ::deviceemu::__private::per_access(__emu_checks) {
            ::deviceemu::__private::launch_regions(
                __emu_info,
                __emu_config,
                &[::deviceemu::__private::Written::of("sums", &sums)],
                move |__emu_rb| block_sum::__regions::<true>(__emu_rb, x, sums),
                move |__emu_ctx| block_sum::block_sum::<true>(__emu_ctx, x, sums),
            )
        } else {
            ::deviceemu::__private::launch_regions(
                __emu_info,
                __emu_config,
                &[::deviceemu::__private::Written::of("sums", &sums)],
                move |__emu_rb| block_sum::__regions::<false>(__emu_rb, x, sums),
                move |__emu_ctx| block_sum::block_sum::<false>(__emu_ctx, x, sums),
            )
        }
    }
    /// Runs the launch now, on this thread.
    #[doc(hidden)]
    #[allow(clippy::too_many_arguments, dead_code)]
    pub fn __run(
        __emu_config: ::deviceemu::__private::LaunchConfig,
        x: impl ::deviceemu::__private::KernelArg<f32>,
        mut sums: impl ::deviceemu::__private::KernelArgMut<f32>,
    ) -> ::core::result::Result<(), ::deviceemu::Error> {
        let __emu_info = block_sum::__info();
        const __EMU_PTX: ::core::option::Option<&'static str> = ::core::option::Option::None;
        if let ::core::option::Option::Some(r) = ::deviceemu::__private::launch_on_gpu(
            __emu_info,
            __EMU_PTX,
            __emu_config,
            &[
                ::deviceemu::__private::GpuArg::slice(&x),
                ::deviceemu::__private::GpuArg::slice(&sums),
            ],
        ) {
            return r;
        }
        let __emu_checks = ::deviceemu::__private::launch_checks();
        let __emu_meta_px = ::deviceemu::__private::meta("x", &x, __emu_checks);
        let x = unsafe { ::deviceemu::__private::global(&x, &__emu_meta_px) }?;
        let __emu_meta_psums = ::deviceemu::__private::meta("sums", &sums, __emu_checks);
        let sums = unsafe {
            ::deviceemu::__private::global_mut(&mut sums, &__emu_meta_psums)
        }?;
        block_sum::__run_views(__emu_config, __emu_checks, x, sums)
    }
}
#[cfg(not(target_arch = "nvptx64"))]
impl block_sum {
    ///The kernel `block_sum`, as one GPU thread runs it.
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
    pub fn block_sum<'__emu_launch, const __EMU_CHECKED: bool>(
        __emu_ctx: ::deviceemu::__private::ThreadCtx,
        x: ::deviceemu::__private::Global<'__emu_launch, f32>,
        sums: ::deviceemu::__private::GlobalMut<'__emu_launch, f32>,
    ) -> impl ::core::future::Future<
        Output = ::deviceemu::__private::Exit,
    > + use<'__emu_launch, __EMU_CHECKED> {
        async move {
            let _ = &__emu_ctx;
            {
                let t = {
                    #[cfg(not(target_arch = "nvptx64"))]
                    let __emu_view = shared_array![@ named "t", f32; 256];
                    #[cfg(target_arch = "nvptx64")]
                    let __emu_view = {
                        #[allow(unused_imports, non_snake_case)]
                        mod __emu_shared_block_sum_4a52deda6a4c0fe9_0_decl {
                            use super::*;
                            ::core::arch::global_asm!(
                                ".shared .align {a} .b8 __emu_shared_block_sum_4a52deda6a4c0fe9_0[{n}];",
                                a = const ::deviceemu::__private::shared_align:: < f32 > (),
                                n = const ::core::mem::size_of:: < [f32; 256] > (),
                            );
                        }
                        let p: u32;
                        unsafe {
                            ::core::arch::asm!(
                                "mov.u32 {p}, __emu_shared_block_sum_4a52deda6a4c0fe9_0;", p
                                = out(reg32) p, options(pure, nomem, nostack)
                            )
                        };
                        unsafe { ::deviceemu::__private::shared_view::<f32>(p, 256) }
                    };
                    __emu_view
                };
                let tid = __emu_ctx.thread_idx.x as usize;
                let i = __emu_ctx.block_idx.x as usize * 256 + tid;
                {
                    let __emu_value = if i < x.len() {
                        ::deviceemu::__private::load(__EMU_CHECKED, &x, i)
                    } else {
                        0.0
                    };
                    ::deviceemu::__private::store(__EMU_CHECKED, &t, tid, __emu_value)
                };
                {
                    ::deviceemu::__private::barrier_await(
                            ::deviceemu::__private::BarrierOp::Sync,
                            false,
                        )
                        .await;
                };
                let mut s = 128;
                while s > 0 {
                    if tid < s {
                        {
                            let __emu_value = ::deviceemu::__private::load(
                                __EMU_CHECKED,
                                &t,
                                tid + s,
                            );
                            let __emu_view = t;
                            let __emu_index = tid;
                            let mut __emu_old = ::deviceemu::__private::load(
                                __EMU_CHECKED,
                                &__emu_view,
                                __emu_index,
                            );
                            __emu_old += __emu_value;
                            ::deviceemu::__private::store(
                                __EMU_CHECKED,
                                &__emu_view,
                                __emu_index,
                                __emu_old,
                            )
                        };
                    }
                    {
                        ::deviceemu::__private::barrier_await(
                                ::deviceemu::__private::BarrierOp::Sync,
                                false,
                            )
                            .await;
                    };
                    s /= 2;
                }
                if tid == 0 {
                    {
                        let __emu_value = ::deviceemu::__private::load(
                            __EMU_CHECKED,
                            &t,
                            0,
                        );
                        ::deviceemu::__private::store(
                            __EMU_CHECKED,
                            &sums,
                            __emu_ctx.block_idx.x as usize,
                            __emu_value,
                        )
                    };
                }
            };
            ::deviceemu::__private::exit_here()
        }
    }
}
#[cfg(all(not(target_arch = "nvptx64"), not(doc)))]
#[doc(hidden)]
#[allow(dead_code, clippy::too_many_arguments, clippy::extra_unused_lifetimes)]
pub fn block_sum<'__emu_call, __EmuArg0, __EmuArg1>(_: __EmuArg0, _: __EmuArg1) -> !
where
    block_sum: ::deviceemu::__private::NotAFunction<'__emu_call>,
{
    ::core::unreachable!()
}
#[cfg(all(doc, not(target_arch = "nvptx64")))]
/// A `#[kernel]`: launch it with `launch!(block_sum<<<grid, block>>>(...))`.
#[allow(unused_variables, unused_mut, clippy::too_many_arguments)]
pub fn block_sum(x: &[f32], sums: &mut [f32]) {}
#[cfg(not(target_arch = "nvptx64"))]
impl block_sum {
    ///The kernel `block_sum` for one whole block: its barrier regions as loops over the block's threads.
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
        x: ::deviceemu::__private::Global<'__emu_launch, f32>,
        sums: ::deviceemu::__private::GlobalMut<'__emu_launch, f32>,
    ) {
        #[allow(unused_variables)]
        let __emu_ctx = __emu_rb.block_ctx();
        let t = {
            #[cfg(not(target_arch = "nvptx64"))]
            let __emu_view = shared_array![@ named "t", f32; 256];
            #[cfg(target_arch = "nvptx64")]
            let __emu_view = {
                #[allow(unused_imports, non_snake_case)]
                mod __emu_shared_block_sum_4a52deda6a4c0fe9_0_decl {
                    use super::*;
                    ::core::arch::global_asm!(
                        ".shared .align {a} .b8 __emu_shared_block_sum_4a52deda6a4c0fe9_0[{n}];",
                        a = const ::deviceemu::__private::shared_align:: < f32 > (), n =
                        const ::core::mem::size_of:: < [f32; 256] > (),
                    );
                }
                let p: u32;
                unsafe {
                    ::core::arch::asm!(
                        "mov.u32 {p}, __emu_shared_block_sum_4a52deda6a4c0fe9_0;", p =
                        out(reg32) p, options(pure, nomem, nostack)
                    )
                };
                unsafe { ::deviceemu::__private::shared_view::<f32>(p, 256) }
            };
            __emu_view
        };
        if !__EMU_CHECKED && __emu_rb.tier(::deviceemu::__private::TIER_VECTOR)
            && __emu_rb.in_index_order()
            && {
                let __emu_hi: usize = ::core::cmp::min(usize::MAX, __emu_rb.threads());
                __emu_hi == 0
                    || (__emu_hi >= ::deviceemu::__private::VECTOR_MIN_IN_PLACE
                        && ::deviceemu::__private::view_aligned(&x)
                        && match ::deviceemu::__private::lane_last(
                            __emu_ctx.block_idx.x as usize * 256,
                            __emu_hi,
                        ) {
                            ::core::option::Option::Some(__emu_l) => {
                                ::deviceemu::__private::Index::to_index(
                                    __emu_ctx.block_idx.x as usize * 256,
                                ) <= ::deviceemu::__private::Index::to_index(__emu_l)
                                    && ::deviceemu::__private::Index::to_index(__emu_l)
                                        < x.len()
                            }
                            ::core::option::Option::None => false,
                        } && ::deviceemu::__private::view_aligned(&t)
                        && __emu_hi - 1 < t.len()
                        && match ::deviceemu::__private::lane_last(
                            __emu_ctx.block_idx.x as usize * 256,
                            __emu_hi,
                        ) {
                            ::core::option::Option::Some(__emu_l) => {
                                ::deviceemu::__private::Index::to_index(
                                    __emu_ctx.block_idx.x as usize * 256,
                                ) <= ::deviceemu::__private::Index::to_index(__emu_l)
                                    && ::deviceemu::__private::Index::to_index(__emu_l)
                                        < ::deviceemu::__private::region_bound(x.len())
                            }
                            ::core::option::Option::None => false,
                        })
            }
        {
            let __emu_vb_x_0_at: usize = ::deviceemu::__private::Index::to_index(
                __emu_ctx.block_idx.x as usize * 256,
            );
            let __emu_vb_t_1_at: usize = 0usize;
            let mut __emu_vb_x_0 = ::deviceemu::__private::LaneBuf::<
                _,
                { ::deviceemu::__private::LANE_CHUNK },
            >::new();
            __emu_rb
                .each_chunk_in_place(
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
                        ::deviceemu::__private::lane_load(
                            &x,
                            __emu_vb_x_0_at + __emu_c0,
                            &mut __emu_vb_x_0,
                            __emu_m,
                        );
                        let __emu_vb_t_1 = ::deviceemu::__private::lane_dst(
                            &t,
                            __emu_vb_t_1_at + __emu_c0,
                            __emu_m,
                        );
                        #[allow(unused_variables, unused_unsafe)]
                        for __emu_k in 0..__emu_m {
                            let __emu_mark = ::deviceemu::__private::LaneMark(__emu_k);
                            let __emu_ctx = __emu_cursor.lane(__emu_c0 + __emu_k);
                            let __emu_t = __emu_c0 + __emu_k;
                            let tid = __emu_ctx.thread_idx.x as usize;
                            let i = __emu_ctx.block_idx.x as usize * 256 + tid;
                            {
                                let __emu_value = { unsafe { __emu_vb_x_0.get(__emu_k) } };
                                {
                                    let __emu_set = __emu_value;
                                    unsafe { __emu_vb_t_1.set(__emu_k, __emu_set) };
                                }
                            };
                            __emu_mark.done();
                        }
                    },
                    |__emu_t: usize, __emu_ctx: ::deviceemu::__private::ThreadCtx| {
                        let tid = __emu_ctx.thread_idx.x as usize;
                        let i = __emu_ctx.block_idx.x as usize * 256 + tid;
                        {
                            let __emu_value = if i < x.len() {
                                ::deviceemu::__private::load(__EMU_CHECKED, &x, i)
                            } else {
                                0.0
                            };
                            ::deviceemu::__private::store(
                                __EMU_CHECKED,
                                &t,
                                tid,
                                __emu_value,
                            )
                        };
                    },
                );
        } else {
            if !__EMU_CHECKED && __emu_rb.tier(::deviceemu::__private::TIER_RANGES)
                && (true && ::deviceemu::__private::view_aligned(&x)
                    && match (
                        ::deviceemu::__private::range_add(
                            ::deviceemu::__private::range_mul(
                                ::core::option::Option::Some(
                                    __emu_ctx.block_idx.x as usize,
                                ),
                                ::core::option::Option::Some(256),
                            ),
                            ::core::option::Option::Some(0 as usize),
                        ),
                        ::deviceemu::__private::range_min(
                            ::deviceemu::__private::range_add(
                                ::deviceemu::__private::range_mul(
                                    ::core::option::Option::Some(
                                        __emu_ctx.block_idx.x as usize,
                                    ),
                                    ::core::option::Option::Some(256),
                                ),
                                ::core::option::Option::Some(
                                    (__emu_ctx.block_dim.x - 1) as usize,
                                ),
                            ),
                            ::deviceemu::__private::range_sub(
                                ::core::option::Option::Some(x.len()),
                                ::core::option::Option::Some(1),
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
                                    < x.len()
                        }
                        _ => false,
                    } && ::deviceemu::__private::view_aligned(&t)
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
                                    < t.len()
                        }
                        _ => false,
                    })
            {
                __emu_rb.note_proved();
                __emu_rb
                    .each({
                        #[inline(always)]
                        |
                            __emu_t: usize,
                            __emu_ctx: ::deviceemu::__private::ThreadCtx,
                        | -> ::core::option::Option<::deviceemu::__private::Exit> {
                            let tid = __emu_ctx.thread_idx.x as usize;
                            let i = __emu_ctx.block_idx.x as usize * 256 + tid;
                            {
                                let __emu_value = if i < x.len() {
                                    ::deviceemu::__private::load_in_bounds(
                                        &x,
                                        ::deviceemu::__private::Index::to_index(i),
                                    )
                                } else {
                                    0.0
                                };
                                ::deviceemu::__private::store_in_bounds(
                                    &t,
                                    ::deviceemu::__private::Index::to_index(tid),
                                    __emu_value,
                                )
                            };
                            ::core::option::Option::None
                        }
                    });
            } else {
                if !__EMU_CHECKED && __emu_rb.tier(::deviceemu::__private::TIER_VIEWS)
                    && ::deviceemu::__private::view_aligned(&x)
                    && ::deviceemu::__private::view_aligned(&t)
                {
                    __emu_rb.note_views();
                    __emu_rb
                        .each({
                            #[inline(always)]
                            |
                                __emu_t: usize,
                                __emu_ctx: ::deviceemu::__private::ThreadCtx,
                            | -> ::core::option::Option<::deviceemu::__private::Exit> {
                                let tid = __emu_ctx.thread_idx.x as usize;
                                let i = __emu_ctx.block_idx.x as usize * 256 + tid;
                                {
                                    let __emu_value = if i < x.len() {
                                        ::deviceemu::__private::load(
                                            ::deviceemu::__private::Valid,
                                            &x,
                                            i,
                                        )
                                    } else {
                                        0.0
                                    };
                                    ::deviceemu::__private::store(
                                        ::deviceemu::__private::Valid,
                                        &t,
                                        tid,
                                        __emu_value,
                                    )
                                };
                                ::core::option::Option::None
                            }
                        });
                } else {
                    __emu_rb
                        .each({
                            #[inline(always)]
                            |
                                __emu_t: usize,
                                __emu_ctx: ::deviceemu::__private::ThreadCtx,
                            | -> ::core::option::Option<::deviceemu::__private::Exit> {
                                let tid = __emu_ctx.thread_idx.x as usize;
                                let i = __emu_ctx.block_idx.x as usize * 256 + tid;
                                {
                                    let __emu_value = if i < x.len() {
                                        ::deviceemu::__private::load(__EMU_CHECKED, &x, i)
                                    } else {
                                        0.0
                                    };
                                    ::deviceemu::__private::store(
                                        __EMU_CHECKED,
                                        &t,
                                        tid,
                                        __emu_value,
                                    )
                                };
                                ::core::option::Option::None
                            }
                        });
                }
            }
        }
        __emu_rb.barrier();
        let mut s = 128;
        while (s > 0) && __emu_rb.any_live() {
            if !__EMU_CHECKED && __emu_rb.tier(::deviceemu::__private::TIER_VECTOR)
                && __emu_rb.in_index_order()
                && {
                    let __emu_hi: usize = ::core::cmp::min(
                        ::deviceemu::__private::region_bound(s),
                        __emu_rb.threads(),
                    );
                    __emu_hi == 0
                        || (__emu_hi >= ::deviceemu::__private::VECTOR_MIN_IN_PLACE
                            && ::deviceemu::__private::view_aligned(&t)
                            && match ::deviceemu::__private::lane_last(s, __emu_hi) {
                                ::core::option::Option::Some(__emu_l) => {
                                    ::deviceemu::__private::Index::to_index(s)
                                        <= ::deviceemu::__private::Index::to_index(__emu_l)
                                        && ::deviceemu::__private::Index::to_index(__emu_l)
                                            < t.len()
                                }
                                ::core::option::Option::None => false,
                            } && ::deviceemu::__private::view_aligned(&t)
                            && __emu_hi - 1 < t.len()
                            && __emu_hi - 1 < ::deviceemu::__private::region_bound(s)
                            && (::deviceemu::__private::Index::to_index(s) + __emu_hi
                                <= 0usize
                                || 0usize + __emu_hi
                                    <= ::deviceemu::__private::Index::to_index(s)))
                }
            {
                let __emu_vb_t_0_at: usize = ::deviceemu::__private::Index::to_index(s);
                let __emu_vb_t_1_at: usize = 0usize;
                __emu_rb
                    .each_chunk_in_place(
                        ::deviceemu::__private::region_bound(s),
                        |
                            __emu_cursor: &::deviceemu::__private::LaneCursor,
                            __emu_c0: usize,
                            __emu_m: usize|
                        {
                            let __emu_m = ::core::cmp::min(
                                __emu_m,
                                ::deviceemu::__private::LANE_CHUNK,
                            );
                            let __emu_vb_t_0 = ::deviceemu::__private::lane_src(
                                &t,
                                __emu_vb_t_0_at + __emu_c0,
                                __emu_m,
                            );
                            let __emu_vb_t_1 = ::deviceemu::__private::lane_dst(
                                &t,
                                __emu_vb_t_1_at + __emu_c0,
                                __emu_m,
                            );
                            #[allow(unused_variables, unused_unsafe)]
                            for __emu_k in 0..__emu_m {
                                let __emu_mark = ::deviceemu::__private::LaneMark(__emu_k);
                                let __emu_ctx = __emu_cursor.lane(__emu_c0 + __emu_k);
                                let __emu_t = __emu_c0 + __emu_k;
                                let tid = __emu_ctx.thread_idx.x as usize;
                                {
                                    {
                                        let __emu_value = unsafe { __emu_vb_t_0.get(__emu_k) };
                                        let __emu_view = t;
                                        let __emu_index = tid;
                                        let mut __emu_old = unsafe { __emu_vb_t_1.get(__emu_k) };
                                        __emu_old += __emu_value;
                                        {
                                            let __emu_set = __emu_old;
                                            unsafe { __emu_vb_t_1.set(__emu_k, __emu_set) };
                                        }
                                    };
                                };
                                __emu_mark.done();
                            }
                        },
                        |__emu_t: usize, __emu_ctx: ::deviceemu::__private::ThreadCtx| {
                            let tid = __emu_ctx.thread_idx.x as usize;
                            if tid < s {
                                {
                                    let __emu_value = ::deviceemu::__private::load(
                                        __EMU_CHECKED,
                                        &t,
                                        tid + s,
                                    );
                                    let __emu_view = t;
                                    let __emu_index = tid;
                                    let mut __emu_old = ::deviceemu::__private::load(
                                        __EMU_CHECKED,
                                        &__emu_view,
                                        __emu_index,
                                    );
                                    __emu_old += __emu_value;
                                    ::deviceemu::__private::store(
                                        __EMU_CHECKED,
                                        &__emu_view,
                                        __emu_index,
                                        __emu_old,
                                    )
                                };
                            }
                        },
                    );
            } else {
                if !__EMU_CHECKED && __emu_rb.tier(::deviceemu::__private::TIER_HOISTED)
                    && {
                        let __emu_hi: usize = ::core::cmp::min(
                            ::deviceemu::__private::region_bound(s),
                            __emu_rb.block_ctx().block_dim.x as usize,
                        );
                        __emu_hi == 0
                            || (true && ::deviceemu::__private::view_aligned(&t)
                                && match ::deviceemu::__private::lane_last(s, __emu_hi) {
                                    ::core::option::Option::Some(__emu_l) => {
                                        ::deviceemu::__private::Index::to_index(s)
                                            <= ::deviceemu::__private::Index::to_index(__emu_l)
                                            && ::deviceemu::__private::Index::to_index(__emu_l)
                                                < t.len()
                                    }
                                    ::core::option::Option::None => false,
                                } && ::deviceemu::__private::view_aligned(&t)
                                && __emu_hi - 1 < t.len()
                                && ::deviceemu::__private::view_aligned(&t)
                                && __emu_hi - 1 < t.len())
                    }
                {
                    __emu_rb
                        .each_below(
                            ::deviceemu::__private::region_bound(s),
                            {
                                #[inline(always)]
                                |
                                    __emu_t: usize,
                                    __emu_ctx: ::deviceemu::__private::ThreadCtx,
                                | -> ::core::option::Option<::deviceemu::__private::Exit> {
                                    let tid = __emu_ctx.thread_idx.x as usize;
                                    if tid < s {
                                        {
                                            let __emu_value = ::deviceemu::__private::load_in_bounds(
                                                &t,
                                                ::deviceemu::__private::Index::to_index(tid + s),
                                            );
                                            let __emu_view = t;
                                            let __emu_index = tid;
                                            let mut __emu_old = ::deviceemu::__private::load_in_bounds(
                                                &__emu_view,
                                                ::deviceemu::__private::Index::to_index(__emu_index),
                                            );
                                            __emu_old += __emu_value;
                                            ::deviceemu::__private::store_in_bounds(
                                                &__emu_view,
                                                ::deviceemu::__private::Index::to_index(__emu_index),
                                                __emu_old,
                                            )
                                        };
                                    }
                                    ::core::option::Option::None
                                }
                            },
                        );
                } else {
                    if !__EMU_CHECKED
                        && __emu_rb.tier(::deviceemu::__private::TIER_VIEWS)
                        && ::deviceemu::__private::view_aligned(&t)
                    {
                        __emu_rb.note_views();
                        __emu_rb
                            .each_below(
                                ::deviceemu::__private::region_bound(s),
                                {
                                    #[inline(always)]
                                    |
                                        __emu_t: usize,
                                        __emu_ctx: ::deviceemu::__private::ThreadCtx,
                                    | -> ::core::option::Option<::deviceemu::__private::Exit> {
                                        let tid = __emu_ctx.thread_idx.x as usize;
                                        if tid < s {
                                            {
                                                let __emu_value = ::deviceemu::__private::load(
                                                    ::deviceemu::__private::Valid,
                                                    &t,
                                                    tid + s,
                                                );
                                                let __emu_view = t;
                                                let __emu_index = tid;
                                                let mut __emu_old = ::deviceemu::__private::load(
                                                    ::deviceemu::__private::Valid,
                                                    &t,
                                                    __emu_index,
                                                );
                                                __emu_old += __emu_value;
                                                ::deviceemu::__private::store(
                                                    ::deviceemu::__private::Valid,
                                                    &t,
                                                    __emu_index,
                                                    __emu_old,
                                                )
                                            };
                                        }
                                        ::core::option::Option::None
                                    }
                                },
                            );
                    } else {
                        __emu_rb
                            .each_below(
                                ::deviceemu::__private::region_bound(s),
                                {
                                    #[inline(always)]
                                    |
                                        __emu_t: usize,
                                        __emu_ctx: ::deviceemu::__private::ThreadCtx,
                                    | -> ::core::option::Option<::deviceemu::__private::Exit> {
                                        let tid = __emu_ctx.thread_idx.x as usize;
                                        if tid < s {
                                            {
                                                let __emu_value = ::deviceemu::__private::load(
                                                    __EMU_CHECKED,
                                                    &t,
                                                    tid + s,
                                                );
                                                let __emu_view = t;
                                                let __emu_index = tid;
                                                let mut __emu_old = ::deviceemu::__private::load(
                                                    __EMU_CHECKED,
                                                    &__emu_view,
                                                    __emu_index,
                                                );
                                                __emu_old += __emu_value;
                                                ::deviceemu::__private::store(
                                                    __EMU_CHECKED,
                                                    &__emu_view,
                                                    __emu_index,
                                                    __emu_old,
                                                )
                                            };
                                        }
                                        ::core::option::Option::None
                                    }
                                },
                            );
                    }
                }
            }
            __emu_rb.barrier();
            s /= 2;
        }
        if !__EMU_CHECKED && __emu_rb.tier(::deviceemu::__private::TIER_HOISTED)
            && {
                let __emu_hi: usize = ::core::cmp::min(
                    ::deviceemu::__private::region_bound(0).saturating_add(1),
                    __emu_rb.block_ctx().block_dim.x as usize,
                );
                __emu_hi == 0
                    || (true && ::deviceemu::__private::view_aligned(&t)
                        && ::deviceemu::__private::Index::to_index(0) < t.len()
                        && ::deviceemu::__private::view_aligned(&sums)
                        && ::deviceemu::__private::Index::to_index(
                            __emu_ctx.block_idx.x as usize,
                        ) < sums.len())
            }
        {
            __emu_rb
                .each_below(
                    ::deviceemu::__private::region_bound(0).saturating_add(1),
                    {
                        #[inline(always)]
                        |
                            __emu_t: usize,
                            __emu_ctx: ::deviceemu::__private::ThreadCtx,
                        | -> ::core::option::Option<::deviceemu::__private::Exit> {
                            let tid = __emu_ctx.thread_idx.x as usize;
                            if tid == 0 {
                                {
                                    let __emu_value = ::deviceemu::__private::load_in_bounds(
                                        &t,
                                        ::deviceemu::__private::Index::to_index(0),
                                    );
                                    ::deviceemu::__private::store_in_bounds(
                                        &sums,
                                        ::deviceemu::__private::Index::to_index(
                                            __emu_ctx.block_idx.x as usize,
                                        ),
                                        __emu_value,
                                    )
                                };
                            }
                            ::core::option::Option::None
                        }
                    },
                );
        } else {
            if !__EMU_CHECKED && __emu_rb.tier(::deviceemu::__private::TIER_VIEWS)
                && ::deviceemu::__private::view_aligned(&t)
                && ::deviceemu::__private::view_aligned(&sums)
            {
                __emu_rb.note_views();
                __emu_rb
                    .each_below(
                        ::deviceemu::__private::region_bound(0).saturating_add(1),
                        {
                            #[inline(always)]
                            |
                                __emu_t: usize,
                                __emu_ctx: ::deviceemu::__private::ThreadCtx,
                            | -> ::core::option::Option<::deviceemu::__private::Exit> {
                                let tid = __emu_ctx.thread_idx.x as usize;
                                if tid == 0 {
                                    {
                                        let __emu_value = ::deviceemu::__private::load(
                                            ::deviceemu::__private::Valid,
                                            &t,
                                            0,
                                        );
                                        ::deviceemu::__private::store(
                                            ::deviceemu::__private::Valid,
                                            &sums,
                                            __emu_ctx.block_idx.x as usize,
                                            __emu_value,
                                        )
                                    };
                                }
                                ::core::option::Option::None
                            }
                        },
                    );
            } else {
                __emu_rb
                    .each_below(
                        ::deviceemu::__private::region_bound(0).saturating_add(1),
                        {
                            #[inline(always)]
                            |
                                __emu_t: usize,
                                __emu_ctx: ::deviceemu::__private::ThreadCtx,
                            | -> ::core::option::Option<::deviceemu::__private::Exit> {
                                let tid = __emu_ctx.thread_idx.x as usize;
                                if tid == 0 {
                                    {
                                        let __emu_value = ::deviceemu::__private::load(
                                            __EMU_CHECKED,
                                            &t,
                                            0,
                                        );
                                        ::deviceemu::__private::store(
                                            __EMU_CHECKED,
                                            &sums,
                                            __emu_ctx.block_idx.x as usize,
                                            __emu_value,
                                        )
                                    };
                                }
                                ::core::option::Option::None
                            }
                        },
                    );
            }
        }
    }
}
/// The GPU entry point of the kernel (`.entry` in the PTX module).
#[cfg(target_arch = "nvptx64")]
#[export_name = "block_sum"]
#[allow(non_snake_case)]
pub unsafe extern "ptx-kernel" fn __emu_entry_block_sum(
    x: *const f32,
    x_len: usize,
    sums: *mut f32,
    sums_len: usize,
) {
    ::deviceemu::__private::assume_index_facts();
    unsafe { ::deviceemu::__private::assume_launch_bounds(256u32) };
    let x = unsafe {
        ::deviceemu::__private::Global::<f32>::from_raw_parts(x as *mut f32, x_len, ())
    };
    let sums = unsafe {
        ::deviceemu::__private::GlobalMut::<f32>::from_raw_parts(sums, sums_len, ())
    };
    block_sum(x, sums);
}
///The kernel `block_sum`, as one GPU thread runs it.
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
pub fn block_sum<'__emu_launch>(
    x: ::deviceemu::__private::Global<'__emu_launch, f32>,
    sums: ::deviceemu::__private::GlobalMut<'__emu_launch, f32>,
) -> ::deviceemu::__private::Exit {
    #[allow(dead_code)]
    const __EMU_CHECKED: bool = false;
    {
        let t = {
            #[cfg(not(target_arch = "nvptx64"))]
            let __emu_view = shared_array![@ named "t", f32; 256];
            #[cfg(target_arch = "nvptx64")]
            let __emu_view = {
                #[allow(unused_imports, non_snake_case)]
                mod __emu_shared_block_sum_4a52deda6a4c0fe9_0_decl {
                    use super::*;
                    ::core::arch::global_asm!(
                        ".shared .align {a} .b8 __emu_shared_block_sum_4a52deda6a4c0fe9_0[{n}];",
                        a = const ::deviceemu::__private::shared_align:: < f32 > (), n =
                        const ::core::mem::size_of:: < [f32; 256] > (),
                    );
                }
                let p: u32;
                unsafe {
                    ::core::arch::asm!(
                        "mov.u32 {p}, __emu_shared_block_sum_4a52deda6a4c0fe9_0;", p =
                        out(reg32) p, options(pure, nomem, nostack)
                    )
                };
                unsafe { ::deviceemu::__private::shared_view::<f32>(p, 256) }
            };
            __emu_view
        };
        let tid = thread_idx().x as usize;
        let i = block_idx().x as usize * 256 + tid;
        {
            let __emu_value = if i < x.len() {
                ::deviceemu::__private::load(__EMU_CHECKED, &x, i)
            } else {
                0.0
            };
            ::deviceemu::__private::store(__EMU_CHECKED, &t, tid, __emu_value)
        };
        sync_threads();
        let mut s = 128;
        while s > 0 {
            if tid < s {
                {
                    let __emu_value = ::deviceemu::__private::load(
                        __EMU_CHECKED,
                        &t,
                        tid + s,
                    );
                    let __emu_view = t;
                    let __emu_index = tid;
                    let mut __emu_old = ::deviceemu::__private::load(
                        __EMU_CHECKED,
                        &__emu_view,
                        __emu_index,
                    );
                    __emu_old += __emu_value;
                    ::deviceemu::__private::store(
                        __EMU_CHECKED,
                        &__emu_view,
                        __emu_index,
                        __emu_old,
                    )
                };
            }
            sync_threads();
            s /= 2;
        }
        if tid == 0 {
            {
                let __emu_value = ::deviceemu::__private::load(__EMU_CHECKED, &t, 0);
                ::deviceemu::__private::store(
                    __EMU_CHECKED,
                    &sums,
                    block_idx().x as usize,
                    __emu_value,
                )
            };
        }
    };
    ::deviceemu::__private::exit_here()
}
#[cfg(target_arch = "nvptx64")]
#[doc(hidden)]
#[allow(non_camel_case_types, dead_code)]
pub struct block_sum {}
#[cfg(target_arch = "nvptx64")]
impl block_sum {
    /// A device-side launch on the GPU, through the CUDA device runtime.
    #[doc(hidden)]
    #[inline(always)]
    #[allow(clippy::too_many_arguments, dead_code)]
    pub fn __launch_device<'__emu_l>(
        __emu_grid: ::deviceemu::__private::Dim3,
        __emu_block: ::deviceemu::__private::Dim3,
        __emu_shared: usize,
        __emu_stream: ::core::option::Option<&::deviceemu::__private::DeviceStream>,
        x: impl ::deviceemu::__private::DeviceArg<'__emu_l, f32>,
        sums: impl ::deviceemu::__private::DeviceArgMut<'__emu_l, f32>,
    ) -> ::core::result::Result<(), ::deviceemu::Error> {
        unsafe {
            let mut __emu_b = ::deviceemu::__private::ParamBuffer::get(
                __emu_entry_block_sum as *const (),
                __emu_grid,
                __emu_block,
                __emu_shared,
            )?;
            let x = <_ as ::deviceemu::__private::DeviceArg<
                '__emu_l,
                f32,
            >>::into_view(x);
            __emu_b.push::<*const f32>(x.as_ptr() as *const f32);
            __emu_b.push::<usize>(x.len());
            let sums = <_ as ::deviceemu::__private::DeviceArgMut<
                '__emu_l,
                f32,
            >>::into_view(sums);
            __emu_b.push::<*mut f32>(sums.as_ptr() as *mut f32);
            __emu_b.push::<usize>(sums.len());
            __emu_b.launch(__emu_stream)
        }
    }
}
/// A host-only kernel: no PTX entry, and a launcher that refuses the GPU.
///Launcher of the kernel `on_host`: launch it with `launch!(on_host<<<grid, block>>>(args))`.
#[doc(hidden)]
#[allow(non_camel_case_types, dead_code)]
#[cfg(not(target_arch = "nvptx64"))]
struct on_host {}
#[cfg(not(target_arch = "nvptx64"))]
impl on_host {
    /// The kernel's name, as reports and the GPU module spell it.
    #[allow(dead_code)]
    pub const NAME: &'static str = "on_host";
    /// The kernel's static facts.
    #[doc(hidden)]
    #[allow(dead_code)]
    fn __info() -> &'static ::deviceemu::__private::KernelInfo {
        static __EMU_INFO: ::deviceemu::__private::KernelInfo = ::deviceemu::__private::KernelInfo {
            name: "on_host",
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
    fn __launch(
        __emu_config: ::deviceemu::__private::LaunchConfig,
        mut y: impl ::deviceemu::__private::KernelArgMut<u32>,
    ) -> ::core::result::Result<(), ::deviceemu::Error> {
        ::deviceemu::__private::on_default_stream(move || on_host::__run(
            __emu_config,
            y,
        ))
    }
    /// Queues the kernel on a stream (`launch!` with a stream); returns launch-time
    /// errors only. The caller's location (the `launch!` site) names the launch in the
    /// error of a later fault on the GPU.
    #[doc(hidden)]
    #[track_caller]
    #[allow(clippy::too_many_arguments, dead_code, unused_mut)]
    fn __launch_on(
        __emu_stream: &::deviceemu::__private::Stream,
        __emu_config: ::deviceemu::__private::LaunchConfig,
        mut y: impl ::deviceemu::__private::KernelArgMut<u32>,
    ) -> ::core::result::Result<(), ::deviceemu::Error> {
        let __emu_info = on_host::__info();
        if let ::core::option::Option::Some(r) = ::deviceemu::__private::host_only_on_gpu(
            __emu_info,
        ) {
            return r;
        }
        let mut __emu_queued = ::deviceemu::__private::Queued::new(
            __emu_stream,
            __emu_info,
            &__emu_config,
        )?;
        let mut y = __emu_queued.write(y);
        __emu_queued.submit(move || on_host::__run(__emu_config, &mut y))
    }
    /// A device-side launch (`launch!` in a `#[kernel]` or `#[device]` body): queues the
    /// kernel as a child of the running block, on the parent's views.
    #[doc(hidden)]
    #[track_caller]
    #[allow(clippy::too_many_arguments, dead_code)]
    fn __launch_device<'__emu_l>(
        __emu_config: ::deviceemu::__private::LaunchConfig,
        __emu_stream: ::core::option::Option<&::deviceemu::__private::DeviceStream>,
        y: impl ::deviceemu::__private::DeviceArgMut<'__emu_l, u32>,
    ) -> ::core::result::Result<(), ::deviceemu::Error> {
        let __emu_info = on_host::__info();
        let y = <_ as ::deviceemu::__private::DeviceArgMut<'__emu_l, u32>>::into_view(y);
        ::deviceemu::__private::device_launch(
            __emu_info,
            __emu_config,
            __emu_stream,
            ::core::panic::Location::caller(),
            move || on_host::__run_views(
                __emu_config,
                ::deviceemu::__private::launch_checks(),
                y,
            ),
        )
    }
    /// Runs the launch now, on this thread, on views of its buffers (`__run`'s, or a
    /// device-side launch's: the parent's), with the checkers `__emu_checks`.
    #[doc(hidden)]
    #[allow(clippy::too_many_arguments, dead_code)]
    fn __run_views(
        __emu_config: ::deviceemu::__private::LaunchConfig,
        __emu_checks: ::deviceemu::__private::Checks,
        y: ::deviceemu::__private::GlobalMut<'_, u32>,
    ) -> ::core::result::Result<(), ::deviceemu::Error> {
        let __emu_info = on_host::__info();
        if ::deviceemu::__private::per_access(__emu_checks) {
            {
                ::deviceemu::__private::announce_general(
                    __emu_info,
                    "a `host_only` kernel",
                );
                ::deviceemu::__private::launch(
                    __emu_info,
                    __emu_config,
                    move |__emu_ctx| on_host::on_host::<true>(__emu_ctx, y),
                )
            }
        } else {
            {
                ::deviceemu::__private::announce_general(
                    __emu_info,
                    "a `host_only` kernel",
                );
                ::deviceemu::__private::launch(
                    __emu_info,
                    __emu_config,
                    move |__emu_ctx| on_host::on_host::<false>(__emu_ctx, y),
                )
            }
        }
    }
    /// Runs the launch now, on this thread.
    #[doc(hidden)]
    #[allow(clippy::too_many_arguments, dead_code)]
    fn __run(
        __emu_config: ::deviceemu::__private::LaunchConfig,
        mut y: impl ::deviceemu::__private::KernelArgMut<u32>,
    ) -> ::core::result::Result<(), ::deviceemu::Error> {
        let __emu_info = on_host::__info();
        if let ::core::option::Option::Some(r) = ::deviceemu::__private::host_only_on_gpu(
            __emu_info,
        ) {
            return r;
        }
        let __emu_checks = ::deviceemu::__private::launch_checks();
        let __emu_meta_py = ::deviceemu::__private::meta("y", &y, __emu_checks);
        let y = unsafe { ::deviceemu::__private::global_mut(&mut y, &__emu_meta_py) }?;
        on_host::__run_views(__emu_config, __emu_checks, y)
    }
}
#[cfg(not(target_arch = "nvptx64"))]
impl on_host {
    /// A host-only kernel: no PTX entry, and a launcher that refuses the GPU.
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
    fn on_host<'__emu_launch, const __EMU_CHECKED: bool>(
        __emu_ctx: ::deviceemu::__private::ThreadCtx,
        y: ::deviceemu::__private::GlobalMut<'__emu_launch, u32>,
    ) -> ::deviceemu::__private::Exit {
        {
            {
                let __emu_value = 1;
                ::deviceemu::__private::store(
                    __EMU_CHECKED,
                    &y,
                    __emu_ctx.thread_idx.x as usize,
                    __emu_value,
                )
            };
        };
        ::deviceemu::__private::keep_ctx(&__emu_ctx);
        ::deviceemu::__private::exit_here()
    }
}
#[cfg(all(not(target_arch = "nvptx64"), not(doc)))]
#[doc(hidden)]
#[allow(dead_code, clippy::too_many_arguments, clippy::extra_unused_lifetimes)]
fn on_host<'__emu_call, __EmuArg0>(_: __EmuArg0) -> !
where
    on_host: ::deviceemu::__private::NotAFunction<'__emu_call>,
{
    ::core::unreachable!()
}
#[cfg(all(doc, not(target_arch = "nvptx64")))]
/// A host-only kernel: no PTX entry, and a launcher that refuses the GPU.
///
/// A `#[kernel]`: launch it with `launch!(on_host<<<grid, block>>>(...))`.
#[allow(unused_variables, unused_mut, clippy::too_many_arguments)]
fn on_host(y: &mut [u32]) {}
