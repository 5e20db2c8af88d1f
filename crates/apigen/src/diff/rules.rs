//! Every rule of the evolution gate, in one typed list: its id (what
//! findings and `--format json` carry), how severe it is, and what it
//! means. `apigen diff --rules` prints the list; a test holds every rule
//! to a base/revision case of its own.

use super::Level;

/// Where a value changed, for the rules about values: the family a value
/// rule's id starts with (`request-parameter-...`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Place {
    RequestParameter,
    RequestBody,
    RequestProperty,
    ResponseBody,
    ResponseProperty,
    ResponseHeader,
}

impl Place {
    pub const ALL: [Place; 6] = [
        Place::RequestParameter,
        Place::RequestBody,
        Place::RequestProperty,
        Place::ResponseBody,
        Place::ResponseProperty,
        Place::ResponseHeader,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Place::RequestParameter => "request-parameter",
            Place::RequestBody => "request-body",
            Place::RequestProperty => "request-property",
            Place::ResponseBody => "response-body",
            Place::ResponseProperty => "response-property",
            Place::ResponseHeader => "response-header",
        }
    }

    /// Whether a client sends it (else it receives it).
    pub fn is_request(self) -> bool {
        matches!(
            self,
            Place::RequestParameter | Place::RequestBody | Place::RequestProperty
        )
    }

    fn what(self) -> &'static str {
        match self {
            Place::RequestParameter => "a request parameter",
            Place::RequestBody => "a request body",
            Place::RequestProperty => "a request body's property",
            Place::ResponseBody => "a response body",
            Place::ResponseProperty => "a response body's property",
            Place::ResponseHeader => "a response header",
        }
    }
}

/// How a value changed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Change {
    TypeChanged,
    BecameNotNullable,
    BecameNullable,
    MaxLengthDecreased,
    MinLengthIncreased,
    MaxItemsDecreased,
    MinItemsIncreased,
    MaxDecreased,
    MinIncreased,
    PatternAdded,
    PatternChanged,
    EnumValueRemoved,
    EnumValueAdded,
    OneOfRemoved,
    OneOfAdded,
}

impl Change {
    /// The changes a request may not make (it must keep accepting what it
    /// accepted).
    const REQUEST: [Change; 12] = [
        Change::TypeChanged,
        Change::BecameNotNullable,
        Change::MaxLengthDecreased,
        Change::MinLengthIncreased,
        Change::MaxItemsDecreased,
        Change::MinItemsIncreased,
        Change::MaxDecreased,
        Change::MinIncreased,
        Change::PatternAdded,
        Change::PatternChanged,
        Change::EnumValueRemoved,
        Change::OneOfRemoved,
    ];
    /// The changes a response may not make (it must not surprise callers).
    const RESPONSE: [Change; 4] = [
        Change::TypeChanged,
        Change::BecameNullable,
        Change::EnumValueAdded,
        Change::OneOfAdded,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Change::TypeChanged => "type-changed",
            Change::BecameNotNullable => "became-not-nullable",
            Change::BecameNullable => "became-nullable",
            Change::MaxLengthDecreased => "max-length-decreased",
            Change::MinLengthIncreased => "min-length-increased",
            Change::MaxItemsDecreased => "max-items-decreased",
            Change::MinItemsIncreased => "min-items-increased",
            Change::MaxDecreased => "max-decreased",
            Change::MinIncreased => "min-increased",
            Change::PatternAdded => "pattern-added",
            Change::PatternChanged => "pattern-changed",
            Change::EnumValueRemoved => "enum-value-removed",
            Change::EnumValueAdded => "enum-value-added",
            Change::OneOfRemoved => "one-of-removed",
            Change::OneOfAdded => "one-of-added",
        }
    }

    fn describe(self) -> &'static str {
        match self {
            Change::TypeChanged => "its type changed to one that does not hold the old values",
            Change::BecameNotNullable => "it no longer accepts null",
            Change::BecameNullable => "it may be null now",
            Change::MaxLengthDecreased => "its maxLength is lower",
            Change::MinLengthIncreased => "its minLength is higher",
            Change::MaxItemsDecreased => "its maxItems is lower",
            Change::MinItemsIncreased => "its minItems is higher",
            Change::MaxDecreased => "its maximum is lower (or became exclusive)",
            Change::MinIncreased => "its minimum is higher (or became exclusive)",
            Change::PatternAdded => "it must match a pattern now",
            Change::PatternChanged => "its pattern changed",
            Change::EnumValueRemoved => "an enum value is no longer accepted",
            Change::EnumValueAdded => "it may take an enum value callers have not seen",
            Change::OneOfRemoved => "one of its `oneOf`/`anyOf` shapes is no longer accepted",
            Change::OneOfAdded => "it may take a `oneOf`/`anyOf` shape callers have not seen",
        }
    }

    fn severity(self) -> Severity {
        match self {
            Change::PatternChanged | Change::EnumValueAdded | Change::OneOfAdded => {
                Severity::Possibly
            }
            _ => Severity::Breaking,
        }
    }
}

/// How severe a rule's findings are.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Severity {
    /// Breaks callers: an error for a stable operation, a warning for a
    /// beta one, information for one less stable.
    Breaking,
    /// May break callers: as breaking, but a warning at most.
    Possibly,
    /// Breaks callers whatever the stability: at least a warning.
    AtLeastWarning,
    /// Breaks a promise the document made (a sunset, a stability): always
    /// an error.
    Error,
    /// Information: nothing breaks.
    Info,
    /// Decided where the change is found; the description says how.
    Depends,
}

impl Severity {
    /// The level of a finding, in an operation whose breaking changes are
    /// at `breaking`.
    pub fn level(self, breaking: Level) -> Level {
        match self {
            Severity::Breaking | Severity::Depends => breaking,
            Severity::Possibly => breaking.min(Level::Warning),
            Severity::AtLeastWarning => breaking.max(Level::Warning),
            Severity::Error => Level::Error,
            Severity::Info => Level::Info,
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Breaking => "breaking",
            Severity::Possibly => "possibly breaking",
            Severity::AtLeastWarning => "breaking, at least a warning",
            Severity::Error => "error",
            Severity::Info => "info",
            Severity::Depends => "depends",
        }
    }
}

/// Declares [`Rule`] from one table: each rule's variant, id, severity and
/// description, written once; the list of rules is the table's.
macro_rules! rules {
    ($($variant:ident = $id:literal, $severity:ident, $description:expr;)*) => {
        /// A rule of the evolution gate.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum Rule {
            $($variant,)*
            /// A value changed at a place.
            Value(Place, Change),
        }

        impl Rule {
            /// The rules that are not about a value, in the table's order.
            const FIXED: &'static [Rule] = &[$(Rule::$variant,)*];

            /// The rule's id, as findings carry it.
            pub fn id(self) -> String {
                match self {
                    Rule::Value(place, change) => {
                        format!("{}-{}", place.as_str(), change.as_str())
                    }
                    $(Rule::$variant => $id.to_string(),)*
                }
            }

            /// How severe its findings are.
            pub fn severity(self) -> Severity {
                match self {
                    Rule::Value(_, change) => change.severity(),
                    $(Rule::$variant => Severity::$severity,)*
                }
            }

            /// What the rule reports, in one line.
            pub fn description(self) -> String {
                match self {
                    Rule::Value(place, change) => {
                        format!("{} changed: {}", place.what(), change.describe())
                    }
                    $(Rule::$variant => $description.to_string(),)*
                }
            }
        }
    };
}

rules! {
    // Operations.
    ApiAdded = "api-added", Info,
        "an operation is new";
    ApiRemovedWithoutDeprecation = "api-removed-without-deprecation", Breaking,
        "an operation is removed without having been deprecated";
    ApiRemovedBeforeSunset = "api-removed-before-sunset", Error,
        "a deprecated operation is removed before its sunset date";
    ApiRemovedAfterSunset = "api-removed-after-sunset", Info,
        "a deprecated operation is removed after its sunset date";
    ApiRemovedDeprecated = "api-removed-deprecated", Info,
        "a deprecated operation without a sunset date is removed";
    ApiRemovedSunsetUnreadable = "api-removed-sunset-unreadable", Error,
        "a deprecated operation is removed whose sunset date cannot be read: whether it has passed is unknown";
    // Lifecycle.
    ApiStabilityDecreased = "api-stability-decreased", Error,
        "an operation's stability is lowered (stable to beta, say)";
    ApiStabilityIncreased = "api-stability-increased", Info,
        "an operation's stability is raised";
    ApiDeprecated = "api-deprecated", Info,
        "an operation is deprecated";
    ApiDeprecatedWithoutSunset = "api-deprecated-without-sunset", Error,
        "a stable operation is deprecated without a sunset date";
    ApiDeprecationWithdrawn = "api-deprecation-withdrawn", Info,
        "an operation is no longer deprecated";
    ApiSunsetDateChangedTooSmall = "api-sunset-date-changed-too-small", Error,
        "a sunset date moved earlier";
    ApiSunsetDateExtended = "api-sunset-date-extended", Info,
        "a sunset date moved later";
    LifecycleAnnotationUnreadable = "lifecycle-annotation-unreadable", Depends,
        "a stability, sunset or successor cannot be read: an error in the revision, a warning in the base";
    ConstructNotCompared = "construct-not-compared", Possibly,
        "a construct the generator left out, so changes in it go unseen";
    // Security.
    ApiSecurityAdded = "api-security-added", AtLeastWarning,
        "callers who got in before no longer do (a new requirement or scope); a policy of this gate: oasdiff calls it information";
    ApiSecurityRelaxed = "api-security-relaxed", Info,
        "the operation lets in callers it did not before";
    // Parameters.
    NewRequiredRequestParameter = "new-required-request-parameter", Breaking,
        "a required request parameter is new";
    NewOptionalRequestParameter = "new-optional-request-parameter", Info,
        "an optional request parameter is new";
    RequestParameterBecameRequired = "request-parameter-became-required", Breaking,
        "a request parameter became required";
    RequestParameterStyleChanged = "request-parameter-style-changed", Breaking,
        "a request parameter is serialised another way (style or explode)";
    RequestParameterRemoved = "request-parameter-removed", Info,
        "a request parameter is no longer read";
    RequestParameterRemovedBeforeSunset = "request-parameter-removed-before-sunset", Error,
        "a deprecated request parameter is removed before its sunset date";
    // Request bodies.
    RequestBodyAddedRequired = "request-body-added-required", Breaking,
        "a required request body is new";
    RequestBodyAddedOptional = "request-body-added-optional", Info,
        "an optional request body is new";
    RequestBodyRemoved = "request-body-removed", Info,
        "the request body is no longer read";
    RequestBodyBecameRequired = "request-body-became-required", Breaking,
        "the request body became required";
    RequestBodyMediaTypeChanged = "request-body-media-type-changed", Breaking,
        "the request body no longer accepts its media type";
    NewRequiredRequestProperty = "new-required-request-property", Breaking,
        "a required property of a request body is new";
    NewOptionalRequestProperty = "new-optional-request-property", Info,
        "an optional property of a request body is new";
    RequestPropertyBecameRequired = "request-property-became-required", Breaking,
        "a property of a request body became required";
    RequestPropertyRemoved = "request-property-removed", Depends,
        "a property of a request body is removed: breaking where unknown properties are refused, else info";
    RequestAdditionalPropertiesRefused = "request-additional-properties-refused", Breaking,
        "a request body refuses unknown properties now";
    // Responses.
    ResponseSuccessStatusRemoved = "response-success-status-removed", Breaking,
        "a success response's status is removed";
    ResponseNonSuccessStatusRemoved = "response-non-success-status-removed", Info,
        "an error response's status is removed";
    ResponseStatusAdded = "response-status-added", Info,
        "a response status is new";
    ResponseBodyRemoved = "response-body-removed", Breaking,
        "a response no longer has a body";
    ResponseBodyAdded = "response-body-added", Info,
        "a response has a body now";
    ResponseMediaTypeChanged = "response-media-type-changed", Breaking,
        "a response's media type changed";
    ResponseRequiredHeaderRemoved = "response-required-header-removed", Breaking,
        "a response header that was always sent is removed";
    ResponseOptionalHeaderRemoved = "response-optional-header-removed", Info,
        "an optional response header is removed";
    ResponseHeaderBecameOptional = "response-header-became-optional", Breaking,
        "a response header is no longer always sent";
    ResponseRequiredPropertyRemoved = "response-required-property-removed", Breaking,
        "a property a response always had is removed";
    ResponseOptionalPropertyRemoved = "response-optional-property-removed", Info,
        "an optional property of a response is removed";
    ResponsePropertyBecameOptional = "response-property-became-optional", Breaking,
        "a property a response always had may be absent now";
    ResponsePropertyAdded = "response-property-added", Info,
        "a response has a new property";
    ResponseEventKindRemoved = "response-event-kind-removed", Possibly,
        "an event stream no longer sends a kind of event (a `oneOf` shape of its data): \
                 subscribers relying on it stop receiving it";
    // Paging.
    PagingChanged = "paging-changed", Breaking,
        "how the operation pages changed, or it no longer pages: the client's page walks break";
    PagingAdded = "paging-added", Info,
        "the operation pages: the client gains page and item streams";
}

impl Rule {
    /// Every rule, in the order `--rules` lists them: the table's, then a
    /// value rule for each change a place may not make.
    pub fn all() -> Vec<Rule> {
        let mut all = Rule::FIXED.to_vec();
        for place in Place::ALL {
            let changes: &[Change] = if place.is_request() {
                &Change::REQUEST
            } else {
                &Change::RESPONSE
            };
            all.extend(changes.iter().map(|c| Rule::Value(place, *c)));
        }
        all
    }

    /// The rule whose id this is.
    pub fn from_id(id: &str) -> Option<Rule> {
        Rule::all().into_iter().find(|r| r.id() == id)
    }
}

impl std::fmt::Display for Rule {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.id())
    }
}

/// The list `apigen diff --rules` prints: id, severity, description.
pub fn listing() -> String {
    let rules = Rule::all();
    let width = rules.iter().map(|r| r.id().len()).max().unwrap_or(0);
    rules
        .iter()
        .map(|r| {
            format!(
                "{:width$}  {:<28}  {}\n",
                r.id(),
                r.severity().as_str(),
                r.description()
            )
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_are_unique_and_read_back() {
        let all = Rule::all();
        let ids: std::collections::BTreeSet<String> = all.iter().map(|r| r.id()).collect();
        assert_eq!(ids.len(), all.len());
        for rule in all {
            assert_eq!(Rule::from_id(&rule.id()), Some(rule));
        }
    }
}
