//! Credentials for a spec's security schemes, and where a call carries
//! them: the first of an operation's security requirements whose schemes
//! all have one.

use super::operation::{
    ApiKeyLocation, Operation, SchemeKind, SecurityRequirement, SecurityScheme,
};
use reqwest::header::{HeaderMap, HeaderName, HeaderValue};
use std::collections::HashMap;
use std::fmt;

/// Credentials for one security scheme of the spec.
#[derive(Clone)]
pub enum Credential {
    /// A token sent as `Authorization: Bearer <token>` (HTTP bearer,
    /// OAuth 2, OpenID Connect).
    Token(String),
    /// HTTP basic authentication.
    Basic {
        /// The user name.
        user: String,
        /// The password.
        password: String,
    },
    /// An API key, sent where the scheme says (header, query or cookie).
    Key(String),
}

impl fmt::Debug for Credential {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // Secrets never reach logs.
        match self {
            Credential::Token(_) => f.write_str("Token(***)"),
            Credential::Basic { user, .. } => write!(f, "Basic({user}, ***)"),
            Credential::Key(_) => f.write_str("Key(***)"),
        }
    }
}

/// What a call sends that credentials go in.
pub(crate) struct Sent<'a> {
    pub headers: &'a mut HeaderMap,
    pub query: &'a mut Vec<(String, String)>,
    pub cookies: &'a mut Vec<(String, String)>,
}

/// Applies the first of the operation's security requirements whose
/// schemes all have credentials; none, if none has. A `mutualTLS`
/// scheme needs none here: the client certificate belongs to the
/// HTTP client the caller built.
pub(crate) fn authorize(
    schemes: &[SecurityScheme],
    credentials: &HashMap<&'static str, Credential>,
    leased: &[(&'static str, Credential)],
    operation: &Operation,
    sent: &mut Sent<'_>,
) {
    let credential = |name: &str| {
        credentials
            .get(name)
            .or_else(|| leased.iter().find(|(n, _)| *n == name).map(|(_, c)| c))
    };
    let usable = requirement(schemes, operation, |scheme| credential(scheme).is_some());
    for (name, _) in usable.map_or(&[][..], |r| r.schemes) {
        let (Some(scheme), Some(credential)) =
            (schemes.iter().find(|s| s.name == *name), credential(name))
        else {
            continue;
        };
        let authorization = |value: String| HeaderValue::from_str(&value).ok();
        match (scheme.kind, credential) {
            (SchemeKind::ApiKey { location, name }, Credential::Key(key)) => match location {
                ApiKeyLocation::Header => {
                    if let (Ok(name), Ok(value)) = (
                        HeaderName::from_bytes(name.as_bytes()),
                        HeaderValue::from_str(key),
                    ) {
                        sent.headers.insert(name, value);
                    }
                }
                ApiKeyLocation::Query => sent.query.push((name.to_string(), key.clone())),
                ApiKeyLocation::Cookie => sent.cookies.push((name.to_string(), key.clone())),
            },
            (_, Credential::Basic { user, password }) => {
                use base64::Engine as _;
                let encoded =
                    base64::engine::general_purpose::STANDARD.encode(format!("{user}:{password}"));
                if let Some(value) = authorization(format!("Basic {encoded}")) {
                    sent.headers.insert(reqwest::header::AUTHORIZATION, value);
                }
            }
            (_, Credential::Token(token) | Credential::Key(token)) => {
                if let Some(value) = authorization(format!("Bearer {token}")) {
                    sent.headers.insert(reqwest::header::AUTHORIZATION, value);
                }
            }
        }
    }
}

/// The first of the operation's security requirements whose schemes all
/// have a credential (`has`) or need none here: a `mutualTLS` scheme's
/// certificate belongs to the HTTP client the caller built.
pub(crate) fn requirement(
    schemes: &[SecurityScheme],
    operation: &Operation,
    has: impl Fn(&str) -> bool,
) -> Option<&'static SecurityRequirement> {
    let by_transport = |name: &str| {
        schemes
            .iter()
            .any(|s| s.name == name && matches!(s.kind, SchemeKind::MutualTls))
    };
    operation.security.iter().find(|r| {
        r.schemes
            .iter()
            .all(|(scheme, _)| has(scheme) || by_transport(scheme))
    })
}
