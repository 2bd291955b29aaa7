//! `sightline auth logout`: forgets the OAuth tokens kept in the token cache.

use super::exit;
use crate::sanitize;

/// `sightline auth logout`: forgets the tokens kept for a server, or all.
pub fn logout(cache: &std::path::Path, url: Option<&str>) -> u8 {
    let resource = match url.map(url::Url::parse) {
        Some(Ok(url)) => Some(crate::mcp::oauth::canonical_resource(&url)),
        Some(Err(error)) => {
            eprintln!("sightline: --url: {error}");
            return exit::USAGE;
        }
        None => None,
    };
    match crate::transport::http::token_cache::forget(cache, resource.as_deref()) {
        Ok(count) => {
            let what = resource.as_deref().unwrap_or("every server");
            println!(
                "forgot {count} token{} for {}",
                if count == 1 { "" } else { "s" },
                sanitize::text(what)
            );
            exit::SUCCESS
        }
        Err(error) => {
            eprintln!("sightline: {}: {error}", cache.display());
            exit::USAGE
        }
    }
}
