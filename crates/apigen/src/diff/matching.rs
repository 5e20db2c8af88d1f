//! Which operation of the revision stands for which of the base: the same
//! method and path, path parameters matched by their place in the template
//! (renaming `{id}` to `{petId}` changes nothing on the wire); and the
//! findings for operations added and removed.

use super::compare::Compare;
use super::rules::Rule;
use super::same::Same;
use super::{Finding, Level};
use crate::ir::*;
use std::collections::HashSet;

/// Every finding about operations: removed, added, and changed ones.
pub(super) fn operations(base: &Api, rev: &Api, today: &str) -> Vec<Finding> {
    let matched = match_operations(base, rev);
    let mut out = Vec::new();
    let mut same = Same::new(base, rev);
    for (base_op, matched_index) in base.operations.iter().zip(&matched) {
        match matched_index.map(|i| &rev.operations[i]) {
            None => out.push(removed(base_op, today)),
            Some(rev_op) => {
                let mut compare = Compare {
                    base,
                    rev,
                    today,
                    operation: format!("{} {}", rev_op.method, rev_op.path),
                    stability: base_op.stability,
                    sunset: rev_op.sunset.clone().or_else(|| base_op.sunset.clone()),
                    level: Level::of_breaking(base_op.stability),
                    out: &mut out,
                    seen: HashSet::new(),
                    same: &mut same,
                };
                compare.lifecycle(base_op, rev_op);
                compare.security(base_op, rev_op);
                compare.params(base_op, rev_op);
                compare.body(base_op, rev_op);
                compare.responses(base_op, rev_op);
                compare.paging(base_op, rev_op);
            }
        }
    }
    for (i, added) in rev.operations.iter().enumerate() {
        if !matched.contains(&Some(i)) {
            out.push(Finding {
                rule: Rule::ApiAdded,
                level: Rule::ApiAdded
                    .severity()
                    .level(Level::of_breaking(added.stability)),
                operation: format!("{} {}", added.method, added.path),
                stability: Some(added.stability),
                sunset: added.sunset.clone(),
                base: None,
                revision: Some(added.pointer.clone()),
                message: format!("new operation `{}`", added.id),
            });
        }
    }
    let mut seen = HashSet::new();
    out.retain(|f| {
        seen.insert((
            f.operation.clone(),
            f.rule,
            f.base.clone(),
            f.revision.clone(),
        ))
    });
    out
}

/// For each operation of the base, the index of the revision's operation
/// that stands for it: the same method and path, else the same method and
/// path template with other parameter names. Each is matched once, so two
/// operations whose templates differ only in names (a document can have
/// both) keep their own partners.
fn match_operations(base: &Api, rev: &Api) -> Vec<Option<usize>> {
    let mut taken = vec![false; rev.operations.len()];
    let mut matched = vec![None; base.operations.len()];
    let exact =
        |base: &Operation, rev: &Operation| base.method == rev.method && base.path == rev.path;
    let renamed = |base: &Operation, rev: &Operation| {
        base.method == rev.method && template(&base.path) == template(&rev.path)
    };
    for same in [exact as fn(&Operation, &Operation) -> bool, renamed] {
        for (slot, base) in matched.iter_mut().zip(&base.operations) {
            if slot.is_some() {
                continue;
            }
            let found = rev
                .operations
                .iter()
                .enumerate()
                .position(|(i, rev)| !taken[i] && same(base, rev));
            if let Some(i) = found {
                taken[i] = true;
                *slot = Some(i);
            }
        }
    }
    matched
}

/// A path with its parameters' names left out: `/pets/{}`.
fn template(path: &str) -> String {
    let mut out = String::with_capacity(path.len());
    let mut in_param = false;
    for c in path.chars() {
        match c {
            '{' => {
                in_param = true;
                out.push('{');
            }
            '}' => {
                in_param = false;
                out.push('}');
            }
            _ if in_param => {}
            c => out.push(c),
        }
    }
    out
}

/// An operation of the base that the revision does not have.
pub(super) fn removed(base: &Operation, today: &str) -> Finding {
    // A sunset it had but that could not be read: whether it has passed is
    // unknown, so the removal may break a promise.
    let sunset_unreadable = base
        .lifecycle_problems
        .iter()
        .any(|p| p.annotation == crate::ir::Annotation::Sunset);
    let (rule, message) = match (base.deprecated, &base.sunset) {
        (true, None) if sunset_unreadable => (
            Rule::ApiRemovedSunsetUnreadable,
            format!(
                "`{}` is removed, and its sunset date cannot be read: whether it has passed is unknown",
                base.id
            ),
        ),
        (true, Some(sunset)) if today < sunset.as_str() => (
            Rule::ApiRemovedBeforeSunset,
            format!("`{}` is removed before its sunset date, {sunset}", base.id),
        ),
        (true, Some(sunset)) => (
            Rule::ApiRemovedAfterSunset,
            format!("`{}` is removed after its sunset date, {sunset}", base.id),
        ),
        (true, None) => (
            Rule::ApiRemovedDeprecated,
            format!(
                "`{}`, deprecated without a sunset date, is removed",
                base.id
            ),
        ),
        (false, _) => (
            Rule::ApiRemovedWithoutDeprecation,
            format!(
                "`{}` ({}) is removed without having been deprecated first",
                base.id,
                base.stability.as_str()
            ),
        ),
    };
    Finding {
        rule,
        level: rule.severity().level(Level::of_breaking(base.stability)),
        operation: format!("{} {}", base.method, base.path),
        stability: Some(base.stability),
        sunset: base.sunset.clone(),
        base: Some(base.pointer.clone()),
        revision: None,
        message,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn templates_drop_parameter_names() {
        assert_eq!(template("/pets/{petId}/photos/{n}"), "/pets/{}/photos/{}");
    }
}
