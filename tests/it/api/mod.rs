mod results;
mod errors;
mod device_helpers;
mod host_only;
mod settings;
mod compile_fail;
mod doc_reports;
