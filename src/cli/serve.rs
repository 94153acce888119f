//! `litindex serve`: the local web page's flags.

use std::net::IpAddr;

use clap::Args;

/// The port `serve` listens on when none is given.
pub const DEFAULT_PORT: u16 = 8470;

#[derive(Debug, Args)]
pub struct ServeArgs {
    /// The TCP port (0: any free port; the URL printed says which)
    #[arg(long, default_value_t = DEFAULT_PORT)]
    pub port: u16,
    /// The address to listen on; anything but a loopback address makes the page reachable from other machines (a warning says so)
    #[arg(long, default_value = "127.0.0.1", value_name = "ADDR")]
    pub bind: IpAddr,
    /// Offer the mark buttons (POST routes with a per-process token); without it the page cannot change the index
    #[arg(long)]
    pub allow_writes: bool,
    /// The most connections served at once; one more is answered 503 and closed
    #[arg(long, default_value_t = 64, value_name = "N", value_parser = clap::value_parser!(u32).range(1..=4096))]
    pub max_connections: u32,
    /// Seconds a request's head (request line and headers) may take to arrive, from its first byte
    #[arg(long, default_value_t = 10, value_name = "SECS", value_parser = clap::value_parser!(u64).range(1..=3600))]
    pub header_timeout: u64,
    /// Seconds a connection may stay open with no byte moving either way
    #[arg(long, default_value_t = 60, value_name = "SECS", value_parser = clap::value_parser!(u64).range(1..=86400))]
    pub idle_timeout: u64,
}
