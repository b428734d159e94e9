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

#[test]
fn oauth_settings_are_read_and_checked() {
    let config = Config::from_toml(
        r#"
        upstream = "http://h/v1"
        [servers.svc]
        url = "https://mcp.example.com/mcp"
        oauth = { grant = "client_credentials", client_id = "gw", client_secret_env = "SVC_SECRET", scopes = ["tools:run"] }
        [servers.user]
        url = "https://mcp.example.com/mcp"
        [servers.user.oauth]
        grant = "refresh_token"
        client_id = "tooldef"
        access_token_env = "USER_AT"
        refresh_token_env = "USER_RT"
        "#,
    )
    .unwrap();
    let svc = config.servers["svc"].oauth.as_ref().unwrap();
    assert_eq!(svc.grant, OAuthGrant::ClientCredentials);
    assert_eq!(svc.scopes, ["tools:run"]);
    assert_eq!(
        config.servers["user"].oauth.as_ref().unwrap().grant,
        OAuthGrant::RefreshToken
    );
    for (oauth, said) in [
        ("grant = \"client_credentials\"", "needs `client_id`"),
        (
            "grant = \"client_credentials\"\nclient_id = \"a\"",
            "needs `client_id` and `client_secret_env` or `private_key_file`",
        ),
        (
            "grant = \"client_credentials\"\nclient_id = \"a\"\nclient_secret_env = \"S\"\nprivate_key_file = \"k.pem\"\nsigning_algorithm = \"ES256\"",
            "give one of `client_secret_env` and `private_key_file`",
        ),
        (
            "grant = \"client_credentials\"\nclient_id = \"a\"\nprivate_key_file = \"k.pem\"",
            "go together",
        ),
        (
            "grant = \"client_credentials\"\nclient_id = \"a\"\nprivate_key_file = \"k.pem\"\nsigning_algorithm = \"HS256\"",
            "`HS256` is not a signing algorithm",
        ),
        (
            "grant = \"client_credentials\"\nclient_id = \"a\"\nclient_secret_env = \"S\"\naccess_token_env = \"T\"",
            "obtains its own tokens",
        ),
        ("grant = \"refresh_token\"", "needs `access_token_env`"),
        (
            "grant = \"refresh_token\"\nrefresh_token_env = \"R\"",
            "the `client_id` it was issued to",
        ),
        ("grant = \"password\"", "unknown variant `password`"),
        (
            "grant = \"refresh_token\"\naccess_token = \"x\"",
            "unknown field `access_token`",
        ),
    ] {
        let toml = format!(
            "upstream = \"http://h/v1\"\n[servers.a]\nurl = \"http://h/mcp\"\n[servers.a.oauth]\n{oauth}\n"
        );
        let err = Config::from_toml(&toml).unwrap_err().to_string();
        assert!(err.contains(said), "{oauth:?}: {err}");
    }
    for (server, said) in [
        (
            "command = \"x\"\noauth = { grant = \"refresh_token\", access_token_env = \"T\" }",
            "`oauth` is for HTTP servers",
        ),
        (
            "url = \"http://h/mcp\"\nbearer_token_env = \"T\"\noauth = { grant = \"refresh_token\", access_token_env = \"T\" }",
            "leave out `bearer_token_env`",
        ),
        (
            "url = \"http://h/mcp\"\nheaders = { authorization = \"Bearer x\" }\noauth = { grant = \"refresh_token\", access_token_env = \"T\" }",
            "an `Authorization` header",
        ),
    ] {
        let toml = format!("upstream = \"http://h/v1\"\n[servers.a]\n{server}\n");
        let err = Config::from_toml(&toml).unwrap_err().to_string();
        assert!(err.contains(said), "{server:?}: {err}");
    }
}

#[test]
fn oauth_secrets_come_from_the_environment_when_the_server_starts() {
    let oauth = ServerOAuth {
        grant: OAuthGrant::RefreshToken,
        client_id: Some("tooldef".to_owned()),
        client_secret_env: None,
        private_key_file: None,
        signing_algorithm: None,
        access_token_env: Some("TOOLDEF_TEST_OAUTH_UNSET_AT".to_owned()),
        refresh_token_env: None,
        scopes: Vec::new(),
    };
    let err = oauth.resolve("web").unwrap_err();
    assert_eq!(
        err,
        "the environment variable `TOOLDEF_TEST_OAUTH_UNSET_AT` is not set"
    );
    let keyed = ServerOAuth {
        grant: OAuthGrant::ClientCredentials,
        client_secret_env: None,
        access_token_env: None,
        private_key_file: Some("/nonexistent/tooldef-key.pem".into()),
        signing_algorithm: Some("ES256".to_owned()),
        ..oauth
    };
    let err = keyed.resolve("web").unwrap_err();
    assert!(
        err.starts_with("cannot read `oauth.private_key_file` /nonexistent/tooldef-key.pem"),
        "{err}"
    );
}

#[test]
fn grouping_discovery_and_caching_read_with_their_defaults() {
    let config = Config::from_toml("upstream = \"http://127.0.0.1:1/v1\"").unwrap();
    assert_eq!(
        (
            config.tool_grouping,
            config.discovery,
            config.anthropic_cache_tools
        ),
        (
            ToolGrouping::Prefix,
            DiscoveryMode::Gateway,
            CacheTools::Off
        )
    );
    assert_eq!(config.anthropic_cache_tools.cache_control(), None);
    let config = Config::from_toml(
        r#"
        upstream = "http://127.0.0.1:1/v1"
        tool_grouping = "namespace"
        discovery = "provider"
        anthropic_cache_tools = "1h"
        "#,
    )
    .unwrap();
    assert_eq!(config.tool_grouping, ToolGrouping::Namespace);
    assert_eq!(config.discovery, DiscoveryMode::Provider);
    assert_eq!(
        serde_json::to_value(config.anthropic_cache_tools.cache_control()).unwrap(),
        serde_json::json!({"type": "ephemeral", "ttl": "1h"})
    );
    assert_eq!(
        serde_json::to_value("5m".parse::<CacheTools>().unwrap().cache_control()).unwrap(),
        serde_json::json!({"type": "ephemeral"})
    );
    assert_eq!(
        "prefixes".parse::<ToolGrouping>().unwrap_err(),
        "unknown tool grouping `prefixes`: expected `prefix` or `namespace`"
    );
    assert!(
        Config::from_toml("upstream = \"http://x/v1\"\ndiscovery = \"openai\"")
            .unwrap_err()
            .to_string()
            .contains("unknown variant `openai`")
    );
}
