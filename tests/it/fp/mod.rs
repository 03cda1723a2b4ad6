mod fp_oracle;
mod fp_props;
