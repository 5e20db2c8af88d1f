//! `runtime::Validate`: the checks of each field, from its `#[check(...)]`
//! attribute, in the order they are written. The first that fails is the
//! violation, named by the field's wire name.

use proc_macro2::{Ident, Span, TokenStream};
use quote::{format_ident, quote};
use syn::parse::ParseStream;
use syn::spanned::Spanned;
use syn::{Data, DeriveInput, Fields, LitStr, Token};

/// One check of a value, as `#[check(...)]` spells it.
enum Check {
    /// `length(min = 1, max = 100)`: a string's length in characters.
    Length(Option<TokenStream>, Option<TokenStream>),
    /// `items(min = 1, max = 10)`: a list's length.
    Items(Option<TokenStream>, Option<TokenStream>),
    /// `range(min = 1, max = 10)`, with `above` and `below` for bounds
    /// the value may not take itself.
    Range(Bound, Bound),
    /// `pattern = "^[a-z]+$"`.
    Pattern(LitStr),
    /// `not_in("a", "b")` or `not_in(1, 2)`.
    NotIn(Vec<(TokenStream, bool)>),
    /// `one_of(1, 2)`: the whole numbers a number may be.
    OneOf(Vec<TokenStream>),
    /// `unique`: no two items of a list are equal.
    Unique,
    /// `email`, `uri`, `duration`: the text is of that format.
    Format(Ident),
    /// `valid`: the value's own `Validate`.
    Valid,
    /// `each(...)`: the checks of every item of a list.
    Each(Vec<Check>),
    /// `values(...)`: the checks of every value of a map.
    Values(Vec<Check>),
}

/// An end of a range.
enum Bound {
    Unbounded,
    Included(TokenStream),
    Excluded(TokenStream),
}

impl Bound {
    fn tokens(&self) -> TokenStream {
        match self {
            Bound::Unbounded => quote!(runtime::Bound::Unbounded),
            Bound::Included(n) => quote!(runtime::Bound::Included(#n)),
            Bound::Excluded(n) => quote!(runtime::Bound::Excluded(#n)),
        }
    }
}

/// What a field's `#[check(...)]` says: refusals of the field itself, and
/// the checks of its value.
#[derive(Default)]
struct FieldChecks {
    /// `read_only`: a request may not carry it.
    read_only: bool,
    /// `required`: a request must carry it (a write-only field, an
    /// `Option` because responses never hold it).
    required: bool,
    checks: Vec<Check>,
}

/// A number literal, with its sign, and whether it is a string instead.
fn literal(input: ParseStream) -> syn::Result<(TokenStream, bool)> {
    let minus: Option<Token![-]> = input.parse()?;
    let lit: syn::Lit = input.parse()?;
    let is_str = matches!(lit, syn::Lit::Str(_));
    Ok((quote!(#minus #lit), is_str))
}

/// The literals of `key(a, b, ...)`.
fn literals(input: ParseStream) -> syn::Result<Vec<(TokenStream, bool)>> {
    let content;
    syn::parenthesized!(content in input);
    let mut out = Vec::new();
    while !content.is_empty() {
        out.push(literal(&content)?);
        if content.is_empty() {
            break;
        }
        content.parse::<Token![,]>()?;
    }
    Ok(out)
}

/// The checks of one `check(...)` list (or of `each(...)`, `values(...)`).
fn checks(
    meta: &syn::meta::ParseNestedMeta,
    into: &mut FieldChecks,
    nested: bool,
) -> syn::Result<()> {
    let Some(key) = meta.path.get_ident().map(Ident::to_string) else {
        return Err(meta.error("expected a check, such as `length(max = 10)`"));
    };
    let bounds = |meta: &syn::meta::ParseNestedMeta, keys: &[&str]| {
        let mut found: Vec<(String, TokenStream)> = Vec::new();
        meta.parse_nested_meta(|inner| {
            let key = inner
                .path
                .get_ident()
                .map(Ident::to_string)
                .unwrap_or_default();
            if !keys.contains(&key.as_str()) {
                return Err(inner.error(format!("expected one of: {}", keys.join(", "))));
            }
            let (value, _) = literal(inner.value()?)?;
            found.push((key, value));
            Ok(())
        })?;
        Ok::<_, syn::Error>(found)
    };
    let take = |found: &[(String, TokenStream)], key: &str| {
        found.iter().find(|(k, _)| k == key).map(|(_, v)| v.clone())
    };
    let check = match key.as_str() {
        "read_only" | "required" if !nested => {
            if key == "read_only" {
                into.read_only = true;
            } else {
                into.required = true;
            }
            return Ok(());
        }
        "length" | "items" => {
            let found = bounds(meta, &["min", "max"])?;
            let (min, max) = (take(&found, "min"), take(&found, "max"));
            if key == "length" {
                Check::Length(min, max)
            } else {
                Check::Items(min, max)
            }
        }
        "range" => {
            let found = bounds(meta, &["min", "above", "max", "below"])?;
            let end = |included: &str, excluded: &str| match (
                take(&found, included),
                take(&found, excluded),
            ) {
                (Some(n), _) => Bound::Included(n),
                (None, Some(n)) => Bound::Excluded(n),
                (None, None) => Bound::Unbounded,
            };
            Check::Range(end("min", "above"), end("max", "below"))
        }
        "pattern" => Check::Pattern(meta.value()?.parse()?),
        "not_in" => Check::NotIn(literals(meta.input)?),
        "one_of" => Check::OneOf(literals(meta.input)?.into_iter().map(|(v, _)| v).collect()),
        "unique" => Check::Unique,
        "email" | "uri" | "duration" => Check::Format(format_ident!("check_{key}")),
        "valid" => Check::Valid,
        "each" | "values" => {
            let mut inner = FieldChecks::default();
            meta.parse_nested_meta(|m| checks(&m, &mut inner, true))?;
            if key == "each" {
                Check::Each(inner.checks)
            } else {
                Check::Values(inner.checks)
            }
        }
        other => return Err(meta.error(format!("unknown check `{other}`"))),
    };
    into.checks.push(check);
    Ok(())
}

/// The checks of `value` (an expression of type `&T`), chained: each runs
/// when the ones before it passed.
fn chain(value: &TokenStream, checks: &[Check]) -> TokenStream {
    let mut exprs = checks.iter().map(|c| one(value, c));
    let first = exprs.next().unwrap_or_else(|| quote!(Ok(())));
    exprs.fold(first, |acc, next| quote!(#acc.and_then(|()| #next)))
}

/// A function checking one value, for `check_each`, `check_values`,
/// `check_some` and `check_nullable`: `Validate::validate` itself when that
/// is all there is to check, else a closure over `var`.
fn function(var: &str, checks: &[Check]) -> TokenStream {
    if let [Check::Valid] = checks {
        return quote!(runtime::Validate::validate);
    }
    let var = Ident::new(var, Span::call_site());
    let body = chain(&quote!(#var), checks);
    quote!(|#var| #body)
}

fn one(value: &TokenStream, check: &Check) -> TokenStream {
    let option = |n: &Option<TokenStream>| match n {
        Some(n) => quote!(Some(#n)),
        None => quote!(None),
    };
    match check {
        Check::Length(min, max) => {
            let (min, max) = (option(min), option(max));
            quote!(runtime::check_length(#value, #min, #max))
        }
        Check::Items(min, max) => {
            let (min, max) = (option(min), option(max));
            quote!(runtime::check_items(Vec::len(#value), #min, #max))
        }
        Check::Range(min, max) => {
            let (min, max) = (min.tokens(), max.tokens());
            quote!(runtime::check_range(#value, #min, #max))
        }
        Check::Pattern(pattern) => quote!({
            static PATTERN: std::sync::LazyLock<regex::Regex> = std::sync::LazyLock::new(|| {
                regex::Regex::new(#pattern).expect("the generator checked the pattern")
            });
            runtime::check_pattern(#value, &PATTERN)
        }),
        Check::NotIn(values) if values.iter().all(|(_, is_str)| *is_str) => {
            let values = values.iter().map(|(v, _)| v);
            quote!(runtime::check_not_one_of::<str>(#value, &[#(#values),*]))
        }
        Check::NotIn(values) => {
            let values = values.iter().map(|(v, _)| v);
            quote!(runtime::check_not_one_of(#value, &[#(&#values),*]))
        }
        Check::OneOf(values) => quote!(runtime::check_one_of(#value, &[#(&#values),*])),
        Check::Unique => quote!(runtime::check_unique(#value)),
        Check::Format(check) => quote!(runtime::#check(#value)),
        Check::Valid => quote!(runtime::Validate::validate(#value)),
        Check::Each(checks) => {
            let f = function("item", checks);
            quote!(runtime::check_each(#value, #f))
        }
        Check::Values(checks) => {
            let f = function("value", checks);
            quote!(runtime::check_values(#value, #f))
        }
    }
}

/// `runtime::Validate` for a struct: per field its refusals and checks.
pub(crate) fn validate(input: &DeriveInput) -> syn::Result<TokenStream> {
    let name = &input.ident;
    let data = match &input.data {
        Data::Struct(data) => data,
        Data::Enum(data) => return union(name, data),
        Data::Union(_) => {
            return Err(syn::Error::new(
                name.span(),
                "`Validate` is derived for structs and enums",
            ))
        }
    };
    let mut statements = Vec::new();
    let fields: Vec<&syn::Field> = match &data.fields {
        Fields::Named(f) => f.named.iter().collect(),
        Fields::Unnamed(f) => f.unnamed.iter().collect(),
        Fields::Unit => Vec::new(),
    };
    for (index, field) in fields.into_iter().enumerate() {
        let mut found = FieldChecks::default();
        for attr in field.attrs.iter().filter(|a| a.path().is_ident("check")) {
            attr.parse_nested_meta(|meta| checks(&meta, &mut found, false))?;
        }
        let member = match &field.ident {
            Some(ident) => quote!(#ident),
            None => {
                let index = syn::Index::from(index);
                quote!(#index)
            }
        };
        // The additional properties are the object's own: no name of theirs.
        let (name, additional) = crate::model::field_name(field)?;
        let wire = name.filter(|_| !additional);
        if let Some(wire) = &wire {
            let refuse = |test: &str, message: &str| {
                let test = Ident::new(test, field.ty.span());
                quote! {
                    if self.#member.#test() {
                        return Err(runtime::Violation::new(#message).within(#wire));
                    }
                }
            };
            if found.read_only {
                statements.push(refuse("is_some", "is read-only"));
                continue;
            }
            if found.required {
                statements.push(refuse("is_none", "is required"));
            }
        }
        if found.checks.is_empty() {
            continue;
        }
        let field_ref = quote!(&self.#member);
        let wrapper = crate::model::wrapper(&field.ty).map(|(name, _)| name);
        let check = if wrapper == Some("Nullable") {
            let f = function("value", &found.checks);
            quote!(runtime::check_nullable(#field_ref, #f))
        } else if wrapper == Some("Option") {
            let f = function("value", &found.checks);
            quote!(runtime::check_some(#field_ref, #f))
        } else {
            chain(&field_ref, &found.checks)
        };
        statements.push(match wire {
            Some(wire) => quote!(runtime::within(#wire, #check)?;),
            None => quote!(#check?;),
        });
    }
    Ok(quote! {
        #[automatically_derived]
        impl runtime::Validate for #name {
            fn validate(&self) -> Result<(), runtime::Violation> {
                #(#statements)*
                Ok(())
            }
        }
    })
}

/// `runtime::Validate` for a union: the checks of its variant's value.
fn union(name: &Ident, data: &syn::DataEnum) -> syn::Result<TokenStream> {
    let mut arms = Vec::new();
    for variant in &data.variants {
        let mut found = FieldChecks::default();
        for attr in variant.attrs.iter().filter(|a| a.path().is_ident("check")) {
            attr.parse_nested_meta(|meta| checks(&meta, &mut found, true))?;
        }
        let ident = &variant.ident;
        arms.push(if found.checks.is_empty() {
            quote!(Self::#ident(_) => Ok(()),)
        } else {
            let check = chain(&quote!(value), &found.checks);
            quote!(Self::#ident(value) => #check,)
        });
    }
    Ok(quote! {
        #[automatically_derived]
        impl runtime::Validate for #name {
            fn validate(&self) -> Result<(), runtime::Violation> {
                match self {
                    #(#arms)*
                }
            }
        }
    })
}
