use deviceemu::prelude::*;
///Launcher of the kernel `block_scan`: launch it with `launch!(block_scan<<<grid, block>>>(args))`.
#[doc(hidden)]
#[allow(non_camel_case_types, dead_code)]
#[cfg(not(target_arch = "nvptx64"))]
pub struct block_scan {}
#[cfg(not(target_arch = "nvptx64"))]
impl block_scan {
    /// The kernel's name, as reports and the GPU module spell it.
    #[allow(dead_code)]
    pub const NAME: &'static str = "block_scan";
    /// The kernel's static facts.
    #[doc(hidden)]
    #[allow(dead_code)]
    pub fn __info() -> &'static ::deviceemu::__private::KernelInfo {
        static __EMU_INFO: ::deviceemu::__private::KernelInfo = ::deviceemu::__private::KernelInfo {
            name: "block_scan",
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
        input: impl ::deviceemu::__private::KernelArg<f32>,
        mut out: impl ::deviceemu::__private::KernelArgMut<f32>,
    ) -> ::core::result::Result<(), ::deviceemu::Error> {
        ::deviceemu::__private::on_default_stream(move || block_scan::__run(
            __emu_config,
            input,
            out,
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
        input: impl ::deviceemu::__private::KernelArg<f32>,
        mut out: impl ::deviceemu::__private::KernelArgMut<f32>,
    ) -> ::core::result::Result<(), ::deviceemu::Error> {
        let __emu_info = block_scan::__info();
        const __EMU_PTX: ::core::option::Option<&'static str> = ::core::option::Option::None;
        if let ::core::option::Option::Some(r) = ::deviceemu::__private::launch_on_gpu_stream(
            __emu_info,
            __EMU_PTX,
            __emu_stream,
            __emu_config,
            &[
                ::deviceemu::__private::GpuArg::slice(&input),
                ::deviceemu::__private::GpuArg::slice(&out),
            ],
        ) {
            return r;
        }
        let mut __emu_queued = ::deviceemu::__private::Queued::new(
            __emu_stream,
            __emu_info,
            &__emu_config,
        )?;
        let input = __emu_queued.read(input);
        let mut out = __emu_queued.write(out);
        __emu_queued.submit(move || block_scan::__run(__emu_config, &input, &mut out))
    }
    /// A device-side launch (`launch!` in a `#[kernel]` or `#[device]` body): queues the
    /// kernel as a child of the running block, on the parent's views.
    #[doc(hidden)]
    #[track_caller]
    #[allow(clippy::too_many_arguments, dead_code)]
    pub fn __launch_device<'__emu_l>(
        __emu_config: ::deviceemu::__private::LaunchConfig,
        __emu_stream: ::core::option::Option<&::deviceemu::__private::DeviceStream>,
        input: impl ::deviceemu::__private::DeviceArg<'__emu_l, f32>,
        out: impl ::deviceemu::__private::DeviceArgMut<'__emu_l, f32>,
    ) -> ::core::result::Result<(), ::deviceemu::Error> {
        let __emu_info = block_scan::__info();
        let input = <_ as ::deviceemu::__private::DeviceArg<
            '__emu_l,
            f32,
        >>::into_view(input);
        let out = <_ as ::deviceemu::__private::DeviceArgMut<
            '__emu_l,
            f32,
        >>::into_view(out);
        ::deviceemu::__private::device_launch(
            __emu_info,
            __emu_config,
            __emu_stream,
            ::core::panic::Location::caller(),
            move || block_scan::__run_views(
                __emu_config,
                ::deviceemu::__private::launch_checks(),
                input,
                out,
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
        input: ::deviceemu::__private::Global<'_, f32>,
        out: ::deviceemu::__private::GlobalMut<'_, f32>,
    ) -> ::core::result::Result<(), ::deviceemu::Error> {
        let __emu_info = block_scan::__info();
        if ::deviceemu::__private::per_access(__emu_checks) {
            ::deviceemu::__private::launch_regions(
                __emu_info,
                __emu_config,
                &[::deviceemu::__private::Written::of("out", &out)],
                move |__emu_rb| block_scan::__regions::<true>(__emu_rb, input, out),
                move |__emu_ctx| block_scan::block_scan::<true>(__emu_ctx, input, out),
            )
        } else {
            ::deviceemu::__private::launch_regions(
                __emu_info,
                __emu_config,
                &[::deviceemu::__private::Written::of("out", &out)],
                move |__emu_rb| block_scan::__regions::<false>(__emu_rb, input, out),
                move |__emu_ctx| block_scan::block_scan::<false>(__emu_ctx, input, out),
            )
        }
    }
    /// Runs the launch now, on this thread.
    #[doc(hidden)]
    #[allow(clippy::too_many_arguments, dead_code)]
    pub fn __run(
        __emu_config: ::deviceemu::__private::LaunchConfig,
        input: impl ::deviceemu::__private::KernelArg<f32>,
        mut out: impl ::deviceemu::__private::KernelArgMut<f32>,
    ) -> ::core::result::Result<(), ::deviceemu::Error> {
        let __emu_info = block_scan::__info();
        const __EMU_PTX: ::core::option::Option<&'static str> = ::core::option::Option::None;
        if let ::core::option::Option::Some(r) = ::deviceemu::__private::launch_on_gpu(
            __emu_info,
            __EMU_PTX,
            __emu_config,
            &[
                ::deviceemu::__private::GpuArg::slice(&input),
                ::deviceemu::__private::GpuArg::slice(&out),
            ],
        ) {
            return r;
        }
        let __emu_checks = ::deviceemu::__private::launch_checks();
        let __emu_meta_pinput = ::deviceemu::__private::meta(
            "input",
            &input,
            __emu_checks,
        );
        let input = unsafe {
            ::deviceemu::__private::global(&input, &__emu_meta_pinput)
        }?;
        let __emu_meta_pout = ::deviceemu::__private::meta("out", &out, __emu_checks);
        let out = unsafe {
            ::deviceemu::__private::global_mut(&mut out, &__emu_meta_pout)
        }?;
        block_scan::__run_views(__emu_config, __emu_checks, input, out)
    }
}
#[cfg(not(target_arch = "nvptx64"))]
impl block_scan {
    ///The kernel `block_scan`, as one GPU thread runs it.
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
    pub fn block_scan<'__emu_launch, const __EMU_CHECKED: bool>(
        __emu_ctx: ::deviceemu::__private::ThreadCtx,
        input: ::deviceemu::__private::Global<'__emu_launch, f32>,
        out: ::deviceemu::__private::GlobalMut<'__emu_launch, f32>,
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
                        mod __emu_shared_block_scan_5a58bb58752c00d9_0_decl {
                            use super::*;
                            ::core::arch::global_asm!(
                                ".shared .align {a} .b8 __emu_shared_block_scan_5a58bb58752c00d9_0[{n}];",
                                a = const ::deviceemu::__private::shared_align:: < f32 > (),
                                n = const ::core::mem::size_of:: < [f32; 256] > (),
                            );
                        }
                        let p: u32;
                        unsafe {
                            ::core::arch::asm!(
                                "mov.u32 {p}, __emu_shared_block_scan_5a58bb58752c00d9_0;",
                                p = out(reg32) p, options(pure, nomem, nostack)
                            )
                        };
                        unsafe { ::deviceemu::__private::shared_view::<f32>(p, 256) }
                    };
                    __emu_view
                };
                let tid = __emu_ctx.thread_idx.x as usize;
                let i = __emu_ctx.block_idx.x as usize * 256 + tid;
                {
                    let __emu_value = if i < input.len() {
                        ::deviceemu::__private::load(__EMU_CHECKED, &input, i)
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
                let mut off = 1;
                while off < 256 {
                    let v = if tid >= off {
                        ::deviceemu::__private::load(__EMU_CHECKED, &t, tid - off)
                    } else {
                        0.0
                    };
                    {
                        ::deviceemu::__private::barrier_await(
                                ::deviceemu::__private::BarrierOp::Sync,
                                false,
                            )
                            .await;
                    };
                    {
                        let __emu_value = v;
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
                    {
                        ::deviceemu::__private::barrier_await(
                                ::deviceemu::__private::BarrierOp::Sync,
                                false,
                            )
                            .await;
                    };
                    off *= 2;
                }
                if i < out.len() {
                    {
                        let __emu_value = ::deviceemu::__private::load(
                            __EMU_CHECKED,
                            &t,
                            tid,
                        );
                        ::deviceemu::__private::store(
                            __EMU_CHECKED,
                            &out,
                            i,
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
pub fn block_scan<'__emu_call, __EmuArg0, __EmuArg1>(_: __EmuArg0, _: __EmuArg1) -> !
where
    block_scan: ::deviceemu::__private::NotAFunction<'__emu_call>,
{
    ::core::unreachable!()
}
#[cfg(all(doc, not(target_arch = "nvptx64")))]
/// A `#[kernel]`: launch it with `launch!(block_scan<<<grid, block>>>(...))`.
#[allow(unused_variables, unused_mut, clippy::too_many_arguments)]
pub fn block_scan(input: &[f32], out: &mut [f32]) {}
#[cfg(not(target_arch = "nvptx64"))]
impl block_scan {
    ///The kernel `block_scan` for one whole block: its barrier regions as loops over the block's threads.
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
        input: ::deviceemu::__private::Global<'__emu_launch, f32>,
        out: ::deviceemu::__private::GlobalMut<'__emu_launch, f32>,
    ) {
        #[allow(unused_variables)]
        let __emu_ctx = __emu_rb.block_ctx();
        let mut __emu_lanes_v = __emu_rb.lanes();
        let t = {
            #[cfg(not(target_arch = "nvptx64"))]
            let __emu_view = shared_array![@ named "t", f32; 256];
            #[cfg(target_arch = "nvptx64")]
            let __emu_view = {
                #[allow(unused_imports, non_snake_case)]
                mod __emu_shared_block_scan_5a58bb58752c00d9_0_decl {
                    use super::*;
                    ::core::arch::global_asm!(
                        ".shared .align {a} .b8 __emu_shared_block_scan_5a58bb58752c00d9_0[{n}];",
                        a = const ::deviceemu::__private::shared_align:: < f32 > (), n =
                        const ::core::mem::size_of:: < [f32; 256] > (),
                    );
                }
                let p: u32;
                unsafe {
                    ::core::arch::asm!(
                        "mov.u32 {p}, __emu_shared_block_scan_5a58bb58752c00d9_0;", p =
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
                        && ::deviceemu::__private::view_aligned(&input)
                        && match ::deviceemu::__private::lane_last(
                            __emu_ctx.block_idx.x as usize * 256,
                            __emu_hi,
                        ) {
                            ::core::option::Option::Some(__emu_l) => {
                                ::deviceemu::__private::Index::to_index(
                                    __emu_ctx.block_idx.x as usize * 256,
                                ) <= ::deviceemu::__private::Index::to_index(__emu_l)
                                    && ::deviceemu::__private::Index::to_index(__emu_l)
                                        < input.len()
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
                                        < ::deviceemu::__private::region_bound(input.len())
                            }
                            ::core::option::Option::None => false,
                        })
            }
        {
            let __emu_vb_input_0_at: usize = ::deviceemu::__private::Index::to_index(
                __emu_ctx.block_idx.x as usize * 256,
            );
            let __emu_vb_t_1_at: usize = 0usize;
            let mut __emu_vb_input_0 = ::deviceemu::__private::LaneBuf::<
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
                            &input,
                            __emu_vb_input_0_at + __emu_c0,
                            &mut __emu_vb_input_0,
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
                                let __emu_value = {
                                    unsafe { __emu_vb_input_0.get(__emu_k) }
                                };
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
                            let __emu_value = if i < input.len() {
                                ::deviceemu::__private::load(__EMU_CHECKED, &input, i)
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
                && (true && ::deviceemu::__private::view_aligned(&input)
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
                                ::core::option::Option::Some(input.len()),
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
                                    < input.len()
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
                                let __emu_value = if i < input.len() {
                                    ::deviceemu::__private::load_in_bounds(
                                        &input,
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
                    && ::deviceemu::__private::view_aligned(&input)
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
                                    let __emu_value = if i < input.len() {
                                        ::deviceemu::__private::load(
                                            ::deviceemu::__private::Valid,
                                            &input,
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
                                    let __emu_value = if i < input.len() {
                                        ::deviceemu::__private::load(__EMU_CHECKED, &input, i)
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
        let mut off = 1;
        while (off < 256) && __emu_rb.any_live() {
            if !__EMU_CHECKED && __emu_rb.tier(::deviceemu::__private::TIER_VECTOR)
                && __emu_rb.in_index_order()
                && {
                    let __emu_hi: usize = ::core::cmp::min(
                        usize::MAX,
                        __emu_rb.threads(),
                    );
                    __emu_hi == 0
                        || (__emu_hi >= ::deviceemu::__private::VECTOR_MIN
                            && ::deviceemu::__private::view_aligned(&t)
                            && ::deviceemu::__private::Index::to_index(off)
                                <= isize::MAX as usize
                            && (__emu_hi - 1
                                < ::deviceemu::__private::Index::to_index(off)
                                || (::deviceemu::__private::Index::to_index(off)
                                    <= ::deviceemu::__private::Index::to_index(off)
                                    && __emu_hi - 1
                                        - ::deviceemu::__private::Index::to_index(off) < t.len())))
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
                            let __emu_lanes_v = __emu_lanes_v.window(__emu_c0, __emu_m);
                            #[allow(unused_variables, unused_unsafe)]
                            for __emu_k in 0..__emu_m {
                                let __emu_ctx = __emu_cursor.lane(__emu_c0 + __emu_k);
                                let __emu_t = __emu_c0 + __emu_k;
                                let tid = __emu_ctx.thread_idx.x as usize;
                                let v = if tid >= off {
                                    ::deviceemu::__private::load_in_bounds(
                                        &t,
                                        ::deviceemu::__private::Index::to_index(tid - off),
                                    )
                                } else {
                                    0.0
                                };
                                __emu_lanes_v.put(__emu_t, v);
                            }
                        },
                        |__emu_t: usize, __emu_ctx: ::deviceemu::__private::ThreadCtx| {
                            let tid = __emu_ctx.thread_idx.x as usize;
                            let v = if tid >= off {
                                ::deviceemu::__private::load(__EMU_CHECKED, &t, tid - off)
                            } else {
                                0.0
                            };
                            __emu_lanes_v.put(__emu_t, v);
                        },
                    );
            } else {
                if !__EMU_CHECKED && __emu_rb.tier(::deviceemu::__private::TIER_RANGES)
                    && (true && ::deviceemu::__private::view_aligned(&t)
                        && match (
                            ::deviceemu::__private::range_sub(
                                ::deviceemu::__private::range_max(
                                    ::core::option::Option::Some(0 as usize),
                                    ::core::option::Option::Some(off),
                                ),
                                ::core::option::Option::Some(off),
                            ),
                            ::deviceemu::__private::range_sub(
                                ::core::option::Option::Some(
                                    (__emu_ctx.block_dim.x - 1) as usize,
                                ),
                                ::core::option::Option::Some(off),
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
                                let v = if tid >= off {
                                    ::deviceemu::__private::load_in_bounds(
                                        &t,
                                        ::deviceemu::__private::Index::to_index(tid - off),
                                    )
                                } else {
                                    0.0
                                };
                                __emu_lanes_v.put(__emu_t, v);
                                ::core::option::Option::None
                            }
                        });
                } else {
                    if !__EMU_CHECKED
                        && __emu_rb.tier(::deviceemu::__private::TIER_VIEWS)
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
                                    let v = if tid >= off {
                                        ::deviceemu::__private::load(
                                            ::deviceemu::__private::Valid,
                                            &t,
                                            tid - off,
                                        )
                                    } else {
                                        0.0
                                    };
                                    __emu_lanes_v.put(__emu_t, v);
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
                                    let v = if tid >= off {
                                        ::deviceemu::__private::load(__EMU_CHECKED, &t, tid - off)
                                    } else {
                                        0.0
                                    };
                                    __emu_lanes_v.put(__emu_t, v);
                                    ::core::option::Option::None
                                }
                            });
                    }
                }
            }
            __emu_rb.barrier();
            if !__EMU_CHECKED && __emu_rb.tier(::deviceemu::__private::TIER_VECTOR)
                && __emu_rb.in_index_order()
                && {
                    let __emu_hi: usize = ::core::cmp::min(
                        usize::MAX,
                        __emu_rb.threads(),
                    );
                    __emu_hi == 0
                        || (__emu_hi >= ::deviceemu::__private::VECTOR_MIN_IN_PLACE
                            && ::deviceemu::__private::view_aligned(&t)
                            && __emu_hi - 1 < t.len())
                }
            {
                let __emu_vb_t_0_at: usize = 0usize;
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
                            let __emu_lanes_v = __emu_lanes_v.window(__emu_c0, __emu_m);
                            let __emu_vb_t_0 = ::deviceemu::__private::lane_dst(
                                &t,
                                __emu_vb_t_0_at + __emu_c0,
                                __emu_m,
                            );
                            #[allow(unused_variables, unused_unsafe)]
                            for __emu_k in 0..__emu_m {
                                let __emu_mark = ::deviceemu::__private::LaneMark(__emu_k);
                                let __emu_ctx = __emu_cursor.lane(__emu_c0 + __emu_k);
                                let __emu_t = __emu_c0 + __emu_k;
                                let tid = __emu_ctx.thread_idx.x as usize;
                                #[allow(unused_mut)]
                                let mut v = __emu_lanes_v.get(__emu_t);
                                {
                                    let __emu_value = v;
                                    let __emu_view = t;
                                    let __emu_index = tid;
                                    let mut __emu_old = unsafe { __emu_vb_t_0.get(__emu_k) };
                                    __emu_old += __emu_value;
                                    {
                                        let __emu_set = __emu_old;
                                        unsafe { __emu_vb_t_0.set(__emu_k, __emu_set) };
                                    }
                                };
                                __emu_mark.done();
                            }
                        },
                        |__emu_t: usize, __emu_ctx: ::deviceemu::__private::ThreadCtx| {
                            let tid = __emu_ctx.thread_idx.x as usize;
                            #[allow(unused_mut)]
                            let mut v = __emu_lanes_v.get(__emu_t);
                            {
                                let __emu_value = v;
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
                        },
                    );
            } else {
                if !__EMU_CHECKED && __emu_rb.tier(::deviceemu::__private::TIER_RANGES)
                    && (true && ::deviceemu::__private::view_aligned(&t)
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
                                #[allow(unused_mut)]
                                let mut v = __emu_lanes_v.get(__emu_t);
                                {
                                    let __emu_value = v;
                                    let __emu_view = t;
                                    let __emu_index = tid;
                                    let mut __emu_old = ::deviceemu::__private::load_in_bounds(
                                        &t,
                                        ::deviceemu::__private::Index::to_index(__emu_index),
                                    );
                                    __emu_old += __emu_value;
                                    ::deviceemu::__private::store_in_bounds(
                                        &t,
                                        ::deviceemu::__private::Index::to_index(__emu_index),
                                        __emu_old,
                                    )
                                };
                                ::core::option::Option::None
                            }
                        });
                } else {
                    if !__EMU_CHECKED
                        && __emu_rb.tier(::deviceemu::__private::TIER_VIEWS)
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
                                    #[allow(unused_mut)]
                                    let mut v = __emu_lanes_v.get(__emu_t);
                                    {
                                        let __emu_value = v;
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
                                    #[allow(unused_mut)]
                                    let mut v = __emu_lanes_v.get(__emu_t);
                                    {
                                        let __emu_value = v;
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
                                    ::core::option::Option::None
                                }
                            });
                    }
                }
            }
            __emu_rb.barrier();
            off *= 2;
        }
        if !__EMU_CHECKED && __emu_rb.tier(::deviceemu::__private::TIER_VECTOR)
            && __emu_rb.in_index_order()
            && {
                let __emu_hi: usize = ::core::cmp::min(usize::MAX, __emu_rb.threads());
                __emu_hi == 0
                    || (__emu_hi >= ::deviceemu::__private::VECTOR_MIN
                        && ::deviceemu::__private::view_aligned(&t)
                        && __emu_hi - 1 < t.len()
                        && ::deviceemu::__private::view_aligned(&out)
                        && match ::deviceemu::__private::lane_last(
                            __emu_ctx.block_idx.x as usize * 256,
                            __emu_hi,
                        ) {
                            ::core::option::Option::Some(__emu_l) => {
                                ::deviceemu::__private::Index::to_index(
                                    __emu_ctx.block_idx.x as usize * 256,
                                ) <= ::deviceemu::__private::Index::to_index(__emu_l)
                                    && ::deviceemu::__private::Index::to_index(__emu_l)
                                        < out.len()
                            }
                            ::core::option::Option::None => false,
                        }
                        && match ::deviceemu::__private::lane_last(
                            __emu_ctx.block_idx.x as usize * 256,
                            __emu_hi,
                        ) {
                            ::core::option::Option::Some(__emu_l) => {
                                ::deviceemu::__private::Index::to_index(
                                    __emu_ctx.block_idx.x as usize * 256,
                                ) <= ::deviceemu::__private::Index::to_index(__emu_l)
                                    && ::deviceemu::__private::Index::to_index(__emu_l)
                                        < ::deviceemu::__private::region_bound(out.len())
                            }
                            ::core::option::Option::None => false,
                        })
            }
        {
            let __emu_vb_t_0_at: usize = 0usize;
            let __emu_vb_out_1_at: usize = ::deviceemu::__private::Index::to_index(
                __emu_ctx.block_idx.x as usize * 256,
            );
            let mut __emu_vb_out_1 = ::deviceemu::__private::LaneBuf::<
                _,
                { ::deviceemu::__private::LANE_CHUNK },
            >::new();
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
                        let __emu_vb_t_0 = ::deviceemu::__private::lane_src(
                            &t,
                            __emu_vb_t_0_at + __emu_c0,
                            __emu_m,
                        );
                        #[allow(unused_variables, unused_unsafe)]
                        for __emu_k in 0..__emu_m {
                            let __emu_ctx = __emu_cursor.lane(__emu_c0 + __emu_k);
                            let __emu_t = __emu_c0 + __emu_k;
                            let tid = __emu_ctx.thread_idx.x as usize;
                            let i = __emu_ctx.block_idx.x as usize * 256 + tid;
                            {
                                {
                                    let __emu_value = unsafe { __emu_vb_t_0.get(__emu_k) };
                                    {
                                        let __emu_set = __emu_value;
                                        unsafe { __emu_vb_out_1.set(__emu_k, __emu_set) };
                                    }
                                };
                            };
                        }
                        unsafe {
                            ::deviceemu::__private::lane_store(
                                &out,
                                __emu_vb_out_1_at + __emu_c0,
                                &__emu_vb_out_1,
                                __emu_m,
                            )
                        };
                    },
                    |__emu_t: usize, __emu_ctx: ::deviceemu::__private::ThreadCtx| {
                        let tid = __emu_ctx.thread_idx.x as usize;
                        let i = __emu_ctx.block_idx.x as usize * 256 + tid;
                        if i < out.len() {
                            {
                                let __emu_value = ::deviceemu::__private::load(
                                    __EMU_CHECKED,
                                    &t,
                                    tid,
                                );
                                ::deviceemu::__private::store(
                                    __EMU_CHECKED,
                                    &out,
                                    i,
                                    __emu_value,
                                )
                            };
                        }
                    },
                );
        } else {
            if !__EMU_CHECKED && __emu_rb.tier(::deviceemu::__private::TIER_RANGES)
                && (true && ::deviceemu::__private::view_aligned(&t)
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
                    } && ::deviceemu::__private::view_aligned(&out)
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
                                ::core::option::Option::Some(out.len()),
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
                                    < out.len()
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
                            if i < out.len() {
                                {
                                    let __emu_value = ::deviceemu::__private::load_in_bounds(
                                        &t,
                                        ::deviceemu::__private::Index::to_index(tid),
                                    );
                                    ::deviceemu::__private::store_in_bounds(
                                        &out,
                                        ::deviceemu::__private::Index::to_index(i),
                                        __emu_value,
                                    )
                                };
                            }
                            ::core::option::Option::None
                        }
                    });
            } else {
                if !__EMU_CHECKED && __emu_rb.tier(::deviceemu::__private::TIER_VIEWS)
                    && ::deviceemu::__private::view_aligned(&t)
                    && ::deviceemu::__private::view_aligned(&out)
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
                                if i < out.len() {
                                    {
                                        let __emu_value = ::deviceemu::__private::load(
                                            ::deviceemu::__private::Valid,
                                            &t,
                                            tid,
                                        );
                                        ::deviceemu::__private::store(
                                            ::deviceemu::__private::Valid,
                                            &out,
                                            i,
                                            __emu_value,
                                        )
                                    };
                                }
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
                                if i < out.len() {
                                    {
                                        let __emu_value = ::deviceemu::__private::load(
                                            __EMU_CHECKED,
                                            &t,
                                            tid,
                                        );
                                        ::deviceemu::__private::store(
                                            __EMU_CHECKED,
                                            &out,
                                            i,
                                            __emu_value,
                                        )
                                    };
                                }
                                ::core::option::Option::None
                            }
                        });
                }
            }
        }
    }
}
/// The GPU entry point of the kernel (`.entry` in the PTX module).
#[cfg(target_arch = "nvptx64")]
#[export_name = "block_scan"]
#[allow(non_snake_case)]
pub unsafe extern "ptx-kernel" fn __emu_entry_block_scan(
    input: *const f32,
    input_len: usize,
    out: *mut f32,
    out_len: usize,
) {
    ::deviceemu::__private::assume_index_facts();
    let input = unsafe {
        ::deviceemu::__private::Global::<
            f32,
        >::from_raw_parts(input as *mut f32, input_len, ())
    };
    let out = unsafe {
        ::deviceemu::__private::GlobalMut::<f32>::from_raw_parts(out, out_len, ())
    };
    block_scan(input, out);
}
///The kernel `block_scan`, as one GPU thread runs it.
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
pub fn block_scan<'__emu_launch>(
    input: ::deviceemu::__private::Global<'__emu_launch, f32>,
    out: ::deviceemu::__private::GlobalMut<'__emu_launch, f32>,
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
                mod __emu_shared_block_scan_5a58bb58752c00d9_0_decl {
                    use super::*;
                    ::core::arch::global_asm!(
                        ".shared .align {a} .b8 __emu_shared_block_scan_5a58bb58752c00d9_0[{n}];",
                        a = const ::deviceemu::__private::shared_align:: < f32 > (), n =
                        const ::core::mem::size_of:: < [f32; 256] > (),
                    );
                }
                let p: u32;
                unsafe {
                    ::core::arch::asm!(
                        "mov.u32 {p}, __emu_shared_block_scan_5a58bb58752c00d9_0;", p =
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
            let __emu_value = if i < input.len() {
                ::deviceemu::__private::load(__EMU_CHECKED, &input, i)
            } else {
                0.0
            };
            ::deviceemu::__private::store(__EMU_CHECKED, &t, tid, __emu_value)
        };
        sync_threads();
        let mut off = 1;
        while off < 256 {
            let v = if tid >= off {
                ::deviceemu::__private::load(__EMU_CHECKED, &t, tid - off)
            } else {
                0.0
            };
            sync_threads();
            {
                let __emu_value = v;
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
            sync_threads();
            off *= 2;
        }
        if i < out.len() {
            {
                let __emu_value = ::deviceemu::__private::load(__EMU_CHECKED, &t, tid);
                ::deviceemu::__private::store(__EMU_CHECKED, &out, i, __emu_value)
            };
        }
    };
    ::deviceemu::__private::exit_here()
}
#[cfg(target_arch = "nvptx64")]
#[doc(hidden)]
#[allow(non_camel_case_types, dead_code)]
pub struct block_scan {}
#[cfg(target_arch = "nvptx64")]
impl block_scan {
    /// A device-side launch on the GPU, through the CUDA device runtime.
    #[doc(hidden)]
    #[inline(always)]
    #[allow(clippy::too_many_arguments, dead_code)]
    pub fn __launch_device<'__emu_l>(
        __emu_grid: ::deviceemu::__private::Dim3,
        __emu_block: ::deviceemu::__private::Dim3,
        __emu_shared: usize,
        __emu_stream: ::core::option::Option<&::deviceemu::__private::DeviceStream>,
        input: impl ::deviceemu::__private::DeviceArg<'__emu_l, f32>,
        out: impl ::deviceemu::__private::DeviceArgMut<'__emu_l, f32>,
    ) -> ::core::result::Result<(), ::deviceemu::Error> {
        unsafe {
            let mut __emu_b = ::deviceemu::__private::ParamBuffer::get(
                __emu_entry_block_scan as *const (),
                __emu_grid,
                __emu_block,
                __emu_shared,
            )?;
            let input = <_ as ::deviceemu::__private::DeviceArg<
                '__emu_l,
                f32,
            >>::into_view(input);
            __emu_b.push::<*const f32>(input.as_ptr() as *const f32);
            __emu_b.push::<usize>(input.len());
            let out = <_ as ::deviceemu::__private::DeviceArgMut<
                '__emu_l,
                f32,
            >>::into_view(out);
            __emu_b.push::<*mut f32>(out.as_ptr() as *mut f32);
            __emu_b.push::<usize>(out.len());
            __emu_b.launch(__emu_stream)
        }
    }
}
