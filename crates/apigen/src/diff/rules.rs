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

/// A rule of the evolution gate.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Rule {
    // Operations.
    ApiAdded,
    ApiRemovedWithoutDeprecation,
    ApiRemovedBeforeSunset,
    ApiRemovedAfterSunset,
    ApiRemovedDeprecated,
    // Lifecycle.
    ApiStabilityDecreased,
    ApiStabilityIncreased,
    ApiDeprecated,
    ApiDeprecatedWithoutSunset,
    ApiDeprecationWithdrawn,
    ApiSunsetDateChangedTooSmall,
    ApiSunsetDateExtended,
    LifecycleAnnotationUnreadable,
    ConstructNotCompared,
    // Security.
    ApiSecurityAdded,
    ApiSecurityRelaxed,
    // Parameters.
    NewRequiredRequestParameter,
    NewOptionalRequestParameter,
    RequestParameterBecameRequired,
    RequestParameterStyleChanged,
    RequestParameterRemoved,
    RequestParameterRemovedBeforeSunset,
    // Request bodies.
    RequestBodyAddedRequired,
    RequestBodyAddedOptional,
    RequestBodyRemoved,
    RequestBodyBecameRequired,
    RequestBodyMediaTypeChanged,
    NewRequiredRequestProperty,
    NewOptionalRequestProperty,
    RequestPropertyBecameRequired,
    RequestPropertyRemoved,
    RequestAdditionalPropertiesRefused,
    // Responses.
    ResponseSuccessStatusRemoved,
    ResponseNonSuccessStatusRemoved,
    ResponseStatusAdded,
    ResponseBodyRemoved,
    ResponseBodyAdded,
    ResponseMediaTypeChanged,
    ResponseRequiredHeaderRemoved,
    ResponseOptionalHeaderRemoved,
    ResponseHeaderBecameOptional,
    ResponseRequiredPropertyRemoved,
    ResponseOptionalPropertyRemoved,
    ResponsePropertyBecameOptional,
    ResponsePropertyAdded,
    ResponseEventKindRemoved,
    // Paging.
    PagingChanged,
    PagingAdded,
    /// A value changed at a place.
    Value(Place, Change),
}

impl Rule {
    /// Every rule, in the order `--rules` lists them.
    pub fn all() -> Vec<Rule> {
        use Rule::*;
        let mut all = vec![
            ApiAdded,
            ApiRemovedWithoutDeprecation,
            ApiRemovedBeforeSunset,
            ApiRemovedAfterSunset,
            ApiRemovedDeprecated,
            ApiStabilityDecreased,
            ApiStabilityIncreased,
            ApiDeprecated,
            ApiDeprecatedWithoutSunset,
            ApiDeprecationWithdrawn,
            ApiSunsetDateChangedTooSmall,
            ApiSunsetDateExtended,
            LifecycleAnnotationUnreadable,
            ConstructNotCompared,
            ApiSecurityAdded,
            ApiSecurityRelaxed,
            NewRequiredRequestParameter,
            NewOptionalRequestParameter,
            RequestParameterBecameRequired,
            RequestParameterStyleChanged,
            RequestParameterRemoved,
            RequestParameterRemovedBeforeSunset,
            RequestBodyAddedRequired,
            RequestBodyAddedOptional,
            RequestBodyRemoved,
            RequestBodyBecameRequired,
            RequestBodyMediaTypeChanged,
            NewRequiredRequestProperty,
            NewOptionalRequestProperty,
            RequestPropertyBecameRequired,
            RequestPropertyRemoved,
            RequestAdditionalPropertiesRefused,
            ResponseSuccessStatusRemoved,
            ResponseNonSuccessStatusRemoved,
            ResponseStatusAdded,
            ResponseBodyRemoved,
            ResponseBodyAdded,
            ResponseMediaTypeChanged,
            ResponseRequiredHeaderRemoved,
            ResponseOptionalHeaderRemoved,
            ResponseHeaderBecameOptional,
            ResponseRequiredPropertyRemoved,
            ResponseOptionalPropertyRemoved,
            ResponsePropertyBecameOptional,
            ResponsePropertyAdded,
            ResponseEventKindRemoved,
            PagingChanged,
            PagingAdded,
        ];
        for place in Place::ALL {
            let changes: &[Change] = if place.is_request() {
                &Change::REQUEST
            } else {
                &Change::RESPONSE
            };
            all.extend(changes.iter().map(|c| Value(place, *c)));
        }
        all
    }

    /// The rule's id, as findings carry it.
    pub fn id(self) -> String {
        use Rule::*;
        let id = match self {
            Value(place, change) => return format!("{}-{}", place.as_str(), change.as_str()),
            ApiAdded => "api-added",
            ApiRemovedWithoutDeprecation => "api-removed-without-deprecation",
            ApiRemovedBeforeSunset => "api-removed-before-sunset",
            ApiRemovedAfterSunset => "api-removed-after-sunset",
            ApiRemovedDeprecated => "api-removed-deprecated",
            ApiStabilityDecreased => "api-stability-decreased",
            ApiStabilityIncreased => "api-stability-increased",
            ApiDeprecated => "api-deprecated",
            ApiDeprecatedWithoutSunset => "api-deprecated-without-sunset",
            ApiDeprecationWithdrawn => "api-deprecation-withdrawn",
            ApiSunsetDateChangedTooSmall => "api-sunset-date-changed-too-small",
            ApiSunsetDateExtended => "api-sunset-date-extended",
            LifecycleAnnotationUnreadable => "lifecycle-annotation-unreadable",
            ConstructNotCompared => "construct-not-compared",
            ApiSecurityAdded => "api-security-added",
            ApiSecurityRelaxed => "api-security-relaxed",
            NewRequiredRequestParameter => "new-required-request-parameter",
            NewOptionalRequestParameter => "new-optional-request-parameter",
            RequestParameterBecameRequired => "request-parameter-became-required",
            RequestParameterStyleChanged => "request-parameter-style-changed",
            RequestParameterRemoved => "request-parameter-removed",
            RequestParameterRemovedBeforeSunset => "request-parameter-removed-before-sunset",
            RequestBodyAddedRequired => "request-body-added-required",
            RequestBodyAddedOptional => "request-body-added-optional",
            RequestBodyRemoved => "request-body-removed",
            RequestBodyBecameRequired => "request-body-became-required",
            RequestBodyMediaTypeChanged => "request-body-media-type-changed",
            NewRequiredRequestProperty => "new-required-request-property",
            NewOptionalRequestProperty => "new-optional-request-property",
            RequestPropertyBecameRequired => "request-property-became-required",
            RequestPropertyRemoved => "request-property-removed",
            RequestAdditionalPropertiesRefused => "request-additional-properties-refused",
            ResponseSuccessStatusRemoved => "response-success-status-removed",
            ResponseNonSuccessStatusRemoved => "response-non-success-status-removed",
            ResponseStatusAdded => "response-status-added",
            PagingChanged => "paging-changed",
            PagingAdded => "paging-added",
            ResponseBodyRemoved => "response-body-removed",
            ResponseBodyAdded => "response-body-added",
            ResponseMediaTypeChanged => "response-media-type-changed",
            ResponseRequiredHeaderRemoved => "response-required-header-removed",
            ResponseOptionalHeaderRemoved => "response-optional-header-removed",
            ResponseHeaderBecameOptional => "response-header-became-optional",
            ResponseRequiredPropertyRemoved => "response-required-property-removed",
            ResponseOptionalPropertyRemoved => "response-optional-property-removed",
            ResponsePropertyBecameOptional => "response-property-became-optional",
            ResponsePropertyAdded => "response-property-added",
            ResponseEventKindRemoved => "response-event-kind-removed",
        };
        id.to_string()
    }

    /// How severe its findings are.
    pub fn severity(self) -> Severity {
        use Rule::*;
        use Severity as S;
        match self {
            Value(_, change) => change.severity(),
            ApiRemovedWithoutDeprecation => S::Breaking,
            ApiRemovedBeforeSunset | ApiStabilityDecreased | ApiDeprecatedWithoutSunset => S::Error,
            ApiSunsetDateChangedTooSmall | RequestParameterRemovedBeforeSunset => S::Error,
            LifecycleAnnotationUnreadable | RequestPropertyRemoved => S::Depends,
            ConstructNotCompared | ResponseEventKindRemoved => S::Possibly,
            ApiSecurityAdded => S::AtLeastWarning,
            NewRequiredRequestParameter
            | RequestParameterBecameRequired
            | RequestParameterStyleChanged
            | RequestBodyAddedRequired
            | RequestBodyBecameRequired
            | RequestBodyMediaTypeChanged
            | NewRequiredRequestProperty
            | RequestPropertyBecameRequired
            | RequestAdditionalPropertiesRefused
            | ResponseSuccessStatusRemoved
            | ResponseBodyRemoved
            | ResponseMediaTypeChanged
            | ResponseRequiredHeaderRemoved
            | ResponseHeaderBecameOptional
            | ResponseRequiredPropertyRemoved
            | ResponsePropertyBecameOptional
            | PagingChanged => S::Breaking,
            ApiAdded
            | ApiRemovedAfterSunset
            | ApiRemovedDeprecated
            | ApiStabilityIncreased
            | ApiDeprecated
            | ApiDeprecationWithdrawn
            | ApiSunsetDateExtended
            | ApiSecurityRelaxed
            | NewOptionalRequestParameter
            | RequestParameterRemoved
            | RequestBodyAddedOptional
            | RequestBodyRemoved
            | NewOptionalRequestProperty
            | ResponseNonSuccessStatusRemoved
            | ResponseStatusAdded
            | PagingAdded
            | ResponseBodyAdded
            | ResponseOptionalHeaderRemoved
            | ResponseOptionalPropertyRemoved
            | ResponsePropertyAdded => S::Info,
        }
    }

    /// What the rule reports, in one line.
    pub fn description(self) -> String {
        use Rule::*;
        let text = match self {
            Value(place, change) => {
                return format!("{} changed: {}", place.what(), change.describe())
            }
            ApiAdded => "an operation is new",
            ApiRemovedWithoutDeprecation => "an operation is removed without having been deprecated",
            ApiRemovedBeforeSunset => "a deprecated operation is removed before its sunset date",
            ApiRemovedAfterSunset => "a deprecated operation is removed after its sunset date",
            ApiRemovedDeprecated => "a deprecated operation without a sunset date is removed",
            ApiStabilityDecreased => "an operation's stability is lowered (stable to beta, say)",
            ApiStabilityIncreased => "an operation's stability is raised",
            ApiDeprecated => "an operation is deprecated",
            ApiDeprecatedWithoutSunset => "a stable operation is deprecated without a sunset date",
            ApiDeprecationWithdrawn => "an operation is no longer deprecated",
            ApiSunsetDateChangedTooSmall => "a sunset date moved earlier",
            ApiSunsetDateExtended => "a sunset date moved later",
            LifecycleAnnotationUnreadable => {
                "a stability, sunset or successor cannot be read: an error in the revision, a warning in the base"
            }
            ConstructNotCompared => "a construct the generator left out, so changes in it go unseen",
            ApiSecurityAdded => "callers who got in before no longer do (a new requirement or scope)",
            ApiSecurityRelaxed => "the operation lets in callers it did not before",
            NewRequiredRequestParameter => "a required request parameter is new",
            NewOptionalRequestParameter => "an optional request parameter is new",
            RequestParameterBecameRequired => "a request parameter became required",
            RequestParameterStyleChanged => "a request parameter is serialised another way (style or explode)",
            RequestParameterRemoved => "a request parameter is no longer read",
            RequestParameterRemovedBeforeSunset => "a deprecated request parameter is removed before its sunset date",
            RequestBodyAddedRequired => "a required request body is new",
            RequestBodyAddedOptional => "an optional request body is new",
            RequestBodyRemoved => "the request body is no longer read",
            RequestBodyBecameRequired => "the request body became required",
            RequestBodyMediaTypeChanged => "the request body no longer accepts its media type",
            NewRequiredRequestProperty => "a required property of a request body is new",
            NewOptionalRequestProperty => "an optional property of a request body is new",
            RequestPropertyBecameRequired => "a property of a request body became required",
            RequestPropertyRemoved => {
                "a property of a request body is removed: breaking where unknown properties are refused, else info"
            }
            RequestAdditionalPropertiesRefused => "a request body refuses unknown properties now",
            ResponseSuccessStatusRemoved => "a success response's status is removed",
            ResponseNonSuccessStatusRemoved => "an error response's status is removed",
            ResponseStatusAdded => "a response status is new",
            PagingChanged => {
                "how the operation pages changed, or it no longer pages: the client's page walks break"
            }
            PagingAdded => "the operation pages: the client gains page and item streams",
            ResponseBodyRemoved => "a response no longer has a body",
            ResponseBodyAdded => "a response has a body now",
            ResponseMediaTypeChanged => "a response's media type changed",
            ResponseRequiredHeaderRemoved => "a response header that was always sent is removed",
            ResponseOptionalHeaderRemoved => "an optional response header is removed",
            ResponseHeaderBecameOptional => "a response header is no longer always sent",
            ResponseRequiredPropertyRemoved => "a property a response always had is removed",
            ResponseOptionalPropertyRemoved => "an optional property of a response is removed",
            ResponsePropertyBecameOptional => "a property a response always had may be absent now",
            ResponsePropertyAdded => "a response has a new property",
            ResponseEventKindRemoved => {
                "an event stream no longer sends a kind of event (a `oneOf` shape of its data): \
                 subscribers relying on it stop receiving it"
            }
        };
        text.to_string()
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
