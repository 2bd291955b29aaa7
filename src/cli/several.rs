//! Several servers on one command line (`--demo` or `--server` repeated): the selection split in
//! the order given, for `call`; every other command refuses it, naming the option.

use super::ServerArgs;
use crate::demo_server::Style;
use crate::transport::{Target, TransportError};

impl ServerArgs {
    /// The servers these arguments select, in the order given: one selection each, with one
    /// `--demo` or one `--server` (what `call` sends its call to, side by side).
    pub fn each(&self) -> Vec<ServerArgs> {
        let one = |demo: Vec<Style>, server: Vec<String>| ServerArgs {
            demo,
            server,
            ..self.clone()
        };
        if self.demo.len() > 1 {
            return self
                .demo
                .iter()
                .map(|style| one(vec![*style], Vec::new()))
                .collect();
        }
        if self.server.len() > 1 {
            let servers = self.server.iter();
            return servers
                .map(|name| one(Vec::new(), vec![name.clone()]))
                .collect();
        }
        vec![self.clone()]
    }

    /// The servers the TUI opens, each with its name for the server bar, in the order given:
    /// every `--demo` style or `--server` given, or with none named, every entry of the
    /// `--config` file (an entry that is wrong still opens, to show why it failed).
    pub fn opened(&self) -> Vec<(String, ServerArgs)> {
        if let Some((_, choices)) = self.config_choices() {
            return choices
                .into_iter()
                .map(|(name, _)| {
                    let chosen = ServerArgs {
                        server: vec![name.clone()],
                        ..self.clone()
                    };
                    (name, chosen)
                })
                .collect();
        }
        self.each()
            .into_iter()
            .map(|one| {
                let name = match (one.server.first(), one.demo.first()) {
                    (Some(entry), _) => entry.clone(),
                    (None, Some(Style::Legacy)) => "legacy".to_owned(),
                    (None, Some(Style::Sep1303)) => "sep1303".to_owned(),
                    (None, None) => String::new(),
                };
                (name, one)
            })
            .collect()
    }

    /// The targets of [`ServerArgs::each`], in the order given.
    pub fn targets(&self) -> Result<Vec<Target>, TransportError> {
        self.each().iter().map(Self::target).collect()
    }

    /// Why these arguments do not name one server, when they name several: for every command
    /// but `call`, a usage error naming the option.
    pub fn several(&self) -> Option<String> {
        let (option, count) = if self.demo.len() > 1 {
            ("--demo", self.demo.len())
        } else if self.server.len() > 1 {
            ("--server", self.server.len())
        } else {
            return None;
        };
        Some(format!(
            "{option} is given {count} times, but this command talks to one server; only `call` \
             sends to several (give {option} once)"
        ))
    }
}

#[cfg(test)]
mod tests {
    use clap::Parser;

    use super::*;
    use crate::cli::{Cli, Command};

    #[test]
    fn repeated_servers_split_in_order_and_one_target_refuses_them() {
        let cli = Cli::try_parse_from([
            "sightline",
            "call",
            "t",
            "--demo",
            "legacy",
            "--demo",
            "sep1303",
        ])
        .unwrap();
        let Some(Command::Call { server, .. }) = cli.command else {
            panic!()
        };
        let each = server.each();
        assert_eq!(each[0].demo, [Style::Legacy]);
        assert_eq!(each[1].demo, [Style::Sep1303]);
        assert_eq!(server.targets().unwrap().len(), 2);
        let refused = server.target().unwrap_err().to_string();
        assert!(refused.contains("--demo is given 2 times"), "{refused}");
        assert!(each[0].target().is_ok());
        let names: Vec<String> = server.opened().into_iter().map(|(name, _)| name).collect();
        assert_eq!(names, ["legacy", "sep1303"]);
    }

    #[test]
    fn the_tui_opens_every_entry_of_a_config_unless_some_are_named() {
        let file =
            std::env::temp_dir().join(format!("sightline-opened-{}.json", std::process::id()));
        let text = r#"{"mcpServers": {"b": {"command": "x"}, "a": {"type": "ws"}, "c": {"url": "http://h/"}}}"#;
        std::fs::write(&file, text).unwrap();
        let path = file.to_str().unwrap();
        let opened = |extra: &[&str]| -> Vec<String> {
            let args = [&["sightline", "--config", path][..], extra].concat();
            let cli = Cli::try_parse_from(args).unwrap();
            cli.server
                .opened()
                .into_iter()
                .map(|(name, _)| name)
                .collect()
        };
        assert_eq!(
            opened(&[]),
            ["b", "a", "c"],
            "the file's order, the broken one too"
        );
        assert_eq!(opened(&["--server", "c"]), ["c"]);
        assert_eq!(opened(&["--server", "c", "--server", "b"]), ["c", "b"]);
        let _ = std::fs::remove_file(&file);
    }
}
