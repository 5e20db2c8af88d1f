//! What the lowered API answers about itself: the types a request can
//! carry and a bound checks (`checked_types`, which lowering stores as
//! `Api::checked`), which sides send each type, which groups reach it, the
//! operations by group. Asked by the lowering's passes and by every
//! emitter; kept apart from `ir.rs`, which is the data alone.

use crate::ir::{Api, Operation, Senders, Shape, Ty, TypeKind};
use std::collections::{HashMap, HashSet};

impl Api {
    /// The named types a request can carry whose value can break a bound:
    /// those with a constrained shape of their own (a length, a range, a
    /// pattern, an item count, a read-only property), and those holding one
    /// of them, through every field, item, variant and alias, among the
    /// types an operation's parameters and body, or a webhook's payload,
    /// reach. Only requests are validated (by the glue on the way in, by
    /// the client on the way out); a type that only responses hold needs
    /// no `Validate` impl.
    pub fn checked_types(&self) -> HashSet<String> {
        let types = &self.types;
        fn walk<'a>(shape: &'a Shape, refs: &mut Vec<&'a str>) -> bool {
            let own = !shape.checks.is_empty();
            match &shape.ty {
                Ty::Array(inner) | Ty::Map(inner) => walk(inner, refs) || own,
                Ty::Named(name) => {
                    refs.push(name);
                    own
                }
                _ => own,
            }
        }
        // Who holds whom, and the types constrained by themselves.
        let mut holders: HashMap<&str, Vec<&str>> = HashMap::new();
        let mut pending: Vec<&str> = Vec::new();
        for (name, def) in types {
            let mut refs = Vec::new();
            let mut own = false;
            for shape in def.shapes() {
                own |= walk(shape, &mut refs);
            }
            if let TypeKind::Struct(s) = &def.kind {
                own |= s
                    .fields
                    .iter()
                    .any(|f| f.read_only || (f.write_only && f.required));
            }
            for held in refs {
                holders.entry(held).or_default().push(name);
            }
            if own {
                pending.push(name);
            }
        }
        let requested = self.reached(self.every_operation().flat_map(Operation::request_shapes));
        let mut checked: HashSet<String> = HashSet::new();
        while let Some(name) = pending.pop() {
            if requested.contains(name) && checked.insert(name.to_string()) {
                pending.extend(holders.get(name).into_iter().flatten());
            }
        }
        checked
    }

    /// Which sides send each named type, for the serde impls a crate
    /// compiles: a client serializes what requests carry and deserializes
    /// what responses and webhook payloads carry, a server the other way
    /// round. Both sets are closed under holding (a type is in every set a
    /// type holding it is in), so wherever a type's impl is compiled, the
    /// impls of what it holds are too. A type in neither set (no operation
    /// or webhook uses it) implements them only with the `serialize` and
    /// `deserialize` features, which every other type's impls also answer
    /// to. `both_ways` implement both whatever the sides: newtypes (which
    /// derive both) and what a shared property reaches (a record's reading
    /// writes its shared properties back), and everything they hold; and
    /// every model of a document with neither operations nor webhooks.
    pub fn senders(&self) -> Senders<'_> {
        let requests = self.reached(self.every_operation().flat_map(Operation::request_shapes));
        let responses = self.reached(
            self.shared_shapes()
                .into_iter()
                .chain(self.every_operation().flat_map(Operation::response_shapes)),
        );
        let mut roots: Vec<&Shape> = Vec::new();
        let mut own: Vec<&str> = Vec::new();
        for (name, def) in &self.types {
            match &def.kind {
                TypeKind::Newtype { shape, .. } => {
                    own.push(name);
                    roots.push(shape);
                }
                TypeKind::Struct(s) => {
                    roots.extend(s.fields.iter().filter(|f| f.shared).map(|f| &f.shape))
                }
                _ => {}
            }
        }
        let mut both_ways = self.reached(roots);
        both_ways.extend(own);
        // A document of models alone has no sides: its models are all there
        // is, and implement both.
        if self.operations.is_empty() && self.webhooks.is_empty() {
            both_ways.extend(self.types.keys().map(String::as_str));
        }
        Senders {
            requests,
            responses,
            both_ways,
        }
    }

    /// Whether a value of `shape` can break a bound: one of its own, or
    /// one of a checked type it holds (through items and map values).
    pub fn is_checked(&self, shape: &Shape) -> bool {
        !shape.checks.is_empty()
            || match &shape.ty {
                Ty::Array(inner) | Ty::Map(inner) => self.is_checked(inner),
                Ty::Named(name) => self.checked.contains(name),
                _ => false,
            }
    }

    /// Whether an operation's request (its parameters and body) can break
    /// a bound: then it has a `Validate` impl, which the glue and the
    /// client call.
    pub fn request_checked(&self, op: &Operation) -> bool {
        op.request_shapes().any(|shape| self.is_checked(shape))
    }

    /// Every JSON pointer the API records, rewritten by `f` (to map a
    /// rewritten document's pointers back to the one the user wrote).
    pub fn map_pointers(&mut self, f: impl Fn(&str) -> String) {
        for def in self.types.values_mut() {
            def.origin = f(&def.origin);
            if let TypeKind::Struct(s) = &mut def.kind {
                for field in &mut s.fields {
                    field.pointer = f(&field.pointer);
                }
            }
        }
        let received = self.webhooks.iter_mut().map(|w| &mut w.operation);
        for op in self.operations.iter_mut().chain(received) {
            op.pointer = f(&op.pointer);
            for p in &mut op.params {
                p.pointer = f(&p.pointer);
            }
            if let Some(b) = &mut op.body {
                b.pointer = f(&b.pointer);
            }
            for r in &mut op.responses {
                r.pointer = f(&r.pointer);
                for h in &mut r.headers {
                    h.pointer = f(&h.pointer);
                }
            }
        }
        for shared in &mut self.shared_responses {
            let r = &mut shared.response;
            r.pointer = f(&r.pointer);
            for h in &mut r.headers {
                h.pointer = f(&h.pointer);
            }
        }
        for h in &mut self.common_headers {
            h.pointer = f(&h.pointer);
        }
    }

    /// The operations served, then the webhooks received: every request a
    /// generated crate reads or writes.
    pub fn every_operation(&self) -> impl Iterator<Item = &Operation> {
        let received = self.webhooks.iter().map(|w| &w.operation);
        self.operations.iter().chain(received)
    }

    /// Each group's index in [`Api::traits`], by its name.
    pub fn trait_index(&self) -> HashMap<&str, usize> {
        self.traits
            .iter()
            .enumerate()
            .map(|(i, t)| (t.group.as_str(), i))
            .collect()
    }

    /// The operations of each route trait, in the order of
    /// [`Api::traits`], each group's in document order: one pass, where
    /// filtering the operations for each group in turn costs their
    /// product (a document with 500 tags and 10,000 operations).
    pub fn operations_by_group(&self) -> Vec<Vec<&Operation>> {
        let index = self.trait_index();
        let mut groups: Vec<Vec<&Operation>> = vec![Vec::new(); self.traits.len()];
        for op in &self.operations {
            if let Some(&i) = index.get(op.group.as_str()) {
                groups[i].push(op);
            }
        }
        groups
    }

    /// For each named type, the groups (indices into [`Api::traits`])
    /// whose operations reach it, through every field, variant and alias.
    /// Types every operation shares (the error type, the common headers')
    /// are reached by every group. The types no operation reaches, those
    /// the webhooks use, and every type they use, are also reached by one
    /// more group, index `traits.len()`: the document's other models.
    pub fn reach(&self) -> HashMap<&str, Vec<usize>> {
        // Types by index, and the types each one uses directly.
        let index: HashMap<&str, usize> = self
            .types
            .keys()
            .enumerate()
            .map(|(i, name)| (name.as_str(), i))
            .collect();
        let named = |shapes: Vec<&Shape>| -> Vec<usize> {
            shapes
                .into_iter()
                .filter_map(Shape::named)
                .filter_map(|name| index.get(name).copied())
                .collect()
        };
        let uses: Vec<Vec<usize>> = self.types.values().map(|def| named(def.shapes())).collect();
        // Each type's groups, in increasing order: groups are walked in
        // turn, so a type holds the current group last once reached.
        let mut groups: Vec<Vec<usize>> = vec![Vec::new(); uses.len()];
        let walk = |group: usize, mut stack: Vec<usize>, groups: &mut Vec<Vec<usize>>| {
            while let Some(t) = stack.pop() {
                if groups[t].last() != Some(&group) {
                    groups[t].push(group);
                    stack.extend(&uses[t]);
                }
            }
        };
        let shared = self.shared_shapes();
        for (group, ops) in self.operations_by_group().into_iter().enumerate() {
            let mut roots = shared.clone();
            for op in ops {
                roots.extend(op.shapes());
            }
            walk(group, named(roots), &mut groups);
        }
        // The webhooks module is compiled with the types no group
        // reaches: what its webhooks use is in that set too.
        let mut unreached: Vec<usize> = (0..groups.len())
            .filter(|&t| groups[t].is_empty())
            .collect();
        let received = self.webhooks.iter().flat_map(|w| w.operation.shapes());
        unreached.extend(named(received.collect()));
        walk(self.traits.len(), unreached, &mut groups);
        self.types
            .keys()
            .zip(groups)
            .map(|(name, groups)| (name.as_str(), groups))
            .collect()
    }

    /// The shapes every group's operations use: the error type and the
    /// common headers'.
    fn shared_shapes(&self) -> Vec<&Shape> {
        self.error_type
            .iter()
            .chain(self.common_headers.iter().map(|h| &h.shape))
            .collect()
    }

    /// Whether some types are reached by no operation: the ones the
    /// `other-models` feature compiles in ([`Api::reach`]). One walk from
    /// every operation at once, not one per group as `reach` makes.
    pub fn has_other_models(&self) -> bool {
        let reached = if self.traits.is_empty() {
            HashSet::new()
        } else {
            self.reached(
                self.shared_shapes().into_iter().chain(
                    self.operations_by_group()
                        .into_iter()
                        .flatten()
                        .flat_map(Operation::shapes),
                ),
            )
        };
        self.types
            .keys()
            .any(|name| !reached.contains(name.as_str()))
    }

    /// The named types `roots` reach, through every field, item, variant
    /// and alias.
    fn reached<'a>(&'a self, roots: impl IntoIterator<Item = &'a Shape>) -> HashSet<&'a str> {
        let mut stack: Vec<&str> = roots.into_iter().filter_map(Shape::named).collect();
        let mut reached: HashSet<&str> = HashSet::new();
        while let Some(name) = stack.pop() {
            if reached.insert(name) {
                if let Some(def) = self.types.get(name) {
                    stack.extend(def.shapes().into_iter().filter_map(Shape::named));
                }
            }
        }
        reached
    }

    /// Each group's Cargo feature and its number of operations, in the
    /// order of the traits.
    pub fn groups(&self) -> Vec<(String, usize)> {
        self.traits
            .iter()
            .zip(self.operations_by_group())
            .map(|(t, ops)| (t.feature.clone(), ops.len()))
            .collect()
    }
}
