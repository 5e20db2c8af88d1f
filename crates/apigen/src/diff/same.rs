//! Which named types of the base mean the same as which of the revision.

use crate::ir::*;
use std::collections::HashMap;

/// A shape with the API's aliases followed to what they name: the type at
/// the end, the first bounds found, nullable if any step is.
#[derive(Debug, Clone, Copy)]
pub(super) struct View<'a> {
    pub(super) ty: &'a Ty,
    pub(super) checks: &'a Checks,
    pub(super) nullable: bool,
}

pub(super) fn unalias<'a>(shape: &'a Shape, api: &'a Api) -> View<'a> {
    let mut view = View {
        ty: &shape.ty,
        checks: &shape.checks,
        nullable: shape.nullable,
    };
    for _ in 0..64 {
        let Ty::Named(name) = view.ty else { break };
        match api.types.get(name).map(|t| &t.kind) {
            Some(TypeKind::Alias(inner)) => {
                view.nullable |= inner.nullable;
                if view.checks.is_empty() {
                    view.checks = &inner.checks;
                }
                view.ty = &inner.ty;
            }
            _ => break,
        }
    }
    view
}

/// Which named types of the base mean exactly the same as which of the
/// revision, so that the comparison walks only what changed. Recursive
/// types are equal unless a difference is found (a pair being compared is
/// assumed equal when met again); a "same" that rests on an assumption
/// still open further up is kept only once that assumption is settled.
pub(super) struct Same<'a> {
    base: &'a Api,
    rev: &'a Api,
    memo: HashMap<(&'a str, &'a str), bool>,
    /// Pairs being compared, by their depth on the stack.
    open: HashMap<(&'a str, &'a str), usize>,
    /// Pairs found the same on assumptions still open, in the order found,
    /// with the lowest depth they rest on: final once that pair is found
    /// the same, void if a pair they may rest on is not.
    tentative: Vec<(&'a str, &'a str)>,
    tentative_low: HashMap<(&'a str, &'a str), usize>,
}

impl<'a> Same<'a> {
    pub(super) fn new(base: &'a Api, rev: &'a Api) -> Self {
        Same {
            base,
            rev,
            memo: HashMap::new(),
            open: HashMap::new(),
            tentative: Vec::new(),
            tentative_low: HashMap::new(),
        }
    }

    pub(super) fn named(&mut self, base_name: &'a str, rev_name: &'a str) -> bool {
        self.pair(base_name, rev_name).0
    }

    /// Whether the pair means the same, and the lowest stack depth of an
    /// open assumption the answer rests on (`usize::MAX` for none).
    fn pair(&mut self, base_name: &'a str, rev_name: &'a str) -> (bool, usize) {
        if let Some(&same) = self.memo.get(&(base_name, rev_name)) {
            return (same, usize::MAX);
        }
        if let Some(&depth) = self.open.get(&(base_name, rev_name)) {
            return (true, depth);
        }
        if let Some(&low) = self.tentative_low.get(&(base_name, rev_name)) {
            return (true, low);
        }
        let depth = self.open.len();
        let mark = self.tentative.len();
        self.open.insert((base_name, rev_name), depth);
        let mut low = usize::MAX;
        let same = match (
            crate::lower::resolve(&self.base.types, base_name),
            crate::lower::resolve(&self.rev.types, rev_name),
        ) {
            (Some(base), Some(rev)) => self.kinds(&base.kind, &rev.kind, &mut low),
            _ => false,
        };
        self.open.remove(&(base_name, rev_name));
        if !same {
            // A difference is a difference whatever was assumed; what was
            // found the same on the assumption that this pair is goes void.
            for pair in self.tentative.drain(mark..) {
                self.tentative_low.remove(&pair);
            }
            self.memo.insert((base_name, rev_name), false);
            (false, usize::MAX)
        } else if low >= depth {
            // Every assumption this rests on is settled: this pair, and what
            // was found the same beneath it, is final.
            for pair in self.tentative.drain(mark..) {
                self.tentative_low.remove(&pair);
                self.memo.insert(pair, true);
            }
            self.memo.insert((base_name, rev_name), true);
            (true, usize::MAX)
        } else {
            self.tentative.push((base_name, rev_name));
            self.tentative_low.insert((base_name, rev_name), low);
            (true, low)
        }
    }

    fn kinds(&mut self, base: &'a TypeKind, rev: &'a TypeKind, low: &mut usize) -> bool {
        match (base, rev) {
            (TypeKind::Struct(base), TypeKind::Struct(rev)) => {
                let additional = match (&base.additional, &rev.additional) {
                    (None, None) => true,
                    (Some(x), Some(y)) => self.shapes(x, y, low),
                    _ => false,
                };
                additional
                    && base.deny_unknown == rev.deny_unknown
                    && base.fields.len() == rev.fields.len()
                    && base.fields.iter().all(|f| {
                        rev.fields
                            .iter()
                            .find(|g| g.wire == f.wire)
                            .is_some_and(|g| {
                                (f.required, f.read_only, f.write_only, f.flatten)
                                    == (g.required, g.read_only, g.write_only, g.flatten)
                                    && self.shapes(&f.shape, &g.shape, low)
                            })
                    })
            }
            (TypeKind::Enum(base), TypeKind::Enum(rev)) => {
                base.len() == rev.len() && base.iter().all(|v| rev.iter().any(|w| w.wire == v.wire))
            }
            (TypeKind::Union(base), TypeKind::Union(rev)) => {
                base.tag == rev.tag
                    && base.variants.len() == rev.variants.len()
                    && base.variants.iter().zip(&rev.variants).all(|(v, w)| {
                        v.tag_values == w.tag_values && self.shapes(&v.shape, &w.shape, low)
                    })
            }
            (
                TypeKind::Alias(base) | TypeKind::Newtype { shape: base, .. },
                TypeKind::Alias(rev) | TypeKind::Newtype { shape: rev, .. },
            ) => self.shapes(base, rev, low),
            _ => false,
        }
    }

    fn shapes(&mut self, base: &'a Shape, rev: &'a Shape, low: &mut usize) -> bool {
        let (base, rev) = (unalias(base, self.base), unalias(rev, self.rev));
        if base.nullable != rev.nullable || base.checks != rev.checks {
            return false;
        }
        match (base.ty, rev.ty) {
            (Ty::Named(x), Ty::Named(y)) => {
                let (same, at) = self.pair(x, y);
                *low = (*low).min(at);
                same
            }
            (Ty::Array(x), Ty::Array(y)) | (Ty::Map(x), Ty::Map(y)) => self.shapes(x, y, low),
            (x, y) => x == y,
        }
    }
}

/// Whether every value of `inner` (a type of `inner_api`) is a value of
/// `outer`.
pub(super) fn wider(outer: &Ty, inner_api: &Api, inner: &Ty) -> bool {
    use Ty::*;
    let free_object = |api: &Api, ty: &Ty| match ty {
        Map(values) => values.ty == Json,
        Named(n) => matches!(
            crate::lower::resolve(&api.types, n).map(|t| &t.kind),
            Some(TypeKind::Struct(_))
        ),
        _ => false,
    };
    match (outer, inner) {
        (Json, _) => true,
        (a, base) if std::mem::discriminant(a) == std::mem::discriminant(base) => true,
        (F64, F32 | I32 | I64) | (F32 | I64, I32) => true,
        (String, DateTime | Date) => true,
        (Map(values), _) if values.ty == Json => free_object(inner_api, inner),
        _ => false,
    }
}
