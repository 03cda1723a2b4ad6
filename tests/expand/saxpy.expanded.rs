use deviceemu::prelude::*;
/// `y = a * x + y`.
///Launcher of the kernel `saxpy`: launch it with `launch!(saxpy<<<grid, block>>>(args))`.
#[doc(hidden)]
#[allow(non_camel_case_types, dead_code)]
#[cfg(not(target_arch = "nvptx64"))]
pub struct saxpy {}
#[cfg(not(target_arch = "nvptx64"))]
impl saxpy {
    /// The kernel's name, as reports and the GPU module spell it.
    #[allow(dead_code)]
    pub const NAME: &'static str = "saxpy";
    /// The kernel's static facts.
    #[doc(hidden)]
    #[allow(dead_code)]
    pub fn __info() -> &'static ::deviceemu::__private::KernelInfo {
        static __EMU_INFO: ::deviceemu::__private::KernelInfo = ::deviceemu::__private::KernelInfo {
            name: "saxpy",
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
        a: f32,
        x: impl ::deviceemu::__private::KernelArg<f32>,
        mut y: impl ::deviceemu::__private::KernelArgMut<f32>,
    ) -> ::core::result::Result<(), ::deviceemu::Error> {
        ::deviceemu::__private::on_default_stream(move || saxpy::__run(
            __emu_config,
            a,
            x,
            y,
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
        a: f32,
        x: impl ::deviceemu::__private::KernelArg<f32>,
        mut y: impl ::deviceemu::__private::KernelArgMut<f32>,
    ) -> ::core::result::Result<(), ::deviceemu::Error> {
        let __emu_info = saxpy::__info();
        const __EMU_PTX: ::core::option::Option<&'static str> = ::core::option::Option::None;
        if let ::core::option::Option::Some(r) = ::deviceemu::__private::launch_on_gpu_stream(
            __emu_info,
            __EMU_PTX,
            __emu_stream,
            __emu_config,
            &[
                ::deviceemu::__private::GpuArg::scalar(&a),
                ::deviceemu::__private::GpuArg::slice(&x),
                ::deviceemu::__private::GpuArg::slice(&y),
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
        let mut y = __emu_queued.write(y);
        __emu_queued.submit(move || saxpy::__run(__emu_config, a, &x, &mut y))
    }
    /// A device-side launch (`launch!` in a `#[kernel]` or `#[device]` body): queues the
    /// kernel as a child of the running block, on the parent's views.
    #[doc(hidden)]
    #[track_caller]
    #[allow(clippy::too_many_arguments, dead_code)]
    pub fn __launch_device<'__emu_l>(
        __emu_config: ::deviceemu::__private::LaunchConfig,
        __emu_stream: ::core::option::Option<&::deviceemu::__private::DeviceStream>,
        a: f32,
        x: impl ::deviceemu::__private::DeviceArg<'__emu_l, f32>,
        y: impl ::deviceemu::__private::DeviceArgMut<'__emu_l, f32>,
    ) -> ::core::result::Result<(), ::deviceemu::Error> {
        let __emu_info = saxpy::__info();
        let x = <_ as ::deviceemu::__private::DeviceArg<'__emu_l, f32>>::into_view(x);
        let y = <_ as ::deviceemu::__private::DeviceArgMut<'__emu_l, f32>>::into_view(y);
        ::deviceemu::__private::device_launch(
            __emu_info,
            __emu_config,
            __emu_stream,
            ::core::panic::Location::caller(),
            move || saxpy::__run_views(
                __emu_config,
                ::deviceemu::__private::launch_checks(),
                a,
                x,
                y,
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
        a: f32,
        x: ::deviceemu::__private::Global<'_, f32>,
        y: ::deviceemu::__private::GlobalMut<'_, f32>,
    ) -> ::core::result::Result<(), ::deviceemu::Error> {
        let __emu_info = saxpy::__info();
        if ::deviceemu::__private::per_access(__emu_checks) {
            ::deviceemu::__private::launch_lanes(
                __emu_info,
                __emu_config,
                &[::deviceemu::__private::Written::of("y", &y)],
                move |__emu_rb| saxpy::__regions::<true>(__emu_rb, a, x, y),
                move |__emu_ctx| saxpy::saxpy::<true>(__emu_ctx, a, x, y),
            )
        } else {
            ::deviceemu::__private::launch_lanes_spanned(
                __emu_info,
                __emu_config,
                &[::deviceemu::__private::Written::of("y", &y)],
                move |__emu_rb| saxpy::__span::<false>(__emu_rb, a, x, y),
                move |__emu_rb| saxpy::__regions::<false>(__emu_rb, a, x, y),
                move |__emu_ctx| saxpy::saxpy::<false>(__emu_ctx, a, x, y),
            )
        }
    }
    /// Runs the launch now, on this thread.
    #[doc(hidden)]
    #[allow(clippy::too_many_arguments, dead_code)]
    pub fn __run(
        __emu_config: ::deviceemu::__private::LaunchConfig,
        a: f32,
        x: impl ::deviceemu::__private::KernelArg<f32>,
        mut y: impl ::deviceemu::__private::KernelArgMut<f32>,
    ) -> ::core::result::Result<(), ::deviceemu::Error> {
        let __emu_info = saxpy::__info();
        const __EMU_PTX: ::core::option::Option<&'static str> = ::core::option::Option::None;
        if let ::core::option::Option::Some(r) = ::deviceemu::__private::launch_on_gpu(
            __emu_info,
            __EMU_PTX,
            __emu_config,
            &[
                ::deviceemu::__private::GpuArg::scalar(&a),
                ::deviceemu::__private::GpuArg::slice(&x),
                ::deviceemu::__private::GpuArg::slice(&y),
            ],
        ) {
            return r;
        }
        let __emu_checks = ::deviceemu::__private::launch_checks();
        let __emu_meta_px = ::deviceemu::__private::meta("x", &x, __emu_checks);
        let x = unsafe { ::deviceemu::__private::global(&x, &__emu_meta_px) }?;
        let __emu_meta_py = ::deviceemu::__private::meta("y", &y, __emu_checks);
        let y = unsafe { ::deviceemu::__private::global_mut(&mut y, &__emu_meta_py) }?;
        saxpy::__run_views(__emu_config, __emu_checks, a, x, y)
    }
}
#[cfg(not(target_arch = "nvptx64"))]
impl saxpy {
    /// `y = a * x + y`.
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
    pub fn saxpy<'__emu_launch, const __EMU_CHECKED: bool>(
        __emu_ctx: ::deviceemu::__private::ThreadCtx,
        a: f32,
        x: ::deviceemu::__private::Global<'__emu_launch, f32>,
        y: ::deviceemu::__private::GlobalMut<'__emu_launch, f32>,
    ) -> ::deviceemu::__private::Exit {
        const _: () = ::deviceemu::__private::assert_kernel_scalar::<f32>();
        {
            let i = (__emu_ctx.block_idx.x * __emu_ctx.block_dim.x
                + __emu_ctx.thread_idx.x) as usize;
            if i < y.len() {
                {
                    let __emu_value = a
                        * ::deviceemu::__private::load(__EMU_CHECKED, &x, i);
                    let __emu_view = y;
                    let __emu_index = i;
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
        };
        ::deviceemu::__private::keep_ctx(&__emu_ctx);
        ::deviceemu::__private::exit_here()
    }
}
#[cfg(all(not(target_arch = "nvptx64"), not(doc)))]
#[doc(hidden)]
#[allow(dead_code, clippy::too_many_arguments, clippy::extra_unused_lifetimes)]
pub fn saxpy<'__emu_call, __EmuArg0, __EmuArg1, __EmuArg2>(
    _: __EmuArg0,
    _: __EmuArg1,
    _: __EmuArg2,
) -> !
where
    saxpy: ::deviceemu::__private::NotAFunction<'__emu_call>,
{
    ::core::unreachable!()
}
#[cfg(all(doc, not(target_arch = "nvptx64")))]
/// `y = a * x + y`.
///
/// A `#[kernel]`: launch it with `launch!(saxpy<<<grid, block>>>(...))`.
#[allow(unused_variables, unused_mut, clippy::too_many_arguments)]
pub fn saxpy(a: f32, x: &[f32], y: &mut [f32]) {}
#[cfg(not(target_arch = "nvptx64"))]
impl saxpy {
    ///The kernel `saxpy` for one whole block: its barrier regions as loops over the block's threads.
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
        a: f32,
        x: ::deviceemu::__private::Global<'__emu_launch, f32>,
        y: ::deviceemu::__private::GlobalMut<'__emu_launch, f32>,
    ) {
        const _: () = ::deviceemu::__private::assert_kernel_scalar::<f32>();
        #[allow(unused_variables)]
        let __emu_ctx = __emu_rb.block_ctx();
        if __emu_rb.tier(::deviceemu::__private::TIER_VECTOR)
            && __emu_rb.in_index_order()
            && {
                let __emu_base = __emu_ctx.block_idx.x * __emu_ctx.block_dim.x;
                match ::deviceemu::__private::lane_last(__emu_base, __emu_rb.threads()) {
                    ::core::option::Option::Some(__emu_last) => {
                        let (__emu_fi, __emu_li) = (
                            ((__emu_base) as usize),
                            ((__emu_last) as usize),
                        );
                        __emu_li < (y.len())
                            && ::deviceemu::__private::Index::to_index(__emu_fi)
                                <= ::deviceemu::__private::Index::to_index(__emu_li)
                            && ::deviceemu::__private::view_aligned(&x)
                            && ::deviceemu::__private::Index::to_index(__emu_li)
                                < x.len() && ::deviceemu::__private::view_aligned(&y)
                            && ::deviceemu::__private::Index::to_index(__emu_li)
                                < y.len()
                    }
                    ::core::option::Option::None => false,
                }
            }
        {
            let __emu_first = ::deviceemu::__private::Index::to_index({
                let __emu_base = __emu_ctx.block_idx.x * __emu_ctx.block_dim.x;
                ((__emu_base) as usize)
            });
            let mut __emu_lane_x = ::deviceemu::__private::LaneBuf::<
                _,
                { ::deviceemu::__private::LANE_CHUNK },
            >::new();
            let mut __emu_lane_y = ::deviceemu::__private::LaneBuf::<
                _,
                { ::deviceemu::__private::LANE_CHUNK },
            >::new();
            __emu_rb
                .each_chunk(
                    |
                        __emu_cursor: &::deviceemu::__private::LaneCursor,
                        __emu_c0: usize,
                        __emu_m: usize|
                    {
                        let __emu_m = ::core::cmp::min(
                            __emu_m,
                            ::deviceemu::__private::LANE_CHUNK,
                        );
                        let __emu_at = __emu_first + __emu_c0;
                        ::deviceemu::__private::lane_load(
                            &x,
                            __emu_at,
                            &mut __emu_lane_x,
                            __emu_m,
                        );
                        ::deviceemu::__private::lane_load(
                            &y,
                            __emu_at,
                            &mut __emu_lane_y,
                            __emu_m,
                        );
                        for __emu_k in 0..__emu_m {
                            let __emu_ctx = __emu_cursor.lane(__emu_c0 + __emu_k);
                            let i = (__emu_ctx.block_idx.x * __emu_ctx.block_dim.x
                                + __emu_ctx.thread_idx.x) as usize;
                            {
                                let __emu_value = a * unsafe { __emu_lane_x.get(__emu_k) };
                                let __emu_view = y;
                                let __emu_index = i;
                                let mut __emu_old = unsafe { __emu_lane_y.get(__emu_k) };
                                __emu_old += __emu_value;
                                __emu_lane_y.set(__emu_k, __emu_old)
                            };
                        }
                        if __EMU_CHECKED {
                            ::deviceemu::__private::lane_check(
                                &x,
                                __emu_at,
                                __emu_c0,
                                __emu_m,
                                false,
                            );
                            ::deviceemu::__private::lane_check(
                                &y,
                                __emu_at,
                                __emu_c0,
                                __emu_m,
                                false,
                            );
                            ::deviceemu::__private::lane_check(
                                &y,
                                __emu_at,
                                __emu_c0,
                                __emu_m,
                                true,
                            );
                        }
                        unsafe {
                            ::deviceemu::__private::lane_store(
                                &y,
                                __emu_at,
                                &__emu_lane_y,
                                __emu_m,
                            )
                        };
                    },
                    |__emu_t: usize, __emu_ctx: ::deviceemu::__private::ThreadCtx| {
                        if __EMU_CHECKED {
                            let _ = ({
                                #[inline(always)]
                                |
                                    __emu_t: usize,
                                    __emu_ctx: ::deviceemu::__private::ThreadCtx,
                                | -> ::core::option::Option<::deviceemu::__private::Exit> {
                                    let i = (__emu_ctx.block_idx.x * __emu_ctx.block_dim.x
                                        + __emu_ctx.thread_idx.x) as usize;
                                    if i < y.len() {
                                        {
                                            let __emu_value = a
                                                * ::deviceemu::__private::load(__EMU_CHECKED, &x, i);
                                            let __emu_view = y;
                                            let __emu_index = i;
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
                            })(__emu_t, __emu_ctx);
                        } else {
                            let i = (__emu_ctx.block_idx.x * __emu_ctx.block_dim.x
                                + __emu_ctx.thread_idx.x) as usize;
                            if i < y.len() {
                                {
                                    let __emu_value = a
                                        * ::deviceemu::__private::load_in_bounds(
                                            &x,
                                            ::deviceemu::__private::Index::to_index(i),
                                        );
                                    let __emu_view = y;
                                    let __emu_index = i;
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
                        }
                    },
                );
        } else {
            if !__EMU_CHECKED && __emu_rb.tier(::deviceemu::__private::TIER_HOISTED)
                && __emu_rb.in_index_order()
                && {
                    let __emu_base = __emu_ctx.block_idx.x * __emu_ctx.block_dim.x;
                    match ::deviceemu::__private::lane_last(
                        __emu_base,
                        __emu_rb.threads(),
                    ) {
                        ::core::option::Option::Some(__emu_last) => {
                            let (__emu_fi, __emu_li) = (
                                ((__emu_base) as usize),
                                ((__emu_last) as usize),
                            );
                            __emu_li < (y.len())
                                && ::deviceemu::__private::Index::to_index(__emu_fi)
                                    <= ::deviceemu::__private::Index::to_index(__emu_li)
                                && ::deviceemu::__private::view_aligned(&x)
                                && ::deviceemu::__private::Index::to_index(__emu_li)
                                    < x.len() && ::deviceemu::__private::view_aligned(&y)
                                && ::deviceemu::__private::Index::to_index(__emu_li)
                                    < y.len()
                        }
                        ::core::option::Option::None => false,
                    }
                }
            {
                __emu_rb
                    .each({
                        #[inline(always)]
                        |
                            __emu_t: usize,
                            __emu_ctx: ::deviceemu::__private::ThreadCtx,
                        | -> ::core::option::Option<::deviceemu::__private::Exit> {
                            let i = (__emu_ctx.block_idx.x * __emu_ctx.block_dim.x
                                + __emu_ctx.thread_idx.x) as usize;
                            if i < y.len() {
                                {
                                    let __emu_value = a
                                        * ::deviceemu::__private::load_in_bounds(
                                            &x,
                                            ::deviceemu::__private::Index::to_index(i),
                                        );
                                    let __emu_view = y;
                                    let __emu_index = i;
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
                    });
            } else {
                __emu_rb
                    .each({
                        #[inline(always)]
                        |
                            __emu_t: usize,
                            __emu_ctx: ::deviceemu::__private::ThreadCtx,
                        | -> ::core::option::Option<::deviceemu::__private::Exit> {
                            let i = (__emu_ctx.block_idx.x * __emu_ctx.block_dim.x
                                + __emu_ctx.thread_idx.x) as usize;
                            if i < y.len() {
                                {
                                    let __emu_value = a
                                        * ::deviceemu::__private::load(__EMU_CHECKED, &x, i);
                                    let __emu_view = y;
                                    let __emu_index = i;
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
                    });
            }
        }
    }
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
    pub fn __span<'__emu_launch, const __EMU_CHECKED: bool>(
        __emu_rb: &mut ::deviceemu::__private::Regions<'_>,
        a: f32,
        x: ::deviceemu::__private::Global<'__emu_launch, f32>,
        y: ::deviceemu::__private::GlobalMut<'__emu_launch, f32>,
    ) -> bool {
        const _: () = ::deviceemu::__private::assert_kernel_scalar::<f32>();
        #[allow(unused_variables)]
        let __emu_ctx = __emu_rb.block_ctx();
        if __emu_rb.tier(::deviceemu::__private::TIER_VECTOR)
            && {
                let __emu_base = __emu_ctx.block_idx.x * __emu_ctx.block_dim.x;
                match ::deviceemu::__private::lane_last(__emu_base, __emu_rb.threads()) {
                    ::core::option::Option::Some(__emu_last) => {
                        let (__emu_fi, __emu_li) = (
                            ((__emu_base) as usize),
                            ((__emu_last) as usize),
                        );
                        __emu_li < (y.len())
                            && ::deviceemu::__private::Index::to_index(__emu_fi)
                                <= ::deviceemu::__private::Index::to_index(__emu_li)
                            && ::deviceemu::__private::view_aligned(&x)
                            && ::deviceemu::__private::Index::to_index(__emu_li)
                                < x.len() && ::deviceemu::__private::view_aligned(&y)
                            && ::deviceemu::__private::Index::to_index(__emu_li)
                                < y.len()
                    }
                    ::core::option::Option::None => false,
                }
            }
        {
            let __emu_first = ::deviceemu::__private::Index::to_index({
                let __emu_base = __emu_ctx.block_idx.x * __emu_ctx.block_dim.x;
                ((__emu_base) as usize)
            });
            let mut __emu_lane_x = ::deviceemu::__private::LaneBuf::<
                _,
                { ::deviceemu::__private::SPAN_CHUNK },
            >::new();
            let mut __emu_lane_y = ::deviceemu::__private::LaneBuf::<
                _,
                { ::deviceemu::__private::SPAN_CHUNK },
            >::new();
            __emu_rb
                .each_span_chunk(|
                    __emu_cursor: &::deviceemu::__private::LaneCursor,
                    __emu_c0: usize,
                    __emu_m: usize|
                {
                    let __emu_m = ::core::cmp::min(
                        __emu_m,
                        ::deviceemu::__private::SPAN_CHUNK,
                    );
                    let __emu_at = __emu_first + __emu_c0;
                    ::deviceemu::__private::lane_load(
                        &x,
                        __emu_at,
                        &mut __emu_lane_x,
                        __emu_m,
                    );
                    ::deviceemu::__private::lane_load(
                        &y,
                        __emu_at,
                        &mut __emu_lane_y,
                        __emu_m,
                    );
                    for __emu_k in 0..__emu_m {
                        let __emu_ctx = __emu_cursor.lane(__emu_c0 + __emu_k);
                        let i = (__emu_ctx.block_idx.x * __emu_ctx.block_dim.x
                            + __emu_ctx.thread_idx.x) as usize;
                        {
                            let __emu_value = a * unsafe { __emu_lane_x.get(__emu_k) };
                            let __emu_view = y;
                            let __emu_index = i;
                            let mut __emu_old = unsafe { __emu_lane_y.get(__emu_k) };
                            __emu_old += __emu_value;
                            __emu_lane_y.set(__emu_k, __emu_old)
                        };
                    }
                    if __EMU_CHECKED {
                        ::deviceemu::__private::lane_check(
                            &x,
                            __emu_at,
                            __emu_c0,
                            __emu_m,
                            false,
                        );
                        ::deviceemu::__private::lane_check(
                            &y,
                            __emu_at,
                            __emu_c0,
                            __emu_m,
                            false,
                        );
                        ::deviceemu::__private::lane_check(
                            &y,
                            __emu_at,
                            __emu_c0,
                            __emu_m,
                            true,
                        );
                    }
                    unsafe {
                        ::deviceemu::__private::lane_store(
                            &y,
                            __emu_at,
                            &__emu_lane_y,
                            __emu_m,
                        )
                    };
                });
            true
        } else {
            false
        }
    }
}
/// The GPU entry point of the kernel (`.entry` in the PTX module).
#[cfg(target_arch = "nvptx64")]
#[export_name = "saxpy"]
#[allow(non_snake_case)]
pub unsafe extern "ptx-kernel" fn __emu_entry_saxpy(
    a: f32,
    x: *const f32,
    x_len: usize,
    y: *mut f32,
    y_len: usize,
) {
    ::deviceemu::__private::assume_index_facts();
    let x = unsafe {
        ::deviceemu::__private::Global::<f32>::from_raw_parts(x as *mut f32, x_len, ())
    };
    let y = unsafe {
        ::deviceemu::__private::GlobalMut::<f32>::from_raw_parts(y, y_len, ())
    };
    saxpy(a, x, y);
}
/// `y = a * x + y`.
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
pub fn saxpy<'__emu_launch>(
    a: f32,
    x: ::deviceemu::__private::Global<'__emu_launch, f32>,
    y: ::deviceemu::__private::GlobalMut<'__emu_launch, f32>,
) -> ::deviceemu::__private::Exit {
    #[allow(dead_code)]
    const __EMU_CHECKED: bool = false;
    const _: () = ::deviceemu::__private::assert_kernel_scalar::<f32>();
    {
        let i = (block_idx().x * block_dim().x + thread_idx().x) as usize;
        if i < y.len() {
            {
                let __emu_value = a * ::deviceemu::__private::load(__EMU_CHECKED, &x, i);
                let __emu_view = y;
                let __emu_index = i;
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
    };
    ::deviceemu::__private::exit_here()
}
#[cfg(target_arch = "nvptx64")]
#[doc(hidden)]
#[allow(non_camel_case_types, dead_code)]
pub struct saxpy {}
#[cfg(target_arch = "nvptx64")]
impl saxpy {
    /// A device-side launch on the GPU, through the CUDA device runtime.
    #[doc(hidden)]
    #[inline(always)]
    #[allow(clippy::too_many_arguments, dead_code)]
    pub fn __launch_device<'__emu_l>(
        __emu_grid: ::deviceemu::__private::Dim3,
        __emu_block: ::deviceemu::__private::Dim3,
        __emu_shared: usize,
        __emu_stream: ::core::option::Option<&::deviceemu::__private::DeviceStream>,
        a: f32,
        x: impl ::deviceemu::__private::DeviceArg<'__emu_l, f32>,
        y: impl ::deviceemu::__private::DeviceArgMut<'__emu_l, f32>,
    ) -> ::core::result::Result<(), ::deviceemu::Error> {
        unsafe {
            let mut __emu_b = ::deviceemu::__private::ParamBuffer::get(
                __emu_entry_saxpy as *const (),
                __emu_grid,
                __emu_block,
                __emu_shared,
            )?;
            __emu_b.push::<f32>(a);
            let x = <_ as ::deviceemu::__private::DeviceArg<
                '__emu_l,
                f32,
            >>::into_view(x);
            __emu_b.push::<*const f32>(x.as_ptr() as *const f32);
            __emu_b.push::<usize>(x.len());
            let y = <_ as ::deviceemu::__private::DeviceArgMut<
                '__emu_l,
                f32,
            >>::into_view(y);
            __emu_b.push::<*mut f32>(y.as_ptr() as *mut f32);
            __emu_b.push::<usize>(y.len());
            __emu_b.launch(__emu_stream)
        }
    }
}
