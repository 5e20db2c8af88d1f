//! Security: the document's schemes, and what each operation requires.

use super::pointer::Node;
use super::Lowerer;
use crate::diag::Pointer;
use crate::ir::*;

impl Lowerer<'_> {
    /// `components.securitySchemes`, in document order.
    pub(super) fn security_schemes(&mut self) -> Vec<SecurityScheme> {
        use openapiv3::{APIKeyLocation, SecurityScheme as S};
        let mut out: Vec<SecurityScheme> = self
            .mutual_tls
            .iter()
            .map(|name| SecurityScheme {
                name: name.clone(),
                kind: SchemeKind::MutualTls,
                doc: Some("Enforced by the transport: the client presents a certificate.".into()),
                deprecated: false,
                device: None,
                tokens: None,
            })
            .collect();
        let declared = self.doc.components.iter().flat_map(|c| &c.security_schemes);
        for (name, scheme) in declared {
            let at = Pointer::root()
                .join("components")
                .join("securitySchemes")
                .join(name);
            let Some((scheme, _)) = self.resolve(scheme, Node::security_scheme, &at) else {
                continue;
            };
            let extensions = match scheme {
                S::HTTP { extensions, .. }
                | S::APIKey { extensions, .. }
                | S::OAuth2 { extensions, .. }
                | S::OpenIDConnect { extensions, .. } => extensions,
            };
            let deprecated = extensions
                .get(crate::load::SCHEME_DEPRECATED)
                .and_then(serde_json::Value::as_bool)
                .unwrap_or(false);
            let (kind, doc) = match scheme {
                S::HTTP {
                    scheme,
                    description,
                    ..
                } => (SchemeKind::Http(scheme.to_ascii_lowercase()), description),
                S::APIKey {
                    location,
                    name,
                    description,
                    ..
                } => {
                    let location = match location {
                        APIKeyLocation::Header => ParamLocation::Header,
                        APIKeyLocation::Query => ParamLocation::Query,
                        APIKeyLocation::Cookie => ParamLocation::Cookie,
                    };
                    let name = name.clone();
                    (SchemeKind::ApiKey { location, name }, description)
                }
                S::OAuth2 { description, .. } => (SchemeKind::OAuth2, description),
                S::OpenIDConnect { description, .. } => (SchemeKind::OpenIdConnect, description),
            };
            let metadata = extensions
                .get(crate::load::OAUTH2_METADATA_URL)
                .and_then(serde_json::Value::as_str);
            let (device, tokens) = match scheme {
                S::OAuth2 { flows, .. } => (
                    self.device_flow(flows, metadata, &at),
                    token_endpoints(flows, metadata),
                ),
                _ => (None, None),
            };
            out.push(SecurityScheme {
                name: name.clone(),
                kind,
                doc: doc.clone(),
                deprecated,
                device,
                tokens,
            });
        }
        out
    }

    /// An OAuth 2 scheme's (at `at`) device authorization flow: 3.2's
    /// `deviceAuthorization` (carried by the load stage) where it writes
    /// its two URLs, else the one the server's metadata at
    /// `oauth2MetadataUrl` offers, read at sign-in. A flow written without
    /// its URLs and without metadata to find them is noted and left out.
    fn device_flow(
        &mut self,
        flows: &openapiv3::OAuth2Flows,
        metadata: Option<&str>,
        at: &Pointer,
    ) -> Option<DeviceFlow> {
        let flow = flows.extensions.get(crate::load::DEVICE_FLOW);
        let text = |key: &str| flow?.get(key).and_then(serde_json::Value::as_str);
        let scopes = flow
            .and_then(|flow| flow.get("scopes"))
            .and_then(serde_json::Value::as_object)
            .map(|scopes| scopes.keys().cloned().collect())
            .unwrap_or_default();
        let endpoints = match (text("deviceAuthorizationUrl"), text("tokenUrl"), metadata) {
            (Some(authorization), Some(token), _) => DeviceEndpoints::Written {
                authorization_url: authorization.to_string(),
                token_url: token.to_string(),
            },
            (_, _, Some(metadata)) => DeviceEndpoints::Metadata(metadata.to_string()),
            _ if flow.is_some() => {
                self.note(
                    &at.join("flows").join("deviceAuthorization"),
                    "a device authorization flow needs its `deviceAuthorizationUrl` and `tokenUrl`, \
                     or the scheme's `oauth2MetadataUrl`: the client has no sign-in through it",
                );
                return None;
            }
            _ => return None,
        };
        Some(DeviceFlow { endpoints, scopes })
    }

    /// Security requirements as the document writes them at `at`; each
    /// scheme named must be declared.
    pub(super) fn requirements(
        &mut self,
        requirements: &[openapiv3::SecurityRequirement],
        at: &Pointer,
    ) -> Vec<SecurityRequirement> {
        let declared = self.doc.components.as_ref().map(|c| &c.security_schemes);
        let mut out = Vec::new();
        'requirements: for (i, requirement) in requirements.iter().enumerate() {
            let mut schemes = Vec::new();
            for (scheme, scopes) in requirement {
                let known = declared.is_some_and(|d| d.contains_key(scheme))
                    || self.mutual_tls.contains(scheme);
                if !known {
                    // Nothing says how to satisfy it: this way in is left
                    // out, the others stay.
                    self.assume(
                        &at.join(i).join(scheme),
                        format!(
                            "security scheme `{scheme}` is not declared in \
                             `components.securitySchemes`"
                        ),
                        "this requirement is left out",
                    );
                    continue 'requirements;
                }
                schemes.push((scheme.clone(), scopes.clone()));
            }
            out.push(schemes);
        }
        out
    }
}

/// Where an OAuth 2 scheme's tokens are got and renewed: the
/// `clientCredentials` flow's `tokenUrl`; for a refresh token, the first
/// `refreshUrl`, else the `tokenUrl` of the first flow that issues refresh
/// tokens (authorization code, device, password); the metadata's URL.
/// `None` when it says none of them.
fn token_endpoints(
    flows: &openapiv3::OAuth2Flows,
    metadata: Option<&str>,
) -> Option<TokenEndpoints> {
    let device = flows
        .extensions
        .get(crate::load::DEVICE_FLOW)
        .and_then(|flow| flow.get("tokenUrl"))
        .and_then(serde_json::Value::as_str);
    let code = flows.authorization_code.as_ref();
    let password = flows.password.as_ref();
    let credentials = flows.client_credentials.as_ref();
    let refresh = [
        code.and_then(|f| f.refresh_url.as_deref()),
        password.and_then(|f| f.refresh_url.as_deref()),
        flows
            .implicit
            .as_ref()
            .and_then(|f| f.refresh_url.as_deref()),
        credentials.and_then(|f| f.refresh_url.as_deref()),
        code.map(|f| f.token_url.as_str()),
        device,
        password.map(|f| f.token_url.as_str()),
    ]
    .into_iter()
    .flatten()
    .find(|url| !url.is_empty());
    let endpoints = TokenEndpoints {
        client_credentials: credentials
            .map(|f| f.token_url.clone())
            .filter(|url| !url.is_empty()),
        refresh: refresh.map(str::to_string),
        metadata: metadata.map(str::to_string),
    };
    (endpoints != TokenEndpoints::default()).then_some(endpoints)
}
