mod fission;
mod fission_normalise;
mod place_exprs;
mod port;
mod port_shared;
mod rows;
mod spans;
mod subviews;
