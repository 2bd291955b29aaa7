//! `sightline hosts`: the host profiles with where each comes from; `hosts show NAME`: one,
//! as a file to copy (or as JSON).

use super::exit;
use super::output::{emit, print_json};
use crate::config;
use crate::model_view::hosts::{self, HostProfile};
use crate::sanitize;

/// `sightline hosts`: every profile with its source; `hosts show NAME`: one, as a file.
/// `host_file`'s profiles come first, as the user's own.
pub fn hosts(show: Option<&str>, as_json: bool, host_file: Option<&str>) -> u8 {
    let user = match from_file(host_file).and_then(|mut first| {
        first.extend(config::user_host_profiles()?);
        Ok(first)
    }) {
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
    let installed = installed_here(&all, host_file);
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
                // A profile calibrate wrote for a host of the user's names no repository.
                let repository = if source.repository.is_empty() {
                    String::new()
                } else {
                    format!("{} ", sanitize::text(&source.repository))
                };
                writeln!(
                    out,
                    "    from {repository}{}, checked {}",
                    sanitize::text(&source.version),
                    sanitize::text(&source.checked)
                )?;
            }
            if let Some((_, here)) = installed.iter().find(|(name, _)| *name == profile.name) {
                writeln!(out, "    {}", sanitize::text(&here_line(profile, here)))?;
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

/// The profiles of `--host-file`, if given.
fn from_file(host_file: Option<&str>) -> Result<Vec<HostProfile>, String> {
    let Some(file) = host_file else {
        return Ok(Vec::new());
    };
    let text =
        std::fs::read_to_string(file).map_err(|error| format!("cannot read '{file}': {error}"))?;
    hosts::parse(&text, file).map_err(|error| error.to_string())
}

/// The calibrated hosts' versions here, probed at once (each runs the host).
fn installed_here(
    all: &[HostProfile],
    host_file: Option<&str>,
) -> Vec<(String, Result<String, String>)> {
    std::thread::scope(|scope| {
        let probes: Vec<_> = all
            .iter()
            .filter(|profile| {
                profile
                    .source
                    .as_ref()
                    .is_some_and(|source| source.captured)
            })
            .map(|profile| {
                let name = profile.name.clone();
                scope.spawn(move || {
                    let version = super::capture::installed_version(&name, host_file);
                    (name, version)
                })
            })
            .collect();
        probes
            .into_iter()
            .filter_map(|probe| probe.join().ok())
            .collect()
    })
}

/// Whether a calibrated host is installed here, and whether it is the calibrated version.
fn here_line(profile: &HostProfile, here: &Result<String, String>) -> String {
    let calibrated = profile
        .source
        .as_ref()
        .and_then(|source| super::capture::version_in(&source.version));
    match here {
        Ok(version) if calibrated.as_deref() == Some(version.as_str()) => {
            format!("installed here: {version}, the calibrated version")
        }
        Ok(version) => format!(
            "installed here: {version}, not the calibrated version: `sightline calibrate {} --check` says what differs",
            profile.name
        ),
        Err(_) => "not installed here (`sightline capture` says how)".to_owned(),
    }
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
