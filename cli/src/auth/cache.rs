//! The OAuth token cache: one JSON file per server under the user's configuration directory
//! (`$XDG_CONFIG_HOME/tooldef/oauth/`, else `~/.config/tooldef/oauth/`), readable by the user
//! alone (mode 0600, in a directory of mode 0700), written whole to a temporary file and
//! renamed over the old one, so that a run stopped half-way leaves the previous tokens.

use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};
use tooldef_gateway::oauth::{Saved, TokenStore};

/// One server's file.
pub struct FileStore {
    path: PathBuf,
    /// The server's URL, written in the file and checked when it is read.
    server: String,
}

/// What the file holds.
#[derive(Serialize, Deserialize)]
struct Contents {
    server: String,
    #[serde(flatten)]
    saved: Saved,
}

/// The cache's directory, from the environment given by `var`: `$XDG_CONFIG_HOME/tooldef/oauth`
/// when that is an absolute path (the XDG base directory specification ignores a relative
/// one), else `$HOME/.config/tooldef/oauth`; `None` without either.
pub fn directory(var: impl Fn(&str) -> Option<String>) -> Option<PathBuf> {
    let absolute = |value: String| Some(PathBuf::from(value)).filter(|path| path.is_absolute());
    let config = var("XDG_CONFIG_HOME").and_then(absolute).or_else(|| {
        var("HOME")
            .and_then(absolute)
            .map(|home| home.join(".config"))
    })?;
    Some(config.join("tooldef").join("oauth"))
}

/// The file of the server at `url`: its host and port to be recognisable, a hash of the whole
/// URL to be one file per endpoint.
fn file_name(url: &str) -> String {
    let host: String = url::Url::parse(url)
        .ok()
        .map(|u| {
            let host = u.host_str().unwrap_or("server").to_owned();
            match u.port_or_known_default() {
                Some(port) => format!("{host}_{port}"),
                None => host,
            }
        })
        .unwrap_or_else(|| "server".to_owned())
        .chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '.' || c == '-' {
                c
            } else {
                '_'
            }
        })
        .take(64)
        .collect();
    let digest = Sha256::digest(url.as_bytes());
    let hash: String = digest.iter().take(8).map(|b| format!("{b:02x}")).collect();
    format!("{host}-{hash}.json")
}

impl FileStore {
    /// The store of the server at `url`, in `directory`.
    pub fn new(directory: &Path, url: &str) -> FileStore {
        FileStore {
            path: directory.join(file_name(url)),
            server: url.to_owned(),
        }
    }

    /// Where its file is.
    #[cfg(test)]
    pub fn path(&self) -> &Path {
        &self.path
    }
}

impl TokenStore for FileStore {
    fn load(&self) -> Result<Saved, String> {
        let text = match fs::read_to_string(&self.path) {
            Ok(text) => text,
            Err(err) if err.kind() == std::io::ErrorKind::NotFound => return Ok(Saved::default()),
            Err(err) => {
                return Err(format!(
                    "cannot read the token cache {}: {}",
                    self.path.display(),
                    crate::input::io_reason(&err)
                ));
            }
        };
        // A file that is not the cache's (edited, cut short) is not worth failing a command
        // for: it is taken for an empty one, and replaced by the next tokens.
        match serde_json::from_str::<Contents>(&text) {
            Ok(contents) if contents.server == self.server => Ok(contents.saved),
            Ok(_) => Ok(Saved::default()),
            Err(err) => {
                crate::output::stderr_line(&format!(
                    "tooldef: ignoring the token cache {}: it is not one ({err})",
                    self.path.display()
                ));
                Ok(Saved::default())
            }
        }
    }

    fn save(&self, saved: &Saved) -> Result<(), String> {
        let failed = |what: &str, err: std::io::Error| {
            format!(
                "cannot {what} the token cache {}: {}",
                self.path.display(),
                crate::input::io_reason(&err)
            )
        };
        if saved.credentials.is_none() && saved.registration.is_none() {
            return match fs::remove_file(&self.path) {
                Err(err) if err.kind() != std::io::ErrorKind::NotFound => {
                    Err(failed("remove", err))
                }
                _ => Ok(()),
            };
        }
        let Some(directory) = self.path.parent() else {
            return Err(format!("{} has no directory", self.path.display()));
        };
        create_private_dir(directory).map_err(|err| failed("create the directory of", err))?;
        let contents = Contents {
            server: self.server.clone(),
            saved: saved.clone(),
        };
        let text = serde_json::to_string_pretty(&contents)
            .map_err(|err| format!("cannot write the token cache: {err}"))?;
        let temporary = directory.join(format!(
            ".{}.{}.tmp",
            self.path
                .file_name()
                .map_or_else(String::new, |n| n.to_string_lossy().into_owned()),
            std::process::id()
        ));
        let written = write_private(&temporary, text.as_bytes())
            .and_then(|()| fs::rename(&temporary, &self.path));
        if let Err(err) = written {
            let _ = fs::remove_file(&temporary);
            return Err(failed("write", err));
        }
        Ok(())
    }
}

/// Creates `directory` (and its parents) readable by the user alone.
fn create_private_dir(directory: &Path) -> std::io::Result<()> {
    let mut builder = fs::DirBuilder::new();
    builder.recursive(true);
    #[cfg(unix)]
    std::os::unix::fs::DirBuilderExt::mode(&mut builder, 0o700);
    builder.create(directory)
}

/// Writes `bytes` to a new file at `path` readable by the user alone: created with that mode,
/// so the tokens are never readable by others, not even for a moment.
fn write_private(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let _ = fs::remove_file(path);
    let mut options = fs::OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    std::os::unix::fs::OpenOptionsExt::mode(&mut options, 0o600);
    let mut file = options.open(path)?;
    file.write_all(bytes)?;
    file.sync_all()
}

#[cfg(test)]
mod tests {
    use super::*;
    use tooldef_gateway::oauth::{Registration, given_tokens};

    fn scratch(name: &str) -> PathBuf {
        let dir =
            std::env::temp_dir().join(format!("tooldef-cache-test-{name}-{}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        dir
    }

    fn sample() -> Saved {
        let mut saved = given_tokens(Some("client-1"), Some("at-123"), Some("rt-456")).unwrap();
        saved.registration = Some(Registration {
            client_id: "client-1".to_owned(),
            client_secret: Some("shh".to_owned()),
            redirect_uri: Some("http://127.0.0.1:4567/callback".to_owned()),
            issuer: Some("https://auth.example.com".to_owned()),
        });
        saved
    }

    #[test]
    fn the_directory_follows_xdg_then_home() {
        let env = |pairs: &'static [(&'static str, &'static str)]| {
            move |name: &str| {
                pairs
                    .iter()
                    .find(|(k, _)| *k == name)
                    .map(|(_, v)| (*v).to_owned())
            }
        };
        assert_eq!(
            directory(env(&[("XDG_CONFIG_HOME", "/x/conf"), ("HOME", "/home/u")])),
            Some(PathBuf::from("/x/conf/tooldef/oauth"))
        );
        // A relative XDG_CONFIG_HOME is ignored, as the specification says.
        assert_eq!(
            directory(env(&[("XDG_CONFIG_HOME", "conf"), ("HOME", "/home/u")])),
            Some(PathBuf::from("/home/u/.config/tooldef/oauth"))
        );
        assert_eq!(directory(env(&[])), None);
    }

    #[test]
    fn tokens_are_kept_per_server_readable_by_the_user_alone() {
        let dir = scratch("keep");
        let url = "https://mcp.example.com/mcp";
        let store = FileStore::new(&dir, url);
        assert!(store.load().unwrap().credentials.is_none());
        store.save(&sample()).unwrap();
        let name = store
            .path()
            .file_name()
            .unwrap()
            .to_string_lossy()
            .into_owned();
        assert!(
            name.starts_with("mcp.example.com_443-") && name.ends_with(".json"),
            "{name}"
        );
        let loaded = store.load().unwrap();
        let credentials = loaded.credentials.unwrap();
        assert_eq!(credentials.client_id, "client-1");
        let token = serde_json::to_value(credentials.token_response.unwrap()).unwrap();
        assert_eq!(token["access_token"], "at-123");
        assert_eq!(token["refresh_token"], "rt-456");
        assert_eq!(loaded.registration, sample().registration);
        #[cfg(unix)]
        {
            use std::os::unix::fs::PermissionsExt;
            let mode = |p: &Path| fs::metadata(p).unwrap().permissions().mode() & 0o777;
            assert_eq!(mode(store.path()), 0o600);
            assert_eq!(mode(&dir), 0o700);
        }
        // Another endpoint of the same host is another file; nothing is left behind.
        let other = FileStore::new(&dir, "https://mcp.example.com/other");
        assert_ne!(other.path(), store.path());
        assert!(other.load().unwrap().credentials.is_none());
        let files: Vec<_> = fs::read_dir(&dir).unwrap().collect();
        assert_eq!(files.len(), 1, "{files:?}");
        // Emptied, the file goes.
        store.save(&Saved::default()).unwrap();
        assert!(!store.path().exists());
        let _ = fs::remove_dir_all(&dir);
    }

    #[test]
    fn a_file_that_is_not_the_cache_is_taken_for_an_empty_one() {
        let dir = scratch("bad");
        let url = "http://127.0.0.1:8000/mcp";
        let store = FileStore::new(&dir, url);
        fs::create_dir_all(&dir).unwrap();
        fs::write(store.path(), "{not json").unwrap();
        assert!(store.load().unwrap().credentials.is_none());
        // A file written for another URL (a copy, say) is not used for this one.
        let contents = serde_json::json!({"server": "http://elsewhere/mcp", "credentials":
            serde_json::to_value(sample().credentials).unwrap()});
        fs::write(store.path(), contents.to_string()).unwrap();
        assert!(store.load().unwrap().credentials.is_none());
        // And the next save replaces it.
        store.save(&sample()).unwrap();
        assert!(store.load().unwrap().credentials.is_some());
        let _ = fs::remove_dir_all(&dir);
    }
}
