use deviceemu::prelude::*;

#[kernel(cluster(4, 4, 1))]
fn big_clusters(out: &mut [u32]) {
    out[0] = 1;
}

fn main() {}
