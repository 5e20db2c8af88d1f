//! Lowering: `openapiv3::OpenAPI` -> [`ir::Api`]. Resolves references, merges
//! `allOf`, names inline schemas after where they stand, and reports everything it
//! cannot express as a diagnostic at the construct's JSON pointer.

use crate::diag::{Diagnostic, Pointer};
use crate::ir::*;
use crate::names::{sanitize, Case, Namer};
use crate::schema_view::{flatten, Flat};
use openapiv3::{
    AdditionalProperties, OpenAPI, Parameter, ParameterSchemaOrContent, ReferenceOr, Schema,
    StatusCode,
};
use std::collections::{BTreeMap, BTreeSet, HashMap};

/// Stability values the generator knows (`x-stability`).
pub const STABILITIES: &[&str] = &["experimental", "alpha", "beta"];

/// Lowers a document. In a lenient run, an operation or schema that cannot be
/// expressed is left out (a schema becomes `serde_json::Value`) and reported in
/// the second part of the result instead of failing the run.
pub fn lower(doc: &OpenAPI, lenient: bool) -> Result<(Api, Vec<Diagnostic>), Vec<Diagnostic>> {
    let mut l = Lowerer::new(doc);
    l.lenient = lenient;
    l.component_types();
    let operations = l.operations();
    let mut api = Api {
        title: doc.info.title.clone(),
        version: doc.info.version.clone(),
        description: doc.info.description.clone(),
        base_path: doc
            .servers
            .first()
            .map(|s| base_path(&s.url))
            .unwrap_or_default(),
        types: std::mem::take(&mut l.types),
        traits: l.traits(&operations),
        operations,
        common_headers: Vec::new(),
        error_type: None,
    };
    assign_traits(&mut api);
    mark_boxed(&mut api.types);
    extract_common_headers(&mut api);
    api.error_type = shared_error_type(&api.operations);
    if l.errors.is_empty() {
        Ok((api, l.skipped))
    } else {
        Err(l.errors)
    }
}

struct Lowerer<'a> {
    doc: &'a OpenAPI,
    errors: Vec<Diagnostic>,
    types: BTreeMap<String, TypeDef>,
    namer: Namer,
    /// Component schema name -> Rust type name.
    components: BTreeMap<String, String>,
    /// Inline schemas already given a type, by their pointer, so that a schema
    /// reached twice (through `allOf`, say) is one type.
    inline: HashMap<Pointer, String>,
    /// Aliases being inlined, to stop on `$ref` cycles between aliases.
    resolving: BTreeSet<String>,
    lenient: bool,
    /// Inline types by their structure, so that repeats become aliases.
    shared: HashMap<String, String>,
    /// What a lenient run left out.
    skipped: Vec<Diagnostic>,
}

/// How a component schema is represented: its own type, or inlined at each use.
#[derive(Debug, PartialEq)]
enum Class {
    Named,
    Inline,
}

impl<'a> Lowerer<'a> {
    fn new(doc: &'a OpenAPI) -> Self {
        Lowerer {
            doc,
            errors: Vec::new(),
            types: BTreeMap::new(),
            namer: Namer::new(),
            components: BTreeMap::new(),
            inline: HashMap::new(),
            resolving: BTreeSet::new(),
            lenient: false,
            shared: HashMap::new(),
            skipped: Vec::new(),
        }
    }

    /// In a lenient run, turns the errors since `mark` into skip notes; true
    /// when there were any.
    fn skip_since(&mut self, mark: usize, what: &str) -> bool {
        if self.errors.len() == mark {
            return false;
        }
        if self.lenient {
            for mut d in self.errors.drain(mark..) {
                d.message = format!("{what} skipped: {}", d.message);
                self.skipped.push(d);
            }
        }
        true
    }

    fn error(&mut self, at: &Pointer, message: impl Into<String>) {
        self.errors.push(Diagnostic::at(at, message));
    }

    fn component_schemas(&self) -> impl Iterator<Item = (&'a String, &'a ReferenceOr<Schema>)> {
        self.doc.components.iter().flat_map(|c| c.schemas.iter())
    }

    // ---- schemas -------------------------------------------------------------

    /// Names every component schema first (so references resolve in any order),
    /// then lowers each.
    fn component_types(&mut self) {
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
                    if let Some(shape) = self.shape_of_ref(reference, &at) {
                        self.insert_type(TypeDef {
                            name: rust,
                            origin: at.to_string(),
                            doc: None,
                            deprecated: false,
                            kind: TypeKind::Alias(shape),
                        });
                    }
                }
                ReferenceOr::Item(schema) => {
                    let mark = self.errors.len();
                    let kind = self.type_kind(schema, &at, &rust);
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
                        kind,
                    });
                }
            }
        }
    }

    /// A key equal for structurally identical types, named types compared
    /// through their aliases. Aliases themselves are never shared.
    fn canonical_key(&self, kind: &TypeKind) -> String {
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
            TypeKind::Struct(s) => {
                s.fields
                    .iter_mut()
                    .for_each(|f| canon(&mut f.shape, &self.types));
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
            TypeKind::Alias(_) => return format!("alias {}", self.types.len()),
        }
        format!("{kind:?}")
    }

    fn insert_type(&mut self, def: TypeDef) {
        self.types.insert(def.name.clone(), def);
    }

    /// Resolves a local reference to a component schema.
    fn component_ref(
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
    fn class(&self, schema: &Schema) -> Class {
        let flat = flatten(schema);
        let is_string_enum = flat.typ == Some("string") && !flat.enumeration.is_empty();
        let is_object = flat.typ == Some("object") && !flat.properties.is_empty();
        let single_all_of = flat.all_of.len() == 1 && flat.properties.is_empty();
        if is_string_enum
            || is_object
            || !flat.one_of.is_empty()
            || !flat.any_of.is_empty()
            || (!flat.all_of.is_empty() && !single_all_of)
        {
            Class::Named
        } else if single_all_of {
            match &flat.all_of[0] {
                ReferenceOr::Item(inner) => self.class(inner),
                ReferenceOr::Reference { .. } => Class::Inline,
            }
        } else {
            Class::Inline
        }
    }

    /// The shape at a `$ref`: the named type, or the target's own shape when the
    /// target is a primitive alias (so that its bounds are checked at every use).
    fn shape_of_ref(&mut self, reference: &str, at: &Pointer) -> Option<Shape> {
        let (name, target) = self.component_ref(reference, at)?;
        let rust = self.components[name].clone();
        match target {
            ReferenceOr::Item(schema) if self.class(schema) == Class::Inline => {
                if !self.resolving.insert(name.clone()) {
                    self.error(
                        at,
                        format!("`{reference}` refers to itself through aliases only"),
                    );
                    return None;
                }
                let target_at = Pointer::root()
                    .join("components")
                    .join("schemas")
                    .join(name);
                let shape = self.shape_of_schema(schema, &target_at, &rust);
                self.resolving.remove(name);
                shape
            }
            _ => Some(Shape::new(Ty::Named(rust))),
        }
    }

    /// The shape of a schema or reference standing at `at`. `hint` names the
    /// type created if the schema is an inline object, enum or union.
    fn shape_of(
        &mut self,
        schema: &ReferenceOr<Schema>,
        at: &Pointer,
        hint: &str,
    ) -> Option<Shape> {
        match schema {
            ReferenceOr::Reference { reference } => self.shape_of_ref(reference, at),
            ReferenceOr::Item(schema) => self.shape_of_schema(schema, at, hint),
        }
    }

    fn shape_of_boxed(
        &mut self,
        schema: &ReferenceOr<Box<Schema>>,
        at: &Pointer,
        hint: &str,
    ) -> Option<Shape> {
        match schema {
            ReferenceOr::Reference { reference } => self.shape_of_ref(reference, at),
            ReferenceOr::Item(schema) => self.shape_of_schema(schema, at, hint),
        }
    }

    fn shape_of_schema(&mut self, schema: &Schema, at: &Pointer, hint: &str) -> Option<Shape> {
        let nullable = schema.schema_data.nullable;
        if self.class(schema) == Class::Named {
            let name = match self.inline.get(at) {
                Some(name) => name.clone(),
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
                        kind,
                    });
                    name
                }
            };
            let mut shape = Shape::new(Ty::Named(name));
            shape.nullable = nullable;
            return Some(shape);
        }
        let flat = flatten(schema);
        if flat.not {
            self.error(at, "`not` schemas are not supported");
            return None;
        }
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
        };
        let format = flat.format.as_deref().unwrap_or("");
        let ty = match flat.typ {
            Some("boolean") => Ty::Bool,
            Some("integer") => match format {
                "int32" => Ty::I32,
                _ => Ty::I64,
            },
            Some("number") => match format {
                "float" => Ty::F32,
                _ => Ty::F64,
            },
            Some("string") => match format {
                "date-time" => Ty::DateTime,
                "date" => Ty::Date,
                // Raw bytes: the content of a file part or of a binary body.
                "binary" => Ty::Bytes,
                _ => Ty::String,
            },
            Some("array") => {
                let items = match flat.items {
                    Some(items) => {
                        self.shape_of_boxed(items, &at.join("items"), &format!("{hint}Item"))?
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
                _ => Ty::Json,
            },
            Some(other) => {
                self.error(&at.join("type"), format!("unknown type `{other}`"));
                return None;
            }
        };
        if matches!(ty, Ty::DateTime | Ty::Date) {
            // Parsing enforces the format; lengths do not apply.
            checks.min_length = None;
            checks.max_length = None;
        }
        Some(Shape {
            ty,
            checks,
            nullable,
        })
    }

    /// The kind of a named type built from `schema`.
    fn type_kind(&mut self, schema: &Schema, at: &Pointer, name: &str) -> Option<TypeKind> {
        if self.class(schema) == Class::Inline {
            return self.shape_of_schema(schema, at, name).map(TypeKind::Alias);
        }
        let flat = flatten(schema);
        if flat.typ == Some("string") && !flat.enumeration.is_empty() {
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
                .union(schema, variants, &at.join(key), name)
                .map(TypeKind::Union);
        }
        let mut fields = Vec::new();
        let mut deny_unknown = false;
        let mut additional = None;
        self.collect_object(
            schema,
            at,
            name,
            &mut fields,
            &mut deny_unknown,
            &mut additional,
            true,
        )?;
        // serde cannot refuse unknown fields beside a flattened one.
        let deny_unknown = deny_unknown && !fields.iter().any(|f| f.flatten);
        Some(TypeKind::Struct(Struct {
            fields,
            deny_unknown,
            additional,
        }))
    }

    fn enum_variants(&mut self, flat: &Flat<'_>, at: &Pointer) -> Vec<EnumVariant> {
        let mut namer = Namer::new();
        let mut variants = Vec::new();
        for (i, value) in flat.enumeration.iter().enumerate() {
            match value {
                serde_json::Value::String(wire) => variants.push(EnumVariant {
                    wire: wire.clone(),
                    rust: namer.unique(sanitize(wire, Case::Pascal)),
                }),
                // `nullable` enums list `null`; it is the `Option`, not a variant.
                serde_json::Value::Null => {}
                other => self.error(
                    &at.join("enum").join(i),
                    format!("enum value {other} is not a string"),
                ),
            }
        }
        variants
    }

    fn union(
        &mut self,
        schema: &Schema,
        variants: &[ReferenceOr<Schema>],
        at: &Pointer,
        name: &str,
    ) -> Option<Union> {
        let discriminator = schema.schema_data.discriminator.as_ref();
        let mut namer = Namer::new();
        let mut out = Vec::new();
        for (i, variant) in variants.iter().enumerate() {
            let vat = at.join(i);
            let (base, tag_value) = match variant {
                ReferenceOr::Reference { reference } => {
                    let component = reference
                        .rsplit('/')
                        .next()
                        .unwrap_or(reference)
                        .to_string();
                    let tag = discriminator.map(|d| {
                        d.mapping
                            .iter()
                            .find(|(_, target)| *target == reference)
                            .map_or_else(|| component.clone(), |(value, _)| value.clone())
                    });
                    (component, tag)
                }
                ReferenceOr::Item(s) => {
                    let base =
                        s.schema_data
                            .title
                            .clone()
                            .unwrap_or_else(|| match flatten(s).typ {
                                Some(t) => t.to_string(),
                                None => format!("Variant{i}"),
                            });
                    (base, None)
                }
            };
            let shape = self.shape_of(
                variant,
                &vat,
                &format!("{name}{}", sanitize(&base, Case::Pascal)),
            )?;
            out.push(UnionVariant {
                rust: namer.unique(sanitize(&base, Case::Pascal)),
                tag_value,
                shape,
                boxed: false,
            });
        }
        if let Some(d) = discriminator {
            if let Some(v) = out.iter().find(|v| v.tag_value.is_none()) {
                self.error(
                    at,
                    format!(
                        "variant `{}` of a union with a discriminator must be a `$ref`",
                        v.rust
                    ),
                );
                return None;
            }
            return Some(Union {
                variants: out,
                tag: Some(d.property_name.clone()),
            });
        }
        Some(Union {
            variants: out,
            tag: None,
        })
    }

    /// Gathers the properties of an object schema, following `allOf` parts and
    /// references. Later parts override earlier ones; `required` accumulates.
    #[allow(clippy::too_many_arguments)] // reason: an accumulator walk; a struct would only rename the arguments
    fn collect_object(
        &mut self,
        schema: &Schema,
        at: &Pointer,
        name: &str,
        fields: &mut Vec<Field>,
        deny_unknown: &mut bool,
        additional: &mut Option<Shape>,
        top: bool,
    ) -> Option<()> {
        let flat = flatten(schema);
        if !flat.one_of.is_empty() || !flat.any_of.is_empty() {
            // The object is also one of several shapes: a flattened field
            // holds which. A component keeps its own type; an inline union
            // gets one named after the object.
            let (variants, key) = if flat.one_of.is_empty() {
                (flat.any_of, "anyOf")
            } else {
                (flat.one_of, "oneOf")
            };
            let segments: Vec<String> = at.segments().collect();
            // A component that is only a union, reached through `allOf`.
            let pure_union = !top && flat.properties.is_empty() && flat.all_of.is_empty();
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
                            let u = self.union(schema, variants, &uat, &uname)?;
                            self.insert_type(TypeDef {
                                name: uname.clone(),
                                origin: uat.to_string(),
                                doc: None,
                                deprecated: false,
                                kind: TypeKind::Union(u),
                            });
                            uname
                        }
                    }
                }
            };
            if !fields
                .iter()
                .any(|f| f.flatten && f.shape.ty == Ty::Named(union_type.clone()))
            {
                fields.push(Field {
                    wire: "variant".into(),
                    rust: String::new(),
                    shape: Shape::new(Ty::Named(union_type)),
                    required: true,
                    doc: Some(format!(
                        "Which of the shapes in `{key}` the object also has."
                    )),
                    default: None,
                    read_only: false,
                    write_only: false,
                    deprecated: false,
                    boxed: false,
                    flatten: true,
                });
            }
        }
        for (i, part) in flat.all_of.iter().enumerate() {
            let pat = at.join("allOf").join(i);
            match part {
                ReferenceOr::Reference { reference } => {
                    let (cname, target) = self.component_ref(reference, &pat)?;
                    let cat = Pointer::root()
                        .join("components")
                        .join("schemas")
                        .join(cname);
                    match target {
                        ReferenceOr::Item(s) => self.collect_object(
                            s,
                            &cat,
                            name,
                            fields,
                            deny_unknown,
                            additional,
                            false,
                        )?,
                        ReferenceOr::Reference { .. } => {
                            self.error(
                                &pat,
                                "`allOf` through a chain of references is not supported",
                            );
                            return None;
                        }
                    }
                }
                ReferenceOr::Item(s) => {
                    self.collect_object(s, &pat, name, fields, deny_unknown, additional, false)?
                }
            }
        }
        match flat.additional {
            Some(AdditionalProperties::Any(false)) if top => *deny_unknown = true,
            Some(AdditionalProperties::Schema(values)) => {
                *additional = Some(self.shape_of(
                    values,
                    &at.join("additionalProperties"),
                    &format!("{name}Value"),
                )?);
            }
            _ => {}
        }
        for (prop, schema) in &flat.properties {
            let pat = at.join("properties").join(prop);
            let hint = format!("{name}{}", sanitize(prop, Case::Pascal));
            let shape = self.shape_of_boxed(schema, &pat, &hint)?;
            let data = match schema {
                ReferenceOr::Item(s) => Some(&s.schema_data),
                ReferenceOr::Reference { .. } => None,
            };
            let field = Field {
                wire: prop.to_string(),
                rust: String::new(),
                shape,
                required: flat.required.contains(prop),
                doc: data.and_then(|d| d.description.clone()),
                default: data.and_then(|d| d.default.clone()),
                read_only: data.is_some_and(|d| d.read_only),
                write_only: data.is_some_and(|d| d.write_only),
                deprecated: data.is_some_and(|d| d.deprecated),
                boxed: false,
                flatten: false,
            };
            match fields.iter_mut().find(|f| f.wire == field.wire) {
                Some(existing) => {
                    let required = existing.required || field.required;
                    *existing = Field { required, ..field };
                }
                None => fields.push(field),
            }
        }
        for req in &flat.required {
            if let Some(f) = fields.iter_mut().find(|f| &f.wire == *req) {
                f.required = true;
            }
        }
        if top {
            let mut namer = Namer::new();
            for f in fields.iter_mut() {
                f.rust = namer.unique(sanitize(&f.wire, Case::Snake));
            }
        }
        Some(())
    }

    // ---- operations ----------------------------------------------------------

    fn operations(&mut self) -> Vec<Operation> {
        let mut ops = Vec::new();
        let mut seen: BTreeMap<String, String> = BTreeMap::new();
        let mut successors: Vec<(Pointer, String)> = Vec::new();
        let mut fn_names = Namer::new();
        let mut type_names = Namer::new();
        type_names.reserve("ErrorResponse");
        for (path, item) in self.doc.paths.iter() {
            let pat = Pointer::root().join("paths").join(path);
            let item = match item {
                ReferenceOr::Item(item) => item,
                ReferenceOr::Reference { .. } => {
                    self.error(&pat, "path items given by `$ref` are not supported");
                    continue;
                }
            };
            for (method, op) in item.iter() {
                let oat = pat.join(method);
                let id = op
                    .operation_id
                    .clone()
                    .unwrap_or_else(|| derived_operation_id(method, path));
                if let Some(first) = seen.get(&id) {
                    let mark = self.errors.len();
                    let message = format!("duplicate operationId `{id}`: first used at {first}");
                    self.error(&oat.join("operationId"), message);
                    self.skip_since(mark, &format!("operation at {oat}"));
                    continue;
                }
                seen.insert(id.clone(), oat.to_string());
                if let Some(successor) = op.extensions.get("x-successor").and_then(|v| v.as_str()) {
                    successors.push((oat.join("x-successor"), successor.to_string()));
                }
                if let Some(op) = self.operation(
                    &id,
                    method,
                    path,
                    &item.parameters,
                    op,
                    &oat,
                    &mut fn_names,
                    &mut type_names,
                ) {
                    ops.push(op);
                }
            }
        }
        for (at, successor) in successors {
            if !seen.contains_key(&successor) {
                self.error(
                    &at,
                    format!("`x-successor` names `{successor}`, which is not an operationId"),
                );
            }
        }
        ops
    }

    #[allow(clippy::too_many_arguments)] // reason: one call site, each argument a different part of the document
    fn operation(
        &mut self,
        id: &str,
        method: &str,
        path: &str,
        path_params: &'a [ReferenceOr<Parameter>],
        op: &'a openapiv3::Operation,
        at: &Pointer,
        fn_names: &mut Namer,
        type_names: &mut Namer,
    ) -> Option<Operation> {
        let errors_before = self.errors.len();
        let type_name = type_names.unique(sanitize(id, Case::Pascal));
        let fn_name = fn_names.unique(sanitize(id, Case::Snake));
        let tag = op.tags.first().cloned().unwrap_or_default();

        let ext = |key: &'static str| op.extensions.get(key).map(|v| (key, v));
        let stability = match ext("x-stability") {
            Some((_, serde_json::Value::String(s))) if STABILITIES.contains(&s.as_str()) => {
                Some(s.clone())
            }
            Some((key, value)) => {
                self.error(
                    &at.join(key),
                    format!(
                        "operation `{id}` has unknown `x-stability` value {value}: expected one of {}",
                        STABILITIES.join(", ")
                    ),
                );
                None
            }
            None => None,
        };
        let sunset =
            self.date_extension(ext("x-deprecated-sunset").or_else(|| ext("x-sunset")), at);
        let deprecated_since = self.date_extension(ext("x-deprecated-since"), at);
        let successor = match ext("x-successor") {
            Some((_, serde_json::Value::String(s))) => Some(s.clone()),
            Some((key, _)) => {
                self.error(&at.join(key), "`x-successor` must be an operationId");
                None
            }
            None => None,
        };
        if (sunset.is_some() || successor.is_some()) && !op.deprecated {
            self.error(
                at,
                format!("operation `{id}` has a sunset or successor but is not `deprecated: true`"),
            );
        }

        // Parameters: path-level first, overridden by operation-level (name, in).
        let mut params: Vec<Param> = Vec::new();
        let mut rust_names = Namer::new();
        rust_names.reserve("body");
        let path_at = Pointer::root().join("paths").join(path);
        let path_level: Vec<_> = path_params
            .iter()
            .enumerate()
            .map(|(i, p)| (path_at.join("parameters").join(i), p))
            .collect();
        let op_level: Vec<_> = op
            .parameters
            .iter()
            .enumerate()
            .map(|(i, p)| (at.join("parameters").join(i), p))
            .collect();
        let mut resolved: Vec<(Pointer, &Parameter)> = Vec::new();
        for (pat, p) in path_level.into_iter().chain(op_level) {
            let Some(param) = self.resolve_parameter(p, &pat) else {
                continue;
            };
            let data = param.parameter_data_ref();
            if let Some(slot) = resolved.iter_mut().find(|(_, q)| {
                let d = q.parameter_data_ref();
                d.name == data.name && std::mem::discriminant(*q) == std::mem::discriminant(param)
            }) {
                *slot = (pat, param);
            } else {
                resolved.push((pat, param));
            }
        }
        for (pat, param) in resolved {
            if let Some(p) = self.param(param, &pat, &type_name, &mut rust_names) {
                params.push(p);
            }
        }
        for segment in path_template_names(path) {
            if params
                .iter()
                .any(|p| p.location == ParamLocation::Path && p.wire == segment)
            {
                continue;
            }
            if self.lenient {
                // The template names it, so it exists: take it as a string.
                params.push(Param {
                    wire: segment.clone(),
                    rust: rust_names.unique(sanitize(&segment, Case::Snake)),
                    location: ParamLocation::Path,
                    required: true,
                    shape: Shape::new(Ty::String),
                    doc: Some(
                        "Not declared by the document; taken from the path as a string.".into(),
                    ),
                    deprecated: false,
                    explode: false,
                    style: ParamStyle::Simple,
                    scalar_named: false,
                    union: false,
                    default: None,
                });
            } else {
                self.error(at, format!("path parameter `{segment}` is not declared"));
            }
        }

        let body = match &op.request_body {
            None => None,
            Some(body) => self.request_body(body, &at.join("requestBody"), &type_name),
        };

        let mut responses = Vec::new();
        let mut variants = Namer::new();
        let rat = at.join("responses");
        for (code, response) in &op.responses.responses {
            let status = match code {
                StatusCode::Code(c) if (100..=599).contains(c) => *c,
                StatusCode::Code(c) => {
                    self.error(&rat.join(c), format!("`{c}` is not an HTTP status code"));
                    continue;
                }
                StatusCode::Range(r) => {
                    self.error(
                        &rat.join(format!("{r}XX")),
                        "status code ranges are not supported",
                    );
                    continue;
                }
            };
            let variant = variants.unique(status_variant(status));
            if let Some(r) = self.response(
                Some(status),
                variant,
                response,
                &rat.join(status),
                &type_name,
            ) {
                responses.push(r);
            }
        }
        if let Some(default) = &op.responses.default {
            let variant = variants.unique("Default".to_string());
            if let Some(r) = self.response(None, variant, default, &rat.join("default"), &type_name)
            {
                responses.push(r);
            }
        }
        if responses.is_empty() && self.errors.len() == errors_before {
            self.error(&rat, format!("operation `{id}` declares no responses"));
        }

        if self.skip_since(errors_before, &format!("operation `{id}`")) {
            return None;
        }
        Some(Operation {
            id: id.to_string(),
            fn_name,
            type_name,
            method: method.to_ascii_uppercase(),
            path: path.to_string(),
            pointer: at.to_string(),
            trait_name: String::new(),
            tag,
            summary: op.summary.clone(),
            description: op.description.clone(),
            deprecated: op.deprecated,
            deprecated_since,
            sunset,
            successor,
            stability,
            params,
            body,
            responses,
        })
    }

    fn date_extension(
        &mut self,
        ext: Option<(&str, &serde_json::Value)>,
        at: &Pointer,
    ) -> Option<String> {
        let (key, value) = ext?;
        match value.as_str() {
            Some(s) if is_date(s) => Some(s.to_string()),
            _ => {
                self.error(
                    &at.join(key),
                    format!("`{key}` must be a date written YYYY-MM-DD, found {value}"),
                );
                None
            }
        }
    }

    /// An item, or the component a local reference names (with the
    /// component's name); an unresolved reference is reported at `at`.
    fn resolve<T>(
        &mut self,
        item: &'a ReferenceOr<T>,
        section: &str,
        pick: fn(&'a openapiv3::Components) -> &'a indexmap::IndexMap<String, ReferenceOr<T>>,
        at: &Pointer,
    ) -> Option<(&'a T, Option<&'a str>)> {
        let reference = match item {
            ReferenceOr::Item(t) => return Some((t, None)),
            ReferenceOr::Reference { reference } => reference,
        };
        let found = reference
            .strip_prefix(&format!("#/components/{section}/"))
            .and_then(|name| pick(self.doc.components.as_ref()?).get_key_value(name));
        match found {
            Some((name, ReferenceOr::Item(t))) => Some((t, Some(name.as_str()))),
            _ => {
                self.error(at, format!("unresolved reference `{reference}`"));
                None
            }
        }
    }

    fn resolve_parameter(
        &mut self,
        p: &'a ReferenceOr<Parameter>,
        at: &Pointer,
    ) -> Option<&'a Parameter> {
        self.resolve(p, "parameters", |c| &c.parameters, at)
            .map(|(p, _)| p)
    }

    fn param(
        &mut self,
        param: &Parameter,
        at: &Pointer,
        op_type: &str,
        names: &mut Namer,
    ) -> Option<Param> {
        let data = param.parameter_data_ref();
        use openapiv3::{PathStyle, QueryStyle};
        let (location, style) = match param {
            Parameter::Path { style, .. } => (
                ParamLocation::Path,
                match style {
                    PathStyle::Simple => ParamStyle::Simple,
                    PathStyle::Label => ParamStyle::Label,
                    PathStyle::Matrix => ParamStyle::Matrix,
                },
            ),
            Parameter::Query { style, .. } => (
                ParamLocation::Query,
                match style {
                    QueryStyle::Form => ParamStyle::Form,
                    QueryStyle::SpaceDelimited => ParamStyle::SpaceDelimited,
                    QueryStyle::PipeDelimited => ParamStyle::PipeDelimited,
                    QueryStyle::DeepObject => ParamStyle::DeepObject,
                },
            ),
            Parameter::Header { .. } => (ParamLocation::Header, ParamStyle::Simple),
            Parameter::Cookie { .. } => (ParamLocation::Cookie, ParamStyle::Form),
        };
        // OpenAPI's default: `form` explodes, every other style does not.
        let explode = data.explode.unwrap_or(style == ParamStyle::Form);
        let schema = match &data.format {
            ParameterSchemaOrContent::Schema(s) => s,
            ParameterSchemaOrContent::Content(_) => {
                self.error(
                    &at.join("content"),
                    format!(
                        "parameter `{}`: `content` parameters are not supported",
                        data.name
                    ),
                );
                return None;
            }
        };
        let hint = format!("{op_type}{}", sanitize(&data.name, Case::Pascal));
        let shape = self.shape_of(schema, &at.join("schema"), &hint)?;
        let scalar_ok = |s: &Shape, types: &BTreeMap<String, TypeDef>| match &s.ty {
            Ty::Named(n) => matches!(resolve(types, n).map(|t| &t.kind), Some(TypeKind::Enum(_))),
            Ty::Json | Ty::Bytes | Ty::Map(_) | Ty::Array(_) => false,
            _ => true,
        };
        let object_ok = |s: &Shape, types: &BTreeMap<String, TypeDef>| match &s.ty {
            Ty::Named(n) => matches!(
                resolve(types, n).map(|t| &t.kind),
                Some(TypeKind::Struct(_))
            ),
            Ty::Map(values) => scalar_ok(values, types),
            _ => false,
        };
        let union = matches!(&shape.ty, Ty::Named(n) if matches!(resolve(&self.types, n).map(|t| &t.kind), Some(TypeKind::Union(_))));
        // A deepObject parameter is read as a nested value: any type will do;
        // a union in a form query parameter is read from its value or values.
        let ok = style == ParamStyle::DeepObject
            || (union && location == ParamLocation::Query && style == ParamStyle::Form)
            || match &shape.ty {
                Ty::Array(items) => scalar_ok(items, &self.types),
                _ => scalar_ok(&shape, &self.types) || object_ok(&shape, &self.types),
            };
        if !ok {
            self.error(
                &at.join("schema"),
                format!(
                    "parameter `{}`: only scalars, string enums, arrays of them and objects are supported",
                    data.name
                ),
            );
            return None;
        }
        let scalar_named = scalar_ok(&shape, &self.types);
        let default = match schema {
            ReferenceOr::Item(s) => s.schema_data.default.clone(),
            ReferenceOr::Reference { .. } => None,
        };
        Some(Param {
            wire: data.name.clone(),
            rust: names.unique(sanitize(&data.name, Case::Snake)),
            location,
            required: data.required || location == ParamLocation::Path,
            shape,
            doc: data.description.clone(),
            deprecated: data.deprecated.unwrap_or(false),
            explode,
            style,
            scalar_named,
            union,
            default,
        })
    }

    fn request_body(
        &mut self,
        body: &'a ReferenceOr<openapiv3::RequestBody>,
        at: &Pointer,
        op_type: &str,
    ) -> Option<Body> {
        let (body, _) = self.resolve(body, "requestBodies", |c| &c.request_bodies, at)?;
        let (media_type, content, media) = self.body_content(&body.content, &at.join("content"))?;
        let shape = match (&media, &content.schema) {
            (Media::Raw(_), _) => Shape::new(Ty::Bytes),
            (_, Some(schema)) => self.shape_of(
                schema,
                &at.join("content").join(media_type).join("schema"),
                &format!("{op_type}Body"),
            )?,
            (_, None) => Shape::new(Ty::Json),
        };
        Some(Body {
            shape,
            required: body.required,
            doc: body.description.clone(),
            media,
        })
    }

    /// The media type a body travels in: JSON if offered, else a form, else
    /// raw bytes of the other media types. `multipart/form-data` alone is
    /// reported.
    fn body_content<'c>(
        &mut self,
        content: &'c indexmap::IndexMap<String, openapiv3::MediaType>,
        at: &Pointer,
    ) -> Option<(&'c String, &'c openapiv3::MediaType, Media)> {
        let essence = |m: &str| {
            m.split(';')
                .next()
                .unwrap_or("")
                .trim()
                .to_ascii_lowercase()
        };
        if let Some((m, c)) = content.iter().find(|(m, _)| is_json(m)) {
            return Some((m, c, Media::Json));
        }
        if let Some((m, c)) = content
            .iter()
            .find(|(m, _)| essence(m) == "application/x-www-form-urlencoded")
        {
            return Some((m, c, Media::Form));
        }
        if let Some((m, c)) = content
            .iter()
            .find(|(m, _)| essence(m) == "multipart/form-data")
        {
            return Some((m, c, Media::Multipart));
        }
        let raw: Vec<String> = content.keys().map(|m| essence(m)).collect();
        match content.iter().next() {
            Some((m, c)) => Some((m, c, Media::Raw(raw))),
            None => {
                self.error(at, "a body with no media type");
                None
            }
        }
    }

    fn response(
        &mut self,
        status: Option<u16>,
        variant: String,
        response: &'a ReferenceOr<openapiv3::Response>,
        at: &Pointer,
        op_type: &str,
    ) -> Option<Response> {
        let (response, _) = self.resolve(response, "responses", |c| &c.responses, at)?;
        let (body, media) = if response.content.is_empty() {
            (None, Media::Json)
        } else {
            let (media_type, content, media) =
                self.body_content(&response.content, &at.join("content"))?;
            // A multipart response is passed on as its bytes.
            let media = match media {
                Media::Multipart => Media::Raw(vec!["multipart/form-data".into()]),
                other => other,
            };
            let shape = match (&media, &content.schema) {
                (Media::Raw(_), _) => Shape::new(Ty::Bytes),
                (_, Some(s)) => self.shape_of(
                    s,
                    &at.join("content").join(media_type).join("schema"),
                    &format!("{op_type}{variant}Body"),
                )?,
                (_, None) => Shape::new(Ty::Json),
            };
            // A response sends one media type: the first listed.
            let media = match media {
                Media::Raw(all) => Media::Raw(all.into_iter().take(1).collect()),
                other => other,
            };
            (Some(shape), media)
        };
        let mut headers = Vec::new();
        let mut names = Namer::new();
        names.reserve("body");
        for (name, header) in &response.headers {
            if name.eq_ignore_ascii_case("content-type") {
                continue; // OpenAPI says to ignore it.
            }
            let hat = at.join("headers").join(name);
            let Some((header, header_component)) =
                self.resolve(header, "headers", |c| &c.headers, &hat)
            else {
                continue;
            };
            let schema = match &header.format {
                ParameterSchemaOrContent::Schema(s) => s,
                ParameterSchemaOrContent::Content(_) => {
                    self.error(&hat, "headers described by `content` are not supported");
                    continue;
                }
            };
            let hint = header_component.map_or_else(
                || format!("{op_type}{variant}{}", sanitize(name, Case::Pascal)),
                str::to_string,
            );
            let sat = match header_component {
                Some(c) => Pointer::root()
                    .join("components")
                    .join("headers")
                    .join(c)
                    .join("schema"),
                None => hat.join("schema"),
            };
            let Some(shape) = self.shape_of(schema, &sat, &hint) else {
                continue;
            };
            headers.push(ResponseHeader {
                wire: name.clone(),
                rust: names.unique(sanitize(name, Case::Snake)),
                required: header.required,
                shape,
                doc: header.description.clone(),
            });
        }
        Some(Response {
            status,
            variant,
            doc: response.description.clone(),
            body,
            media,
            headers,
        })
    }

    fn traits(&mut self, ops: &[Operation]) -> Vec<RouteTrait> {
        let mut traits = Vec::new();
        let mut names = Namer::new();
        names.reserve("ErrorResponse");
        let declared = self
            .doc
            .tags
            .iter()
            .map(|t| (t.name.clone(), t.description.clone()));
        let used = ops.iter().map(|o| (o.tag.clone(), None));
        for (tag, doc) in declared.chain(used) {
            if traits.iter().any(|t: &RouteTrait| t.tag == tag) || !ops.iter().any(|o| o.tag == tag)
            {
                continue;
            }
            let base = if tag.is_empty() {
                "Api".to_string()
            } else {
                sanitize(&tag, Case::Pascal)
            };
            traits.push(RouteTrait {
                name: names.unique(base),
                tag,
                doc,
            });
        }
        traits
    }
}

/// Fills in each operation's trait name (a second pass, once traits are named).
fn assign_traits(api: &mut Api) {
    for op in &mut api.operations {
        if let Some(t) = api.traits.iter().find(|t| t.tag == op.tag) {
            op.trait_name = t.name.clone();
        }
    }
}

/// The path part of a server URL, without a trailing slash: `/v1` for
/// `http://localhost:8080/v1/` or `/v1`. Variables (`{version}`) are kept.
fn base_path(url: &str) -> String {
    let path = match url.split_once("://") {
        Some((_, rest)) => rest.find('/').map_or("", |i| &rest[i..]),
        None => url,
    };
    path.trim_end_matches('/').to_string()
}

fn is_json(media: &str) -> bool {
    let essence = media.split(';').next().unwrap_or("").trim();
    essence == "application/json" || essence.ends_with("+json") || essence == "*/*"
}

fn is_date(s: &str) -> bool {
    let b = s.as_bytes();
    b.len() == 10
        && b[4] == b'-'
        && b[7] == b'-'
        && b.iter()
            .enumerate()
            .all(|(i, c)| i == 4 || i == 7 || c.is_ascii_digit())
        && (1..=12).contains(&s[5..7].parse::<u32>().unwrap_or(0))
        && (1..=31).contains(&s[8..10].parse::<u32>().unwrap_or(0))
}

/// `get /pets/{petId}/photos` -> `getPetsPetIdPhotos`: stable names for
/// documents without operationIds.
fn derived_operation_id(method: &str, path: &str) -> String {
    let mut id = method.to_string();
    for segment in path.split('/').filter(|s| !s.is_empty()) {
        let segment = segment.trim_start_matches('{').trim_end_matches('}');
        id.push_str(&sanitize(segment, Case::Pascal));
    }
    id
}

fn path_template_names(path: &str) -> Vec<String> {
    path.split('{')
        .skip(1)
        .filter_map(|s| s.split_once('}').map(|(name, _)| name.to_string()))
        .collect()
}

/// The variant name for a status code: its reason phrase.
fn status_variant(status: u16) -> String {
    let name = match status {
        200 => "Ok",
        201 => "Created",
        202 => "Accepted",
        203 => "NonAuthoritativeInformation",
        204 => "NoContent",
        206 => "PartialContent",
        301 => "MovedPermanently",
        302 => "Found",
        303 => "SeeOther",
        304 => "NotModified",
        307 => "TemporaryRedirect",
        308 => "PermanentRedirect",
        400 => "BadRequest",
        401 => "Unauthorized",
        402 => "PaymentRequired",
        403 => "Forbidden",
        404 => "NotFound",
        405 => "MethodNotAllowed",
        406 => "NotAcceptable",
        408 => "RequestTimeout",
        409 => "Conflict",
        410 => "Gone",
        411 => "LengthRequired",
        412 => "PreconditionFailed",
        413 => "PayloadTooLarge",
        414 => "UriTooLong",
        415 => "UnsupportedMediaType",
        416 => "RangeNotSatisfiable",
        417 => "ExpectationFailed",
        418 => "ImATeapot",
        422 => "UnprocessableEntity",
        423 => "Locked",
        424 => "FailedDependency",
        425 => "TooEarly",
        426 => "UpgradeRequired",
        428 => "PreconditionRequired",
        429 => "TooManyRequests",
        431 => "RequestHeaderFieldsTooLarge",
        451 => "UnavailableForLegalReasons",
        500 => "InternalServerError",
        501 => "NotImplemented",
        502 => "BadGateway",
        503 => "ServiceUnavailable",
        504 => "GatewayTimeout",
        _ => return format!("Status{status}"),
    };
    name.to_string()
}

/// The type a name finally stands for, through aliases of named types.
pub(crate) fn resolve<'a>(types: &'a BTreeMap<String, TypeDef>, name: &str) -> Option<&'a TypeDef> {
    let mut def = types.get(name)?;
    for _ in 0..64 {
        match &def.kind {
            TypeKind::Alias(Shape {
                ty: Ty::Named(next),
                ..
            }) => def = types.get(next)?,
            _ => return Some(def),
        }
    }
    None
}

/// Marks struct fields and union variants whose type leads back to the type
/// itself without passing through a `Vec` or map: they must be boxed.
fn mark_boxed(types: &mut BTreeMap<String, TypeDef>) {
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
                TypeKind::Alias(shape) => direct(shape).into_iter().map(str::to_string).collect(),
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
            _ => {}
        }
    }
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

fn extract_common_headers(api: &mut Api) {
    let mut responses = api.operations.iter().flat_map(|o| &o.responses);
    let Some(first) = responses.next() else {
        return;
    };
    let mut common: Vec<String> = first.headers.iter().map(|h| h.wire.clone()).collect();
    for r in responses {
        common.retain(|c| r.headers.iter().any(|h| h.wire.eq_ignore_ascii_case(c)));
    }
    for op in &mut api.operations {
        for r in &mut op.responses {
            r.headers
                .retain(|h| !common.iter().any(|c| c.eq_ignore_ascii_case(&h.wire)));
        }
    }
    api.common_headers = common;
}

fn shared_error_type(ops: &[Operation]) -> Option<Shape> {
    let mut bodies = ops
        .iter()
        .flat_map(|o| &o.responses)
        .filter(|r| r.status.is_none_or(|s| s >= 400))
        .map(|r| r.body.as_ref());
    let first = bodies.next()??.clone();
    bodies.all(|b| b == Some(&first)).then_some(first)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn derived_ids_are_stable_and_readable() {
        assert_eq!(
            derived_operation_id("get", "/pets/{petId}/photos"),
            "getPetsPetIdPhotos"
        );
        assert_eq!(derived_operation_id("post", "/"), "post");
    }

    #[test]
    fn dates_must_be_calendar_like() {
        assert!(is_date("2030-12-05"));
        assert!(!is_date("2030-13-05"));
        assert!(!is_date("05.12.2030"));
    }

    #[test]
    fn json_media_types() {
        assert!(is_json("application/json; charset=utf-8"));
        assert!(is_json("application/problem+json"));
        assert!(!is_json("text/plain"));
    }

    #[test]
    fn base_paths() {
        assert_eq!(base_path("http://localhost:8080/v1"), "/v1");
        assert_eq!(base_path("https://api.example.com/"), "");
        assert_eq!(base_path("/api/v2/"), "/api/v2");
        assert_eq!(base_path("https://example.com"), "");
    }

    #[test]
    fn path_templates() {
        assert_eq!(path_template_names("/a/{x}/b/{y}"), ["x", "y"]);
    }
}
