//! Which Cargo features compile each item in: the `cfg` attributes of
//! groups (a feature per group of operations) and of sides (the serde
//! impls a client or a server needs).
//!
//! A standalone crate (`Config::group_features`) has a feature per group of
//! operations (`ir::RouteTrait`: a tag, or the first path segment after the
//! shared prefix for untagged operations). Every item's `cfg` comes from
//! `Api::reach` (which groups' operations reach each type, through fields,
//! variants and aliases; the types no operation reaches, and what they use,
//! belong to `other-models`): a group's request and response types, trait,
//! handlers and client methods under its feature; a model under `any(...)` of
//! the groups that use it, or no `cfg` when every group does. `Api::reach`
//! walks the types once per group, and `Api::operations_by_group` gives each
//! group's operations in one pass: never filter the operations once per group,
//! a large document has hundreds.
//!
//! With `Config::serde_sides`, a model's serde impls carry the sides that use
//! them (`Gates::serde_cfgs`, from `Api::senders`): `Serialize` under the side
//! that writes it, `Deserialize` under the side that reads it (and `mock`),
//! each also under `serialize` / `deserialize`. Both sets are closed under
//! holding, so an impl never lacks one of the type it holds.

use super::text::string_literal;
use crate::ir::{Api, OTHER_MODELS};
use std::collections::{BTreeSet, HashMap};

/// How a type travels, for the features that write and read it (its
/// `Serialize` and `Deserialize` impls, [`Gates::serde_cfgs`]).
#[derive(Debug, Clone, Copy)]
enum Travel {
    /// Only in requests.
    Requests,
    /// Only in responses: a mock reads its answers from examples and made
    /// values.
    Responses,
    /// In neither: a model no operation uses.
    Neither,
    /// In both.
    Both,
}

impl Travel {
    /// The predicates of the features that write and read such a type.
    fn predicates(self) -> [&'static str; 2] {
        match self {
            Travel::Requests => [
                r#"any(feature = "client", feature = "serialize")"#,
                r#"any(feature = "serving", feature = "deserialize")"#,
            ],
            Travel::Responses => [
                r#"any(feature = "serving", feature = "serialize")"#,
                r#"any(feature = "client", feature = "mock", feature = "deserialize")"#,
            ],
            Travel::Neither => [r#"feature = "serialize""#, r#"feature = "deserialize""#],
            Travel::Both => [
                r#"any(feature = "client", feature = "serving", feature = "serialize")"#,
                r#"any(feature = "serving", feature = "client", feature = "deserialize")"#,
            ],
        }
    }
}

/// The `cfg` of one serde impl of a type: the type's own predicate and the
/// sides that use the impl, either or both absent, as its attribute's
/// line.
#[derive(Debug, Clone, Default)]
pub struct ImplCfg {
    line: String,
}

impl ImplCfg {
    /// `#[cfg(...)]` and a newline, or nothing.
    pub fn line(&self) -> &str {
        &self.line
    }
}

/// Which Cargo features compile an item in ([`Config::group_features`]): a
/// group's operations (their types, handlers and client methods) under its
/// feature; a named type under the features of the groups that reach it,
/// or none when every group does; a type no group reaches, and what it
/// uses, also under [`OTHER_MODELS`](crate::ir::OTHER_MODELS). Without
/// group features every item is always in.
#[derive(Debug)]
pub struct Gates<'a> {
    api: &'a Api,
    /// The groups that reach each type, when groups are features.
    reach: Option<HashMap<&'a str, Vec<usize>>>,
    /// Each group's index in `api.traits`, by the group's name.
    traits: HashMap<&'a str, usize>,
    /// The groups of the operations whose response enum is defined by an
    /// operation ([`crate::ir::Operation::same_responses_as`]), by that
    /// operation's `type_name`, when groups are features: its own, and
    /// those of the operations whose enums are aliases of it.
    responses: HashMap<&'a str, BTreeSet<&'a str>>,
    /// Which sides send each type, for its serde impls, when they are
    /// compiled for those sides only ([`crate::Config::serde_sides`]).
    senders: Option<crate::ir::Senders<'a>>,
}

impl<'a> Gates<'a> {
    pub fn new(api: &'a Api, group_features: bool, serde_sides: bool) -> Self {
        let mut responses: HashMap<&str, BTreeSet<&str>> = HashMap::new();
        if group_features {
            for op in &api.operations {
                let owner = op.same_responses_as.as_deref().unwrap_or(&op.type_name);
                responses.entry(owner).or_default().insert(&op.group);
            }
        }
        Gates {
            api,
            reach: group_features.then(|| api.reach()),
            traits: api.trait_index(),
            responses,
            senders: serde_sides.then(|| api.senders()),
        }
    }

    /// The `cfg` attributes of an operation's response enum, of its server
    /// side (`impl runtime::Response`) and of its client side (`impl
    /// runtime::ReadAnswer`): those of its group, or of every group using
    /// it when other operations' enums are aliases of it.
    pub fn response_attrs(&self, op: &crate::ir::Operation) -> [String; 3] {
        let predicate = match self.responses.get(op.type_name.as_str()) {
            Some(groups) if groups.len() > 1 => self.groups(groups.iter().copied()),
            _ => self.group(&op.group),
        };
        [
            Self::side_attr("serving", predicate.as_ref()),
            Self::side_attr("client", predicate.as_ref()),
            Self::attr(predicate),
        ]
    }

    /// The route trait of a group.
    pub fn route_trait(&self, group: &str) -> Option<&'a crate::ir::RouteTrait> {
        self.traits.get(group).map(|&i| &self.api.traits[i])
    }

    /// Whether groups are features.
    pub fn on(&self) -> bool {
        self.reach.is_some()
    }

    /// The `cfg` predicate of a group's items.
    pub fn group(&self, group: &str) -> Option<String> {
        self.reach.as_ref()?;
        Some(feature(&self.route_trait(group)?.feature))
    }

    /// The `cfg` predicate of a named type's items: `None` when it is
    /// always in.
    pub fn of_type(&self, name: &str) -> Option<String> {
        let reach = self.reach.as_ref()?;
        let groups = reach.get(name)?;
        let all = self.api.traits.len();
        // Groups are distinct: every group's index below `all` is there.
        if groups.iter().filter(|&&g| g < all).count() == all {
            return None;
        }
        Some(any(groups
            .iter()
            .map(|&i| feature(self.reach_feature(i)))
            .collect()))
    }

    /// The `cfg`s of a named type's `Serialize` and `Deserialize` impls:
    /// `own`, the predicate of its items ([`Gates::of_type`]), and the
    /// features of the sides that write and read it
    /// ([`crate::ir::Api::senders`]) or of `serialize` and `deserialize`,
    /// which implement them on every type. A client never writes a
    /// response, a server never reads one: the impls neither side uses are
    /// compiled out unless asked for, and a type no operation uses has them
    /// only when asked for.
    pub fn serde_cfgs(&self, name: &str, own: Option<&str>) -> [ImplCfg; 2] {
        let sides = self.serde_sides(name);
        let cfg = |way: usize| {
            let line = match (own, &sides[way]) {
                (None, None) => String::new(),
                (Some(one), None) => format!("#[cfg({one})]\n"),
                (None, Some(side)) => format!("#[cfg({side})]\n"),
                (Some(own), Some(side)) => format!("#[cfg(all({own}, {side}))]\n"),
            };
            ImplCfg { line }
        };
        [cfg(0), cfg(1)]
    }

    /// The features that compile in a type's `Serialize` and `Deserialize`
    /// impls, beside those of the type itself ([`Gates::serde_cfgs`]):
    /// `None` for an impl always compiled with its type.
    pub fn serde_sides(&self, name: &str) -> [Option<String>; 2] {
        let travel = self.senders.as_ref().and_then(|s| {
            let travel = match (s.requests.contains(name), s.responses.contains(name)) {
                _ if s.both_ways.contains(name) => return None,
                (true, false) => Travel::Requests,
                (false, true) => Travel::Responses,
                (false, false) => Travel::Neither,
                (true, true) => Travel::Both,
            };
            Some(travel.predicates())
        });
        [0, 1].map(|way| travel.map(|sides| sides[way].to_string()))
    }

    /// The `cfg` predicate of items the operations of `groups` use:
    /// `None` when every group does, or groups are not features.
    pub fn groups<'g>(&self, groups: impl IntoIterator<Item = &'g str>) -> Option<String> {
        self.reach.as_ref()?;
        let features = self.features_of(groups);
        (features.len() != self.api.traits.len())
            .then(|| any(features.into_iter().map(feature).collect()))
    }

    /// An import that only the operations of `groups` use: under the
    /// `any(...)` of their features when groups are features.
    pub fn group_import<'g>(
        &self,
        import: &str,
        groups: impl IntoIterator<Item = &'g str>,
    ) -> String {
        if self.reach.is_none() {
            return import.to_string();
        }
        any_import(import, &self.features_of(groups))
    }

    /// `import` under the features that compile in any of the named
    /// types `names` (as [`Gates::group_import`] does for groups); as it is
    /// when one of them is always in.
    pub fn types_import<'n>(
        &self,
        import: &str,
        names: impl IntoIterator<Item = &'n str>,
    ) -> String {
        let Some(reach) = &self.reach else {
            return import.to_string();
        };
        let mut groups: BTreeSet<usize> = BTreeSet::new();
        for name in names {
            if self.of_type(name).is_none() {
                return import.to_string();
            }
            groups.extend(reach.get(name).into_iter().flatten());
        }
        let features: Vec<&str> = groups.iter().map(|&i| self.reach_feature(i)).collect();
        any_import(import, &features)
    }

    /// The feature of a group index of [`Gates::reach`]: its trait's, or
    /// the one of the types no group reaches.
    fn reach_feature(&self, group: usize) -> &'a str {
        self.api
            .traits
            .get(group)
            .map_or(OTHER_MODELS, |t| t.feature.as_str())
    }

    /// The features of `groups`, in the order of the traits.
    fn features_of<'g>(&self, groups: impl IntoIterator<Item = &'g str>) -> Vec<&'a str> {
        let groups: BTreeSet<&str> = groups.into_iter().collect();
        self.api
            .traits
            .iter()
            .filter(|t| groups.contains(t.group.as_str()))
            .map(|t| t.feature.as_str())
            .collect()
    }

    /// `#[cfg(predicate)]`, or nothing for no predicate.
    pub fn attr(predicate: Option<String>) -> String {
        predicate
            .map(|p| format!("#[cfg({p})]"))
            .unwrap_or_default()
    }

    /// The `cfg` attribute of a group's server-side items: the `serving`
    /// feature (the framework-neutral glue, which `server` and `axum` turn
    /// on), and the group's own when it has one.
    pub fn server_attr(&self, group: &str) -> String {
        Self::side_attr("serving", self.group(group).as_ref())
    }

    /// The `cfg` attribute of items on one side (`server`, `client`): its
    /// feature, and `predicate` when there is one.
    fn side_attr(side: &str, predicate: Option<&String>) -> String {
        match predicate {
            Some(p) => format!("#[cfg(all({}, {p}))]", feature(side)),
            None => format!("#[cfg({})]", feature(side)),
        }
    }
}

/// `import` under the features' [`any`]: `feature = "a"` alone, as clippy
/// asks (`non_minimal_cfg`), else `any(feature = "a", ...)`.
fn any_import(import: &str, features: &[&str]) -> String {
    let features: Vec<String> = features.iter().map(|f| feature(f)).collect();
    format!("#[cfg({})]\n{import}", any(features))
}

/// The predicate `feature = "name"`.
fn feature(name: &str) -> String {
    format!("feature = {}", string_literal(name))
}

/// The predicate that holds when any of `predicates` does: the one
/// itself, or `any(...)`.
pub fn any(predicates: Vec<String>) -> String {
    match <[String; 1]>::try_from(predicates) {
        Ok([one]) => one,
        Err(many) => format!("any({})", many.join(", ")),
    }
}
