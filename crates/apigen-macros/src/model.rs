//! What a derive reads from the type it is on: each field's wire name and
//! how it is read, from the field's type and its `#[wire(...)]` attribute.

use proc_macro2::{Ident, TokenStream};
use syn::spanned::Spanned;
use syn::{Attribute, Data, DeriveInput, Fields, GenericArgument, LitStr, PathArguments, Type};

/// A type a derive is on.
pub(crate) struct Model {
    pub(crate) ident: Ident,
    pub(crate) shape: Shape,
    /// `#[wire(write_if(...))]`: the `cfg` predicate that compiles the
    /// `Serialize` impl in (else it always is).
    pub(crate) write_if: Option<TokenStream>,
    /// `#[wire(read_if(...))]`: the same for `Deserialize`.
    pub(crate) read_if: Option<TokenStream>,
}

/// A record (a struct with named fields), a string enum, or a union.
pub(crate) enum Shape {
    Record(Box<Record>),
    Enum(StringEnum),
    Union(Union),
}

/// An enum of one-field variants, each a shape a value may have
/// (`oneOf`, `anyOf`): read by its tag's value, or by trying each.
pub(crate) struct Union {
    /// `#[wire(tag = "type")]`: the property whose value names the variant.
    pub(crate) tag: Option<String>,
    /// `#[wire(optional_tag)]`: a variant may omit the tag, and a value
    /// without one is read by its structure.
    pub(crate) optional_tag: bool,
    /// `#[wire(one_of)]`: exactly one variant may read a value (else the
    /// first that does is taken).
    pub(crate) one_of: bool,
    pub(crate) variants: Vec<UnionVariant>,
}

/// A variant of a union.
pub(crate) struct UnionVariant {
    pub(crate) ident: Ident,
    /// It holds a `Box`.
    pub(crate) boxed: bool,
    /// `#[wire(tag("a", "b"))]`: the tag's values that name it.
    pub(crate) tags: Vec<String>,
    /// `#[wire(implicit_tag("A"))]`: values that name it without the
    /// document offering them (its schema's name).
    pub(crate) implicit: Vec<String>,
    /// `#[wire(fallback)]`: it reads a value whose tag is absent or names
    /// no variant.
    pub(crate) fallback: bool,
    /// When it is tried: `0`, after the others when `array` (`1`), last
    /// when `text` (`2`), as a query's or header's text reads as anything.
    pub(crate) tier: u8,
    /// `#[wire(object)]`, `#[wire(object(required(...), only(...)))]`:
    /// what a value must be before it is tried.
    pub(crate) fits: Option<Fits>,
}

/// The test an object variant's value passes before it is tried.
pub(crate) struct Fits {
    /// Properties it must have.
    pub(crate) required: Vec<String>,
    /// The only properties it may have, when others are refused.
    pub(crate) only: Option<Vec<String>>,
}

/// A struct read and written as a JSON object.
pub(crate) struct Record {
    /// `#[wire(deny_unknown)]`: a property the struct does not name is an
    /// error (else it is ignored).
    pub(crate) deny_unknown: bool,
    /// The named properties, in the struct's order.
    pub(crate) named: Vec<Named>,
    /// `#[wire(flatten)]` fields: parts read from the other properties.
    pub(crate) flattened: Vec<Ident>,
    /// The `#[wire(additional)]` field, keeping the other properties, and
    /// its type (a map from name to value).
    pub(crate) additional: Option<(Ident, Type)>,
}

/// A named property of a record.
pub(crate) struct Named {
    pub(crate) ident: Ident,
    pub(crate) wire: String,
    pub(crate) reading: Reading,
    /// The field's type without its `Option` or `Nullable`.
    pub(crate) plain: Type,
    /// `#[wire(null_text)]`: in a form or multipart body, the text `null`
    /// is null.
    pub(crate) null_text: bool,
    /// `#[wire(shared)]`: the flattened parts read it too.
    pub(crate) shared: bool,
}

/// How a property is read, and written back.
pub(crate) enum Reading {
    /// A plain field: absent is an error.
    Required,
    /// A `Vec` (but `Vec<u8>`, bytes): absent is an error, but in a form or
    /// multipart body (which cannot spell an empty list) the empty list.
    RequiredList,
    /// An `Option`: absent is `None`, `null` is refused; `None` is not
    /// written.
    Optional,
    /// An `Option` with `#[wire(nullable)]`: absent and `null` are `None`,
    /// which is written as `null`.
    OptionalNullable,
    /// An `Option` with `#[wire(required, nullable)]`: `null` is `None`,
    /// absent is an error.
    RequiredNullable,
    /// A `Nullable`: absent and `null` are told apart.
    ThreeState,
    /// `#[wire(default = "path")]`: absent is what the function returns.
    Defaulted(syn::Path),
}

impl Reading {
    /// Whether the field's slot holds `null` apart from absent.
    pub(crate) fn nullable_slot(&self) -> bool {
        matches!(
            self,
            Reading::OptionalNullable | Reading::RequiredNullable | Reading::ThreeState
        )
    }
}

/// An enum of strings: a unit variant per listed value and one keeping
/// any other.
pub(crate) struct StringEnum {
    /// Each listed value's variant and wire text.
    pub(crate) variants: Vec<(Ident, String)>,
    /// The `#[wire(unknown)]` variant, holding a `runtime::Unknown`.
    pub(crate) unknown: Ident,
}

/// What one `#[wire(...)]` attribute (or several) says.
#[derive(Default)]
struct Wire {
    rename: Option<String>,
    /// `tag = "..."` on a union.
    tag: Option<String>,
    /// `tag(...)` and `implicit_tag(...)` on a union's variant.
    tags: Vec<String>,
    implicit: Vec<String>,
    fits: Option<Fits>,
    default: Option<syn::Path>,
    write_if: Option<TokenStream>,
    read_if: Option<TokenStream>,
    flags: Vec<(String, proc_macro2::Span)>,
}

impl Wire {
    fn has(&self, flag: &str) -> bool {
        self.flags.iter().any(|(f, _)| f == flag)
    }

    /// Refuses the flags that `allowed` does not list.
    fn only(&self, allowed: &[&str], what: &str) -> syn::Result<()> {
        match self
            .flags
            .iter()
            .find(|(f, _)| !allowed.contains(&f.as_str()))
        {
            Some((flag, span)) => Err(syn::Error::new(
                *span,
                format!("`#[wire({flag})]` does not apply to {what}"),
            )),
            None => Ok(()),
        }
    }
}

/// The `#[wire(...)]` attributes among `attrs`, merged.
fn wire(attrs: &[Attribute]) -> syn::Result<Wire> {
    let mut wire = Wire::default();
    for attr in attrs.iter().filter(|a| a.path().is_ident("wire")) {
        attr.parse_nested_meta(|meta| {
            let Some(key) = meta.path.get_ident().map(Ident::to_string) else {
                return Err(meta.error("expected a word, such as `rename`"));
            };
            match key.as_str() {
                "rename" => wire.rename = Some(meta.value()?.parse::<LitStr>()?.value()),
                "write_if" | "read_if" => {
                    let content;
                    syn::parenthesized!(content in meta.input);
                    let predicate: TokenStream = content.parse()?;
                    if key == "write_if" {
                        wire.write_if = Some(predicate);
                    } else {
                        wire.read_if = Some(predicate);
                    }
                }
                "default" => {
                    wire.default = Some(meta.value()?.parse::<LitStr>()?.parse()?);
                }
                "tag" if meta.input.peek(syn::Token![=]) => {
                    wire.tag = Some(meta.value()?.parse::<LitStr>()?.value());
                }
                "tag" => wire.tags.extend(strings(meta.input)?),
                "implicit_tag" => wire.implicit.extend(strings(meta.input)?),
                "object" => {
                    let mut fits = Fits {
                        required: Vec::new(),
                        only: None,
                    };
                    if !meta.input.is_empty() && !meta.input.peek(syn::Token![,]) {
                        meta.parse_nested_meta(|inner| {
                            if inner.path.is_ident("required") {
                                fits.required = strings(inner.input)?;
                            } else if inner.path.is_ident("only") {
                                fits.only = Some(strings(inner.input)?);
                            } else {
                                return Err(inner.error("expected `required(...)` or `only(...)`"));
                            }
                            Ok(())
                        })?;
                    }
                    wire.fits = Some(fits);
                }
                "deny_unknown" | "flatten" | "additional" | "nullable" | "required"
                | "null_text" | "shared" | "unknown" | "optional_tag" | "one_of" | "fallback"
                | "array" | "text" => wire.flags.push((key, meta.path.span())),
                other => return Err(meta.error(format!("unknown `wire` key `{other}`"))),
            }
            Ok(())
        })?;
    }
    Ok(wire)
}

/// A field's name in violations (its `rename`, else its own name; `None`
/// for a tuple struct's field) and whether it holds the additional
/// properties, as its `#[wire(...)]` says: for `Validate`, which checks
/// request types as well as records.
pub(crate) fn field_name(field: &syn::Field) -> syn::Result<(Option<String>, bool)> {
    let wire = wire(&field.attrs)?;
    let own = field
        .ident
        .as_ref()
        .map(|i| i.to_string().trim_start_matches("r#").to_string());
    let additional = wire.has("additional");
    Ok((wire.rename.or(own), additional))
}

/// The string literals of `(a, b, ...)`.
fn strings(input: syn::parse::ParseStream) -> syn::Result<Vec<String>> {
    let content;
    syn::parenthesized!(content in input);
    let list = syn::punctuated::Punctuated::<LitStr, syn::Token![,]>::parse_terminated(&content)?;
    Ok(list.iter().map(LitStr::value).collect())
}

/// The model of `input`, or why a derive cannot be on it.
pub(crate) fn read(input: &DeriveInput) -> syn::Result<Model> {
    if !input.generics.params.is_empty() {
        return Err(syn::Error::new(
            input.generics.span(),
            "apigen's derives take no generic parameters",
        ));
    }
    let top = wire(&input.attrs)?;
    let shape = match &input.data {
        Data::Struct(data) => Shape::Record(Box::new(record(&top, &data.fields, &input.ident)?)),
        // An enum of strings has unit variants and keeps other values in
        // one marked `unknown`; a union's variants each hold a value.
        Data::Enum(data)
            if data.variants.iter().all(|v| {
                matches!(&v.fields, Fields::Unnamed(f) if f.unnamed.len() == 1)
                    && !v.attrs.iter().any(|a| {
                        a.path().is_ident("wire")
                            && a.parse_args::<TokenStream>()
                                .is_ok_and(|t| t.to_string() == "unknown")
                    })
            }) && !data.variants.is_empty() =>
        {
            Shape::Union(union(&top, data)?)
        }
        Data::Enum(data) => {
            top.only(&[], "an enum of strings")?;
            Shape::Enum(string_enum(data)?)
        }
        Data::Union(_) => {
            return Err(syn::Error::new(
                input.ident.span(),
                "apigen's derives apply to structs and enums",
            ))
        }
    };
    Ok(Model {
        ident: input.ident.clone(),
        shape,
        write_if: top.write_if,
        read_if: top.read_if,
    })
}

fn record(top: &Wire, fields: &Fields, ident: &Ident) -> syn::Result<Record> {
    top.only(&["deny_unknown"], "a struct")?;
    let mut record = Record {
        deny_unknown: top.has("deny_unknown"),
        named: Vec::new(),
        flattened: Vec::new(),
        additional: None,
    };
    let named = match fields {
        Fields::Named(named) => &named.named,
        Fields::Unit => return Ok(record),
        Fields::Unnamed(_) => {
            return Err(syn::Error::new(
                ident.span(),
                "a record derive needs named fields",
            ))
        }
    };
    for field in named {
        let ident = field.ident.clone().expect("a named field");
        let wire = wire(&field.attrs)?;
        if wire.has("flatten") {
            wire.only(&["flatten"], "a flattened field")?;
            record.flattened.push(ident);
            continue;
        }
        if wire.has("additional") {
            wire.only(&["additional"], "the additional properties")?;
            record.additional = Some((ident, field.ty.clone()));
            continue;
        }
        wire.only(&["nullable", "required", "null_text", "shared"], "a field")?;
        let name = ident.to_string();
        let wire_name = wire
            .rename
            .clone()
            .unwrap_or_else(|| name.trim_start_matches("r#").to_string());
        let (reading, plain) = reading(&field.ty, &wire)?;
        record.named.push(Named {
            ident,
            wire: wire_name,
            reading,
            plain,
            null_text: wire.has("null_text"),
            shared: wire.has("shared"),
        });
    }
    Ok(record)
}

/// How a field of type `ty` is read, and its type without its `Option` or
/// `Nullable`.
fn reading(ty: &Type, wire: &Wire) -> syn::Result<(Reading, Type)> {
    let (nullable, required) = (wire.has("nullable"), wire.has("required"));
    if let Some(path) = &wire.default {
        return Ok((Reading::Defaulted(path.clone()), ty.clone()));
    }
    let refuse = |message: &str| Err(syn::Error::new(ty.span(), message));
    match wrapper(ty) {
        Some(("Option", Some(inner))) => {
            let reading = match (required, nullable) {
                (false, false) => Reading::Optional,
                (false, true) => Reading::OptionalNullable,
                (true, true) => Reading::RequiredNullable,
                (true, false) => {
                    return refuse(
                        "a required `Option` field is one that may be null: \
                         write `#[wire(required, nullable)]`",
                    )
                }
            };
            Ok((reading, inner))
        }
        Some(("Nullable", Some(inner))) => Ok((Reading::ThreeState, inner)),
        _ if required || nullable => refuse(
            "`required` and `nullable` apply to an `Option` field; a plain field is required",
        ),
        Some(("Vec", Some(inner))) if !is_u8(&inner) => Ok((Reading::RequiredList, ty.clone())),
        _ => Ok((Reading::Required, ty.clone())),
    }
}

/// The wrapper a type is (`Option`, `Nullable`, `Vec`, `Box`, by the last
/// segment of its path) and the type it wraps.
pub(crate) fn wrapper(ty: &Type) -> Option<(&'static str, Option<Type>)> {
    let Type::Path(path) = ty else { return None };
    let last = path.path.segments.last()?;
    let name = ["Option", "Nullable", "Vec", "Box"]
        .into_iter()
        .find(|n| last.ident == n)?;
    let inner = match &last.arguments {
        PathArguments::AngleBracketed(args) if args.args.len() == 1 => match &args.args[0] {
            GenericArgument::Type(inner) => Some(inner.clone()),
            _ => None,
        },
        _ => None,
    };
    Some((name, inner))
}

fn is_u8(ty: &Type) -> bool {
    matches!(ty, Type::Path(p) if p.path.is_ident("u8"))
}

fn string_enum(data: &syn::DataEnum) -> syn::Result<StringEnum> {
    let mut variants = Vec::new();
    let mut unknown = None;
    for variant in &data.variants {
        let wire = wire(&variant.attrs)?;
        if wire.has("unknown") {
            wire.only(&["unknown"], "the unknown variant")?;
            if !matches!(&variant.fields, Fields::Unnamed(f) if f.unnamed.len() == 1) {
                return Err(syn::Error::new(
                    variant.ident.span(),
                    "the unknown variant holds one `runtime::Unknown`",
                ));
            }
            unknown = Some(variant.ident.clone());
            continue;
        }
        wire.only(&[], "a listed value")?;
        if !matches!(variant.fields, Fields::Unit) {
            return Err(syn::Error::new(
                variant.ident.span(),
                "a listed value is a unit variant; mark the one keeping other values \
                 `#[wire(unknown)]`",
            ));
        }
        let text = wire
            .rename
            .unwrap_or_else(|| crate::case::snake_case(&variant.ident.to_string()));
        variants.push((variant.ident.clone(), text));
    }
    let unknown = unknown.ok_or_else(|| {
        syn::Error::new(
            data.enum_token.span(),
            "a string enum needs a `#[wire(unknown)]` variant holding a `runtime::Unknown`",
        )
    })?;
    Ok(StringEnum { variants, unknown })
}

fn union(top: &Wire, data: &syn::DataEnum) -> syn::Result<Union> {
    top.only(&["optional_tag", "one_of"], "a union")?;
    let mut variants = Vec::new();
    for variant in &data.variants {
        let wire = wire(&variant.attrs)?;
        wire.only(&["fallback", "array", "text"], "a union's variant")?;
        let Fields::Unnamed(fields) = &variant.fields else {
            unreachable!("a union's variants hold one value")
        };
        let boxed = matches!(wrapper(&fields.unnamed[0].ty), Some(("Box", _)));
        variants.push(UnionVariant {
            ident: variant.ident.clone(),
            boxed,
            tags: wire.tags.clone(),
            implicit: wire.implicit.clone(),
            fallback: wire.has("fallback"),
            tier: if wire.has("text") {
                2
            } else {
                u8::from(wire.has("array"))
            },
            fits: wire.fits,
        });
    }
    Ok(Union {
        tag: top.tag.clone(),
        optional_tag: top.has("optional_tag"),
        one_of: top.has("one_of"),
        variants,
    })
}
