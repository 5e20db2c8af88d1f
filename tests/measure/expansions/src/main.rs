//! `expansions FILE`: FILE (a generated `models.rs` or `operations.rs`)
//! printed by prettyplease, with each type's `runtime::` derives replaced
//! by what they expand to, and the attributes they read removed. The
//! derives are compiled in from `crates/apigen-macros/src`, so this prints
//! what rustc sees.

// The derives' own modules, of which this reads only part.
#![allow(dead_code)]

#[path = "../../../../crates/apigen-macros/src/case.rs"]
mod case;
#[path = "../../../../crates/apigen-macros/src/enums.rs"]
mod enums;
#[path = "../../../../crates/apigen-macros/src/model.rs"]
mod model;
#[path = "../../../../crates/apigen-macros/src/record.rs"]
mod record;
#[path = "../../../../crates/apigen-macros/src/union.rs"]
mod union;
#[path = "../../../../crates/apigen-macros/src/validate.rs"]
mod validate;

use quote::ToTokens;

/// The `runtime::` derives among `attrs`, by their last name.
fn ours(attrs: &[syn::Attribute]) -> Vec<String> {
    let mut out = Vec::new();
    for attr in attrs.iter().filter(|a| a.path().is_ident("derive")) {
        let _ = attr.parse_nested_meta(|meta| {
            let path = &meta.path;
            if path.segments.len() == 2 && path.segments[0].ident == "runtime" {
                out.push(path.segments[1].ident.to_string());
            }
            Ok(())
        });
    }
    out
}

/// `attrs` without the derives' attributes and without `runtime::` derives.
fn strip(attrs: &mut Vec<syn::Attribute>) {
    attrs.retain(|a| !a.path().is_ident("wire") && !a.path().is_ident("check"));
    for attr in attrs.iter_mut().filter(|a| a.path().is_ident("derive")) {
        let mut kept = Vec::new();
        let _ = attr.parse_nested_meta(|meta| {
            if meta.path.segments[0].ident != "runtime" {
                kept.push(meta.path.clone());
            }
            Ok(())
        });
        *attr = syn::parse_quote!(#[derive(#(#kept),*)]);
    }
}

fn expand(input: &syn::DeriveInput, derive: &str) -> proc_macro2::TokenStream {
    let model = || model::read(input).unwrap_or_else(|e| panic!("{}: {e}", input.ident));
    match derive {
        "Validate" => validate::validate(input).unwrap(),
        "StringEnum" => match model().shape {
            model::Shape::Enum(e) => enums::string_enum(&input.ident, &e),
            _ => panic!("{}: not an enum of strings", input.ident),
        },
        "Serialize" => match model().shape {
            model::Shape::Record(r) => record::serialize(&input.ident, &r),
            model::Shape::Enum(_) => enums::serialize(&input.ident),
            model::Shape::Union(u) => union::serialize(&input.ident, &u),
        },
        "Deserialize" => match model().shape {
            model::Shape::Record(r) => record::deserialize(&input.ident, &r),
            model::Shape::Enum(_) => enums::deserialize(&input.ident),
            model::Shape::Union(u) => union::deserialize(&input.ident, &u),
        },
        other => panic!("unknown derive {other}"),
    }
}

fn main() {
    let path = std::env::args().nth(1).expect("a file");
    let text = std::fs::read_to_string(&path).expect("a readable file");
    let mut file: syn::File = syn::parse_file(&text).expect("Rust");
    let mut expanded = proc_macro2::TokenStream::new();
    for item in &mut file.items {
        let (attrs, input) = match item {
            syn::Item::Struct(s) => (s.attrs.clone(), s.to_token_stream()),
            syn::Item::Enum(e) => (e.attrs.clone(), e.to_token_stream()),
            _ => continue,
        };
        let input: syn::DeriveInput = syn::parse2(input).expect("a derive input");
        for derive in ours(&attrs) {
            expanded.extend(expand(&input, &derive));
        }
        match item {
            syn::Item::Struct(s) => {
                strip(&mut s.attrs);
                s.fields.iter_mut().for_each(|f| strip(&mut f.attrs));
            }
            syn::Item::Enum(e) => {
                strip(&mut e.attrs);
                e.variants.iter_mut().for_each(|v| strip(&mut v.attrs));
            }
            _ => {}
        }
    }
    let mut all = file.to_token_stream();
    all.extend(expanded);
    let printed: syn2::File = syn2::parse_str(&all.to_string()).expect("the expansion parses");
    print!("{}", prettyplease::unparse(&printed));
}
