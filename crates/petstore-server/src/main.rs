//! `petstore-server`: serve the pet store, or manage its API keys.

use clap::Parser;
use std::process::ExitCode;

#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

#[actix_web::main]
async fn main() -> ExitCode {
    petstore_server::logging::init();
    match petstore_server::cli::run(petstore_server::cli::Cli::parse()).await {
        Ok(()) => ExitCode::SUCCESS,
        Err(message) => {
            eprintln!("error: {message}");
            ExitCode::FAILURE
        }
    }
}
