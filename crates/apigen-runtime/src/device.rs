//! The OAuth 2.0 device authorization grant (RFC 8628; OpenAPI 3.2's
//! `deviceAuthorization` flow): a client on a device without a browser
//! signs its user in by showing a short code, which the user enters on any
//! other device, and waits until the user has approved.

use super::client::oauth::{metadata, read, refusal, Issued, OAuthSession, TokenSet};
use super::{ClientError, Core, Credential};
use std::borrow::Cow;
use std::fmt;
use std::time::{Duration, Instant};

/// Where a security scheme's device flow asks: as the spec writes them
/// (absolute, or relative to the client's base URL), or as the
/// authorization server's metadata gives them ([`DeviceFlow::discover`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DeviceFlow {
    /// The `deviceAuthorizationUrl`: where the code is asked for.
    pub device_authorization_url: Cow<'static, str>,
    /// The `tokenUrl`: where the token is waited for.
    pub token_url: Cow<'static, str>,
}

/// What the authorization server answers: the code to show the user, and
/// where they enter it.
#[derive(Clone, serde::Deserialize)]
pub struct DeviceCode {
    /// The code the client polls with; never shown (nor printed).
    device_code: String,
    /// The code the user enters.
    pub user_code: String,
    /// Where the user enters it.
    pub verification_uri: String,
    /// The same with the code in it, when the server offers one (for a QR
    /// code, say).
    #[serde(default)]
    pub verification_uri_complete: Option<String>,
    /// How many seconds the code is good for.
    pub expires_in: u64,
    /// How many seconds to wait between polls (5 when the server says
    /// nothing).
    #[serde(default = "five")]
    pub interval: u64,
}

fn five() -> u64 {
    5
}

impl fmt::Debug for DeviceCode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("DeviceCode")
            .field("user_code", &self.user_code)
            .field("verification_uri", &self.verification_uri)
            .field("expires_in", &self.expires_in)
            .field("interval", &self.interval)
            .finish_non_exhaustive()
    }
}

/// What a poll tells the client to do next.
#[derive(Debug, PartialEq, Eq)]
enum Next {
    /// Wait this long, then poll again.
    Wait(Duration),
    /// Stop: the server refused (denied, expired, or another error).
    Refused,
}

/// The answer to a poll that gave no token: keep waiting (`authorization_
/// pending`), wait 5 s longer from now on (`slow_down`), or stop.
fn next(error: &str, interval: Duration) -> Next {
    match error {
        "authorization_pending" => Next::Wait(interval),
        "slow_down" => Next::Wait(interval + Duration::from_secs(5)),
        _ => Next::Refused,
    }
}

impl DeviceFlow {
    /// The flow at the two URLs a spec writes.
    pub const fn new(device_authorization_url: &'static str, token_url: &'static str) -> Self {
        DeviceFlow {
            device_authorization_url: Cow::Borrowed(device_authorization_url),
            token_url: Cow::Borrowed(token_url),
        }
    }

    /// The flow an authorization server offers, read from its metadata at
    /// `metadata_url` (OpenAPI 3.2's `oauth2MetadataUrl`; RFC 8414's
    /// `device_authorization_endpoint` and `token_endpoint`). Metadata
    /// without both is [`ClientError::Authorization`]
    /// `unsupported_grant_type`; a relative URL is relative to the base URL.
    pub async fn discover(core: &Core, metadata_url: &str) -> Result<Self, ClientError> {
        let metadata = metadata(core, metadata_url).await?;
        match (
            metadata.device_authorization_endpoint,
            metadata.token_endpoint,
        ) {
            (Some(device), Some(token)) => Ok(DeviceFlow {
                device_authorization_url: Cow::Owned(device),
                token_url: Cow::Owned(token),
            }),
            _ => Err(ClientError::Authorization {
                error: "unsupported_grant_type".into(),
                description: Some(format!(
                    "the authorization server's metadata ({metadata_url}) names no \
                     `device_authorization_endpoint` and `token_endpoint`"
                )),
            }),
        }
    }

    /// Signs in through this flow: asks for a code (`scopes` joined as the
    /// `scope`), calls `show` with it, then polls for the token at the
    /// interval the server asks (5 s longer after each `slow_down`) until
    /// the user approves, refuses, or the code expires. The tokens the
    /// server issued.
    pub async fn authorize(
        &self,
        core: &Core,
        client_id: &str,
        scopes: &[&str],
        show: impl FnOnce(&DeviceCode),
    ) -> Result<TokenSet, ClientError> {
        let scope = scopes.join(" ");
        let mut form = vec![("client_id", client_id)];
        if !scope.is_empty() {
            form.push(("scope", &scope));
        }
        let url = core.resolve(&self.device_authorization_url)?;
        let response = core.http_client().post(url).form(&form).send().await;
        let code: DeviceCode = read(response.map_err(ClientError::Transport)?).await?;
        show(&code);
        let expires = Instant::now() + Duration::from_secs(code.expires_in);
        let mut interval = Duration::from_secs(code.interval);
        let token_url = core.resolve(&self.token_url)?;
        loop {
            tokio::time::sleep(interval).await;
            let poll = [
                ("grant_type", "urn:ietf:params:oauth:grant-type:device_code"),
                ("device_code", code.device_code.as_str()),
                ("client_id", client_id),
            ];
            let response = core
                .http_client()
                .post(token_url.clone())
                .form(&poll)
                .send()
                .await;
            let response = response.map_err(ClientError::Transport)?;
            if response.status().is_success() {
                let issued: Issued = read(response).await?;
                return Ok(issued.into_set(None).0);
            }
            let refusal = refusal(response).await?;
            match next(&refusal.error, interval) {
                Next::Wait(wait) if Instant::now() + wait < expires => interval = wait,
                Next::Wait(_) => {
                    return Err(ClientError::Authorization {
                        error: "expired_token".into(),
                        description: Some("the code expired before the user approved".into()),
                    })
                }
                Next::Refused => {
                    return Err(ClientError::Authorization {
                        error: refusal.error,
                        description: refusal.error_description,
                    })
                }
            }
        }
    }

    /// Signs in as [`DeviceFlow::authorize`] does, and keeps the tokens as
    /// the credential of the scheme named `scheme`: with a refresh token,
    /// a session that renews the access token at the flow's `tokenUrl`
    /// before it expires; without, the access token alone. The tokens,
    /// for the program to keep ([`OAuthSession::refresh`] starts again
    /// from them).
    pub async fn sign_in(
        &self,
        core: &mut Core,
        scheme: &'static str,
        client_id: &str,
        scopes: &[&str],
        show: impl FnOnce(&DeviceCode),
    ) -> Result<TokenSet, ClientError> {
        let tokens = self.authorize(core, client_id, scopes, show).await?;
        if tokens.refresh_token.is_some() {
            let session = OAuthSession::refresh(client_id, tokens.clone())
                .token_url(self.token_url.to_string());
            core.set_session(scheme, Default::default(), session);
        } else {
            core.set_credential(scheme, Credential::Token(tokens.access_token.clone()));
        }
        Ok(tokens)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_slow_down_waits_five_seconds_longer_and_other_errors_stop() {
        let second = Duration::from_secs(1);
        assert_eq!(next("authorization_pending", second), Next::Wait(second));
        assert_eq!(
            next("slow_down", second),
            Next::Wait(Duration::from_secs(6))
        );
        for error in ["access_denied", "expired_token", "invalid_client"] {
            assert_eq!(next(error, second), Next::Refused, "{error}");
        }
    }

    #[test]
    fn the_device_code_is_never_printed() {
        let code: DeviceCode = serde_json::from_str(
            r#"{"device_code": "secret-handle", "user_code": "WDJB-MJHT", "verification_uri": "https://example.com/device", "expires_in": 1800}"#,
        )
        .unwrap();
        assert_eq!(code.interval, 5, "the default interval");
        let printed = format!("{code:?}");
        assert!(
            printed.contains("WDJB-MJHT") && !printed.contains("secret-handle"),
            "{printed}"
        );
    }
}
