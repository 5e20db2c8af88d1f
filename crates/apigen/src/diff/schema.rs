//! Values compared by the direction they travel: shapes, bounds, named
//! types (structs, enums, unions), and which named types mean the same in
//! both documents (`Same`), which need no walk at all.

use super::compare::Compare;
use super::ctx::{Ctx, Dir};
use super::rules::{Change, Rule};
use super::same::{unalias, wider};
use super::Level;
use crate::ir::*;

impl<'a> Compare<'a, '_> {
    pub(super) fn shape(
        &mut self,
        base: &'a Shape,
        rev: &'a Shape,
        ctx: &Ctx,
        base_at: &str,
        rev_at: &str,
    ) {
        let (base, rev) = (unalias(base, self.base), unalias(rev, self.rev));
        match ctx.dir {
            Dir::Request if base.nullable && !rev.nullable => self.report(
                Rule::Value(ctx.place, Change::BecameNotNullable),
                base_at,
                rev_at,
                format!("{} no longer accepts null", ctx.what),
            ),
            Dir::Response if !base.nullable && rev.nullable => self.report(
                Rule::Value(ctx.place, Change::BecameNullable),
                base_at,
                rev_at,
                format!("{} may be null now", ctx.what),
            ),
            _ => {}
        }
        match (base.ty, rev.ty) {
            (Ty::Named(base_name), Ty::Named(rev_name)) => {
                self.named(base_name, rev_name, ctx, base_at, rev_at)
            }
            (Ty::Array(bi), Ty::Array(ri)) => {
                self.checks(base.checks, rev.checks, ctx, base_at, rev_at);
                self.shape(bi, ri, &ctx.items(), base_at, rev_at);
            }
            (Ty::Map(base_variant), Ty::Map(rev_variant)) => {
                self.shape(base_variant, rev_variant, &ctx.items(), base_at, rev_at)
            }
            (bt, rt) => {
                let fits = match ctx.dir {
                    Dir::Request => wider(rt, self.base, bt),
                    Dir::Response => wider(bt, self.rev, rt),
                };
                if fits {
                    self.checks(base.checks, rev.checks, ctx, base_at, rev_at);
                } else {
                    self.report(
                        Rule::Value(ctx.place, Change::TypeChanged),
                        base_at,
                        rev_at,
                        format!(
                            "{}: the type changed from {} to {}",
                            ctx.what,
                            describe_ty(bt),
                            describe_ty(rt)
                        ),
                    );
                }
            }
        }
    }

    /// Bounds that a request must keep: none may tighten.
    fn checks(&mut self, base: &Checks, rev: &Checks, ctx: &Ctx, base_at: &str, rev_at: &str) {
        self.integer_enum(&base.one_of, &rev.one_of, ctx, base_at, rev_at);
        if ctx.dir == Dir::Response {
            return;
        }
        let what = &ctx.what;
        let mut tightened = Vec::new();
        if let Some(max) = rev
            .max_length
            .filter(|m| base.max_length.is_none_or(|base| m < &base))
        {
            tightened.push((
                Rule::Value(ctx.place, Change::MaxLengthDecreased),
                format!("{what}: maxLength is now {max}"),
            ));
        }
        if let Some(min) = rev.min_length.filter(|m| *m > base.min_length.unwrap_or(0)) {
            tightened.push((
                Rule::Value(ctx.place, Change::MinLengthIncreased),
                format!("{what}: minLength is now {min}"),
            ));
        }
        if let Some(max) = rev
            .max_items
            .filter(|m| base.max_items.is_none_or(|base| m < &base))
        {
            tightened.push((
                Rule::Value(ctx.place, Change::MaxItemsDecreased),
                format!("{what}: maxItems is now {max}"),
            ));
        }
        if let Some(min) = rev.min_items.filter(|m| *m > base.min_items.unwrap_or(0)) {
            tightened.push((
                Rule::Value(ctx.place, Change::MinItemsIncreased),
                format!("{what}: minItems is now {min}"),
            ));
        }
        if let Some(min) = rev.minimum {
            let raised = match base.minimum {
                None => true,
                Some(before) => {
                    number(min) > number(before)
                        || (number(min) == number(before)
                            && rev.exclusive_minimum
                            && !base.exclusive_minimum)
                }
            };
            if raised {
                tightened.push((
                    Rule::Value(ctx.place, Change::MinIncreased),
                    format!("{what}: the minimum is now {}", describe_number(min)),
                ));
            }
        }
        if let Some(max) = rev.maximum {
            let lowered = match base.maximum {
                None => true,
                Some(before) => {
                    number(max) < number(before)
                        || (number(max) == number(before)
                            && rev.exclusive_maximum
                            && !base.exclusive_maximum)
                }
            };
            if lowered {
                tightened.push((
                    Rule::Value(ctx.place, Change::MaxDecreased),
                    format!("{what}: the maximum is now {}", describe_number(max)),
                ));
            }
        }
        for (rule, message) in tightened {
            self.report(rule, base_at, rev_at, message);
        }
        match (&base.pattern, &rev.pattern) {
            (None, Some(p)) => self.report(
                Rule::Value(ctx.place, Change::PatternAdded),
                base_at,
                rev_at,
                format!("{what}: must now match `{p}`"),
            ),
            (Some(before), Some(after)) if before != after => self.report(
                Rule::Value(ctx.place, Change::PatternChanged),
                base_at,
                rev_at,
                format!("{what}: the pattern changed from `{before}` to `{after}`"),
            ),
            _ => {}
        }
    }

    /// An integer's `enum`: a value a request could send and no longer may,
    /// or a value a response may now hold that it could not.
    fn integer_enum(&mut self, base: &[i64], rev: &[i64], ctx: &Ctx, base_at: &str, rev_at: &str) {
        let listed = |values: &[i64]| {
            let values: Vec<String> = values.iter().map(|n| format!("`{n}`")).collect();
            values.join(", ")
        };
        let beyond = |from: &[i64], to: &[i64]| -> Vec<i64> {
            from.iter().filter(|n| !to.contains(n)).copied().collect()
        };
        let found = match ctx.dir {
            Dir::Request if base.is_empty() && !rev.is_empty() => Some((
                Change::EnumValueRemoved,
                format!("{} now accepts only {}", ctx.what, listed(rev)),
            )),
            Dir::Request if !rev.is_empty() && !beyond(base, rev).is_empty() => Some((
                Change::EnumValueRemoved,
                format!(
                    "{} no longer accepts {}",
                    ctx.what,
                    listed(&beyond(base, rev))
                ),
            )),
            Dir::Response if !base.is_empty() && rev.is_empty() => Some((
                Change::EnumValueAdded,
                format!(
                    "{} may now be any integer, not only {}",
                    ctx.what,
                    listed(base)
                ),
            )),
            Dir::Response if !base.is_empty() && !beyond(rev, base).is_empty() => Some((
                Change::EnumValueAdded,
                format!(
                    "{} may now be {}, which callers may not expect",
                    ctx.what,
                    listed(&beyond(rev, base))
                ),
            )),
            _ => None,
        };
        if let Some((change, message)) = found {
            self.report(Rule::Value(ctx.place, change), base_at, rev_at, message);
        }
    }

    fn named(
        &mut self,
        base_name: &'a str,
        rev_name: &'a str,
        ctx: &Ctx,
        base_at: &str,
        rev_at: &str,
    ) {
        if self.same.named(base_name, rev_name)
            || !self.seen.insert((base_name, rev_name, ctx.dir, ctx.place))
        {
            return;
        }
        let (Some(bdef), Some(rdef)) = (
            crate::lower::resolve(&self.base.types, base_name),
            crate::lower::resolve(&self.rev.types, rev_name),
        ) else {
            return;
        };
        match (&bdef.kind, &rdef.kind) {
            (TypeKind::Struct(base_shape), TypeKind::Struct(rev_shape)) => {
                self.structs(base_shape, rev_shape, ctx, base_at, rev_at)
            }
            (TypeKind::Enum(base_variant), TypeKind::Enum(rev_variant)) => {
                self.enums(base_variant, rev_variant, ctx, base_at, rev_at)
            }
            (TypeKind::Union(bu), TypeKind::Union(ru)) => self.unions(bu, ru, ctx, base_at, rev_at),
            (
                TypeKind::Alias(base_shape)
                | TypeKind::Newtype {
                    shape: base_shape, ..
                },
                TypeKind::Alias(rev_shape)
                | TypeKind::Newtype {
                    shape: rev_shape, ..
                },
            ) => self.shape(base_shape, rev_shape, ctx, base_at, rev_at),
            (bk, rk) => self.report(
                Rule::Value(ctx.place, Change::TypeChanged),
                base_at,
                rev_at,
                format!(
                    "{}: the type changed from {} to {}",
                    ctx.what,
                    describe_kind(bk),
                    describe_kind(rk)
                ),
            ),
        }
    }

    fn structs(
        &mut self,
        base: &'a Struct,
        rev: &'a Struct,
        ctx: &Ctx,
        base_at: &str,
        rev_at: &str,
    ) {
        match ctx.dir {
            Dir::Request => self.request_struct(base, rev, ctx, base_at, rev_at),
            Dir::Response => self.response_struct(base, rev, ctx, base_at, rev_at),
        }
        if let (Some(base_variant), Some(rev_variant)) = (&base.additional, &rev.additional) {
            self.shape(base_variant, rev_variant, &ctx.items(), base_at, rev_at);
        }
    }

    /// A struct a request carries: a property new and required, removed
    /// where unknown ones are refused, or become required breaks callers.
    fn request_struct(
        &mut self,
        base: &'a Struct,
        rev: &'a Struct,
        ctx: &Ctx,
        base_at: &str,
        rev_at: &str,
    ) {
        for rev_field in rev.fields.iter().filter(|f| !f.read_only && !f.flatten) {
            let inner = ctx.property(&rev_field.wire);
            match named_field(base, &rev_field.wire) {
                None if rev_field.required => self.report(
                    Rule::NewRequiredRequestProperty,
                    base_at,
                    &rev_field.pointer,
                    format!("{} is new and required", inner.what),
                ),
                None => self.report(
                    Rule::NewOptionalRequestProperty,
                    base_at,
                    &rev_field.pointer,
                    format!("{} is new", inner.what),
                ),
                Some(base_field) => {
                    let became = (rev_field.required && !base_field.required)
                        .then_some((Rule::RequestPropertyBecameRequired, "became required"));
                    self.both_fields(base_field, rev_field, &inner, became);
                }
            }
        }
        for base_field in base.fields.iter().filter(|f| !f.read_only && !f.flatten) {
            if named_field(rev, &base_field.wire).is_some() {
                continue;
            }
            let message = format!("{} is removed", ctx.property(&base_field.wire).what);
            let (level, message) = if rev.deny_unknown {
                let refused = format!("{message}, and unknown properties are refused");
                (self.level, refused)
            } else {
                (Level::Info, message)
            };
            self.report_at(
                Rule::RequestPropertyRemoved,
                level,
                &base_field.pointer,
                rev_at,
                message,
            );
        }
        if rev.deny_unknown && !base.deny_unknown {
            self.report(
                Rule::RequestAdditionalPropertiesRefused,
                base_at,
                rev_at,
                format!("{} now refuses properties it does not name", ctx.what),
            );
        }
    }

    /// A property both structs name: the change of its required-ness the
    /// caller found (`became`: the rule, and what became of it), and its
    /// shape.
    fn both_fields(
        &mut self,
        base_field: &'a Field,
        rev_field: &'a Field,
        inner: &Ctx,
        became: Option<(Rule, &str)>,
    ) {
        if let Some((rule, what)) = became {
            self.report(
                rule,
                &base_field.pointer,
                &rev_field.pointer,
                format!("{} {what}", inner.what),
            );
        }
        self.shape(
            &base_field.shape,
            &rev_field.shape,
            inner,
            &base_field.pointer,
            &rev_field.pointer,
        );
    }

    /// A struct a response carries: a property removed or become optional
    /// breaks callers; a new one is news.
    fn response_struct(
        &mut self,
        base: &'a Struct,
        rev: &'a Struct,
        ctx: &Ctx,
        base_at: &str,
        rev_at: &str,
    ) {
        for base_field in base.fields.iter().filter(|f| !f.write_only && !f.flatten) {
            let inner = ctx.property(&base_field.wire);
            match named_field(rev, &base_field.wire) {
                None if base_field.required => self.report(
                    Rule::ResponseRequiredPropertyRemoved,
                    &base_field.pointer,
                    rev_at,
                    format!("{} is removed", inner.what),
                ),
                None => self.report(
                    Rule::ResponseOptionalPropertyRemoved,
                    &base_field.pointer,
                    rev_at,
                    format!("{} is removed", inner.what),
                ),
                Some(rev_field) => {
                    let became = (base_field.required && !rev_field.required)
                        .then_some((Rule::ResponsePropertyBecameOptional, "became optional"));
                    self.both_fields(base_field, rev_field, &inner, became);
                }
            }
        }
        for rev_field in rev.fields.iter().filter(|f| !f.write_only && !f.flatten) {
            if named_field(base, &rev_field.wire).is_none() {
                self.report(
                    Rule::ResponsePropertyAdded,
                    base_at,
                    &rev_field.pointer,
                    format!("{} is new", ctx.property(&rev_field.wire).what),
                );
            }
        }
    }

    fn enums(
        &mut self,
        base: &[EnumVariant],
        rev: &[EnumVariant],
        ctx: &Ctx,
        base_at: &str,
        rev_at: &str,
    ) {
        let missing = |from: &[EnumVariant], to: &[EnumVariant]| -> Vec<String> {
            from.iter()
                .filter(|v| !to.iter().any(|w| w.wire == v.wire))
                .map(|v| format!("`{}`", v.wire))
                .collect()
        };
        let (removed, added) = (missing(base, rev), missing(rev, base));
        match ctx.dir {
            Dir::Request if !removed.is_empty() => self.report(
                Rule::Value(ctx.place, Change::EnumValueRemoved),
                base_at,
                rev_at,
                format!("{} no longer accepts {}", ctx.what, removed.join(", ")),
            ),
            Dir::Response if !added.is_empty() => self.report(
                Rule::Value(ctx.place, Change::EnumValueAdded),
                base_at,
                rev_at,
                format!(
                    "{} may now be {}, which callers may not expect",
                    ctx.what,
                    added.join(", ")
                ),
            ),
            _ => {}
        }
    }

    fn unions(&mut self, base: &'a Union, rev: &'a Union, ctx: &Ctx, base_at: &str, rev_at: &str) {
        let name = |v: &UnionVariant| {
            v.tag_values
                .first()
                .cloned()
                .unwrap_or_else(|| v.rust.clone())
        };
        let find = |u: &'a Union, wanted: &str| u.variants.iter().find(|v| name(v) == wanted);
        for base_variant in &base.variants {
            match find(rev, &name(base_variant)) {
                Some(rev_variant) => self.shape(
                    &base_variant.shape,
                    &rev_variant.shape,
                    ctx,
                    base_at,
                    rev_at,
                ),
                None if ctx.dir == Dir::Request => self.report(
                    Rule::Value(ctx.place, Change::OneOfRemoved),
                    base_at,
                    rev_at,
                    format!(
                        "{} no longer accepts the shape `{}`",
                        ctx.what,
                        name(base_variant)
                    ),
                ),
                None if ctx.events => self.report(
                    Rule::ResponseEventKindRemoved,
                    base_at,
                    rev_at,
                    format!(
                        "{} no longer sends events of the kind `{}`",
                        ctx.what,
                        name(base_variant)
                    ),
                ),
                None => {}
            }
        }
        if ctx.dir == Dir::Response {
            let added: Vec<String> = rev
                .variants
                .iter()
                .filter(|rev_variant| find(base, &name(rev_variant)).is_none())
                .map(|rev_variant| format!("`{}`", name(rev_variant)))
                .collect();
            if !added.is_empty() {
                self.report(
                    Rule::Value(ctx.place, Change::OneOfAdded),
                    base_at,
                    rev_at,
                    format!("{} may now have the shape {}", ctx.what, added.join(", ")),
                );
            }
        }
    }
}

fn number(n: Number) -> f64 {
    match n {
        Number::Int(i) => i as f64,
        Number::Float(f) => f,
    }
}

fn describe_number(n: Number) -> String {
    match n {
        Number::Int(i) => i.to_string(),
        Number::Float(f) => f.to_string(),
    }
}

fn describe_ty(t: &Ty) -> String {
    match t {
        Ty::Bool => "boolean".into(),
        Ty::I32 => "int32".into(),
        Ty::I64 => "int64".into(),
        Ty::F32 => "float".into(),
        Ty::F64 => "number".into(),
        Ty::String => "string".into(),
        Ty::DateTime => "date-time".into(),
        Ty::Date => "date".into(),
        Ty::Uuid => "uuid".into(),
        Ty::Base64 => "base64 bytes".into(),
        Ty::Json => "any JSON".into(),
        Ty::Bytes => "bytes".into(),
        Ty::Array(_) => "array".into(),
        Ty::Map(_) => "object".into(),
        Ty::Named(_) => "object".into(),
    }
}

fn describe_kind(k: &TypeKind) -> &'static str {
    match k {
        TypeKind::Struct(_) => "object",
        TypeKind::Enum(_) => "string enum",
        TypeKind::Union(_) => "oneOf/anyOf",
        TypeKind::Alias(_) | TypeKind::Newtype { .. } => "another type",
    }
}

/// A struct's own (not flattened) property of the wire name `wire`.
fn named_field<'s>(s: &'s Struct, wire: &str) -> Option<&'s Field> {
    s.fields.iter().find(|f| f.wire == wire && !f.flatten)
}
