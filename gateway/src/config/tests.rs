use super::*;

#[test]
fn a_full_configuration_reads() {
    let config = Config::from_toml(
        r#"
        listen = "127.0.0.1:9000"
        upstream = "https://api.openai.com/v1"
        mode = "inject"
        max_rounds = 4
        key_env = "GATEWAY_KEY"

        [servers.git]
        command = "uvx"
        args = ["mcp-server-git"]
        allow = ["git_status"]
        timeout_secs = 5

        [servers.web]
        url = "http://127.0.0.1:3001/mcp"
        prefix = ""
        "#,
    )
    .unwrap();
    assert_eq!(config.mode, Mode::Inject);
    assert_eq!(config.max_rounds, 4);
    assert!(config.servers["git"].admits("git_status"));
    assert!(!config.servers["git"].admits("git_commit"));
    assert_eq!(
        config.tool_timeout(&config.servers["git"]),
        Duration::from_secs(5)
    );
    assert_eq!(config.servers["web"].prefix.as_deref(), Some(""));
}

#[test]
fn variables_are_expanded_and_missing_ones_named() {
    let var = |name: &str| (name == "TOKEN").then(|| "s3cret".to_owned());
    let expand = |value: &str| expand_with(value, "headers.Authorization", var);
    assert_eq!(expand("Bearer ${TOKEN}").unwrap(), "Bearer s3cret");
    assert_eq!(expand("${TOKEN}${TOKEN}").unwrap(), "s3cret".repeat(2));
    assert_eq!(
        expand("costs $$5, $HOME stays").unwrap(),
        "costs $5, $HOME stays"
    );
    assert_eq!(expand("no reference").unwrap(), "no reference");
    assert_eq!(
        expand("Bearer ${MISSING}").unwrap_err(),
        "`headers.Authorization` takes the environment variable `MISSING`, which is not set"
    );
    assert!(expand("${TOKEN").unwrap_err().contains("without its `}`"));
    assert!(
        expand("${1A}")
            .unwrap_err()
            .contains("not an environment variable's name")
    );
    assert!(expand("${}").is_err());
}

#[test]
fn server_settings_are_checked() {
    let config = Config::from_toml(
        r#"
        upstream = "http://h/v1"
        [servers.web]
        url = "http://127.0.0.1:3001/mcp"
        headers = { "X-Region" = "eu-west", Authorization = "Bearer ${WEB_TOKEN}" }
        max_concurrent_calls = 2
        timeout_secs = 600
        [servers.git]
        command = "uvx"
        env = { GIT_TOKEN = "${GIT_TOKEN}" }
        "#,
    )
    .unwrap();
    assert_eq!(config.servers["web"].max_concurrent_calls, Some(2));
    assert_eq!(
        config.tool_timeout(&config.servers["web"]),
        Duration::from_secs(600)
    );
    for (server, said) in [
        (
            "command = \"x\"\nheaders = { A = \"b\" }",
            "server `a`: `headers` are sent to HTTP servers",
        ),
        (
            "url = \"http://h/mcp\"\nheaders = { \"Bad Name\" = \"b\" }",
            "is not a header name",
        ),
        (
            "url = \"http://h/mcp\"\nheaders = { Accept = \"b\" }",
            "set by the MCP client itself",
        ),
        (
            "command = \"x\"\nenv = { A = \"${A\" }",
            "server `a`: `env.A` has a `${` without its `}`",
        ),
        (
            "command = \"x\"\nmax_concurrent_calls = 0",
            "`max_concurrent_calls` must be at least 1",
        ),
    ] {
        let toml = format!("upstream = \"http://h/v1\"\n[servers.a]\n{server}");
        let err = Config::from_toml(&toml).unwrap_err().to_string();
        assert!(err.contains(said), "{server:?}: {err}");
    }
}

#[test]
fn origins_are_compared_with_their_ports_written() {
    assert_eq!(
        origin_of("https://mcp.example.com/mcp").unwrap(),
        "https://mcp.example.com:443"
    );
    assert_eq!(
        origin_of("https://mcp.example.com:443").unwrap(),
        "https://mcp.example.com:443"
    );
    assert_eq!(
        origin_of("http://127.0.0.1:3001/x?y").unwrap(),
        "http://127.0.0.1:3001"
    );
    assert_ne!(
        origin_of("http://127.0.0.1:3002/mcp").unwrap(),
        origin_of("http://127.0.0.1:3001").unwrap()
    );
    assert!(origin_of("file:///etc/passwd").is_err());
    let err = Config::from_toml("upstream = \"http://h/v1\"\nallowed_server_urls = [\"nope\"]\n")
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("`allowed_server_urls`: `nope` is not a URL"),
        "{err}"
    );
}

#[test]
fn the_store_is_memory_unless_a_redis_url_says_otherwise() {
    let config = Config::from_toml("upstream = \"http://h/v1\"\n").unwrap();
    assert_eq!(config.store, None);
    assert_eq!(config.store_max_entry_bytes, 4 << 20);
    let config = Config::from_toml(
        "upstream = \"http://h/v1\"\nstore = \"redis://127.0.0.1:6379/0\"\nstore_max_entry_bytes = 65536\n",
    )
    .unwrap();
    assert_eq!(config.store.as_deref(), Some("redis://127.0.0.1:6379/0"));
    assert_eq!(config.store_max_entry_bytes, 65536);
    for (toml, said) in [
        (
            "store = \"memcached://h\"",
            "`store`: `memcached://h` is not a Redis URL",
        ),
        (
            "store = \"redis://:pw@h:nope\"",
            "`store`: `redis://***@h:nope` is not a Redis URL",
        ),
        ("store_ttl_secs = 0", "`store_ttl_secs` must be at least 1"),
        (
            "store_max_entry_bytes = 10",
            "`store_max_entry_bytes` must be at least 1024",
        ),
    ] {
        let err = Config::from_toml(&format!("upstream = \"http://h/v1\"\n{toml}\n"))
            .unwrap_err()
            .to_string();
        assert!(err.contains(said), "{toml}: {err}");
    }
}

#[test]
fn mistakes_are_named() {
    let err = Config::from_toml("upstream = \"x\"\n[servers.a]\n").unwrap_err();
    assert!(err.to_string().contains("`upstream`"), "{err}");
    let err = Config::from_toml("upstream = \"http://h/v1\"\n[servers.a]\n").unwrap_err();
    assert_eq!(err, ConfigError::Transport("a".into()));
    let err = Config::from_toml("upstream = \"http://h/v1\"\nmode = \"auto\"\n").unwrap_err();
    assert!(err.to_string().contains("mode"), "{err}");
    let err = Config::from_toml("upstream = \"http://h/v1\"\nport = 1\n").unwrap_err();
    assert!(err.to_string().contains("port"), "{err}");
}
