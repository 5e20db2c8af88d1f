//! OAuth 2 access tokens that a client gets and renews itself (RFC 6749):
//! by client credentials (section 4.4), or with a refresh token (section 6)
//! that the device flow or an authorization code gave.
//!
//! An [`OAuthSession`] installed for a scheme gets a token at the first
//! call that needs it, keeps one per scope set, shares it between
//! concurrent calls, renews it before it expires, and renews it once more
//! when the resource server answers 401 (`invalid_token`). Neither its
//! `Debug` nor an error shows a secret or a token.

use super::super::credentials::requirement;
use super::{Call, ClientError, Core};
use std::collections::HashMap;
use std::fmt;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant, SystemTime};

/// How long before a token's `expires_in` runs out it is renewed, by
/// default: 30 seconds, or half its lifetime when it lives less than a
/// minute (a token of 20 seconds is renewed after 10). Clocks drift and a
/// request takes time on the way: a token sent in its last seconds may
/// arrive expired. [`OAuthSession::renew_before`] chooses another.
pub const DEFAULT_RENEW_BEFORE: Duration = Duration::from_secs(30);

/// What an authorization server issued (RFC 6749 section 5.1): the access
/// token, when it expires, and the refresh token, if any. What a program
/// persists to sign in again without its user ([`OAuthSession::on_new_tokens`]).
#[derive(Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct TokenSet {
    /// The access token; empty in a set made of a refresh token alone.
    pub access_token: String,
    /// When the access token expires, if the server said.
    pub expires_at: Option<SystemTime>,
    /// The refresh token, if the server issued one.
    pub refresh_token: Option<String>,
    /// The scopes granted, as the server wrote them (space-separated), if
    /// it did.
    pub scope: Option<String>,
}

impl TokenSet {
    /// A set of a refresh token alone, as a program kept it: the first
    /// call that needs a token renews it.
    pub fn from_refresh_token(refresh_token: impl Into<String>) -> TokenSet {
        TokenSet {
            access_token: String::new(),
            expires_at: None,
            refresh_token: Some(refresh_token.into()),
            scope: None,
        }
    }

    /// A set of an access token that expires at `expires_at` (`None`: when
    /// the server refuses it) and the refresh token that renews it.
    pub fn new(
        access_token: impl Into<String>,
        expires_at: Option<SystemTime>,
        refresh_token: Option<String>,
    ) -> TokenSet {
        TokenSet {
            access_token: access_token.into(),
            expires_at,
            refresh_token,
            scope: None,
        }
    }
}

impl fmt::Debug for TokenSet {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("TokenSet")
            .field("access_token", &Redacted(!self.access_token.is_empty()))
            .field("expires_at", &self.expires_at)
            .field("refresh_token", &Redacted(self.refresh_token.is_some()))
            .field("scope", &self.scope)
            .finish()
    }
}

/// `***` for a secret that is there, `None` for one that is not.
struct Redacted(bool);

impl fmt::Debug for Redacted {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(if self.0 { "***" } else { "None" })
    }
}

/// A token endpoint's answer (RFC 6749 section 5.1), as sent.
#[derive(serde::Deserialize)]
pub(crate) struct Issued {
    pub access_token: String,
    #[serde(default, deserialize_with = "seconds")]
    pub expires_in: Option<u64>,
    #[serde(default)]
    pub refresh_token: Option<String>,
    #[serde(default)]
    pub scope: Option<String>,
}

/// `expires_in` as a number, or as the text of one (some servers send
/// `"3600"`); anything else is no expiry said.
fn seconds<'de, D: serde::Deserializer<'de>>(deserializer: D) -> Result<Option<u64>, D::Error> {
    let value: serde_json::Value = serde::Deserialize::deserialize(deserializer)?;
    Ok(match value {
        serde_json::Value::Number(n) => n.as_u64(),
        serde_json::Value::String(text) => text.trim().parse().ok(),
        _ => None,
    })
}

/// When an access token with `left` to live is due for renewal, by the
/// monotonic clock: `renew_before` early, else as [`DEFAULT_RENEW_BEFORE`]
/// says.
fn due(left: Duration, renew_before: Option<Duration>) -> Instant {
    let early = renew_before.unwrap_or_else(|| DEFAULT_RENEW_BEFORE.min(left / 2));
    Instant::now() + left.saturating_sub(early)
}

impl Issued {
    /// The set, and when its access token is due for renewal ([`due`]).
    pub(crate) fn into_set(self, renew_before: Option<Duration>) -> (TokenSet, Option<Instant>) {
        let lifetime = self.expires_in.map(Duration::from_secs);
        let renew = lifetime.map(|lifetime| due(lifetime, renew_before));
        let set = TokenSet {
            access_token: self.access_token,
            expires_at: lifetime.map(|l| SystemTime::now() + l),
            refresh_token: self.refresh_token,
            scope: self.scope,
        };
        (set, renew)
    }
}

/// An OAuth error answer (RFC 6749 section 5.2).
#[derive(serde::Deserialize)]
pub(crate) struct Refusal {
    pub error: String,
    #[serde(default)]
    pub error_description: Option<String>,
}

/// How the client proves itself at the token endpoint (RFC 6749 section
/// 2.3.1; the names are RFC 8414's `token_endpoint_auth_methods_supported`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ClientAuth {
    /// `client_secret_basic`: HTTP basic authentication, the client id and
    /// secret form-encoded. What every server must support, and the
    /// default.
    SecretBasic,
    /// `client_secret_post`: `client_id` and `client_secret` in the form.
    SecretPost,
}

/// Where a scheme's tokens come from, as the spec writes it: generated
/// code passes its scheme's to `Core::set_session`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct OAuthEndpoints {
    /// The `clientCredentials` flow's `tokenUrl`.
    pub client_credentials: Option<&'static str>,
    /// Where a refresh token is renewed: a flow's `refreshUrl`, else the
    /// `tokenUrl` of the flow that issues refresh tokens.
    pub refresh: Option<&'static str>,
    /// The scheme's `oauth2MetadataUrl` (RFC 8414), where a server says
    /// how clients authenticate and where its token endpoint is.
    pub metadata: Option<&'static str>,
}

/// What of an authorization server's metadata (RFC 8414) the client reads:
/// where to ask for tokens and codes, and how to authenticate there.
#[derive(serde::Deserialize)]
pub(crate) struct Metadata {
    #[serde(default)]
    pub token_endpoint: Option<String>,
    #[serde(default)]
    pub device_authorization_endpoint: Option<String>,
    #[serde(default)]
    token_endpoint_auth_methods_supported: Option<Vec<String>>,
}

/// How tokens are got.
#[derive(Clone)]
enum Grant {
    /// `grant_type=client_credentials`, with the scopes of each call.
    ClientCredentials,
    /// `grant_type=refresh_token`, one token set for every call.
    Refresh,
}

/// A token for one scope set: the one in use, and when it is due.
#[derive(Default)]
struct Slot {
    tokens: Option<TokenSet>,
    due: Option<Instant>,
    /// The access token is refused: renew it at the next call.
    stale: bool,
}

impl Slot {
    /// The access token, while it is neither due nor refused.
    fn fresh(&self) -> Option<&str> {
        let tokens = self.tokens.as_ref()?;
        let due = self.due.is_some_and(|due| Instant::now() >= due);
        (!self.stale && !due && !tokens.access_token.is_empty()).then_some(&tokens.access_token)
    }
}

/// What receives each new token set ([`OAuthSession::on_new_tokens`]).
type Listener = Arc<dyn Fn(&TokenSet) + Send + Sync>;

/// Tokens a client gets and renews itself for one security scheme: by
/// client credentials ([`OAuthSession::client_credentials`]) or a refresh
/// token ([`OAuthSession::refresh`]). Generated clients install one with
/// `with_<scheme>_client_credentials` or `with_<scheme>_session` (the
/// crate's root shows one).
#[derive(Clone)]
pub struct OAuthSession {
    client_id: String,
    client_secret: Option<String>,
    grant: Grant,
    auth: Option<ClientAuth>,
    renew_before: Option<Duration>,
    token_url: Option<String>,
    on_new_tokens: Option<Listener>,
    /// The first token set, for a refresh session.
    initial: Option<TokenSet>,
}

impl fmt::Debug for OAuthSession {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let grant = match self.grant {
            Grant::ClientCredentials => "client_credentials",
            Grant::Refresh => "refresh_token",
        };
        f.debug_struct("OAuthSession")
            .field("grant", &grant)
            .field("client_id", &self.client_id)
            .field("client_secret", &Redacted(self.client_secret.is_some()))
            .field("client_auth", &self.auth)
            .field("renew_before", &self.renew_before)
            .field("token_url", &self.token_url)
            .finish_non_exhaustive()
    }
}

impl OAuthSession {
    /// Tokens by client credentials (RFC 6749 section 4.4): one per scope
    /// set that calls need, each got at the first call that needs it.
    pub fn client_credentials(
        client_id: impl Into<String>,
        client_secret: impl Into<String>,
    ) -> OAuthSession {
        OAuthSession {
            client_id: client_id.into(),
            client_secret: Some(client_secret.into()),
            grant: Grant::ClientCredentials,
            auth: None,
            renew_before: None,
            token_url: None,
            on_new_tokens: None,
            initial: None,
        }
    }

    /// Tokens renewed with the refresh token of `tokens` (RFC 6749 section
    /// 6), for the public client `client_id` (a device's, a native app's;
    /// [`OAuthSession::client_secret`] for a confidential one). Its access
    /// token serves until it is due; a new refresh token the server sends
    /// replaces the old one.
    pub fn refresh(client_id: impl Into<String>, tokens: TokenSet) -> OAuthSession {
        OAuthSession {
            client_id: client_id.into(),
            client_secret: None,
            grant: Grant::Refresh,
            auth: None,
            renew_before: None,
            token_url: None,
            on_new_tokens: None,
            initial: Some(tokens),
        }
    }

    /// The client's secret, for a confidential client's refresh.
    pub fn client_secret(mut self, secret: impl Into<String>) -> Self {
        self.client_secret = Some(secret.into());
        self
    }

    /// Authenticates the client this way, whatever the server's metadata
    /// says. Without it: as the metadata at the scheme's
    /// `oauth2MetadataUrl` says (`client_secret_basic` where it lists it or
    /// lists nothing, else `client_secret_post` where it lists that), and
    /// `client_secret_basic` without metadata.
    pub fn client_auth(mut self, auth: ClientAuth) -> Self {
        self.auth = Some(auth);
        self
    }

    /// Renews a token this long before its `expires_in` runs out (see
    /// [`DEFAULT_RENEW_BEFORE`]).
    pub fn renew_before(mut self, early: Duration) -> Self {
        self.renew_before = Some(early);
        self
    }

    /// Asks for tokens at `url` (absolute, or relative to the client's base
    /// URL) instead of where the spec or the server's metadata says: a test
    /// server's, say.
    pub fn token_url(mut self, url: impl Into<String>) -> Self {
        self.token_url = Some(url.into());
        self
    }

    /// Calls `listener` with each token set the server issues, its refresh
    /// token the one now in use: a program persists it there, to start
    /// again without its user.
    pub fn on_new_tokens(mut self, listener: impl Fn(&TokenSet) + Send + Sync + 'static) -> Self {
        self.on_new_tokens = Some(Arc::new(listener));
        self
    }
}

/// An installed session: its settings, the spec's endpoints, the tokens.
pub(crate) struct Managed {
    session: OAuthSession,
    endpoints: OAuthEndpoints,
    /// Where to ask and how to authenticate, once known.
    resolved: tokio::sync::Mutex<Option<(reqwest::Url, ClientAuth)>>,
    /// One slot per scope set (its scopes sorted and joined), each
    /// behind its own lock: concurrent calls wait for one token request.
    slots: Mutex<HashMap<String, Arc<tokio::sync::Mutex<Slot>>>>,
}

impl fmt::Debug for Managed {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Managed")
            .field("session", &self.session)
            .field("endpoints", &self.endpoints)
            .finish_non_exhaustive()
    }
}

/// A token got for a call, and where it is kept (to renew it if the
/// resource server refuses it).
pub(crate) struct Lease {
    pub token: String,
    slot: Arc<tokio::sync::Mutex<Slot>>,
}

impl Managed {
    pub(crate) fn new(session: OAuthSession, endpoints: OAuthEndpoints) -> Managed {
        let mut slots = HashMap::new();
        if let Some(tokens) = session.initial.clone() {
            // A set as a program kept it: its access token serves until it
            // is due (renewed early, as an issued one is).
            let left = |at: SystemTime| at.duration_since(SystemTime::now()).unwrap_or_default();
            let slot = Slot {
                due: tokens
                    .expires_at
                    .map(|at| due(left(at), session.renew_before)),
                tokens: Some(tokens),
                stale: false,
            };
            slots.insert(String::new(), Arc::new(tokio::sync::Mutex::new(slot)));
        }
        Managed {
            session,
            endpoints,
            resolved: tokio::sync::Mutex::new(None),
            slots: Mutex::new(slots),
        }
    }

    /// A token for a call that needs `scopes`: the one kept, while it is
    /// fresh, else a new one (one request, however many calls wait).
    pub(crate) async fn token(&self, core: &Core, scopes: &[&str]) -> Result<Lease, ClientError> {
        // Asked for in the operation's order; kept by the set.
        let mut asked: Vec<&str> = Vec::new();
        for scope in scopes {
            if !asked.contains(scope) {
                asked.push(scope);
            }
        }
        let key = match self.session.grant {
            Grant::ClientCredentials => {
                let mut sorted = asked.clone();
                sorted.sort_unstable();
                sorted.join(" ")
            }
            // A refresh token is one grant: its scopes are the grant's.
            Grant::Refresh => String::new(),
        };
        let slot = self
            .slots
            .lock()
            .unwrap_or_else(PoisonError::into_inner)
            .entry(key)
            .or_default()
            .clone();
        let mut held = slot.lock().await;
        if let Some(token) = held.fresh() {
            let token = token.to_string();
            drop(held);
            return Ok(Lease { token, slot });
        }
        let (tokens, due) = self
            .issue(core, &asked.join(" "), held.tokens.as_ref())
            .await?;
        if let Some(listener) = &self.session.on_new_tokens {
            listener(&tokens);
        }
        let token = tokens.access_token.clone();
        *held = Slot {
            tokens: Some(tokens),
            due,
            stale: false,
        };
        drop(held);
        Ok(Lease { token, slot })
    }

    /// Marks `lease`'s token refused, unless another call has renewed it
    /// since.
    pub(crate) async fn refused(&self, lease: &Lease) {
        let mut held = lease.slot.lock().await;
        if held
            .tokens
            .as_ref()
            .is_some_and(|t| t.access_token == lease.token)
        {
            held.stale = true;
        }
    }

    /// Asks the token endpoint for a new set.
    async fn issue(
        &self,
        core: &Core,
        scope: &str,
        kept: Option<&TokenSet>,
    ) -> Result<(TokenSet, Option<Instant>), ClientError> {
        let mut form: Vec<(&str, &str)> = Vec::new();
        let kept_refresh = kept.and_then(|t| t.refresh_token.clone());
        match self.session.grant {
            Grant::ClientCredentials => {
                form.push(("grant_type", "client_credentials"));
                if !scope.is_empty() {
                    form.push(("scope", scope));
                }
            }
            Grant::Refresh => {
                let Some(refresh) = kept_refresh.as_deref() else {
                    return Err(ClientError::Authorization {
                        error: "invalid_grant".into(),
                        description: Some("the session holds no refresh token".into()),
                    });
                };
                form.push(("grant_type", "refresh_token"));
                form.push(("refresh_token", refresh));
            }
        }
        let (url, auth) = self.resolve(core).await?;
        let secret = self.session.client_secret.as_deref();
        let basic = match (auth, secret) {
            (ClientAuth::SecretBasic, Some(secret)) => Some(basic(&self.session.client_id, secret)),
            (ClientAuth::SecretPost, Some(secret)) => {
                form.push(("client_id", &self.session.client_id));
                form.push(("client_secret", secret));
                None
            }
            // A public client names itself.
            (_, None) => {
                form.push(("client_id", &self.session.client_id));
                None
            }
        };
        let body = form_urlencoded::Serializer::new(String::new())
            .extend_pairs(&form)
            .finish();
        let response = send(core, &url, body, basic.as_deref()).await?;
        let (mut tokens, due) = read::<Issued>(response)
            .await?
            .into_set(self.session.renew_before);
        if tokens.refresh_token.is_none() {
            // Not rotated: the one kept still serves (RFC 6749 section 6).
            tokens.refresh_token = kept_refresh;
        }
        Ok((tokens, due))
    }

    /// Where to ask for tokens and how to authenticate: as the session
    /// says, else as the spec writes, else as the server's metadata says.
    async fn resolve(&self, core: &Core) -> Result<(reqwest::Url, ClientAuth), ClientError> {
        let mut resolved = self.resolved.lock().await;
        if let Some(known) = &*resolved {
            return Ok(known.clone());
        }
        let written = match self.session.grant {
            Grant::ClientCredentials => self.endpoints.client_credentials,
            Grant::Refresh => self.endpoints.refresh,
        };
        let chosen = self.session.token_url.as_deref().or(written);
        let needs_metadata = chosen.is_none() || self.session.auth.is_none();
        let metadata = match self.endpoints.metadata {
            Some(at) if needs_metadata => Some(metadata(core, at).await?),
            _ => None,
        };
        let from_metadata = metadata.as_ref().and_then(|m| m.token_endpoint.as_deref());
        let Some(url) = chosen.or(from_metadata) else {
            return Err(ClientError::Authorization {
                error: "unsupported_grant_type".into(),
                description: Some(
                    "the scheme names no token URL for this grant, and no metadata that does"
                        .into(),
                ),
            });
        };
        let auth = self.session.auth.unwrap_or_else(|| {
            let methods = metadata
                .as_ref()
                .and_then(|m| m.token_endpoint_auth_methods_supported.as_deref());
            match methods {
                Some(methods)
                    if !methods.iter().any(|m| m == "client_secret_basic")
                        && methods.iter().any(|m| m == "client_secret_post") =>
                {
                    ClientAuth::SecretPost
                }
                _ => ClientAuth::SecretBasic,
            }
        });
        let known = (core.resolve(url)?, auth);
        *resolved = Some(known.clone());
        Ok(known)
    }
}

impl Core {
    /// Gets and renews the OAuth 2 tokens of the scheme named `scheme`
    /// with `session` (in place of a credential set before), from the
    /// `endpoints` the spec writes for it.
    pub fn set_session(
        &mut self,
        scheme: &'static str,
        endpoints: OAuthEndpoints,
        session: OAuthSession,
    ) {
        self.credentials.remove(scheme);
        self.sessions
            .insert(scheme, Arc::new(Managed::new(session, endpoints)));
    }

    /// The tokens a call needs from sessions: those of the first of its
    /// operation's security requirements that the client can meet, got or
    /// renewed as needed, each with the scopes the requirement names.
    pub(super) async fn leases(
        &self,
        call: &Call,
    ) -> Result<Vec<(&'static str, Lease)>, ClientError> {
        if self.sessions.is_empty() {
            return Ok(Vec::new());
        }
        let has =
            |name: &str| self.credentials.contains_key(name) || self.sessions.contains_key(name);
        let Some(requirement) = requirement(self.schemes, call.operation, has) else {
            return Ok(Vec::new());
        };
        let mut leases = Vec::new();
        for (name, scopes) in requirement.schemes {
            if let Some(session) = self.sessions.get(name) {
                leases.push((*name, session.token(self, scopes).await?));
            }
        }
        Ok(leases)
    }
}

/// `Authorization: Basic` of a client id and secret, each form-encoded
/// first (RFC 6749 section 2.3.1).
fn basic(id: &str, secret: &str) -> String {
    use base64::Engine as _;
    let encode = |s: &str| form_urlencoded::byte_serialize(s.as_bytes()).collect::<String>();
    let pair = format!("{}:{}", encode(id), encode(secret));
    format!(
        "Basic {}",
        base64::engine::general_purpose::STANDARD.encode(pair)
    )
}

/// The server's metadata at `at` (RFC 8414), absolute or relative to the
/// base URL.
pub(crate) async fn metadata(core: &Core, at: &str) -> Result<Metadata, ClientError> {
    let url = core.resolve(at)?;
    let response = core.http_client().get(url).send().await;
    read(response.map_err(ClientError::Transport)?).await
}

/// Posts a token request, retrying as the client's policy allows (a
/// token request is not resent after an unknown outcome: a refresh token
/// it spent would be lost).
async fn send(
    core: &Core,
    url: &reqwest::Url,
    form: String,
    basic: Option<&str>,
) -> Result<reqwest::Response, ClientError> {
    core.execute("the token request", false, || {
        let mut request = core
            .http_client()
            .post(url.clone())
            .header(
                reqwest::header::CONTENT_TYPE,
                "application/x-www-form-urlencoded",
            )
            .header(reqwest::header::ACCEPT, "application/json")
            .body(form.clone());
        if let Some(basic) = basic {
            request = request.header(reqwest::header::AUTHORIZATION, basic);
        }
        request.build().map_err(ClientError::Transport)
    })
    .await
}

/// A success's JSON body; an OAuth error answer as the refusal it is.
pub(crate) async fn read<T: serde::de::DeserializeOwned>(
    response: reqwest::Response,
) -> Result<T, ClientError> {
    if !response.status().is_success() {
        let refusal = refusal(response).await?;
        return Err(ClientError::Authorization {
            error: refusal.error,
            description: refusal.error_description,
        });
    }
    let status = response.status().as_u16();
    let body = response.bytes().await.map_err(ClientError::Transport)?;
    serde_json::from_slice(&body).map_err(|e| ClientError::Decode {
        status,
        message: format!("the authorization server's answer is not what RFC 6749 says: {e}"),
    })
}

/// The OAuth error an answer that is no success carries.
pub(crate) async fn refusal(response: reqwest::Response) -> Result<Refusal, ClientError> {
    let status = response.status().as_u16();
    let body = response.bytes().await.map_err(ClientError::Transport)?;
    serde_json::from_slice(&body).map_err(|_| ClientError::Decode {
        status,
        message: format!(
            "the authorization server answered {status} without an OAuth error: {}",
            String::from_utf8_lossy(&body[..body.len().min(200)])
        ),
    })
}

/// Whether a 401 says the token is refused (RFC 6750 section 3):
/// `error="invalid_token"`, or no error code at all (the token was not
/// taken, without a reason). Another code (`invalid_request`) is not
/// mended by a new token.
pub(crate) fn token_refused(headers: &reqwest::header::HeaderMap) -> bool {
    let challenges: Vec<&str> = headers
        .get_all(reqwest::header::WWW_AUTHENTICATE)
        .iter()
        .filter_map(|v| v.to_str().ok())
        .collect();
    let codes: Vec<&str> = challenges
        .iter()
        .flat_map(|c| c.split(','))
        .filter_map(|param| {
            let (key, value) = param.split_once('=')?;
            let key = key.trim();
            let key = key.rsplit(' ').next().unwrap_or(key);
            key.eq_ignore_ascii_case("error")
                .then(|| value.trim().trim_matches('"'))
        })
        .collect();
    codes.is_empty() || codes.contains(&"invalid_token")
}

#[cfg(test)]
mod tests {
    use super::*;
    use reqwest::header::{HeaderMap, HeaderValue, WWW_AUTHENTICATE};

    #[test]
    fn a_token_is_renewed_early_by_the_default_skew_or_half_a_short_life() {
        let issued = |seconds| Issued {
            access_token: "t".into(),
            expires_in: Some(seconds),
            refresh_token: None,
            scope: None,
        };
        let now = Instant::now();
        let (_, due) = issued(3600).into_set(None);
        let early = now + Duration::from_secs(3600) - due.unwrap();
        assert!(
            early >= Duration::from_secs(29) && early <= Duration::from_secs(30),
            "{early:?}"
        );
        let (_, due) = issued(20).into_set(None);
        let early = now + Duration::from_secs(20) - due.unwrap();
        assert!(
            early >= Duration::from_secs(9) && early <= Duration::from_secs(10),
            "{early:?}"
        );
        let (_, due) = issued(20).into_set(Some(Duration::from_secs(60)));
        assert!(due.unwrap() <= Instant::now(), "due at once");
    }

    #[test]
    fn expires_in_is_read_as_a_number_or_its_text() {
        let read = |json: &str| serde_json::from_str::<Issued>(json).unwrap().expires_in;
        assert_eq!(
            read(r#"{"access_token": "t", "expires_in": 3600}"#),
            Some(3600)
        );
        assert_eq!(
            read(r#"{"access_token": "t", "expires_in": "3599"}"#),
            Some(3599)
        );
        assert_eq!(read(r#"{"access_token": "t", "expires_in": null}"#), None);
        assert_eq!(read(r#"{"access_token": "t"}"#), None);
    }

    #[test]
    fn a_401_asks_for_a_new_token_when_it_says_invalid_token_or_nothing() {
        let with = |value: &str| {
            let mut headers = HeaderMap::new();
            headers.insert(WWW_AUTHENTICATE, HeaderValue::from_str(value).unwrap());
            headers
        };
        assert!(token_refused(&HeaderMap::new()));
        assert!(token_refused(&with(r#"Bearer realm="api""#)));
        assert!(token_refused(&with(
            r#"Bearer realm="api", error="invalid_token", error_description="expired""#
        )));
        assert!(token_refused(&with(r#"Bearer error="invalid_token""#)));
        assert!(!token_refused(&with(r#"Bearer error="invalid_request""#)));
    }

    #[test]
    fn client_credentials_are_form_encoded_before_basic() {
        use base64::Engine as _;
        let header = basic("my client", "p:ss%");
        let encoded = header.strip_prefix("Basic ").unwrap();
        let decoded = base64::engine::general_purpose::STANDARD
            .decode(encoded)
            .unwrap();
        assert_eq!(String::from_utf8(decoded).unwrap(), "my+client:p%3Ass%25");
    }

    #[test]
    fn no_secret_or_token_is_shown() {
        let session = OAuthSession::client_credentials("reporting", "s3cr3t").on_new_tokens(|_| {});
        let shown = format!("{session:?}");
        assert!(
            shown.contains("reporting") && !shown.contains("s3cr3t"),
            "{shown}"
        );
        let tokens = TokenSet::new("acc3ss", None, Some("r3fresh".into()));
        let shown = format!("{tokens:?}");
        assert!(
            !shown.contains("acc3ss") && !shown.contains("r3fresh"),
            "{shown}"
        );
        let managed = Managed::new(
            OAuthSession::refresh("device", tokens),
            OAuthEndpoints::default(),
        );
        let shown = format!("{managed:?}");
        assert!(
            !shown.contains("acc3ss") && !shown.contains("r3fresh"),
            "{shown}"
        );
    }
}
