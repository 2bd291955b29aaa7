//! `sightline hosts`: the host profiles with where each comes from; `hosts show NAME`: one,
//! as a file to copy (or as JSON).

use super::exit;
use super::output::{emit, print_json};
use crate::config;
use crate::model_view::hosts::{self, HostProfile};
use crate::sanitize;

/// `sightline hosts`: every profile with its source; `hosts show NAME`: one, as a file.
pub fn hosts(show: Option<&str>, as_json: bool) -> u8 {
    let user = match config::user_host_profiles() {
        Ok(user) => user,
        Err(message) => {
            eprintln!("sightline: {message}");
            return exit::USAGE;
        }
    };
    let yours = |profile: &HostProfile| user.iter().any(|u| u.name == profile.name);
    if let Some(name) = show {
        let profile = match hosts::resolve(name, &user) {
            Ok(profile) => profile,
            Err(message) => {
                eprintln!("sightline: {message}");
                return exit::USAGE;
            }
        };
        if as_json {
            print_json(&HostJson {
                name: &profile.name,
                yours: yours(&profile),
                profile: &profile,
            });
        } else {
            emit(|out| out.write_all(hosts::to_file(&profile).as_bytes()));
        }
        return exit::SUCCESS;
    }
    let all = hosts::all(&user);
    if as_json {
        let list: Vec<HostJson> = all
            .iter()
            .map(|profile| HostJson {
                name: &profile.name,
                yours: yours(profile),
                profile,
            })
            .collect();
        print_json(&list);
        return exit::SUCCESS;
    }
    emit(|out| {
        for profile in &all {
            let name = sanitize::text(&profile.name);
            let name = if yours(profile) {
                format!("{name} (yours)")
            } else {
                name.into_owned()
            };
            writeln!(out, "{name:<26} {}", sanitize::text(&profile.description))?;
            if let Some(source) = &profile.source {
                writeln!(
                    out,
                    "    from {} {}, checked {}",
                    sanitize::text(&source.repository),
                    sanitize::text(&source.version),
                    sanitize::text(&source.checked)
                )?;
            }
        }
        writeln!(
            out,
            "\n`sightline hosts show NAME` prints one as a file to copy into\n\
             ~/.config/sightline/hosts.toml (the profiles there override and extend these)."
        )
    });
    exit::SUCCESS
}

/// One profile in `hosts --json`.
#[derive(serde::Serialize)]
struct HostJson<'a> {
    name: &'a str,
    /// Whether it comes from the user's file.
    yours: bool,
    #[serde(flatten)]
    profile: &'a HostProfile,
}
