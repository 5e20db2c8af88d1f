//! The words a document and generated code share: how stable an operation
//! is, how a parameter is spelled, and what else a JSON body is read as.
//! One definition, read by the runtime and by the generator itself (which
//! compiles this file as a module of its own), so that the names generated
//! code uses are the ones defined here. It depends on nothing.

/// The version of the runtime's plumbing (`__private`): what code generated
/// against it calls. A generated crate on the runtime crate asserts at
/// compile time that it equals the one it was generated for. It changes
/// only with the runtime's minor version (`0.x` before 1.0), never in a
/// patch release.
pub const PLUMBING: u32 = 1;

/// An operation's stability: `x-stability` (`experimental`, `alpha`,
/// `beta`, `stable`) or `x-stability-level` (`draft`, `alpha`, `beta`,
/// `stable`). Without either, an operation is stable.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub enum Stability {
    /// `draft`: a sketch; anything may change.
    Draft,
    /// `experimental`: may change or go away without notice.
    Experimental,
    /// `alpha`: may change without notice.
    Alpha,
    /// `beta`: changes are announced, but may break callers.
    Beta,
    /// Changes never break callers within a major version. An operation
    /// that says nothing is stable.
    #[default]
    Stable,
}

impl Stability {
    /// The value as the spec writes it.
    pub fn as_str(self) -> &'static str {
        match self {
            Stability::Draft => "draft",
            Stability::Experimental => "experimental",
            Stability::Alpha => "alpha",
            Stability::Beta => "beta",
            Stability::Stable => "stable",
        }
    }
}

/// How a parameter value is spelled (OpenAPI's `style`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Style {
    /// `a,b,c`: comma-separated (path and header default).
    Simple,
    /// `.a.b`: dot-prefixed (path only).
    Label,
    /// `;id=1;id=2`: semicolon-prefixed (path only).
    Matrix,
    /// `id=1&id=2` or `id=1,2` (query and cookie default).
    Form,
    /// `a b c` (query arrays).
    SpaceDelimited,
    /// `a|b|c` (query arrays).
    PipeDelimited,
    /// `name[key]=value` (query objects).
    DeepObject,
    /// The value as JSON text: a parameter described by `content`
    /// (`application/json`), or one whose shape no style can carry (an
    /// object holding arrays of objects, say).
    Json,
    /// The whole query string as JSON text, percent-encoded (OpenAPI 3.2's
    /// `in: querystring` with JSON content).
    QueryString,
}

/// Whether a parameter's array or object is spelled exploded (OpenAPI's
/// `explode`): `id=1&id=2` rather than `id=1,2`, `a=1,b=2` rather than
/// `a,1,b,2`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Explode {
    /// `explode: true` (the `form` style's default).
    Yes,
    /// `explode: false` (every other style's default).
    No,
}

impl Explode {
    /// Whether it is exploded.
    pub fn on(self) -> bool {
        self == Explode::Yes
    }
}

/// A media type a JSON request body is also read in, chosen by the
/// request's `Content-Type` (the client sends JSON).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Also {
    /// `application/x-www-form-urlencoded`.
    Form,
    /// `application/xml`, `text/xml` or a `+xml` type: elements (and
    /// attributes) are properties, a wrapped array's elements its items.
    Xml,
}

impl Also {
    /// The one a media type's essence (lower case, no parameters) names.
    pub fn of(essence: &str) -> Option<Also> {
        match essence {
            "application/x-www-form-urlencoded" => Some(Also::Form),
            "application/xml" | "text/xml" => Some(Also::Xml),
            _ if essence.ends_with("+xml") => Some(Also::Xml),
            _ => None,
        }
    }
}
