//! Schemas to the kinds of named types: structs (objects, `allOf`
//! merged), string enums and unions, with their fields and variants.

use super::pointer::{self, Node};
use super::schemas::{component_name, is_string_enum, names_variant, Class};
use super::Lowerer;
use crate::diag::Pointer;
use crate::ir::*;
use crate::names::{sanitize, Case, Namer};
use crate::schema_view::{flatten, Flat};
use openapiv3::{AdditionalProperties, ReferenceOr, Schema};

impl<'a> Lowerer<'a> {
    /// The kind of a named type built from `schema`.
    pub(super) fn type_kind(
        &mut self,
        schema: &Schema,
        at: &Pointer,
        name: &str,
    ) -> Option<TypeKind> {
        if self.class(schema) == Class::Inline {
            return self.shape_of_schema(schema, at, name).map(TypeKind::Alias);
        }
        let flat = flatten(schema);
        if flat.not.is_some() {
            self.note(&at.join("not"), "`not` is not checked on a named type");
        }
        if is_string_enum(&flat) {
            return Some(TypeKind::Enum(self.enum_variants(&flat, at)));
        }
        // A union beside properties or `allOf` is a struct with a flattened
        // union field (see `collect_object`).
        if (!flat.one_of.is_empty() || !flat.any_of.is_empty())
            && flat.properties.is_empty()
            && flat.all_of.is_empty()
        {
            let (variants, key) = if flat.one_of.is_empty() {
                (flat.any_of, "anyOf")
            } else {
                (flat.one_of, "oneOf")
            };
            return self
                .union(schema, variants, &at.join(key), name, key == "oneOf")
                .map(TypeKind::Union);
        }
        // Outermost in the merge, so that a part leading back here is a cycle.
        let outer = std::mem::replace(&mut self.merging, vec![at.clone()]);
        let object = self.object(schema, at, name);
        self.merging = outer;
        let Object {
            fields,
            additional,
            closed,
            ..
        } = object?;
        // `additionalProperties: false`, the schema's own or an `allOf`
        // part's (JSON Schema applies each part to the whole object),
        // refuses unknown fields; but not beside a flattened union, whose
        // properties are the record's unknown ones.
        let deny_unknown = closed && !fields.iter().any(|f| f.flatten);
        Some(TypeKind::Struct(Struct {
            fields,
            deny_unknown,
            additional,
        }))
    }

    /// The variants of a string enum. A value of another type is taken as
    /// the text the wire carries for it (`16` as `"16"`, `true` as
    /// `"true"`), with a note: the document is strictly invalid, and
    /// every mainstream tool reads it so. An array or an object, which no
    /// string is, is left out with a note.
    pub(super) fn enum_variants(&mut self, flat: &Flat<'_>, at: &Pointer) -> Vec<EnumVariant> {
        let mut namer = Namer::new();
        let mut variants = Vec::new();
        for (i, value) in flat.enumeration.iter().enumerate() {
            let wire = match value {
                serde_json::Value::String(wire) => wire.clone(),
                // `nullable` enums list `null`; it is the `Option`, not a variant.
                serde_json::Value::Null => continue,
                serde_json::Value::Number(_) | serde_json::Value::Bool(_) => {
                    let wire = value.to_string();
                    self.assume(
                        &at.join("enum").join(i),
                        format!("enum value {value} of a string enum is not a string"),
                        &format!("read as the string \"{wire}\""),
                    );
                    wire
                }
                // An array or an object names no string: the wire never
                // carries it as this type.
                other => {
                    self.assume(
                        &at.join("enum").join(i),
                        format!("enum value {other} of a string enum is not a string"),
                        "left out: no string is that value",
                    );
                    continue;
                }
            };
            let rust = namer.unique(variant_name(&wire));
            variants.push(EnumVariant { wire, rust });
        }
        variants
    }

    /// The text values a variant's schema allows for `property` (its
    /// `enum`), through references and the parts of an `allOf`.
    fn allowed_values(
        &self,
        variant: &ReferenceOr<Schema>,
        property: &str,
        depth: usize,
    ) -> Vec<String> {
        if depth > 8 {
            return Vec::new();
        }
        let schema = match variant {
            ReferenceOr::Item(s) => s,
            ReferenceOr::Reference { reference } => match pointer::find(self.tree(), reference) {
                Some((_, Node::Schema(s))) => s,
                _ => return Vec::new(),
            },
        };
        let flat = flatten(schema);
        if let Some((_, field)) = flat.properties.iter().find(|(name, _)| *name == property) {
            let field = match field {
                ReferenceOr::Item(f) => Some(&**f),
                ReferenceOr::Reference { reference } => match pointer::find(self.tree(), reference)
                {
                    Some((_, Node::Schema(f))) => Some(f),
                    _ => None,
                },
            };
            let values: Vec<String> = field
                .map(|f| flatten(f).enumeration)
                .unwrap_or_default()
                .iter()
                .filter_map(|v| v.as_str().map(str::to_string))
                .collect();
            if !values.is_empty() {
                return values;
            }
        }
        if let Some(values) = flat
            .all_of
            .iter()
            .map(|part| self.allowed_values(part, property, depth + 1))
            .find(|values| !values.is_empty())
        {
            return values;
        }
        // A union of its own: whatever any of its variants allows.
        let mut values: Vec<String> = Vec::new();
        for branch in flat.one_of.iter().chain(flat.any_of) {
            for value in self.allowed_values(branch, property, depth + 1) {
                if !values.contains(&value) {
                    values.push(value);
                }
            }
        }
        values
    }

    pub(super) fn union(
        &mut self,
        schema: &Schema,
        variants: &[ReferenceOr<Schema>],
        at: &Pointer,
        name: &str,
        exclusive: bool,
    ) -> Option<Union> {
        let discriminator = schema.schema_data.discriminator.as_ref();
        let mut namer = Namer::new();
        let mut out = Vec::new();
        for (i, variant) in variants.iter().enumerate() {
            let vat = at.join(i);
            // The values that name this variant: the mapping's entries for
            // it, else the values its schema allows for the property, else
            // (for a reference) the component's name, as the spec says.
            let tag_values: Vec<String> = match discriminator {
                None => Vec::new(),
                Some(d) => {
                    let mapped: Vec<String> = d
                        .mapping
                        .iter()
                        .filter(|(_, target)| names_variant(target, variant, &vat))
                        .map(|(value, _)| value.clone())
                        .collect();
                    if !mapped.is_empty() {
                        mapped
                    } else {
                        let allowed = self.allowed_values(variant, &d.property_name, 0);
                        match variant {
                            _ if !allowed.is_empty() => allowed,
                            ReferenceOr::Reference { reference } => {
                                vec![component_name(reference)]
                            }
                            ReferenceOr::Item(_) => Vec::new(),
                        }
                    }
                }
            };
            let base = match variant {
                ReferenceOr::Reference { reference } => component_name(reference),
                ReferenceOr::Item(s) => match tag_values.first() {
                    Some(tag) => tag.clone(),
                    None => s
                        .schema_data
                        .title
                        .clone()
                        .unwrap_or_else(|| match flatten(s).typ {
                            Some(t) => t.to_string(),
                            None => format!("Variant{i}"),
                        }),
                },
            };
            let shape = self.shape_of(
                variant,
                &vat,
                &format!("{name}{}", sanitize(&base, Case::Pascal)),
            )?;
            out.push(UnionVariant {
                rust: namer.unique(sanitize(&base, Case::Pascal)),
                tag_values,
                implicit_tag: None,
                shape,
                boxed: false,
            });
        }
        if let Some(d) = discriminator {
            // A referenced component is also named by its own name (the
            // implicit mapping), where its schema allows that value and no
            // variant's value is that name.
            for (v, variant) in (0..out.len()).zip(variants) {
                if let ReferenceOr::Reference { reference } = variant {
                    let name = component_name(reference);
                    let open = self.allowed_values(variant, &d.property_name, 0).is_empty();
                    if open && !out.iter().any(|o| o.tag_values.contains(&name)) {
                        out[v].implicit_tag = Some(name);
                    }
                }
            }
            if let Some(v) = out.iter().find(|v| v.tag_values.is_empty()) {
                // The discriminator cannot tell this variant: the union is
                // decided as one without (exactly one variant must fit).
                self.note(
                    at,
                    format!(
                        "variant `{}` of a union with a discriminator names no value of `{}` \
                         of its own (neither a `$ref`, nor a `mapping` entry, nor an `enum` of \
                         the property): the union is decided by its variants' shapes instead",
                        v.rust, d.property_name
                    ),
                );
                return Some(Union {
                    variants: out,
                    tag: None,
                    exclusive,
                    fallback: None,
                });
            }
            let fallback = self.fallback(d, variants, &out, at);
            return Some(Union {
                variants: out,
                tag: Some(d.property_name.clone()),
                exclusive,
                fallback,
            });
        }
        Some(Union {
            variants: out,
            tag: None,
            exclusive,
            fallback: None,
        })
    }

    /// The variant a discriminator's `defaultMapping` (3.2) names, by its
    /// Rust name, for the union of `variants` (lowered as `lowered`) at
    /// `at`; a target that is not one of them is noted.
    fn fallback(
        &mut self,
        d: &openapiv3::Discriminator,
        variants: &[ReferenceOr<Schema>],
        lowered: &[UnionVariant],
        at: &Pointer,
    ) -> Option<String> {
        let target = d.extensions.get(crate::load::DEFAULT_MAPPING)?.as_str()?;
        let found =
            (0..variants.len()).position(|i| names_variant(target, &variants[i], &at.join(i)));
        if found.is_none() {
            self.note(
                &at.parent()
                    .join("discriminator")
                    .join(crate::load::DEFAULT_MAPPING),
                format!(
                    "`defaultMapping` names `{target}`, which is not a variant of the union: a \
                     value whose `{}` names no variant is refused",
                    d.property_name
                ),
            );
        }
        Some(lowered[found?].rust.clone())
    }

    /// The fields of an object schema, its `allOf` parts merged in (by
    /// reference too: from where the part's schema stands), each given its
    /// Rust name.
    fn object(&mut self, schema: &Schema, at: &Pointer, name: &str) -> Option<Object> {
        let mut object = self.object_part(schema, at, name)?;
        // A required name no part describes is still required, as any
        // value; unless a flattened union or the additional properties
        // may be what holds it.
        let open = object.additional.is_some() || object.fields.iter().any(|f| f.flatten);
        for (wire, pointer) in std::mem::take(&mut object.required) {
            if let Some(f) = object
                .fields
                .iter_mut()
                .find(|f| !f.flatten && f.wire == wire)
            {
                f.required = true;
            } else if !open {
                self.note(
                    &pointer,
                    format!("`{wire}` is required but no property describes it: any value"),
                );
                let any = Shape::new(Ty::Json);
                object
                    .fields
                    .push(Field::required(wire, pointer.to_string(), any));
            }
        }
        let mut namer = Namer::new();
        for f in &mut object.fields {
            f.rust = namer.unique(sanitize(&f.wire, Case::Snake));
        }
        Some(object)
    }

    /// What one schema adds to an object: the union it is also one of (as
    /// a flattened field), its `allOf` parts, its additional properties and
    /// its own properties, in that order. Later parts override earlier
    /// ones; `required` accumulates.
    fn object_part(&mut self, schema: &Schema, at: &Pointer, name: &str) -> Option<Object> {
        let flat = flatten(schema);
        let mut object = Object::default();
        if !flat.one_of.is_empty() || !flat.any_of.is_empty() {
            let field = self.union_field(schema, at, name)?;
            object.add(field);
        }
        for (i, part) in flat.all_of.iter().enumerate() {
            let pat = at.join("allOf").join(i);
            // A part by reference is merged from where its schema stands, at
            // the end of any chain of references.
            let (part_at, part) = match part {
                ReferenceOr::Reference { reference } => self.schema_at(reference, &pat)?,
                ReferenceOr::Item(s) => (pat, s),
            };
            if let Some(first) = self.merging.iter().position(|p| *p == part_at) {
                let mut cycle: Vec<String> = self.merging[first..]
                    .iter()
                    .map(ToString::to_string)
                    .collect();
                cycle.push(part_at.to_string());
                self.error(
                    &at.join("allOf").join(i),
                    format!(
                        "`allOf` goes round in a cycle ({}): no object can hold all of them",
                        cycle.join(" -> ")
                    ),
                );
                return None;
            }
            self.merging.push(part_at.clone());
            let merged = self.object_part(part, &part_at, name);
            self.merging.pop();
            object.merge(merged?);
        }
        object.closed |= matches!(flat.additional, Some(AdditionalProperties::Any(false)));
        if let Some(AdditionalProperties::Schema(values)) = flat.additional {
            object.additional = Some(self.shape_of(
                values,
                &at.join("additionalProperties"),
                &format!("{name}Value"),
            )?);
        }
        for (prop, schema) in &flat.properties {
            let pat = at.join("properties").join(prop);
            let hint = format!("{name}{}", sanitize(prop, Case::Pascal));
            let shape = self.shape_of(schema, &pat, &hint)?;
            let data = match schema {
                ReferenceOr::Item(s) => Some(&s.schema_data),
                ReferenceOr::Reference { .. } => None,
            };
            object.add(Field {
                wire: prop.to_string(),
                pointer: pat.to_string(),
                rust: String::new(),
                shape,
                required: flat.required.contains(prop),
                doc: data.and_then(|d| d.description.clone()),
                default: data.and_then(|d| d.default.clone()),
                example: data.and_then(|d| d.example.clone()),
                read_only: data.is_some_and(|d| d.read_only),
                write_only: data.is_some_and(|d| d.write_only),
                deprecated: data.is_some_and(|d| d.deprecated),
                boxed: false,
                flatten: false,
                shared: false,
            });
        }
        for (i, req) in flat.required.iter().enumerate() {
            if !object.required.iter().any(|(w, _)| w == *req) {
                let pointer = at.join("required").join(i);
                object.required.push((req.to_string(), pointer));
            }
        }
        Some(object)
    }

    /// The flattened field of an object that is also one of several shapes:
    /// a component that is only a union keeps its own type; an inline union
    /// gets one named after the object.
    fn union_field(&mut self, schema: &Schema, at: &Pointer, name: &str) -> Option<Field> {
        let flat = flatten(schema);
        let (variants, key) = if flat.one_of.is_empty() {
            (flat.any_of, "anyOf")
        } else {
            (flat.one_of, "oneOf")
        };
        let segments: Vec<String> = at.segments().collect();
        // A component that is only a union, reached through `allOf` (a
        // type's own schema never is: it would be a union, not an object).
        let pure_union = flat.properties.is_empty() && flat.all_of.is_empty();
        let union_type = match segments.as_slice() {
            [c, s, component] if pure_union && c == "components" && s == "schemas" => {
                self.components.get(component).cloned()
            }
            _ => None,
        };
        let union_type = match union_type {
            Some(t) => t,
            None => {
                let uat = at.join(key);
                match self.inline.get(&uat) {
                    Some(t) => t.clone(),
                    None => {
                        let uname = self.namer.unique(format!("{name}Variant"));
                        self.inline.insert(uat.clone(), uname.clone());
                        let u = self.union(schema, variants, &uat, &uname, key == "oneOf")?;
                        self.insert_type(TypeDef {
                            name: uname.clone(),
                            origin: uat.to_string(),
                            doc: None,
                            deprecated: false,
                            example: None,
                            kind: TypeKind::Union(u),
                        });
                        uname
                    }
                }
            }
        };
        let shape = Shape::new(Ty::Named(union_type));
        Some(Field {
            doc: Some(format!(
                "Which of the shapes in `{key}` the object also has."
            )),
            flatten: true,
            ..Field::required("variant", at.join(key).to_string(), shape)
        })
    }
}

/// The fields an object schema gathers from itself and its `allOf` parts,
/// and the shape of its additional properties.
#[derive(Debug, Default)]
struct Object {
    fields: Vec<Field>,
    additional: Option<Shape>,
    /// Every name the parts' `required` lists, with where it is listed.
    required: Vec<(String, Pointer)>,
    /// The schema or one of its parts says `additionalProperties: false`.
    closed: bool,
}

impl Object {
    /// A field of a later part: it replaces one of the same name (required
    /// if either was); a flattened union already held is held once.
    fn add(&mut self, field: Field) {
        if field.flatten {
            if !self
                .fields
                .iter()
                .any(|f| f.flatten && f.shape.ty == field.shape.ty)
            {
                self.fields.push(field);
            }
            return;
        }
        match self
            .fields
            .iter_mut()
            .find(|f| !f.flatten && f.wire == field.wire)
        {
            Some(existing) => {
                let required = existing.required || field.required;
                *existing = Field { required, ..field };
            }
            None => self.fields.push(field),
        }
    }

    /// A later part merged into this one.
    fn merge(&mut self, part: Object) {
        for field in part.fields {
            self.add(field);
        }
        for (wire, pointer) in part.required {
            if !self.required.iter().any(|(w, _)| *w == wire) {
                self.required.push((wire, pointer));
            }
        }
        if part.additional.is_some() {
            self.additional = part.additional;
        }
        self.closed |= part.closed;
    }
}

/// A variant's name for an enum value: the value in Pascal case, and a
/// value that is a number named as one (`16` is `V16`, `-1` is `Minus1`,
/// `2.5` is `V2_5`).
fn variant_name(wire: &str) -> String {
    let (sign, digits) = match wire.strip_prefix('-') {
        Some(rest) if rest.starts_with(|c: char| c.is_ascii_digit()) => ("Minus", rest),
        _ => ("V", wire),
    };
    let numeric = digits.starts_with(|c: char| c.is_ascii_digit())
        && digits
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '.');
    if numeric {
        format!("{sign}{}", digits.replace('.', "_"))
    } else {
        sanitize(wire, Case::Pascal)
    }
}
