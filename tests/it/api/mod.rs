mod compile_fail;
mod device_helpers;
mod doc_reports;
mod errors;
mod host_only;
mod results;
mod settings;
