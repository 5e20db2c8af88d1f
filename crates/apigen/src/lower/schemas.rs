//! Schemas to shapes: references followed, components named and made
//! types, each schema's shape; the kinds of named types are `kinds.rs`.

use super::pointer::{self, Node};
use super::{resolve, Lowerer};
use crate::diag::Pointer;
use crate::ir::*;
use crate::names::{sanitize, Case};
use crate::schema_view::{flatten, Flat};
use openapiv3::{AdditionalProperties, ReferenceOr, Schema};
use std::collections::BTreeMap;

/// How a component schema is represented: its own type, or inlined at each use.
#[derive(Debug, PartialEq)]
pub(super) enum Class {
    Named,
    Inline,
}

/// Whether a discriminator's `mapping` or `defaultMapping` target names
/// `variant`, which stands at `at`: by reference (or bare schema name),
/// or, for a variant written in place, by its pointer.
pub(super) fn names_variant(target: &str, variant: &ReferenceOr<Schema>, at: &Pointer) -> bool {
    match variant {
        ReferenceOr::Reference { reference } => maps_to(target, reference),
        ReferenceOr::Item(_) => target == at.to_string(),
    }
}

/// Whether a discriminator `mapping` target (a reference, or a bare schema
/// name) names the schema `reference` names.
fn maps_to(target: &str, reference: &str) -> bool {
    target == reference
        || (!target.starts_with('#')
            && !target.contains('/')
            && reference
                .strip_prefix("#/components/schemas/")
                .is_some_and(|name| name == target))
}

impl<'a> Lowerer<'a> {
    pub(super) fn component_schemas(
        &self,
    ) -> impl Iterator<Item = (&'a String, &'a ReferenceOr<Schema>)> {
        self.doc.components.iter().flat_map(|c| c.schemas.iter())
    }

    /// Names every component schema first (so references resolve in any order),
    /// then lowers each.
    pub(super) fn component_types(&mut self) {
        let base = Pointer::root().join("components").join("schemas");
        let names: Vec<String> = self.component_schemas().map(|(n, _)| n.clone()).collect();
        for name in &names {
            let rust = self.namer.unique(sanitize(name, Case::Pascal));
            self.components.insert(name.clone(), rust);
        }
        for (name, schema) in self.component_schemas() {
            let at = base.join(name);
            let rust = self.components[name].clone();
            match schema {
                ReferenceOr::Reference { reference } => {
                    let mark = self.errors.len();
                    let shape = match self.reference_cycle(name) {
                        Some(cycle) => {
                            self.error(
                                &at,
                                format!(
                                    "`{name}` refers back to itself through references only ({}): one of them needs a schema",
                                    cycle.join(" -> ")
                                ),
                            );
                            None
                        }
                        None => self.shape_of_ref(reference, &at),
                    };
                    let shape = shape
                        .filter(|_| self.errors.len() == mark)
                        .unwrap_or_else(|| {
                            self.skip_since(mark, &format!("schema `{name}`"));
                            Shape::new(Ty::Json)
                        });
                    self.insert_type(TypeDef {
                        name: rust,
                        origin: at.to_string(),
                        doc: None,
                        deprecated: false,
                        example: None,
                        kind: TypeKind::Alias(shape),
                    });
                }
                ReferenceOr::Item(schema) => {
                    let mark = self.errors.len();
                    // Its own uses, through aliases, name it (see
                    // `shape_of_ref`).
                    let key = at.to_string();
                    let own = self.resolving.insert(key.clone());
                    let kind = self.type_kind(schema, &at, &rust);
                    if own {
                        self.resolving.remove(&key);
                    }
                    let kind = match kind {
                        Some(kind) if self.errors.len() == mark => kind,
                        _ => {
                            self.skip_since(mark, &format!("schema `{name}`"));
                            // Left as any JSON, so that what refers to it still compiles.
                            TypeKind::Alias(Shape::new(Ty::Json))
                        }
                    };
                    self.insert_type(TypeDef {
                        name: rust,
                        origin: at.to_string(),
                        doc: schema.schema_data.description.clone(),
                        deprecated: schema.schema_data.deprecated,
                        example: schema.schema_data.example.clone(),
                        kind,
                    });
                }
            }
        }
    }

    /// A key equal for structurally identical types, named types compared
    /// through their aliases. Aliases themselves are never shared.
    pub(super) fn canonical_key(&self, kind: &TypeKind) -> String {
        fn canon(shape: &mut Shape, types: &BTreeMap<String, TypeDef>) {
            match &mut shape.ty {
                Ty::Named(n) => {
                    if let Some(def) = resolve(types, n) {
                        *n = def.name.clone();
                    }
                }
                Ty::Array(inner) | Ty::Map(inner) => canon(inner, types),
                _ => {}
            }
        }
        let mut kind = kind.clone();
        match &mut kind {
            // With `share_structs`, two structs with the same fields are one
            // type, whatever their properties' descriptions and examples say
            // and wherever they stand: the first one's docs are the shared
            // type's. Without, each field's pointer keeps them apart.
            TypeKind::Struct(s) => {
                for f in &mut s.fields {
                    canon(&mut f.shape, &self.types);
                    if self.share_structs {
                        f.pointer.clear();
                        f.doc = None;
                        f.example = None;
                    }
                }
                if let Some(a) = &mut s.additional {
                    canon(a, &self.types);
                }
            }
            TypeKind::Union(u) => u
                .variants
                .iter_mut()
                .for_each(|v| canon(&mut v.shape, &self.types)),
            TypeKind::Enum(_) => {}
            // A unique key: aliases stay as they are.
            TypeKind::Alias(_) | TypeKind::Newtype { .. } => {
                return format!("alias {}", self.types.len())
            }
        }
        format!("{kind:?}")
    }

    pub(super) fn insert_type(&mut self, def: TypeDef) {
        self.types.insert(def.name.clone(), def);
    }

    /// The chain of component names that leads from `name` back to itself
    /// through components that are only `$ref`s, if there is one.
    fn reference_cycle(&self, name: &str) -> Option<Vec<String>> {
        let schemas = &self.doc.components.as_ref()?.schemas;
        let mut chain = vec![name.to_string()];
        let mut current = schemas.get(name)?;
        while let ReferenceOr::Reference { reference } = current {
            let next = reference
                .strip_prefix("#/components/schemas/")?
                .replace("~1", "/")
                .replace("~0", "~");
            let looped = chain.contains(&next);
            chain.push(next.clone());
            if looped {
                return (chain[0] == next).then_some(chain);
            }
            current = schemas.get(&next)?;
        }
        None
    }

    /// Resolves a local reference to a component schema.
    pub(super) fn component_ref(
        &mut self,
        reference: &str,
        at: &Pointer,
    ) -> Option<(&'a String, &'a ReferenceOr<Schema>)> {
        let found = reference
            .strip_prefix("#/components/schemas/")
            .and_then(|name| {
                let name = name.replace("~1", "/").replace("~0", "~");
                let schemas = &self.doc.components.as_ref()?.schemas;
                schemas.get_key_value(&name)
            });
        if found.is_none() {
            self.error(at, format!("unresolved reference `{reference}`"));
        }
        found
    }

    /// Whether a schema becomes a type of its own or is inlined where it is used.
    pub(super) fn class(&self, schema: &Schema) -> Class {
        let flat = flatten(schema);
        let is_string_enum = is_string_enum(&flat);
        let is_object = flat.typ == Some("object") && !flat.properties.is_empty();
        let single_all_of = flat.all_of.len() == 1 && flat.properties.is_empty();
        if is_string_enum
            || is_object
            || !flat.one_of.is_empty()
            || !flat.any_of.is_empty()
            || (!flat.all_of.is_empty() && !single_all_of)
        {
            Class::Named
        } else {
            // `allOf: [X]` is X itself (see `shape_of_schema`): an inline X
            // that is a type of its own is one where it stands, whatever
            // it is (an object, a string enum).
            Class::Inline
        }
    }

    /// The shape at a `$ref`: the named type, or the target's own shape when the
    /// target is a primitive alias (so that its bounds are checked at every use).
    /// A reference into a schema, a parameter, a response or a path gets the
    /// shape of the schema standing there, as that place would: one type,
    /// named from where it stands, shared by every reference to it.
    pub(super) fn shape_of_ref(&mut self, reference: &str, at: &Pointer) -> Option<Shape> {
        if !pointer::names_something(self.tree(), reference) {
            // Nothing says what the value is: any value, as other tools
            // read it.
            self.assume(
                at,
                format!("unresolved reference `{reference}`"),
                "read as any value",
            );
            return Some(Shape::new(Ty::Json));
        }
        if !pointer::is_component_root(reference, "schemas") {
            return self.shape_of_pointer(reference, at);
        }
        let (name, target) = self.component_ref(reference, at)?;
        let rust = self.components[name].clone();
        match target {
            ReferenceOr::Item(schema) if self.class(schema) == Class::Inline => {
                let target_at = Pointer::root()
                    .join("components")
                    .join("schemas")
                    .join(name);
                let key = target_at.to_string();
                if !self.resolving.insert(key.clone()) {
                    // Inlining it again would never end (an array of arrays
                    // of itself, through other aliases): it is named, and
                    // the cycle of aliases becomes newtypes
                    // (`passes::newtype_alias_cycles`).
                    return Some(Shape::new(Ty::Named(rust)));
                }
                let shape = self.shape_of_schema(schema, &target_at, &rust);
                self.resolving.remove(&key);
                shape
            }
            // A component that admits null (`nullable`, or 3.1's null
            // branch) makes every use of it an `Option`.
            ReferenceOr::Item(schema) => Some(Shape {
                nullable: schema.schema_data.nullable,
                ..Shape::new(Ty::Named(rust))
            }),
            ReferenceOr::Reference { .. } => Some(Shape::new(Ty::Named(rust))),
        }
    }

    /// The shape of the schema a reference to anything but a component root
    /// names.
    fn shape_of_pointer(&mut self, reference: &str, at: &Pointer) -> Option<Shape> {
        let (target, schema) = match pointer::find(self.tree(), reference) {
            Some((target, Node::Schema(schema))) => (target, schema),
            // A parameter, header, response or request body where a schema
            // is wanted (an invalid document that other tools read): the
            // schema it holds.
            Some((target, node)) => {
                let (what, schema_at) = held_schema(&target, node)?;
                self.assume(
                    at,
                    format!("`{reference}` names {what} where a schema is wanted"),
                    "its schema is used",
                );
                return self.shape_of_ref(&schema_at.to_string(), at);
            }
            None => {
                self.error(at, format!("unresolved reference `{reference}`"));
                return None;
            }
        };
        let segments: Vec<String> = target.segments().collect();
        if let [components, schemas, _] = segments.as_slice() {
            if components == "components" && schemas == "schemas" {
                // A chain that ends at a component.
                return self.shape_of_ref(&target.to_string(), at);
            }
        }
        let key = target.to_string();
        if !self.resolving.insert(key.clone()) {
            self.error(
                at,
                format!("`{reference}` refers to itself through aliases only"),
            );
            return None;
        }
        let shape = self.shape_of_schema(schema, &target, &pointer::name_from(&target));
        self.resolving.remove(&key);
        shape
    }

    /// The schema a reference names, wherever it stands, and its pointer;
    /// reported at `at` when nothing stands there.
    pub(super) fn schema_at(
        &mut self,
        reference: &str,
        at: &Pointer,
    ) -> Option<(Pointer, &'a Schema)> {
        match pointer::find(self.tree(), reference) {
            Some((target, Node::Schema(schema))) => Some((target, schema)),
            _ => {
                self.error(at, format!("unresolved reference `{reference}`"));
                None
            }
        }
    }

    /// The shape of a schema or reference standing at `at`. `hint` names the
    /// type created if the schema is an inline object, enum or union. The
    /// schema may stand boxed (a property's, an item's) or not.
    pub(super) fn shape_of<S: std::borrow::Borrow<Schema>>(
        &mut self,
        schema: &ReferenceOr<S>,
        at: &Pointer,
        hint: &str,
    ) -> Option<Shape> {
        match schema {
            ReferenceOr::Reference { reference } => self.shape_of_ref(reference, at),
            ReferenceOr::Item(schema) => self.shape_of_schema(schema.borrow(), at, hint),
        }
    }

    pub(super) fn shape_of_schema(
        &mut self,
        schema: &Schema,
        at: &Pointer,
        hint: &str,
    ) -> Option<Shape> {
        let nullable = schema.schema_data.nullable;
        if self.class(schema) == Class::Named {
            let name = self.named_type(schema, at, hint)?;
            let mut shape = Shape::new(Ty::Named(name));
            shape.nullable = nullable;
            return Some(shape);
        }
        let flat = flatten(schema);
        if flat.not.is_some() && flat.not_alone {
            self.note(
                &at.join("not"),
                "a schema that says only what a value is not is read as any value",
            );
            let mut shape = Shape::new(Ty::Json);
            shape.nullable = nullable;
            return Some(shape);
        }
        // Beside other keywords, `not: {enum: [...]}` is a check; any other
        // `not` is read past, with a note.
        let not_in = match flat.not {
            None => Vec::new(),
            Some(not) => match excluded_values(not) {
                Some(values) => values,
                None => {
                    self.note(
                        &at.join("not"),
                        "`not` is not checked (only `not: {enum: [...]}` is)",
                    );
                    Vec::new()
                }
            },
        };
        if flat.all_of.len() == 1 && flat.properties.is_empty() {
            // `allOf: [X]` beside a description or `readOnly`: X itself.
            let mut shape = self.shape_of(&flat.all_of[0], &at.join("allOf").join(0), hint)?;
            shape.nullable |= nullable;
            return Some(shape);
        }
        let mut checks = Checks {
            min_length: flat.min_length,
            max_length: flat.max_length,
            pattern: flat.pattern.map(str::to_string),
            minimum: flat.minimum,
            maximum: flat.maximum,
            exclusive_minimum: flat.exclusive_minimum,
            exclusive_maximum: flat.exclusive_maximum,
            min_items: flat.min_items,
            max_items: flat.max_items,
            unique_items: flat.unique_items,
            format: None,
            not_in,
            one_of: Vec::new(),
        };
        let format = flat.format.as_deref().unwrap_or("");
        let ty = self.ty_of(&flat, at, hint, format)?;
        self.settle_checks(&mut checks, &ty, &flat, at, format);
        Some(Shape {
            ty,
            checks,
            nullable,
        })
    }

    /// The named type of an inline schema that makes one: the name it was
    /// given where it stands, else a new one from `hint`, its type made
    /// (or an alias of an identical one already made).
    fn named_type(&mut self, schema: &Schema, at: &Pointer, hint: &str) -> Option<String> {
        match self.inline.get(at) {
            Some(name) => Some(name.clone()),
            None => {
                let name = self.namer.unique(sanitize(hint, Case::Pascal));
                self.inline.insert(at.clone(), name.clone());
                let mut kind = self.type_kind(schema, at, &name)?;
                // An inline type identical to one already made (Stripe repeats
                // the same enums and list wrappers hundreds of times) shares
                // its implementation: this name becomes an alias of it.
                let key = self.canonical_key(&kind);
                match self.shared.get(&key) {
                    Some(first) => kind = TypeKind::Alias(Shape::new(Ty::Named(first.clone()))),
                    None => {
                        self.shared.insert(key, name.clone());
                    }
                }
                self.insert_type(TypeDef {
                    name: name.clone(),
                    origin: at.to_string(),
                    doc: schema.schema_data.description.clone(),
                    deprecated: schema.schema_data.deprecated,
                    example: schema.schema_data.example.clone(),
                    kind,
                });
                Some(name)
            }
        }
    }

    /// The type a schema's `type` and `format` say, its items and values
    /// lowered with names from `hint`.
    fn ty_of(&mut self, flat: &Flat<'_>, at: &Pointer, hint: &str, format: &str) -> Option<Ty> {
        let ty = match flat.typ {
            Some("boolean") => Ty::Bool,
            Some("integer") => Ty::integer(flat.format.as_deref()),
            Some("number") => match format {
                "float" => Ty::F32,
                _ => Ty::F64,
            },
            Some("string") => match format {
                "date-time" => Ty::DateTime,
                "date" => Ty::Date,
                "uuid" => Ty::Uuid,
                // Bytes: base64 text in JSON, the content of a file part.
                "byte" | "binary" => Ty::Base64,
                _ => Ty::String,
            },
            Some("array") => {
                let items = match flat.items {
                    Some(items) => {
                        self.shape_of(items, &at.join("items"), &format!("{hint}Item"))?
                    }
                    None => Shape::new(Ty::Json),
                };
                Ty::Array(Box::new(items))
            }
            // `type: null` (an OpenAPI 3.1 spelling some 3.0 documents use).
            Some("null") => Ty::Json,
            Some("object") | None => match flat.additional {
                Some(AdditionalProperties::Schema(values)) => {
                    let values = self.shape_of(
                        values,
                        &at.join("additionalProperties"),
                        &format!("{hint}Value"),
                    )?;
                    Ty::Map(Box::new(values))
                }
                // An object of any properties is still an object: a map
                // of JSON values refuses an array or a string.
                _ if flat.typ == Some("object") => Ty::Map(Box::new(Shape::new(Ty::Json))),
                _ => Ty::Json,
            },
            Some(other) => {
                self.error(&at.join("type"), format!("unknown type `{other}`"));
                return None;
            }
        };
        Some(ty)
    }

    /// The checks as they apply to a value of `ty`: whole numbers' `enum`,
    /// no text checks on a parsed format, a pattern Rust's regex cannot
    /// compile dropped (with a note), the text formats checked on request.
    fn settle_checks(
        &mut self,
        checks: &mut Checks,
        ty: &Ty,
        flat: &Flat<'_>,
        at: &Pointer,
        format: &str,
    ) {
        if matches!(ty, Ty::I32 | Ty::I64) {
            checks.one_of = flat.enumeration.iter().filter_map(|v| v.as_i64()).collect();
        } else if !flat.enumeration.is_empty() && !matches!(ty, Ty::String | Ty::Bool) {
            // Of numbers that may have fractions, arrays, objects: read as
            // their type, the list of values not checked (said so).
            self.note(
                &at.join("enum"),
                "`enum` of values that are not text or whole numbers is not checked",
            );
        }
        if matches!(ty, Ty::DateTime | Ty::Date | Ty::Uuid | Ty::Base64) {
            // Parsing enforces the format; lengths and patterns of the
            // text do not apply to the value.
            checks.min_length = None;
            checks.max_length = None;
            checks.pattern = None;
        }
        if let Some(pattern) = &checks.pattern {
            let compiles = *self
                .patterns
                .entry(pattern.clone())
                .or_insert_with(|| regex::Regex::new(pattern).is_ok());
            if !compiles {
                self.note(
                    &at.join("pattern"),
                    format!(
                        "`pattern` `{pattern}` is not checked: Rust's regex cannot compile it \
                         (look-around and backreferences are not supported)"
                    ),
                );
                checks.pattern = None;
            }
        }
        if *ty == Ty::String && self.check_formats {
            checks.format = match format {
                "email" => Some(TextFormat::Email),
                "uri" => Some(TextFormat::Uri),
                "duration" => Some(TextFormat::Duration),
                _ => None,
            };
        }
    }
}

/// A variant's name from the reference that gives it: the component's
/// name, or a name made from where it points.
pub(super) fn component_name(reference: &str) -> String {
    match Pointer::from_ref(reference) {
        Some(p) if pointer::is_component_root(reference, "schemas") => {
            p.segments().last().unwrap_or_default()
        }
        Some(p) => pointer::name_from(&p),
        None => reference.to_string(),
    }
}

/// Where the schema a parameter, header, response or request body holds
/// stands (below `target`, where the node is), and what the node is; `None`
/// for a node that holds none. A response or request body's is its JSON
/// media type's, else its first.
fn held_schema(target: &Pointer, node: Node<'_>) -> Option<(&'static str, Pointer)> {
    use openapiv3::ParameterSchemaOrContent;
    let content = |content: &indexmap::IndexMap<String, openapiv3::MediaType>| {
        let (media, _) = content
            .iter()
            .filter(|(_, m)| m.schema.is_some())
            .find(|(m, _)| super::responses::is_json(m))
            .or_else(|| content.iter().find(|(_, m)| m.schema.is_some()))?;
        Some(target.join("content").join(media).join("schema"))
    };
    let from_format = |format: &ParameterSchemaOrContent| match format {
        ParameterSchemaOrContent::Schema(_) => Some(target.join("schema")),
        ParameterSchemaOrContent::Content(c) => content(c),
    };
    match node {
        Node::Parameter(p) => Some(("a parameter", from_format(&p.parameter_data_ref().format)?)),
        Node::Header(h) => Some(("a header", from_format(&h.format)?)),
        Node::Response(r) => Some(("a response", content(&r.content)?)),
        Node::RequestBody(b) => Some(("a request body", content(&b.content)?)),
        Node::Schema(_) | Node::SecurityScheme(_) | Node::Other => None,
    }
}

/// Whether a schema is an enum of strings: `type: string` with an `enum`,
/// or an `enum` of strings alone with no `type` (the values say it).
pub(super) fn is_string_enum(flat: &Flat<'_>) -> bool {
    match flat.typ {
        Some("string") => !flat.enumeration.is_empty(),
        None => {
            flat.enumeration.iter().any(serde_json::Value::is_string)
                && flat
                    .enumeration
                    .iter()
                    .all(|v| v.is_string() || v.is_null())
        }
        Some(_) => false,
    }
}

/// The values a `not` schema excludes, when that is all it says:
/// `not: {enum: [...]}` of strings or integers.
pub(super) fn excluded_values(not: &ReferenceOr<Schema>) -> Option<Vec<serde_json::Value>> {
    let ReferenceOr::Item(not) = not else {
        return None;
    };
    let flat = flatten(not);
    let only_enum = flat.properties.is_empty()
        && flat.one_of.is_empty()
        && flat.any_of.is_empty()
        && flat.all_of.is_empty()
        && flat.not.is_none();
    let values = flat.enumeration;
    let scalar = |v: &serde_json::Value| v.is_string() || v.is_i64() || v.is_u64();
    (only_enum && !values.is_empty() && values.iter().all(scalar)).then_some(values)
}
