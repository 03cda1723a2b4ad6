// `launch_impl!` is `launch!`'s hidden half; called by hand without its `$crate;` prefix it
// says what it expects.
fn main() {
    deviceemu::__private::launch_impl!(fill<<<1, 32>>>());
}
