//! OAuth for `tooldef list --url` and `tooldef call --url`: the flags made the gateway's
//! `oauth::Authorizer` (which does the protocol), with the user's browser reached through a
//! loopback redirect (`loopback.rs`) and the tokens kept in the user's configuration directory
//! (`cache.rs`).

mod cache;
mod loopback;

use std::io::IsTerminal;
use std::sync::Arc;
use std::time::Duration;

use tooldef_gateway::oauth::{
    Authorizer, ClientIdentity, Grant, IdentityProvider, MemoryStore, OAuth, PrivateKey,
    TokenStore, UserAgent, identity_provider_token_endpoint, signing_algorithm,
};

use crate::args::{
    AUTH_BROWSER_ENV, BEARER_TOKEN_ENV, GrantArg, IDP_CLIENT_SECRET_ENV, IDP_ID_TOKEN_ENV,
    ServerArgs,
};
use crate::failure::Failure;
use crate::output;
use loopback::{Loopback, Opener, Unavailable};

/// The OAuth client for the server at `url`, as the flags ask; `None` when a fixed credential
/// (--bearer-token, an `Authorization` --header) is given instead.
pub async fn authorizer(args: &ServerArgs, url: &str) -> Result<Option<Arc<Authorizer>>, Failure> {
    let fixed = args.bearer_token().is_some()
        || args.headers.iter().any(|line| {
            line.split_once(':')
                .is_some_and(|(name, _)| name.trim().eq_ignore_ascii_case("authorization"))
        });
    if fixed {
        return Ok(None);
    }
    let usage = |why: String| Failure::input(why);
    let private_key = match (&args.client_key, &args.client_key_alg) {
        (Some(file), Some(algorithm)) => Some(PrivateKey {
            pem: std::fs::read(file).map_err(|err| {
                usage(format!(
                    "--client-key: cannot read {}: {}",
                    file.display(),
                    crate::input::io_reason(&err)
                ))
            })?,
            algorithm: signing_algorithm(algorithm)
                .map_err(|why| usage(format!("--client-key-alg: {why}")))?,
        }),
        _ => None,
    };
    let grant = match args.oauth_grant {
        GrantArg::ClientCredentials => Grant::ClientCredentials,
        GrantArg::AuthorizationCode => Grant::AuthorizationCode(user_agent(args, url)),
        GrantArg::Enterprise => Grant::Enterprise(identity_provider(args).await?),
    };
    let oauth = OAuth {
        grant,
        client: ClientIdentity {
            id: args.client_id.clone(),
            secret: args.client_secret(),
            private_key,
            metadata_url: args.client_metadata_url.clone(),
            name: "tooldef".to_owned(),
        },
        scopes: args
            .scopes
            .iter()
            .flat_map(|scope| scope.split_whitespace())
            .map(str::to_owned)
            .collect(),
    };
    let store: Arc<dyn TokenStore> = match cache::directory(|name| std::env::var(name).ok()) {
        Some(directory) => Arc::new(cache::FileStore::new(&directory, url)),
        None => {
            output::stderr_line(
                "tooldef: neither XDG_CONFIG_HOME nor HOME is set: OAuth tokens are not kept \
                 after this command",
            );
            Arc::new(MemoryStore::default())
        }
    };
    Authorizer::new(url, oauth, store)
        .await
        .map(Some)
        .map_err(|why| Failure::input(format!("--url: {why}")))
}

/// The identity provider of --oauth-grant enterprise, its token endpoint discovered.
async fn identity_provider(args: &ServerArgs) -> Result<IdentityProvider, Failure> {
    let missing = |what: &str| Failure::input(format!("--oauth-grant enterprise needs {what}"));
    let issuer = args
        .idp_issuer
        .clone()
        .ok_or_else(|| missing("--idp-issuer URL"))?;
    let client_id = args
        .idp_client_id
        .clone()
        .ok_or_else(|| missing("--idp-client-id ID"))?;
    let id_token = ServerArgs::flag_or_env(&args.idp_id_token, IDP_ID_TOKEN_ENV)
        .ok_or_else(|| missing(&format!("--idp-id-token TOKEN (or {IDP_ID_TOKEN_ENV})")))?;
    if args.client_id.is_none() {
        return Err(missing(
            "--client-id ID, the client registered with the server's authorization server",
        ));
    }
    let token_endpoint = identity_provider_token_endpoint(&issuer)
        .await
        .map_err(|why| Failure::input(format!("--idp-issuer: {why}")))?;
    Ok(IdentityProvider {
        issuer,
        token_endpoint,
        client_id,
        client_secret: ServerArgs::flag_or_env(&args.idp_client_secret, IDP_CLIENT_SECRET_ENV),
        id_token,
    })
}

/// The browser: --auth-browser's command, else the system's opener when a person is at the
/// terminal; else none, and a server that asks for a sign-in fails the command at once.
fn user_agent(args: &ServerArgs, url: &str) -> Arc<dyn UserAgent> {
    let opener = match args.auth_browser() {
        Some(command) => Opener::Command(command),
        // Unix desktops have an opener; elsewhere the URL shown is the way.
        None if std::io::stderr().is_terminal() && cfg!(unix) => Opener::System,
        None if std::io::stderr().is_terminal() => Opener::Show,
        None => {
            return Arc::new(Unavailable(format!(
                "`{url}` asks you to sign in (OAuth) in a browser, and there is no terminal to \
                 do it from: run tooldef in a terminal, give the command that opens the sign-in \
                 page with --auth-browser COMMAND (or {AUTH_BROWSER_ENV}), authorize tooldef as \
                 a client with --oauth-grant client-credentials, or give a token with \
                 --bearer-token TOKEN (or {BEARER_TOKEN_ENV})"
            )));
        }
    };
    Arc::new(Loopback {
        server: url.to_owned(),
        opener,
        timeout: Duration::from_secs(args.auth_timeout),
    })
}
