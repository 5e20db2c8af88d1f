//! Lifecycle and security: stability, deprecation and sunset of an
//! operation, and who may call it.

use super::compare::Compare;
use super::rules::Rule;
use crate::ir::*;

impl Compare<'_, '_> {
    pub(super) fn lifecycle(&mut self, base: &Operation, rev: &Operation) {
        let (base_at, rev_at) = (base.pointer.as_str(), rev.pointer.as_str());
        if rev.stability < base.stability {
            let message = format!(
                "stability lowered from {} to {}",
                base.stability.as_str(),
                rev.stability.as_str()
            );
            self.report(Rule::ApiStabilityDecreased, base_at, rev_at, message);
        } else if rev.stability > base.stability {
            let message = format!(
                "stability raised from {} to {}",
                base.stability.as_str(),
                rev.stability.as_str()
            );
            self.report(Rule::ApiStabilityIncreased, base_at, rev_at, message);
        }
        match (base.deprecated, rev.deprecated) {
            (false, true) if rev.sunset.is_none() && base.stability == Stability::Stable => self
                .report(
                Rule::ApiDeprecatedWithoutSunset,
                base_at,
                rev_at,
                "a stable operation is deprecated without a sunset date (`x-deprecated-sunset`)"
                    .into(),
            ),
            (false, true) => self.report(
                Rule::ApiDeprecated,
                base_at,
                rev_at,
                match &rev.sunset {
                    Some(sunset) => format!("deprecated, with sunset on {sunset}"),
                    None => "deprecated".into(),
                },
            ),
            (true, false) => self.report(
                Rule::ApiDeprecationWithdrawn,
                base_at,
                rev_at,
                "no longer deprecated".into(),
            ),
            _ => {}
        }
        match (&base.sunset, &rev.sunset) {
            (Some(before), Some(after)) if after < before => self.report(
                Rule::ApiSunsetDateChangedTooSmall,
                base_at,
                rev_at,
                format!("the sunset date moved earlier, from {before} to {after}"),
            ),
            (Some(before), Some(after)) if after > before => self.report(
                Rule::ApiSunsetDateExtended,
                base_at,
                rev_at,
                format!("the sunset date moved later, from {before} to {after}"),
            ),
            _ => {}
        }
    }

    /// A caller that satisfied one of the base's requirements must satisfy
    /// one of the revision's with the same credentials and scopes.
    pub(super) fn security(&mut self, base: &Operation, rev: &Operation) {
        let anonymous: &[SecurityRequirement] = &[Vec::new()];
        let alternatives = |s: &'_ [SecurityRequirement]| -> Vec<SecurityRequirement> {
            if s.is_empty() {
                anonymous.to_vec()
            } else {
                s.to_vec()
            }
        };
        let (before, after) = (alternatives(&base.security), alternatives(&rev.security));
        let holds = |held: &SecurityRequirement, needed: &SecurityRequirement| {
            needed.iter().all(|(scheme, scopes)| {
                held.iter()
                    .any(|(s, granted)| s == scheme && scopes.iter().all(|x| granted.contains(x)))
            })
        };
        let stranded: Vec<String> = before
            .iter()
            .filter(|held| !after.iter().any(|needed| holds(held, needed)))
            .map(describe_requirement)
            .collect();
        let (base_at, rev_at) = (base.pointer.as_str(), rev.pointer.as_str());
        if !stranded.is_empty() {
            let message = format!(
                "new security requirement: callers with {} no longer get in",
                stranded.join(" or ")
            );
            self.report(Rule::ApiSecurityAdded, base_at, rev_at, message);
        } else if before != after {
            self.report(
                Rule::ApiSecurityRelaxed,
                base_at,
                rev_at,
                "the operation accepts callers it did not before".into(),
            );
        }
    }
}

fn describe_requirement(rev: &SecurityRequirement) -> String {
    if rev.is_empty() {
        return "no credentials".into();
    }
    rev.iter()
        .map(|(scheme, scopes)| {
            if scopes.is_empty() {
                format!("`{scheme}`")
            } else {
                format!("`{scheme}` ({})", scopes.join(", "))
            }
        })
        .collect::<Vec<_>>()
        .join(" and ")
}
