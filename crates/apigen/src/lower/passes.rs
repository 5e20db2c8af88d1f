//! Passes over the whole API, each from values to values.

use crate::ir::*;
use crate::names::{sanitize, Case, Namer, PRELUDE_TYPES};
use openapiv3::OpenAPI;
use std::collections::{BTreeMap, BTreeSet, HashMap, HashSet};

/// The operations, each in its group, and one route trait per group: the
/// tags in the order the document lists them (then in the order
/// operations use them), then the path groups of untagged operations in
/// the order they appear. See [`RouteTrait`].
pub(super) fn groups(doc: &OpenAPI, mut ops: Vec<Operation>) -> (Vec<Operation>, Vec<RouteTrait>) {
    let prefix = shared_prefix(ops.iter().map(|o| o.path.as_str()));
    for op in &mut ops {
        op.group = if op.tag.is_empty() {
            path_group(&op.path, prefix).unwrap_or_default().to_string()
        } else {
            op.tag.clone()
        };
    }
    let mut traits = Vec::new();
    let mut names = Namer::reserving(PRELUDE_TYPES);
    // Names the server module imports beside the route traits.
    for reserved in ["ErrorResponse", "Rejections", "FeatureOff"] {
        names.reserve(reserved);
    }
    let mut features = Namer::new();
    for reserved in RESERVED_FEATURES {
        features.reserve(reserved);
    }
    let declared = doc
        .tags
        .iter()
        .map(|t| (t.name.clone(), t.description.clone()));
    let used = ops.iter().map(|o| (o.group.clone(), None));
    let with_operations: HashSet<&str> = ops.iter().map(|o| o.group.as_str()).collect();
    let mut seen = HashSet::new();
    for (group, doc) in declared.chain(used) {
        if !with_operations.contains(group.as_str()) || !seen.insert(group.clone()) {
            continue;
        }
        let (name, feature) = if group.is_empty() {
            ("Api".to_string(), "default-tag".to_string())
        } else {
            let feature = sanitize(&group, Case::Snake).replace('_', "-");
            let feature = if RESERVED_FEATURES.contains(&feature.as_str()) {
                format!("{feature}-tag")
            } else {
                feature
            };
            (sanitize(&group, Case::Pascal), feature)
        };
        traits.push(RouteTrait {
            name: names.unique(name),
            feature: features.unique(feature),
            group,
            doc,
            summary: None,
        });
    }
    (ops, traits)
}

/// How many leading segments every path shares, never all of any path's
/// segments and never a parameter: `/v1/customers` and `/v1/charges/{id}`
/// share one (`v1`).
fn shared_prefix<'a>(paths: impl Iterator<Item = &'a str>) -> usize {
    let mut shared: Option<Vec<&str>> = None;
    for path in paths {
        let segments: Vec<&str> = path.split('/').filter(|s| !s.is_empty()).collect();
        let keep = segments.len().saturating_sub(1);
        shared = Some(match shared {
            None => segments[..keep].to_vec(),
            Some(prefix) => prefix
                .iter()
                .zip(&segments[..keep])
                .take_while(|(a, b)| a == b)
                .map(|(a, _)| *a)
                .collect(),
        });
    }
    shared
        .unwrap_or_default()
        .iter()
        .take_while(|s| !s.starts_with('{'))
        .count()
}

/// The segment after the shared prefix, unless it is a parameter.
fn path_group(path: &str, prefix: usize) -> Option<&str> {
    path.split('/')
        .filter(|s| !s.is_empty())
        .nth(prefix)
        .filter(|s| !s.contains('{'))
}

/// The types, with struct fields and union variants marked for boxing where
/// their type leads back to the type itself without passing through a `Vec`
/// or map.
pub(super) fn mark_boxed(mut types: BTreeMap<String, TypeDef>) -> BTreeMap<String, TypeDef> {
    fn direct(shape: &Shape) -> Option<&str> {
        match &shape.ty {
            Ty::Named(n) => Some(n),
            _ => None,
        }
    }
    let edges: BTreeMap<String, Vec<String>> = types
        .iter()
        .map(|(name, def)| {
            let targets = match &def.kind {
                TypeKind::Struct(s) => s
                    .fields
                    .iter()
                    .filter_map(|f| direct(&f.shape))
                    .map(str::to_string)
                    .collect(),
                TypeKind::Union(u) => u
                    .variants
                    .iter()
                    .filter_map(|v| direct(&v.shape))
                    .map(str::to_string)
                    .collect(),
                TypeKind::Alias(shape) | TypeKind::Newtype { shape, .. } => {
                    direct(shape).into_iter().map(str::to_string).collect()
                }
                TypeKind::Enum(_) => Vec::new(),
            };
            (name.clone(), targets)
        })
        .collect();
    // A field leads back to its own type exactly when its target is in the
    // same strongly connected component of the "contains directly" graph.
    let component = strongly_connected(&edges);
    let reaches = |from: &str, to: &str| -> bool {
        from == to || (component.contains_key(from) && component.get(from) == component.get(to))
    };
    for (name, def) in types.iter_mut() {
        match &mut def.kind {
            TypeKind::Struct(s) => {
                for f in &mut s.fields {
                    f.boxed = direct(&f.shape).is_some_and(|t| reaches(t, name));
                }
            }
            TypeKind::Union(u) => {
                for v in &mut u.variants {
                    v.boxed = direct(&v.shape).is_some_and(|t| reaches(t, name));
                }
            }
            TypeKind::Newtype { shape, boxed } => {
                *boxed = direct(shape).is_some_and(|t| reaches(t, name));
            }
            _ => {}
        }
    }
    types
}

/// The types, with each alias that leads back to itself (through lists,
/// maps and other aliases: `A = Vec<B>`, `B = A`) made a newtype: an alias
/// cannot name itself, a struct can.
pub(super) fn newtype_alias_cycles(
    mut types: BTreeMap<String, TypeDef>,
) -> BTreeMap<String, TypeDef> {
    fn named(shape: &Shape, out: &mut Vec<String>) {
        match &shape.ty {
            Ty::Named(n) => out.push(n.clone()),
            Ty::Array(inner) | Ty::Map(inner) => named(inner, out),
            _ => {}
        }
    }
    let edges: BTreeMap<String, Vec<String>> = types
        .iter()
        .filter_map(|(name, def)| match &def.kind {
            TypeKind::Alias(shape) => {
                let mut targets = Vec::new();
                named(shape, &mut targets);
                targets
                    .retain(|t| matches!(types.get(t).map(|d| &d.kind), Some(TypeKind::Alias(_))));
                Some((name.clone(), targets))
            }
            _ => None,
        })
        .collect();
    let component = strongly_connected(&edges);
    let mut sizes: HashMap<usize, usize> = HashMap::new();
    for c in component.values() {
        *sizes.entry(*c).or_default() += 1;
    }
    let cyclic: Vec<String> = edges
        .iter()
        .filter(|(name, targets)| {
            targets.contains(name) || component.get(*name).is_some_and(|c| sizes[c] > 1)
        })
        .map(|(name, _)| name.clone())
        .collect();
    for name in cyclic {
        if let Some(def) = types.get_mut(&name) {
            if let TypeKind::Alias(shape) = &def.kind {
                def.kind = TypeKind::Newtype {
                    shape: shape.clone(),
                    boxed: false,
                };
            }
        }
    }
    types
}

/// Tarjan's algorithm: the component index of every node.
fn strongly_connected(edges: &BTreeMap<String, Vec<String>>) -> HashMap<String, usize> {
    struct State<'a> {
        edges: &'a BTreeMap<String, Vec<String>>,
        index: HashMap<&'a str, usize>,
        low: HashMap<&'a str, usize>,
        stack: Vec<&'a str>,
        on_stack: BTreeSet<&'a str>,
        component: HashMap<String, usize>,
        components: usize,
    }
    fn visit<'a>(s: &mut State<'a>, node: &'a str) {
        let i = s.index.len();
        s.index.insert(node, i);
        s.low.insert(node, i);
        s.stack.push(node);
        s.on_stack.insert(node);
        for next in s.edges.get(node).into_iter().flatten() {
            let next = next.as_str();
            if !s.edges.contains_key(next) {
                continue;
            }
            if !s.index.contains_key(next) {
                visit(s, next);
                let low = s.low[node].min(s.low[next]);
                s.low.insert(node, low);
            } else if s.on_stack.contains(next) {
                let low = s.low[node].min(s.index[next]);
                s.low.insert(node, low);
            }
        }
        if s.low[node] == s.index[node] {
            while let Some(member) = s.stack.pop() {
                s.on_stack.remove(member);
                s.component.insert(member.to_string(), s.components);
                if member == node {
                    break;
                }
            }
            s.components += 1;
        }
    }
    let mut state = State {
        edges,
        index: HashMap::new(),
        low: HashMap::new(),
        stack: Vec::new(),
        on_stack: BTreeSet::new(),
        component: HashMap::new(),
        components: 0,
    };
    for node in edges.keys() {
        if !state.index.contains_key(node.as_str()) {
            visit(&mut state, node);
        }
    }
    state.component
}

/// The response headers every response of every operation declares (rate
/// limits, say), taken out of each response: middleware sets them. A
/// document with a single operation shares nothing: its headers are that
/// operation's own.
pub(super) fn common_headers(mut ops: Vec<Operation>) -> (Vec<Operation>, Vec<ResponseHeader>) {
    if ops.len() < 2 {
        return (ops, Vec::new());
    }
    let mut responses = ops.iter().flat_map(|o| &o.responses);
    let Some(first) = responses.next() else {
        return (ops, Vec::new());
    };
    let mut common: Vec<ResponseHeader> = first.headers.clone();
    for r in responses {
        common.retain(|c| {
            r.headers
                .iter()
                .any(|h| h.wire.eq_ignore_ascii_case(&c.wire))
        });
    }
    for op in &mut ops {
        for r in &mut op.responses {
            r.headers
                .retain(|h| !common.iter().any(|c| c.wire.eq_ignore_ascii_case(&h.wire)));
        }
    }
    (ops, common)
}

/// The body type every error response carries, when there is just one.
pub(super) fn shared_error_type(ops: &[Operation]) -> Option<Shape> {
    let mut bodies = ops
        .iter()
        .flat_map(|o| &o.responses)
        .filter(|r| r.status.is_error())
        .map(|r| r.body.as_ref());
    let first = bodies.next()??.clone();
    bodies.all(|b| b == Some(&first)).then_some(first)
}

/// The types, with a discriminator inferred for each union that has none
/// but whose variants are objects told apart by one property: required in
/// every variant, fixed there to one value (a single-value `enum`), a
/// different value in each. Such a union is read by that property, as ogen
/// does, instead of by trying every variant.
pub(super) fn infer_discriminators(
    mut types: BTreeMap<String, TypeDef>,
) -> BTreeMap<String, TypeDef> {
    let inferred: Vec<(String, String, Vec<String>)> = types
        .values()
        .filter_map(|def| match &def.kind {
            TypeKind::Union(u) if u.tag.is_none() && u.variants.len() > 1 => {
                let (tag, values) = told_apart(&types, u)?;
                Some((def.name.clone(), tag, values))
            }
            _ => None,
        })
        .collect();
    for (name, tag, values) in inferred {
        if let Some(TypeDef {
            kind: TypeKind::Union(u),
            ..
        }) = types.get_mut(&name)
        {
            u.tag = Some(tag);
            for (variant, value) in u.variants.iter_mut().zip(values) {
                variant.tag_values = vec![value];
            }
        }
    }
    types
}

/// The types, with each property of an object that its flattened union
/// reads too marked [`Field::shared`]: the union's discriminator (an
/// object may declare it beside `oneOf`, as the variants then need not)
/// or a property a variant declares. In JSON Schema every subschema sees
/// the whole object; without the mark the object's own field would take
/// the property and the union would never see it.
pub(super) fn shared_with_unions(
    mut types: BTreeMap<String, TypeDef>,
) -> BTreeMap<String, TypeDef> {
    let read_by_union = |types: &BTreeMap<String, TypeDef>, union: &str| -> BTreeSet<String> {
        let Some(TypeDef {
            kind: TypeKind::Union(u),
            ..
        }) = super::resolve(types, union)
        else {
            return BTreeSet::new();
        };
        let variant_fields = u.variants.iter().flat_map(|v| match &v.shape.ty {
            Ty::Named(n) => match super::resolve(types, n).map(|d| &d.kind) {
                Some(TypeKind::Struct(s)) => s.fields.iter().filter(|f| !f.flatten).collect(),
                _ => Vec::new(),
            },
            _ => Vec::new(),
        });
        variant_fields
            .map(|f| f.wire.clone())
            .chain(u.tag.clone())
            .collect()
    };
    let marks: Vec<(String, BTreeSet<String>)> = types
        .values()
        .filter_map(|def| {
            let TypeKind::Struct(s) = &def.kind else {
                return None;
            };
            let read: BTreeSet<String> = s
                .fields
                .iter()
                .filter_map(|f| match &f.shape.ty {
                    Ty::Named(union) if f.flatten => Some(read_by_union(&types, union)),
                    _ => None,
                })
                .flatten()
                .collect();
            (!read.is_empty()).then(|| (def.name.clone(), read))
        })
        .collect();
    for (name, read) in marks {
        if let Some(TypeDef {
            kind: TypeKind::Struct(s),
            ..
        }) = types.get_mut(&name)
        {
            for f in s.fields.iter_mut().filter(|f| !f.flatten) {
                f.shared = read.contains(&f.wire);
            }
        }
    }
    types
}

/// The property that tells a union's variants apart, and its value in each.
fn told_apart(types: &BTreeMap<String, TypeDef>, u: &Union) -> Option<(String, Vec<String>)> {
    let structs: Vec<&Struct> = u
        .variants
        .iter()
        .map(|v| match &v.shape.ty {
            Ty::Named(n) => match &super::resolve(types, n)?.kind {
                TypeKind::Struct(s) => Some(s),
                _ => None,
            },
            _ => None,
        })
        .collect::<Option<_>>()?;
    let fixed = |s: &Struct, wire: &str| -> Option<String> {
        let field = s.fields.iter().find(|f| f.wire == wire && f.required)?;
        let Ty::Named(n) = &field.shape.ty else {
            return None;
        };
        match &super::resolve(types, n)?.kind {
            TypeKind::Enum(variants) if variants.len() == 1 => Some(variants[0].wire.clone()),
            _ => None,
        }
    };
    structs[0].fields.iter().find_map(|candidate| {
        let values: Vec<String> = structs
            .iter()
            .map(|s| fixed(s, &candidate.wire))
            .collect::<Option<_>>()?;
        let distinct: BTreeSet<&String> = values.iter().collect();
        (distinct.len() == values.len()).then(|| (candidate.wire.clone(), values))
    })
}

/// Marks the operations whose responses are the same as an earlier
/// operation's ([`Operation::same_responses_as`]): every `DELETE` of a
/// large API answering `204`, or the same error, once per document rather
/// than once per operation (Microsoft Graph: 11,422 response enums, 2,825
/// of them different). Where a response sits in the document and its
/// examples are not part of its type; a stream of events is, its type
/// names its owner, so such responses stay the operation's own.
pub(super) fn same_responses(mut ops: Vec<Operation>) -> Vec<Operation> {
    let mut first: HashMap<String, String> = HashMap::new();
    for op in &mut ops {
        if op.responses.iter().any(|r| r.media.streams()) {
            continue;
        }
        let key = format!(
            "{:?}",
            op.responses
                .iter()
                .map(|r| Response {
                    pointer: String::new(),
                    examples: Vec::new(),
                    headers: r
                        .headers
                        .iter()
                        .map(|h| ResponseHeader {
                            pointer: String::new(),
                            ..h.clone()
                        })
                        .collect(),
                    ..r.clone()
                })
                .collect::<Vec<_>>()
        );
        match first.get(&key) {
            Some(name) => op.same_responses_as = Some(name.clone()),
            None => {
                first.insert(key, op.type_name.clone());
            }
        }
    }
    ops
}

/// Names the responses operations share ([`Response::shared`]): a response
/// that several operations reference, of one status, with headers of its
/// own once the common ones are gone (a 429 with `Retry-After`, say).
/// Each becomes one type, named after what it references, that every
/// operation's response enum holds; the others are spelled out in place.
pub(super) fn shared_responses(
    mut ops: Vec<Operation>,
    traits: &[RouteTrait],
) -> (Vec<Operation>, Vec<SharedResponse>) {
    let mut uses: HashMap<String, usize> = HashMap::new();
    for r in ops.iter().flat_map(|o| &o.responses) {
        if let Some(target) = r.referenced.as_ref().filter(|_| !r.headers.is_empty()) {
            *uses.entry(target.clone()).or_default() += 1;
        }
    }
    // The names of the operations module, which the shared types join.
    let mut names = Namer::new();
    for name in PRELUDE_TYPES.iter().copied().chain(["ErrorResponse"]) {
        names.reserve(name);
    }
    for t in traits {
        names.reserve(&t.name);
    }
    for op in &ops {
        names.reserve(&format!("{}Request", op.type_name));
        names.reserve(&format!("{}Response", op.type_name));
    }
    let mut named: HashMap<String, String> = HashMap::new();
    let mut shared = Vec::new();
    for r in ops.iter_mut().flat_map(|o| &mut o.responses) {
        let Some(target) = r.referenced.clone() else {
            continue;
        };
        if r.headers.is_empty() || uses.get(&target).is_none_or(|&n| n < 2) {
            continue;
        }
        let name = named.entry(target.clone()).or_insert_with(|| {
            let last = crate::diag::Pointer::from_ref(&target)
                .and_then(|p| p.segments().last())
                .unwrap_or_default();
            let name = names.unique(sanitize(&last, Case::Pascal));
            shared.push(SharedResponse {
                name: name.clone(),
                response: Response {
                    shared: Some(name.clone()),
                    ..r.clone()
                },
            });
            name
        });
        r.shared = Some(name.clone());
    }
    (ops, shared)
}
