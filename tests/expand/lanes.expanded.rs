use deviceemu::prelude::*;
/// Write-only output: vectorised; `y` is staged in a lane buffer that is stored, never loaded.
///Launcher of the kernel `scale`: launch it with `launch!(scale<<<grid, block>>>(args))`.
#[doc(hidden)]
#[allow(non_camel_case_types, dead_code)]
#[cfg(not(target_arch = "nvptx64"))]
pub struct scale {}
#[cfg(not(target_arch = "nvptx64"))]
impl scale {
    /// The kernel's name, as reports and the GPU module spell it.
    #[allow(dead_code)]
    pub const NAME: &'static str = "scale";
    /// The kernel's static facts.
    #[doc(hidden)]
    #[allow(dead_code)]
    pub fn __info() -> &'static ::deviceemu::__private::KernelInfo {
        static __EMU_INFO: ::deviceemu::__private::KernelInfo = ::deviceemu::__private::KernelInfo {
            name: "scale",
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
        ::deviceemu::__private::on_default_stream(move || scale::__run(
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
        let __emu_info = scale::__info();
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
        __emu_queued.submit(move || scale::__run(__emu_config, a, &x, &mut y))
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
        let __emu_info = scale::__info();
        let x = <_ as ::deviceemu::__private::DeviceArg<'__emu_l, f32>>::into_view(x);
        let y = <_ as ::deviceemu::__private::DeviceArgMut<'__emu_l, f32>>::into_view(y);
        ::deviceemu::__private::device_launch(
            __emu_info,
            __emu_config,
            __emu_stream,
            ::core::panic::Location::caller(),
            move || scale::__run_views(
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
        let __emu_info = scale::__info();
        if ::deviceemu::__private::per_access(__emu_checks) {
            ::deviceemu::__private::launch_lanes(
                __emu_info,
                __emu_config,
                &[::deviceemu::__private::Written::of("y", &y)],
                move |__emu_rb| scale::__regions::<true>(__emu_rb, a, x, y),
                move |__emu_ctx| scale::scale::<true>(__emu_ctx, a, x, y),
            )
        } else {
            ::deviceemu::__private::launch_lanes_spanned(
                __emu_info,
                __emu_config,
                &[::deviceemu::__private::Written::of("y", &y)],
                move |__emu_rb| scale::__span::<false>(__emu_rb, a, x, y),
                move |__emu_rb| scale::__regions::<false>(__emu_rb, a, x, y),
                move |__emu_ctx| scale::scale::<false>(__emu_ctx, a, x, y),
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
        let __emu_info = scale::__info();
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
        scale::__run_views(__emu_config, __emu_checks, a, x, y)
    }
}
#[cfg(not(target_arch = "nvptx64"))]
impl scale {
    /// Write-only output: vectorised; `y` is staged in a lane buffer that is stored, never loaded.
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
    pub fn scale<'__emu_launch, const __EMU_CHECKED: bool>(
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
                    ::deviceemu::__private::store(__EMU_CHECKED, &y, i, __emu_value)
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
pub fn scale<'__emu_call, __EmuArg0, __EmuArg1, __EmuArg2>(
    _: __EmuArg0,
    _: __EmuArg1,
    _: __EmuArg2,
) -> !
where
    scale: ::deviceemu::__private::NotAFunction<'__emu_call>,
{
    ::core::unreachable!()
}
#[cfg(all(doc, not(target_arch = "nvptx64")))]
/// Write-only output: vectorised; `y` is staged in a lane buffer that is stored, never loaded.
///
/// A `#[kernel]`: launch it with `launch!(scale<<<grid, block>>>(...))`.
#[allow(unused_variables, unused_mut, clippy::too_many_arguments)]
pub fn scale(a: f32, x: &[f32], y: &mut [f32]) {}
#[cfg(not(target_arch = "nvptx64"))]
impl scale {
    ///The kernel `scale` for one whole block: its barrier regions as loops over the block's threads.
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
                        for __emu_k in 0..__emu_m {
                            let __emu_ctx = __emu_cursor.lane(__emu_c0 + __emu_k);
                            let i = (__emu_ctx.block_idx.x * __emu_ctx.block_dim.x
                                + __emu_ctx.thread_idx.x) as usize;
                            {
                                let __emu_value = a * unsafe { __emu_lane_x.get(__emu_k) };
                                __emu_lane_y.set(__emu_k, __emu_value)
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
                                            ::deviceemu::__private::store(
                                                __EMU_CHECKED,
                                                &y,
                                                i,
                                                __emu_value,
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
                                    ::deviceemu::__private::store_in_bounds(
                                        &y,
                                        ::deviceemu::__private::Index::to_index(i),
                                        __emu_value,
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
                                    ::deviceemu::__private::store_in_bounds(
                                        &y,
                                        ::deviceemu::__private::Index::to_index(i),
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
                            let i = (__emu_ctx.block_idx.x * __emu_ctx.block_dim.x
                                + __emu_ctx.thread_idx.x) as usize;
                            if i < y.len() {
                                {
                                    let __emu_value = a
                                        * ::deviceemu::__private::load(__EMU_CHECKED, &x, i);
                                    ::deviceemu::__private::store(
                                        __EMU_CHECKED,
                                        &y,
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
                    for __emu_k in 0..__emu_m {
                        let __emu_ctx = __emu_cursor.lane(__emu_c0 + __emu_k);
                        let i = (__emu_ctx.block_idx.x * __emu_ctx.block_dim.x
                            + __emu_ctx.thread_idx.x) as usize;
                        {
                            let __emu_value = a * unsafe { __emu_lane_x.get(__emu_k) };
                            __emu_lane_y.set(__emu_k, __emu_value)
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
#[export_name = "scale"]
#[allow(non_snake_case)]
pub unsafe extern "ptx-kernel" fn __emu_entry_scale(
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
    scale(a, x, y);
}
/// Write-only output: vectorised; `y` is staged in a lane buffer that is stored, never loaded.
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
pub fn scale<'__emu_launch>(
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
                ::deviceemu::__private::store(__EMU_CHECKED, &y, i, __emu_value)
            };
        }
    };
    ::deviceemu::__private::exit_here()
}
#[cfg(target_arch = "nvptx64")]
#[doc(hidden)]
#[allow(non_camel_case_types, dead_code)]
pub struct scale {}
#[cfg(target_arch = "nvptx64")]
impl scale {
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
                __emu_entry_scale as *const (),
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
/// A store under a condition: hoisted checks, but not vectorised (a chunk would write back
/// elements its lanes never wrote).
///Launcher of the kernel `clamp_some`: launch it with `launch!(clamp_some<<<grid, block>>>(args))`.
#[doc(hidden)]
#[allow(non_camel_case_types, dead_code)]
#[cfg(not(target_arch = "nvptx64"))]
pub struct clamp_some {}
#[cfg(not(target_arch = "nvptx64"))]
impl clamp_some {
    /// The kernel's name, as reports and the GPU module spell it.
    #[allow(dead_code)]
    pub const NAME: &'static str = "clamp_some";
    /// The kernel's static facts.
    #[doc(hidden)]
    #[allow(dead_code)]
    pub fn __info() -> &'static ::deviceemu::__private::KernelInfo {
        static __EMU_INFO: ::deviceemu::__private::KernelInfo = ::deviceemu::__private::KernelInfo {
            name: "clamp_some",
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
        x: impl ::deviceemu::__private::KernelArg<u32>,
        mut y: impl ::deviceemu::__private::KernelArgMut<u32>,
    ) -> ::core::result::Result<(), ::deviceemu::Error> {
        ::deviceemu::__private::on_default_stream(move || clamp_some::__run(
            __emu_config,
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
        x: impl ::deviceemu::__private::KernelArg<u32>,
        mut y: impl ::deviceemu::__private::KernelArgMut<u32>,
    ) -> ::core::result::Result<(), ::deviceemu::Error> {
        let __emu_info = clamp_some::__info();
        const __EMU_PTX: ::core::option::Option<&'static str> = ::core::option::Option::None;
        if let ::core::option::Option::Some(r) = ::deviceemu::__private::launch_on_gpu_stream(
            __emu_info,
            __EMU_PTX,
            __emu_stream,
            __emu_config,
            &[
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
        __emu_queued.submit(move || clamp_some::__run(__emu_config, &x, &mut y))
    }
    /// A device-side launch (`launch!` in a `#[kernel]` or `#[device]` body): queues the
    /// kernel as a child of the running block, on the parent's views.
    #[doc(hidden)]
    #[track_caller]
    #[allow(clippy::too_many_arguments, dead_code)]
    pub fn __launch_device<'__emu_l>(
        __emu_config: ::deviceemu::__private::LaunchConfig,
        __emu_stream: ::core::option::Option<&::deviceemu::__private::DeviceStream>,
        x: impl ::deviceemu::__private::DeviceArg<'__emu_l, u32>,
        y: impl ::deviceemu::__private::DeviceArgMut<'__emu_l, u32>,
    ) -> ::core::result::Result<(), ::deviceemu::Error> {
        let __emu_info = clamp_some::__info();
        let x = <_ as ::deviceemu::__private::DeviceArg<'__emu_l, u32>>::into_view(x);
        let y = <_ as ::deviceemu::__private::DeviceArgMut<'__emu_l, u32>>::into_view(y);
        ::deviceemu::__private::device_launch(
            __emu_info,
            __emu_config,
            __emu_stream,
            ::core::panic::Location::caller(),
            move || clamp_some::__run_views(
                __emu_config,
                ::deviceemu::__private::launch_checks(),
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
        x: ::deviceemu::__private::Global<'_, u32>,
        y: ::deviceemu::__private::GlobalMut<'_, u32>,
    ) -> ::core::result::Result<(), ::deviceemu::Error> {
        let __emu_info = clamp_some::__info();
        if ::deviceemu::__private::per_access(__emu_checks) {
            ::deviceemu::__private::launch_lanes(
                __emu_info,
                __emu_config,
                &[::deviceemu::__private::Written::of("y", &y)],
                move |__emu_rb| clamp_some::__regions::<true>(__emu_rb, x, y),
                move |__emu_ctx| clamp_some::clamp_some::<true>(__emu_ctx, x, y),
            )
        } else {
            ::deviceemu::__private::launch_lanes(
                __emu_info,
                __emu_config,
                &[::deviceemu::__private::Written::of("y", &y)],
                move |__emu_rb| clamp_some::__regions::<false>(__emu_rb, x, y),
                move |__emu_ctx| clamp_some::clamp_some::<false>(__emu_ctx, x, y),
            )
        }
    }
    /// Runs the launch now, on this thread.
    #[doc(hidden)]
    #[allow(clippy::too_many_arguments, dead_code)]
    pub fn __run(
        __emu_config: ::deviceemu::__private::LaunchConfig,
        x: impl ::deviceemu::__private::KernelArg<u32>,
        mut y: impl ::deviceemu::__private::KernelArgMut<u32>,
    ) -> ::core::result::Result<(), ::deviceemu::Error> {
        let __emu_info = clamp_some::__info();
        const __EMU_PTX: ::core::option::Option<&'static str> = ::core::option::Option::None;
        if let ::core::option::Option::Some(r) = ::deviceemu::__private::launch_on_gpu(
            __emu_info,
            __EMU_PTX,
            __emu_config,
            &[
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
        clamp_some::__run_views(__emu_config, __emu_checks, x, y)
    }
}
#[cfg(not(target_arch = "nvptx64"))]
impl clamp_some {
    /// A store under a condition: hoisted checks, but not vectorised (a chunk would write back
    /// elements its lanes never wrote).
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
    pub fn clamp_some<'__emu_launch, const __EMU_CHECKED: bool>(
        __emu_ctx: ::deviceemu::__private::ThreadCtx,
        x: ::deviceemu::__private::Global<'__emu_launch, u32>,
        y: ::deviceemu::__private::GlobalMut<'__emu_launch, u32>,
    ) -> ::deviceemu::__private::Exit {
        {
            let i = (__emu_ctx.block_idx.x * __emu_ctx.block_dim.x
                + __emu_ctx.thread_idx.x) as usize;
            if i < y.len() {
                if ::deviceemu::__private::load(__EMU_CHECKED, &x, i) > 100 {
                    {
                        let __emu_value = 100;
                        ::deviceemu::__private::store(__EMU_CHECKED, &y, i, __emu_value)
                    };
                }
            }
        };
        ::deviceemu::__private::keep_ctx(&__emu_ctx);
        ::deviceemu::__private::exit_here()
    }
}
#[cfg(all(not(target_arch = "nvptx64"), not(doc)))]
#[doc(hidden)]
#[allow(dead_code, clippy::too_many_arguments, clippy::extra_unused_lifetimes)]
pub fn clamp_some<'__emu_call, __EmuArg0, __EmuArg1>(_: __EmuArg0, _: __EmuArg1) -> !
where
    clamp_some: ::deviceemu::__private::NotAFunction<'__emu_call>,
{
    ::core::unreachable!()
}
#[cfg(all(doc, not(target_arch = "nvptx64")))]
/// A store under a condition: hoisted checks, but not vectorised (a chunk would write back
/// elements its lanes never wrote).
///
/// A `#[kernel]`: launch it with `launch!(clamp_some<<<grid, block>>>(...))`.
#[allow(unused_variables, unused_mut, clippy::too_many_arguments)]
pub fn clamp_some(x: &[u32], y: &mut [u32]) {}
#[cfg(not(target_arch = "nvptx64"))]
impl clamp_some {
    ///The kernel `clamp_some` for one whole block: its barrier regions as loops over the block's threads.
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
        x: ::deviceemu::__private::Global<'__emu_launch, u32>,
        y: ::deviceemu::__private::GlobalMut<'__emu_launch, u32>,
    ) {
        #[allow(unused_variables)]
        let __emu_ctx = __emu_rb.block_ctx();
        if !__EMU_CHECKED && __emu_rb.tier(::deviceemu::__private::TIER_HOISTED)
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
                            if ::deviceemu::__private::load_in_bounds(
                                &x,
                                ::deviceemu::__private::Index::to_index(i),
                            ) > 100
                            {
                                {
                                    let __emu_value = 100;
                                    ::deviceemu::__private::store_in_bounds(
                                        &y,
                                        ::deviceemu::__private::Index::to_index(i),
                                        __emu_value,
                                    )
                                };
                            }
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
                            if ::deviceemu::__private::load(__EMU_CHECKED, &x, i) > 100 {
                                {
                                    let __emu_value = 100;
                                    ::deviceemu::__private::store(
                                        __EMU_CHECKED,
                                        &y,
                                        i,
                                        __emu_value,
                                    )
                                };
                            }
                        }
                        ::core::option::Option::None
                    }
                });
        }
    }
}
/// The GPU entry point of the kernel (`.entry` in the PTX module).
#[cfg(target_arch = "nvptx64")]
#[export_name = "clamp_some"]
#[allow(non_snake_case)]
pub unsafe extern "ptx-kernel" fn __emu_entry_clamp_some(
    x: *const u32,
    x_len: usize,
    y: *mut u32,
    y_len: usize,
) {
    ::deviceemu::__private::assume_index_facts();
    let x = unsafe {
        ::deviceemu::__private::Global::<u32>::from_raw_parts(x as *mut u32, x_len, ())
    };
    let y = unsafe {
        ::deviceemu::__private::GlobalMut::<u32>::from_raw_parts(y, y_len, ())
    };
    clamp_some(x, y);
}
/// A store under a condition: hoisted checks, but not vectorised (a chunk would write back
/// elements its lanes never wrote).
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
pub fn clamp_some<'__emu_launch>(
    x: ::deviceemu::__private::Global<'__emu_launch, u32>,
    y: ::deviceemu::__private::GlobalMut<'__emu_launch, u32>,
) -> ::deviceemu::__private::Exit {
    #[allow(dead_code)]
    const __EMU_CHECKED: bool = false;
    {
        let i = (block_idx().x * block_dim().x + thread_idx().x) as usize;
        if i < y.len() {
            if ::deviceemu::__private::load(__EMU_CHECKED, &x, i) > 100 {
                {
                    let __emu_value = 100;
                    ::deviceemu::__private::store(__EMU_CHECKED, &y, i, __emu_value)
                };
            }
        }
    };
    ::deviceemu::__private::exit_here()
}
#[cfg(target_arch = "nvptx64")]
#[doc(hidden)]
#[allow(non_camel_case_types, dead_code)]
pub struct clamp_some {}
#[cfg(target_arch = "nvptx64")]
impl clamp_some {
    /// A device-side launch on the GPU, through the CUDA device runtime.
    #[doc(hidden)]
    #[inline(always)]
    #[allow(clippy::too_many_arguments, dead_code)]
    pub fn __launch_device<'__emu_l>(
        __emu_grid: ::deviceemu::__private::Dim3,
        __emu_block: ::deviceemu::__private::Dim3,
        __emu_shared: usize,
        __emu_stream: ::core::option::Option<&::deviceemu::__private::DeviceStream>,
        x: impl ::deviceemu::__private::DeviceArg<'__emu_l, u32>,
        y: impl ::deviceemu::__private::DeviceArgMut<'__emu_l, u32>,
    ) -> ::core::result::Result<(), ::deviceemu::Error> {
        unsafe {
            let mut __emu_b = ::deviceemu::__private::ParamBuffer::get(
                __emu_entry_clamp_some as *const (),
                __emu_grid,
                __emu_block,
                __emu_shared,
            )?;
            let x = <_ as ::deviceemu::__private::DeviceArg<
                '__emu_l,
                u32,
            >>::into_view(x);
            __emu_b.push::<*const u32>(x.as_ptr() as *const u32);
            __emu_b.push::<usize>(x.len());
            let y = <_ as ::deviceemu::__private::DeviceArgMut<
                '__emu_l,
                u32,
            >>::into_view(y);
            __emu_b.push::<*mut u32>(y.as_ptr() as *mut u32);
            __emu_b.push::<usize>(y.len());
            __emu_b.launch(__emu_stream)
        }
    }
}
/// A 2-D stencil by `(i, j)` from the 2-D indices: no index is `base + tid` over the whole
/// block, so it runs row by row (`fission/rows.rs`) under its range proof.
///Launcher of the kernel `stencil_rows`: launch it with `launch!(stencil_rows<<<grid, block>>>(args))`.
#[doc(hidden)]
#[allow(non_camel_case_types, dead_code)]
#[cfg(not(target_arch = "nvptx64"))]
pub struct stencil_rows {}
#[cfg(not(target_arch = "nvptx64"))]
impl stencil_rows {
    /// The kernel's name, as reports and the GPU module spell it.
    #[allow(dead_code)]
    pub const NAME: &'static str = "stencil_rows";
    /// The kernel's static facts.
    #[doc(hidden)]
    #[allow(dead_code)]
    pub fn __info() -> &'static ::deviceemu::__private::KernelInfo {
        static __EMU_INFO: ::deviceemu::__private::KernelInfo = ::deviceemu::__private::KernelInfo {
            name: "stencil_rows",
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
        w: i32,
        h: i32,
        a: impl ::deviceemu::__private::KernelArg<f32>,
        mut b: impl ::deviceemu::__private::KernelArgMut<f32>,
    ) -> ::core::result::Result<(), ::deviceemu::Error> {
        ::deviceemu::__private::on_default_stream(move || stencil_rows::__run(
            __emu_config,
            w,
            h,
            a,
            b,
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
        w: i32,
        h: i32,
        a: impl ::deviceemu::__private::KernelArg<f32>,
        mut b: impl ::deviceemu::__private::KernelArgMut<f32>,
    ) -> ::core::result::Result<(), ::deviceemu::Error> {
        let __emu_info = stencil_rows::__info();
        const __EMU_PTX: ::core::option::Option<&'static str> = ::core::option::Option::None;
        if let ::core::option::Option::Some(r) = ::deviceemu::__private::launch_on_gpu_stream(
            __emu_info,
            __EMU_PTX,
            __emu_stream,
            __emu_config,
            &[
                ::deviceemu::__private::GpuArg::scalar(&w),
                ::deviceemu::__private::GpuArg::scalar(&h),
                ::deviceemu::__private::GpuArg::slice(&a),
                ::deviceemu::__private::GpuArg::slice(&b),
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
        let mut b = __emu_queued.write(b);
        __emu_queued.submit(move || stencil_rows::__run(__emu_config, w, h, &a, &mut b))
    }
    /// A device-side launch (`launch!` in a `#[kernel]` or `#[device]` body): queues the
    /// kernel as a child of the running block, on the parent's views.
    #[doc(hidden)]
    #[track_caller]
    #[allow(clippy::too_many_arguments, dead_code)]
    pub fn __launch_device<'__emu_l>(
        __emu_config: ::deviceemu::__private::LaunchConfig,
        __emu_stream: ::core::option::Option<&::deviceemu::__private::DeviceStream>,
        w: i32,
        h: i32,
        a: impl ::deviceemu::__private::DeviceArg<'__emu_l, f32>,
        b: impl ::deviceemu::__private::DeviceArgMut<'__emu_l, f32>,
    ) -> ::core::result::Result<(), ::deviceemu::Error> {
        let __emu_info = stencil_rows::__info();
        let a = <_ as ::deviceemu::__private::DeviceArg<'__emu_l, f32>>::into_view(a);
        let b = <_ as ::deviceemu::__private::DeviceArgMut<'__emu_l, f32>>::into_view(b);
        ::deviceemu::__private::device_launch(
            __emu_info,
            __emu_config,
            __emu_stream,
            ::core::panic::Location::caller(),
            move || stencil_rows::__run_views(
                __emu_config,
                ::deviceemu::__private::launch_checks(),
                w,
                h,
                a,
                b,
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
        w: i32,
        h: i32,
        a: ::deviceemu::__private::Global<'_, f32>,
        b: ::deviceemu::__private::GlobalMut<'_, f32>,
    ) -> ::core::result::Result<(), ::deviceemu::Error> {
        let __emu_info = stencil_rows::__info();
        if ::deviceemu::__private::per_access(__emu_checks) {
            ::deviceemu::__private::launch_lanes(
                __emu_info,
                __emu_config,
                &[::deviceemu::__private::Written::of("b", &b)],
                move |__emu_rb| stencil_rows::__regions::<true>(__emu_rb, w, h, a, b),
                move |__emu_ctx| stencil_rows::stencil_rows::<
                    true,
                >(__emu_ctx, w, h, a, b),
            )
        } else {
            ::deviceemu::__private::launch_lanes(
                __emu_info,
                __emu_config,
                &[::deviceemu::__private::Written::of("b", &b)],
                move |__emu_rb| stencil_rows::__regions::<false>(__emu_rb, w, h, a, b),
                move |__emu_ctx| stencil_rows::stencil_rows::<
                    false,
                >(__emu_ctx, w, h, a, b),
            )
        }
    }
    /// Runs the launch now, on this thread.
    #[doc(hidden)]
    #[allow(clippy::too_many_arguments, dead_code)]
    pub fn __run(
        __emu_config: ::deviceemu::__private::LaunchConfig,
        w: i32,
        h: i32,
        a: impl ::deviceemu::__private::KernelArg<f32>,
        mut b: impl ::deviceemu::__private::KernelArgMut<f32>,
    ) -> ::core::result::Result<(), ::deviceemu::Error> {
        let __emu_info = stencil_rows::__info();
        const __EMU_PTX: ::core::option::Option<&'static str> = ::core::option::Option::None;
        if let ::core::option::Option::Some(r) = ::deviceemu::__private::launch_on_gpu(
            __emu_info,
            __EMU_PTX,
            __emu_config,
            &[
                ::deviceemu::__private::GpuArg::scalar(&w),
                ::deviceemu::__private::GpuArg::scalar(&h),
                ::deviceemu::__private::GpuArg::slice(&a),
                ::deviceemu::__private::GpuArg::slice(&b),
            ],
        ) {
            return r;
        }
        let __emu_checks = ::deviceemu::__private::launch_checks();
        let __emu_meta_pa = ::deviceemu::__private::meta("a", &a, __emu_checks);
        let a = unsafe { ::deviceemu::__private::global(&a, &__emu_meta_pa) }?;
        let __emu_meta_pb = ::deviceemu::__private::meta("b", &b, __emu_checks);
        let b = unsafe { ::deviceemu::__private::global_mut(&mut b, &__emu_meta_pb) }?;
        stencil_rows::__run_views(__emu_config, __emu_checks, w, h, a, b)
    }
}
#[cfg(not(target_arch = "nvptx64"))]
impl stencil_rows {
    /// A 2-D stencil by `(i, j)` from the 2-D indices: no index is `base + tid` over the whole
    /// block, so it runs row by row (`fission/rows.rs`) under its range proof.
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
    pub fn stencil_rows<'__emu_launch, const __EMU_CHECKED: bool>(
        __emu_ctx: ::deviceemu::__private::ThreadCtx,
        w: i32,
        h: i32,
        a: ::deviceemu::__private::Global<'__emu_launch, f32>,
        b: ::deviceemu::__private::GlobalMut<'__emu_launch, f32>,
    ) -> ::deviceemu::__private::Exit {
        const _: () = ::deviceemu::__private::assert_kernel_scalar::<i32>();
        const _: () = ::deviceemu::__private::assert_kernel_scalar::<i32>();
        {
            let j: i32 = (__emu_ctx.block_idx.x * __emu_ctx.block_dim.x
                + __emu_ctx.thread_idx.x) as i32;
            let i: i32 = (__emu_ctx.block_idx.y * __emu_ctx.block_dim.y
                + __emu_ctx.thread_idx.y) as i32;
            if (i < h - 1) && (j < w - 1) && (i > 0) && (j > 0) {
                {
                    let __emu_value = 0.5
                        * (::deviceemu::__private::load(
                            __EMU_CHECKED,
                            &a,
                            (i - 1) * w + j,
                        )
                            + ::deviceemu::__private::load(
                                __EMU_CHECKED,
                                &a,
                                i * w + (j + 1),
                            ))
                        - 0.25
                            * ::deviceemu::__private::load(
                                __EMU_CHECKED,
                                &a,
                                i * w + (j - 1),
                            );
                    ::deviceemu::__private::store(
                        __EMU_CHECKED,
                        &b,
                        i * w + j,
                        __emu_value,
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
pub fn stencil_rows<'__emu_call, __EmuArg0, __EmuArg1, __EmuArg2, __EmuArg3>(
    _: __EmuArg0,
    _: __EmuArg1,
    _: __EmuArg2,
    _: __EmuArg3,
) -> !
where
    stencil_rows: ::deviceemu::__private::NotAFunction<'__emu_call>,
{
    ::core::unreachable!()
}
#[cfg(all(doc, not(target_arch = "nvptx64")))]
/// A 2-D stencil by `(i, j)` from the 2-D indices: no index is `base + tid` over the whole
/// block, so it runs row by row (`fission/rows.rs`) under its range proof.
///
/// A `#[kernel]`: launch it with `launch!(stencil_rows<<<grid, block>>>(...))`.
#[allow(unused_variables, unused_mut, clippy::too_many_arguments)]
pub fn stencil_rows(w: i32, h: i32, a: &[f32], b: &mut [f32]) {}
#[cfg(not(target_arch = "nvptx64"))]
impl stencil_rows {
    ///The kernel `stencil_rows` for one whole block: its barrier regions as loops over the block's threads.
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
        w: i32,
        h: i32,
        a: ::deviceemu::__private::Global<'__emu_launch, f32>,
        b: ::deviceemu::__private::GlobalMut<'__emu_launch, f32>,
    ) {
        const _: () = ::deviceemu::__private::assert_kernel_scalar::<i32>();
        const _: () = ::deviceemu::__private::assert_kernel_scalar::<i32>();
        #[allow(unused_variables)]
        let __emu_ctx = __emu_rb.block_ctx();
        if !__EMU_CHECKED && __emu_rb.tier(::deviceemu::__private::TIER_VECTOR)
            && __emu_rb.in_row_order()
            && (true && ::deviceemu::__private::view_aligned(&a)
                && match (
                    ::deviceemu::__private::range_add(
                        ::deviceemu::__private::range_mul(
                            ::deviceemu::__private::range_sub(
                                ::deviceemu::__private::range_max(
                                    ::deviceemu::__private::range_cast::<
                                        i32,
                                        _,
                                    >(
                                        ::deviceemu::__private::range_add(
                                            ::deviceemu::__private::range_mul(
                                                ::core::option::Option::Some(__emu_ctx.block_idx.y),
                                                ::core::option::Option::Some(__emu_ctx.block_dim.y),
                                            ),
                                            ::core::option::Option::Some(0u32),
                                        ),
                                    ),
                                    ::deviceemu::__private::range_max(
                                        ::deviceemu::__private::range_cast::<
                                            i32,
                                            _,
                                        >(
                                            ::deviceemu::__private::range_add(
                                                ::deviceemu::__private::range_mul(
                                                    ::core::option::Option::Some(__emu_ctx.block_idx.y),
                                                    ::core::option::Option::Some(__emu_ctx.block_dim.y),
                                                ),
                                                ::core::option::Option::Some(0u32),
                                            ),
                                        ),
                                        ::deviceemu::__private::range_add(
                                            ::core::option::Option::Some(0),
                                            ::core::option::Option::Some(1),
                                        ),
                                    ),
                                ),
                                ::core::option::Option::Some(1),
                            ),
                            ::core::option::Option::Some(w),
                        ),
                        ::deviceemu::__private::range_max(
                            ::deviceemu::__private::range_cast::<
                                i32,
                                _,
                            >(
                                ::deviceemu::__private::range_add(
                                    ::deviceemu::__private::range_mul(
                                        ::core::option::Option::Some(__emu_ctx.block_idx.x),
                                        ::core::option::Option::Some(__emu_ctx.block_dim.x),
                                    ),
                                    ::core::option::Option::Some(0u32),
                                ),
                            ),
                            ::deviceemu::__private::range_max(
                                ::deviceemu::__private::range_cast::<
                                    i32,
                                    _,
                                >(
                                    ::deviceemu::__private::range_add(
                                        ::deviceemu::__private::range_mul(
                                            ::core::option::Option::Some(__emu_ctx.block_idx.x),
                                            ::core::option::Option::Some(__emu_ctx.block_dim.x),
                                        ),
                                        ::core::option::Option::Some(0u32),
                                    ),
                                ),
                                ::deviceemu::__private::range_add(
                                    ::core::option::Option::Some(0),
                                    ::core::option::Option::Some(1),
                                ),
                            ),
                        ),
                    ),
                    ::deviceemu::__private::range_add(
                        ::deviceemu::__private::range_mul(
                            ::deviceemu::__private::range_sub(
                                ::deviceemu::__private::range_min(
                                    ::deviceemu::__private::range_min(
                                        ::deviceemu::__private::range_cast::<
                                            i32,
                                            _,
                                        >(
                                            ::deviceemu::__private::range_add(
                                                ::deviceemu::__private::range_mul(
                                                    ::core::option::Option::Some(__emu_ctx.block_idx.y),
                                                    ::core::option::Option::Some(__emu_ctx.block_dim.y),
                                                ),
                                                ::core::option::Option::Some(__emu_ctx.block_dim.y - 1),
                                            ),
                                        ),
                                        ::deviceemu::__private::range_sub(
                                            ::deviceemu::__private::range_sub(
                                                ::core::option::Option::Some(h),
                                                ::core::option::Option::Some(1),
                                            ),
                                            ::core::option::Option::Some(1),
                                        ),
                                    ),
                                    ::deviceemu::__private::range_cast::<
                                        i32,
                                        _,
                                    >(
                                        ::deviceemu::__private::range_add(
                                            ::deviceemu::__private::range_mul(
                                                ::core::option::Option::Some(__emu_ctx.block_idx.y),
                                                ::core::option::Option::Some(__emu_ctx.block_dim.y),
                                            ),
                                            ::core::option::Option::Some(__emu_ctx.block_dim.y - 1),
                                        ),
                                    ),
                                ),
                                ::core::option::Option::Some(1),
                            ),
                            ::core::option::Option::Some(w),
                        ),
                        ::deviceemu::__private::range_min(
                            ::deviceemu::__private::range_min(
                                ::deviceemu::__private::range_cast::<
                                    i32,
                                    _,
                                >(
                                    ::deviceemu::__private::range_add(
                                        ::deviceemu::__private::range_mul(
                                            ::core::option::Option::Some(__emu_ctx.block_idx.x),
                                            ::core::option::Option::Some(__emu_ctx.block_dim.x),
                                        ),
                                        ::core::option::Option::Some(__emu_ctx.block_dim.x - 1),
                                    ),
                                ),
                                ::deviceemu::__private::range_sub(
                                    ::deviceemu::__private::range_sub(
                                        ::core::option::Option::Some(w),
                                        ::core::option::Option::Some(1),
                                    ),
                                    ::core::option::Option::Some(1),
                                ),
                            ),
                            ::deviceemu::__private::range_cast::<
                                i32,
                                _,
                            >(
                                ::deviceemu::__private::range_add(
                                    ::deviceemu::__private::range_mul(
                                        ::core::option::Option::Some(__emu_ctx.block_idx.x),
                                        ::core::option::Option::Some(__emu_ctx.block_dim.x),
                                    ),
                                    ::core::option::Option::Some(__emu_ctx.block_dim.x - 1),
                                ),
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
                                < a.len()
                    }
                    _ => false,
                } && ::deviceemu::__private::view_aligned(&a)
                && match (
                    ::deviceemu::__private::range_add(
                        ::deviceemu::__private::range_mul(
                            ::deviceemu::__private::range_max(
                                ::deviceemu::__private::range_cast::<
                                    i32,
                                    _,
                                >(
                                    ::deviceemu::__private::range_add(
                                        ::deviceemu::__private::range_mul(
                                            ::core::option::Option::Some(__emu_ctx.block_idx.y),
                                            ::core::option::Option::Some(__emu_ctx.block_dim.y),
                                        ),
                                        ::core::option::Option::Some(0u32),
                                    ),
                                ),
                                ::deviceemu::__private::range_max(
                                    ::deviceemu::__private::range_cast::<
                                        i32,
                                        _,
                                    >(
                                        ::deviceemu::__private::range_add(
                                            ::deviceemu::__private::range_mul(
                                                ::core::option::Option::Some(__emu_ctx.block_idx.y),
                                                ::core::option::Option::Some(__emu_ctx.block_dim.y),
                                            ),
                                            ::core::option::Option::Some(0u32),
                                        ),
                                    ),
                                    ::deviceemu::__private::range_add(
                                        ::core::option::Option::Some(0),
                                        ::core::option::Option::Some(1),
                                    ),
                                ),
                            ),
                            ::core::option::Option::Some(w),
                        ),
                        ::deviceemu::__private::range_add(
                            ::deviceemu::__private::range_max(
                                ::deviceemu::__private::range_cast::<
                                    i32,
                                    _,
                                >(
                                    ::deviceemu::__private::range_add(
                                        ::deviceemu::__private::range_mul(
                                            ::core::option::Option::Some(__emu_ctx.block_idx.x),
                                            ::core::option::Option::Some(__emu_ctx.block_dim.x),
                                        ),
                                        ::core::option::Option::Some(0u32),
                                    ),
                                ),
                                ::deviceemu::__private::range_max(
                                    ::deviceemu::__private::range_cast::<
                                        i32,
                                        _,
                                    >(
                                        ::deviceemu::__private::range_add(
                                            ::deviceemu::__private::range_mul(
                                                ::core::option::Option::Some(__emu_ctx.block_idx.x),
                                                ::core::option::Option::Some(__emu_ctx.block_dim.x),
                                            ),
                                            ::core::option::Option::Some(0u32),
                                        ),
                                    ),
                                    ::deviceemu::__private::range_add(
                                        ::core::option::Option::Some(0),
                                        ::core::option::Option::Some(1),
                                    ),
                                ),
                            ),
                            ::core::option::Option::Some(1),
                        ),
                    ),
                    ::deviceemu::__private::range_add(
                        ::deviceemu::__private::range_mul(
                            ::deviceemu::__private::range_min(
                                ::deviceemu::__private::range_min(
                                    ::deviceemu::__private::range_cast::<
                                        i32,
                                        _,
                                    >(
                                        ::deviceemu::__private::range_add(
                                            ::deviceemu::__private::range_mul(
                                                ::core::option::Option::Some(__emu_ctx.block_idx.y),
                                                ::core::option::Option::Some(__emu_ctx.block_dim.y),
                                            ),
                                            ::core::option::Option::Some(__emu_ctx.block_dim.y - 1),
                                        ),
                                    ),
                                    ::deviceemu::__private::range_sub(
                                        ::deviceemu::__private::range_sub(
                                            ::core::option::Option::Some(h),
                                            ::core::option::Option::Some(1),
                                        ),
                                        ::core::option::Option::Some(1),
                                    ),
                                ),
                                ::deviceemu::__private::range_cast::<
                                    i32,
                                    _,
                                >(
                                    ::deviceemu::__private::range_add(
                                        ::deviceemu::__private::range_mul(
                                            ::core::option::Option::Some(__emu_ctx.block_idx.y),
                                            ::core::option::Option::Some(__emu_ctx.block_dim.y),
                                        ),
                                        ::core::option::Option::Some(__emu_ctx.block_dim.y - 1),
                                    ),
                                ),
                            ),
                            ::core::option::Option::Some(w),
                        ),
                        ::deviceemu::__private::range_add(
                            ::deviceemu::__private::range_min(
                                ::deviceemu::__private::range_min(
                                    ::deviceemu::__private::range_cast::<
                                        i32,
                                        _,
                                    >(
                                        ::deviceemu::__private::range_add(
                                            ::deviceemu::__private::range_mul(
                                                ::core::option::Option::Some(__emu_ctx.block_idx.x),
                                                ::core::option::Option::Some(__emu_ctx.block_dim.x),
                                            ),
                                            ::core::option::Option::Some(__emu_ctx.block_dim.x - 1),
                                        ),
                                    ),
                                    ::deviceemu::__private::range_sub(
                                        ::deviceemu::__private::range_sub(
                                            ::core::option::Option::Some(w),
                                            ::core::option::Option::Some(1),
                                        ),
                                        ::core::option::Option::Some(1),
                                    ),
                                ),
                                ::deviceemu::__private::range_cast::<
                                    i32,
                                    _,
                                >(
                                    ::deviceemu::__private::range_add(
                                        ::deviceemu::__private::range_mul(
                                            ::core::option::Option::Some(__emu_ctx.block_idx.x),
                                            ::core::option::Option::Some(__emu_ctx.block_dim.x),
                                        ),
                                        ::core::option::Option::Some(__emu_ctx.block_dim.x - 1),
                                    ),
                                ),
                            ),
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
                                < a.len()
                    }
                    _ => false,
                } && ::deviceemu::__private::view_aligned(&a)
                && match (
                    ::deviceemu::__private::range_add(
                        ::deviceemu::__private::range_mul(
                            ::deviceemu::__private::range_max(
                                ::deviceemu::__private::range_cast::<
                                    i32,
                                    _,
                                >(
                                    ::deviceemu::__private::range_add(
                                        ::deviceemu::__private::range_mul(
                                            ::core::option::Option::Some(__emu_ctx.block_idx.y),
                                            ::core::option::Option::Some(__emu_ctx.block_dim.y),
                                        ),
                                        ::core::option::Option::Some(0u32),
                                    ),
                                ),
                                ::deviceemu::__private::range_max(
                                    ::deviceemu::__private::range_cast::<
                                        i32,
                                        _,
                                    >(
                                        ::deviceemu::__private::range_add(
                                            ::deviceemu::__private::range_mul(
                                                ::core::option::Option::Some(__emu_ctx.block_idx.y),
                                                ::core::option::Option::Some(__emu_ctx.block_dim.y),
                                            ),
                                            ::core::option::Option::Some(0u32),
                                        ),
                                    ),
                                    ::deviceemu::__private::range_add(
                                        ::core::option::Option::Some(0),
                                        ::core::option::Option::Some(1),
                                    ),
                                ),
                            ),
                            ::core::option::Option::Some(w),
                        ),
                        ::deviceemu::__private::range_sub(
                            ::deviceemu::__private::range_max(
                                ::deviceemu::__private::range_cast::<
                                    i32,
                                    _,
                                >(
                                    ::deviceemu::__private::range_add(
                                        ::deviceemu::__private::range_mul(
                                            ::core::option::Option::Some(__emu_ctx.block_idx.x),
                                            ::core::option::Option::Some(__emu_ctx.block_dim.x),
                                        ),
                                        ::core::option::Option::Some(0u32),
                                    ),
                                ),
                                ::deviceemu::__private::range_max(
                                    ::deviceemu::__private::range_cast::<
                                        i32,
                                        _,
                                    >(
                                        ::deviceemu::__private::range_add(
                                            ::deviceemu::__private::range_mul(
                                                ::core::option::Option::Some(__emu_ctx.block_idx.x),
                                                ::core::option::Option::Some(__emu_ctx.block_dim.x),
                                            ),
                                            ::core::option::Option::Some(0u32),
                                        ),
                                    ),
                                    ::deviceemu::__private::range_add(
                                        ::core::option::Option::Some(0),
                                        ::core::option::Option::Some(1),
                                    ),
                                ),
                            ),
                            ::core::option::Option::Some(1),
                        ),
                    ),
                    ::deviceemu::__private::range_add(
                        ::deviceemu::__private::range_mul(
                            ::deviceemu::__private::range_min(
                                ::deviceemu::__private::range_min(
                                    ::deviceemu::__private::range_cast::<
                                        i32,
                                        _,
                                    >(
                                        ::deviceemu::__private::range_add(
                                            ::deviceemu::__private::range_mul(
                                                ::core::option::Option::Some(__emu_ctx.block_idx.y),
                                                ::core::option::Option::Some(__emu_ctx.block_dim.y),
                                            ),
                                            ::core::option::Option::Some(__emu_ctx.block_dim.y - 1),
                                        ),
                                    ),
                                    ::deviceemu::__private::range_sub(
                                        ::deviceemu::__private::range_sub(
                                            ::core::option::Option::Some(h),
                                            ::core::option::Option::Some(1),
                                        ),
                                        ::core::option::Option::Some(1),
                                    ),
                                ),
                                ::deviceemu::__private::range_cast::<
                                    i32,
                                    _,
                                >(
                                    ::deviceemu::__private::range_add(
                                        ::deviceemu::__private::range_mul(
                                            ::core::option::Option::Some(__emu_ctx.block_idx.y),
                                            ::core::option::Option::Some(__emu_ctx.block_dim.y),
                                        ),
                                        ::core::option::Option::Some(__emu_ctx.block_dim.y - 1),
                                    ),
                                ),
                            ),
                            ::core::option::Option::Some(w),
                        ),
                        ::deviceemu::__private::range_sub(
                            ::deviceemu::__private::range_min(
                                ::deviceemu::__private::range_min(
                                    ::deviceemu::__private::range_cast::<
                                        i32,
                                        _,
                                    >(
                                        ::deviceemu::__private::range_add(
                                            ::deviceemu::__private::range_mul(
                                                ::core::option::Option::Some(__emu_ctx.block_idx.x),
                                                ::core::option::Option::Some(__emu_ctx.block_dim.x),
                                            ),
                                            ::core::option::Option::Some(__emu_ctx.block_dim.x - 1),
                                        ),
                                    ),
                                    ::deviceemu::__private::range_sub(
                                        ::deviceemu::__private::range_sub(
                                            ::core::option::Option::Some(w),
                                            ::core::option::Option::Some(1),
                                        ),
                                        ::core::option::Option::Some(1),
                                    ),
                                ),
                                ::deviceemu::__private::range_cast::<
                                    i32,
                                    _,
                                >(
                                    ::deviceemu::__private::range_add(
                                        ::deviceemu::__private::range_mul(
                                            ::core::option::Option::Some(__emu_ctx.block_idx.x),
                                            ::core::option::Option::Some(__emu_ctx.block_dim.x),
                                        ),
                                        ::core::option::Option::Some(__emu_ctx.block_dim.x - 1),
                                    ),
                                ),
                            ),
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
                                < a.len()
                    }
                    _ => false,
                } && ::deviceemu::__private::view_aligned(&b)
                && match (
                    ::deviceemu::__private::range_add(
                        ::deviceemu::__private::range_mul(
                            ::deviceemu::__private::range_max(
                                ::deviceemu::__private::range_cast::<
                                    i32,
                                    _,
                                >(
                                    ::deviceemu::__private::range_add(
                                        ::deviceemu::__private::range_mul(
                                            ::core::option::Option::Some(__emu_ctx.block_idx.y),
                                            ::core::option::Option::Some(__emu_ctx.block_dim.y),
                                        ),
                                        ::core::option::Option::Some(0u32),
                                    ),
                                ),
                                ::deviceemu::__private::range_max(
                                    ::deviceemu::__private::range_cast::<
                                        i32,
                                        _,
                                    >(
                                        ::deviceemu::__private::range_add(
                                            ::deviceemu::__private::range_mul(
                                                ::core::option::Option::Some(__emu_ctx.block_idx.y),
                                                ::core::option::Option::Some(__emu_ctx.block_dim.y),
                                            ),
                                            ::core::option::Option::Some(0u32),
                                        ),
                                    ),
                                    ::deviceemu::__private::range_add(
                                        ::core::option::Option::Some(0),
                                        ::core::option::Option::Some(1),
                                    ),
                                ),
                            ),
                            ::core::option::Option::Some(w),
                        ),
                        ::deviceemu::__private::range_max(
                            ::deviceemu::__private::range_cast::<
                                i32,
                                _,
                            >(
                                ::deviceemu::__private::range_add(
                                    ::deviceemu::__private::range_mul(
                                        ::core::option::Option::Some(__emu_ctx.block_idx.x),
                                        ::core::option::Option::Some(__emu_ctx.block_dim.x),
                                    ),
                                    ::core::option::Option::Some(0u32),
                                ),
                            ),
                            ::deviceemu::__private::range_max(
                                ::deviceemu::__private::range_cast::<
                                    i32,
                                    _,
                                >(
                                    ::deviceemu::__private::range_add(
                                        ::deviceemu::__private::range_mul(
                                            ::core::option::Option::Some(__emu_ctx.block_idx.x),
                                            ::core::option::Option::Some(__emu_ctx.block_dim.x),
                                        ),
                                        ::core::option::Option::Some(0u32),
                                    ),
                                ),
                                ::deviceemu::__private::range_add(
                                    ::core::option::Option::Some(0),
                                    ::core::option::Option::Some(1),
                                ),
                            ),
                        ),
                    ),
                    ::deviceemu::__private::range_add(
                        ::deviceemu::__private::range_mul(
                            ::deviceemu::__private::range_min(
                                ::deviceemu::__private::range_min(
                                    ::deviceemu::__private::range_cast::<
                                        i32,
                                        _,
                                    >(
                                        ::deviceemu::__private::range_add(
                                            ::deviceemu::__private::range_mul(
                                                ::core::option::Option::Some(__emu_ctx.block_idx.y),
                                                ::core::option::Option::Some(__emu_ctx.block_dim.y),
                                            ),
                                            ::core::option::Option::Some(__emu_ctx.block_dim.y - 1),
                                        ),
                                    ),
                                    ::deviceemu::__private::range_sub(
                                        ::deviceemu::__private::range_sub(
                                            ::core::option::Option::Some(h),
                                            ::core::option::Option::Some(1),
                                        ),
                                        ::core::option::Option::Some(1),
                                    ),
                                ),
                                ::deviceemu::__private::range_cast::<
                                    i32,
                                    _,
                                >(
                                    ::deviceemu::__private::range_add(
                                        ::deviceemu::__private::range_mul(
                                            ::core::option::Option::Some(__emu_ctx.block_idx.y),
                                            ::core::option::Option::Some(__emu_ctx.block_dim.y),
                                        ),
                                        ::core::option::Option::Some(__emu_ctx.block_dim.y - 1),
                                    ),
                                ),
                            ),
                            ::core::option::Option::Some(w),
                        ),
                        ::deviceemu::__private::range_min(
                            ::deviceemu::__private::range_min(
                                ::deviceemu::__private::range_cast::<
                                    i32,
                                    _,
                                >(
                                    ::deviceemu::__private::range_add(
                                        ::deviceemu::__private::range_mul(
                                            ::core::option::Option::Some(__emu_ctx.block_idx.x),
                                            ::core::option::Option::Some(__emu_ctx.block_dim.x),
                                        ),
                                        ::core::option::Option::Some(__emu_ctx.block_dim.x - 1),
                                    ),
                                ),
                                ::deviceemu::__private::range_sub(
                                    ::deviceemu::__private::range_sub(
                                        ::core::option::Option::Some(w),
                                        ::core::option::Option::Some(1),
                                    ),
                                    ::core::option::Option::Some(1),
                                ),
                            ),
                            ::deviceemu::__private::range_cast::<
                                i32,
                                _,
                            >(
                                ::deviceemu::__private::range_add(
                                    ::deviceemu::__private::range_mul(
                                        ::core::option::Option::Some(__emu_ctx.block_idx.x),
                                        ::core::option::Option::Some(__emu_ctx.block_dim.x),
                                    ),
                                    ::core::option::Option::Some(__emu_ctx.block_dim.x - 1),
                                ),
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
                })
        {
            __emu_rb
                .each_row_chunk(
                    |
                        __emu_cursor: &::deviceemu::__private::LaneCursor,
                        __emu_c0: usize,
                        __emu_m: usize,
                    | -> bool {
                        let __emu_m = ::core::cmp::min(
                            __emu_m,
                            ::deviceemu::__private::LANE_CHUNK,
                        );
                        let (mut __emu_n, mut __emu_s1, mut __emu_s2) = (
                            0u32,
                            0u32,
                            0u32,
                        );
                        #[allow(unused_variables, unused_parens)]
                        for __emu_k in 0..__emu_m {
                            let __emu_ctx = __emu_cursor.row_lane(__emu_c0 + __emu_k);
                            let j: i32 = (__emu_ctx.block_idx.x * __emu_ctx.block_dim.x
                                + __emu_ctx.thread_idx.x) as i32;
                            let i: i32 = (__emu_ctx.block_idx.y * __emu_ctx.block_dim.y
                                + __emu_ctx.thread_idx.y) as i32;
                            let __emu_pass = (((((i < h - 1)) & ((j < w - 1)))
                                & ((i > 0))) & ((j > 0))) as u32;
                            let __emu_at = __emu_k as u32;
                            __emu_n += __emu_pass;
                            __emu_s1 += __emu_pass * __emu_at;
                            __emu_s2 += __emu_pass * __emu_at * __emu_at;
                        }
                        let Some((__emu_lo, __emu_hi)) = ::deviceemu::__private::lane_run(
                            __emu_m,
                            __emu_n,
                            __emu_s1,
                            __emu_s2,
                        ) else {
                            return false;
                        };
                        let __emu_n = __emu_hi - __emu_lo;
                        if __emu_n == 0 {
                            return true;
                        }
                        #[allow(unused_variables)]
                        let __emu_s: [usize; 4usize] = {
                            let __emu_ctx = __emu_cursor.row_lane(__emu_c0 + __emu_lo);
                            let j: i32 = (__emu_ctx.block_idx.x * __emu_ctx.block_dim.x
                                + __emu_ctx.thread_idx.x) as i32;
                            let i: i32 = (__emu_ctx.block_idx.y * __emu_ctx.block_dim.y
                                + __emu_ctx.thread_idx.y) as i32;
                            [
                                ::deviceemu::__private::Index::to_index((i - 1) * w + j),
                                ::deviceemu::__private::Index::to_index(i * w + (j + 1)),
                                ::deviceemu::__private::Index::to_index(i * w + (j - 1)),
                                ::deviceemu::__private::Index::to_index(i * w + j),
                            ]
                        };
                        #[allow(unused_variables)]
                        let __emu_e: [usize; 4usize] = {
                            let __emu_ctx = __emu_cursor
                                .row_lane(__emu_c0 + __emu_hi - 1);
                            let j: i32 = (__emu_ctx.block_idx.x * __emu_ctx.block_dim.x
                                + __emu_ctx.thread_idx.x) as i32;
                            let i: i32 = (__emu_ctx.block_idx.y * __emu_ctx.block_dim.y
                                + __emu_ctx.thread_idx.y) as i32;
                            [
                                ::deviceemu::__private::Index::to_index((i - 1) * w + j),
                                ::deviceemu::__private::Index::to_index(i * w + (j + 1)),
                                ::deviceemu::__private::Index::to_index(i * w + (j - 1)),
                                ::deviceemu::__private::Index::to_index(i * w + j),
                            ]
                        };
                        for __emu_f in 0..4usize {
                            if __emu_e[__emu_f].wrapping_sub(__emu_s[__emu_f])
                                != __emu_n - 1
                            {
                                return false;
                            }
                        }
                        if !(true
                            && __emu_s[1usize] == __emu_s[2usize].wrapping_add(2usize))
                        {
                            return false;
                        }
                        let __emu_n = ::core::cmp::min(
                            __emu_n,
                            ::deviceemu::__private::LANE_CHUNK,
                        );
                        let mut __emu_rw_a_0 = ::deviceemu::__private::LaneBuf::<
                            _,
                            { ::deviceemu::__private::LANE_CHUNK },
                        >::new();
                        let mut __emu_rw_b_3 = ::deviceemu::__private::LaneBuf::<
                            _,
                            { ::deviceemu::__private::LANE_CHUNK },
                        >::new();
                        let mut __emu_win_2 = ::deviceemu::__private::LaneBuf::<
                            _,
                            { ::deviceemu::__private::LANE_CHUNK + 16usize },
                        >::new();
                        ::deviceemu::__private::lane_load(
                            &a,
                            __emu_s[0usize],
                            &mut __emu_rw_a_0,
                            __emu_n,
                        );
                        ::deviceemu::__private::lane_load(
                            &a,
                            __emu_s[2usize],
                            &mut __emu_win_2,
                            __emu_n + 2usize,
                        );
                        let __emu_rw_a_1 = __emu_win_2.at(2usize);
                        let __emu_rw_a_2 = __emu_win_2.at(0usize);
                        #[allow(unused_variables, unused_unsafe)]
                        for __emu_k in 0..__emu_n {
                            let __emu_ctx = __emu_cursor
                                .row_lane(__emu_c0 + __emu_lo + __emu_k);
                            let j: i32 = (__emu_ctx.block_idx.x * __emu_ctx.block_dim.x
                                + __emu_ctx.thread_idx.x) as i32;
                            let i: i32 = (__emu_ctx.block_idx.y * __emu_ctx.block_dim.y
                                + __emu_ctx.thread_idx.y) as i32;
                            {
                                let __emu_value = 0.5
                                    * (unsafe { __emu_rw_a_0.get(__emu_k) }
                                        + unsafe { __emu_rw_a_1.get(__emu_k) })
                                    - 0.25 * unsafe { __emu_rw_a_2.get(__emu_k) };
                                __emu_rw_b_3.set(__emu_k, __emu_value)
                            };
                        }
                        unsafe {
                            ::deviceemu::__private::lane_store(
                                &b,
                                __emu_s[3usize],
                                &__emu_rw_b_3,
                                __emu_n,
                            )
                        };
                        true
                    },
                    |__emu_t: usize, __emu_ctx: ::deviceemu::__private::ThreadCtx| {
                        let _ = ({
                            #[inline(always)]
                            |
                                __emu_t: usize,
                                __emu_ctx: ::deviceemu::__private::ThreadCtx,
                            | -> ::core::option::Option<::deviceemu::__private::Exit> {
                                let j: i32 = (__emu_ctx.block_idx.x * __emu_ctx.block_dim.x
                                    + __emu_ctx.thread_idx.x) as i32;
                                let i: i32 = (__emu_ctx.block_idx.y * __emu_ctx.block_dim.y
                                    + __emu_ctx.thread_idx.y) as i32;
                                if (i < h - 1) && (j < w - 1) && (i > 0) && (j > 0) {
                                    {
                                        let __emu_value = 0.5
                                            * (::deviceemu::__private::load_in_bounds(
                                                &a,
                                                ::deviceemu::__private::Index::to_index((i - 1) * w + j),
                                            )
                                                + ::deviceemu::__private::load_in_bounds(
                                                    &a,
                                                    ::deviceemu::__private::Index::to_index(i * w + (j + 1)),
                                                ))
                                            - 0.25
                                                * ::deviceemu::__private::load_in_bounds(
                                                    &a,
                                                    ::deviceemu::__private::Index::to_index(i * w + (j - 1)),
                                                );
                                        ::deviceemu::__private::store_in_bounds(
                                            &b,
                                            ::deviceemu::__private::Index::to_index(i * w + j),
                                            __emu_value,
                                        )
                                    };
                                }
                                ::core::option::Option::None
                            }
                        })(__emu_t, __emu_ctx);
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
                        let j: i32 = (__emu_ctx.block_idx.x * __emu_ctx.block_dim.x
                            + __emu_ctx.thread_idx.x) as i32;
                        let i: i32 = (__emu_ctx.block_idx.y * __emu_ctx.block_dim.y
                            + __emu_ctx.thread_idx.y) as i32;
                        if (i < h - 1) && (j < w - 1) && (i > 0) && (j > 0) {
                            {
                                let __emu_value = 0.5
                                    * (::deviceemu::__private::load(
                                        __EMU_CHECKED,
                                        &a,
                                        (i - 1) * w + j,
                                    )
                                        + ::deviceemu::__private::load(
                                            __EMU_CHECKED,
                                            &a,
                                            i * w + (j + 1),
                                        ))
                                    - 0.25
                                        * ::deviceemu::__private::load(
                                            __EMU_CHECKED,
                                            &a,
                                            i * w + (j - 1),
                                        );
                                ::deviceemu::__private::store(
                                    __EMU_CHECKED,
                                    &b,
                                    i * w + j,
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
/// The GPU entry point of the kernel (`.entry` in the PTX module).
#[cfg(target_arch = "nvptx64")]
#[export_name = "stencil_rows"]
#[allow(non_snake_case)]
pub unsafe extern "ptx-kernel" fn __emu_entry_stencil_rows(
    w: i32,
    h: i32,
    a: *const f32,
    a_len: usize,
    b: *mut f32,
    b_len: usize,
) {
    ::deviceemu::__private::assume_index_facts();
    let a = unsafe {
        ::deviceemu::__private::Global::<f32>::from_raw_parts(a as *mut f32, a_len, ())
    };
    let b = unsafe {
        ::deviceemu::__private::GlobalMut::<f32>::from_raw_parts(b, b_len, ())
    };
    stencil_rows(w, h, a, b);
}
/// A 2-D stencil by `(i, j)` from the 2-D indices: no index is `base + tid` over the whole
/// block, so it runs row by row (`fission/rows.rs`) under its range proof.
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
pub fn stencil_rows<'__emu_launch>(
    w: i32,
    h: i32,
    a: ::deviceemu::__private::Global<'__emu_launch, f32>,
    b: ::deviceemu::__private::GlobalMut<'__emu_launch, f32>,
) -> ::deviceemu::__private::Exit {
    #[allow(dead_code)]
    const __EMU_CHECKED: bool = false;
    const _: () = ::deviceemu::__private::assert_kernel_scalar::<i32>();
    const _: () = ::deviceemu::__private::assert_kernel_scalar::<i32>();
    {
        let j: i32 = (block_idx().x * block_dim().x + thread_idx().x) as i32;
        let i: i32 = (block_idx().y * block_dim().y + thread_idx().y) as i32;
        if (i < h - 1) && (j < w - 1) && (i > 0) && (j > 0) {
            {
                let __emu_value = 0.5
                    * (::deviceemu::__private::load(__EMU_CHECKED, &a, (i - 1) * w + j)
                        + ::deviceemu::__private::load(
                            __EMU_CHECKED,
                            &a,
                            i * w + (j + 1),
                        ))
                    - 0.25
                        * ::deviceemu::__private::load(
                            __EMU_CHECKED,
                            &a,
                            i * w + (j - 1),
                        );
                ::deviceemu::__private::store(__EMU_CHECKED, &b, i * w + j, __emu_value)
            };
        }
    };
    ::deviceemu::__private::exit_here()
}
#[cfg(target_arch = "nvptx64")]
#[doc(hidden)]
#[allow(non_camel_case_types, dead_code)]
pub struct stencil_rows {}
#[cfg(target_arch = "nvptx64")]
impl stencil_rows {
    /// A device-side launch on the GPU, through the CUDA device runtime.
    #[doc(hidden)]
    #[inline(always)]
    #[allow(clippy::too_many_arguments, dead_code)]
    pub fn __launch_device<'__emu_l>(
        __emu_grid: ::deviceemu::__private::Dim3,
        __emu_block: ::deviceemu::__private::Dim3,
        __emu_shared: usize,
        __emu_stream: ::core::option::Option<&::deviceemu::__private::DeviceStream>,
        w: i32,
        h: i32,
        a: impl ::deviceemu::__private::DeviceArg<'__emu_l, f32>,
        b: impl ::deviceemu::__private::DeviceArgMut<'__emu_l, f32>,
    ) -> ::core::result::Result<(), ::deviceemu::Error> {
        unsafe {
            let mut __emu_b = ::deviceemu::__private::ParamBuffer::get(
                __emu_entry_stencil_rows as *const (),
                __emu_grid,
                __emu_block,
                __emu_shared,
            )?;
            __emu_b.push::<i32>(w);
            __emu_b.push::<i32>(h);
            let a = <_ as ::deviceemu::__private::DeviceArg<
                '__emu_l,
                f32,
            >>::into_view(a);
            __emu_b.push::<*const f32>(a.as_ptr() as *const f32);
            __emu_b.push::<usize>(a.len());
            let b = <_ as ::deviceemu::__private::DeviceArgMut<
                '__emu_l,
                f32,
            >>::into_view(b);
            __emu_b.push::<*mut f32>(b.as_ptr() as *mut f32);
            __emu_b.push::<usize>(b.len());
            __emu_b.launch(__emu_stream)
        }
    }
}
