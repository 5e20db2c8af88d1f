//! What the spec says about each operation, as data; and, with `server`,
//! the layer that attaches each request's operation before any middleware
//! around the route runs, so that nothing has to match paths again.

pub use super::vocabulary::Stability;

/// One way to satisfy an operation's security: every scheme it names, each
/// with the scopes it needs. A requirement naming no scheme lets anonymous
/// callers in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct SecurityRequirement {
    /// Names of [`SecurityScheme`]s, with the scopes each needs.
    pub schemes: &'static [(&'static str, &'static [&'static str])],
}

impl SecurityRequirement {
    /// Whether a caller without credentials satisfies `requirements` (an
    /// operation's, or the document's): there is none, or one names no
    /// scheme.
    pub fn admits_anonymous(requirements: &[SecurityRequirement]) -> bool {
        requirements.is_empty() || requirements.iter().any(|r| r.schemes.is_empty())
    }
}

/// A security scheme of the spec (`components.securitySchemes`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct SecurityScheme {
    /// Its name in the spec, as requirements name it.
    pub name: &'static str,
    /// How a caller presents it.
    pub kind: SchemeKind,
}

/// How a credential travels.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum SchemeKind {
    /// `type: http`: `Authorization: <scheme> ...` (`bearer`, `basic`, ...),
    /// the scheme in lower case.
    Http {
        /// `bearer`, `basic`, or another HTTP authentication scheme.
        scheme: &'static str,
    },
    /// `type: apiKey`: a key in a header, query parameter or cookie.
    ApiKey {
        /// Where the key goes.
        location: ApiKeyLocation,
        /// The header, parameter or cookie that carries it.
        name: &'static str,
    },
    /// `type: oauth2`: a bearer token from an OAuth 2 flow.
    OAuth2,
    /// `type: openIdConnect`: a bearer token from OpenID Connect.
    OpenIdConnect,
    /// `type: mutualTLS`: a client certificate.
    MutualTls,
}

/// Where an API key travels.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ApiKeyLocation {
    /// A request header.
    Header,
    /// A query parameter.
    Query,
    /// A cookie.
    Cookie,
}

/// One operation of the spec.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Operation {
    /// The operationId.
    pub id: &'static str,
    /// The HTTP method, upper-case.
    pub method: &'static str,
    /// The path template, relative to the server URL (`/pets/{petId}`).
    pub path: &'static str,
    /// The tag that names its route trait.
    pub tag: &'static str,
    /// How much callers may rely on it.
    pub stability: Stability,
    /// `deprecated: true`.
    pub deprecated: bool,
    /// `x-deprecated-since`: when it was deprecated (YYYY-MM-DD).
    pub deprecated_since: Option<&'static str>,
    /// `x-deprecated-sunset` or `x-sunset`: when it stops working (YYYY-MM-DD).
    pub sunset: Option<&'static str>,
    /// `x-successor`: the operationId that replaces it.
    pub successor: Option<&'static str>,
    /// The ways a caller may satisfy its security (its own `security`, or
    /// the document's); any one will do. Empty: no security at all.
    pub security: &'static [SecurityRequirement],
}

/// A webhook (OpenAPI 3.1 `webhooks`, or a 3.0 callback): a request the
/// API sends to its subscribers, not one it serves. The generated crate's
/// `webhooks` module receives and sends it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Webhook {
    /// Its name under `webhooks`.
    pub name: &'static str,
    /// The HTTP method, upper-case.
    pub method: &'static str,
    /// Its `operationId`, or its name.
    pub id: &'static str,
    /// Its `summary`.
    pub summary: Option<&'static str>,
    /// `deprecated: true`.
    pub deprecated: bool,
    /// The Rust type of its payload, as `models` names it (`Booking`).
    pub payload: Option<&'static str>,
    /// Where a receiver takes it, relative to the subscriber's URL.
    pub path: &'static str,
    /// Its deliveries are signed as Standard Webhooks say
    /// (`x-webhook-signature: standard-webhooks`).
    pub signed: bool,
}

impl Operation {
    /// Whether a caller without credentials may call it: it declares no
    /// security, or one of its requirements names no scheme.
    pub fn is_public(&self) -> bool {
        SecurityRequirement::admits_anonymous(self.security)
    }

    /// The operation a request was routed to, attached by the generated
    /// glue before any middleware around the route runs. `None` for
    /// requests no operation serves (an unknown path, a method the path does
    /// not allow).
    #[cfg(feature = "server")]
    pub fn of(request: &actix_web::HttpRequest) -> Option<&'static Operation> {
        use actix_web::HttpMessage as _;
        request.extensions().get::<&'static Operation>().copied()
    }
}

/// What the name of a route trait stands for in a generated crate built
/// without that trait's feature: a trait every type has, so that the
/// glue asks only for the traits the build serves.
#[cfg(feature = "serving")]
pub trait FeatureOff {}

#[cfg(feature = "serving")]
impl<T: ?Sized> FeatureOff for T {}

/// Whether the segment `from_end` places before the end of `path` (0 is
/// the last) reads as a `T`: what tells apart operations whose templates
/// have the same shape, by their typed path parameters.
#[cfg(feature = "serving")]
pub fn path_segment_is<T: std::str::FromStr>(path: &str, from_end: usize) -> bool {
    let Some(segment) = path.trim_end_matches('/').rsplit('/').nth(from_end) else {
        return false;
    };
    let decoded = percent_encoding::percent_decode_str(segment).decode_utf8_lossy();
    decoded.parse::<T>().is_ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    const SCHEMES: &[(&str, &[&str])] = &[("bearerAuth", &[])];

    fn operation(security: &'static [SecurityRequirement]) -> Operation {
        Operation {
            id: "listPets",
            method: "GET",
            path: "/pets",
            tag: "Pets",
            stability: Stability::Stable,
            deprecated: false,
            deprecated_since: None,
            sunset: None,
            successor: None,
            security,
        }
    }

    #[test]
    fn public_means_no_requirement_or_an_empty_one() {
        assert!(operation(&[]).is_public());
        assert!(!operation(&[SecurityRequirement { schemes: SCHEMES }]).is_public());
        let optional = &[
            SecurityRequirement { schemes: SCHEMES },
            SecurityRequirement { schemes: &[] },
        ];
        assert!(operation(optional).is_public());
    }
}
