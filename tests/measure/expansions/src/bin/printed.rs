//! `printed FILE`: FILE printed by prettyplease, as `expansions` prints,
//! for comparing text written by hand or by an older generator.

fn main() {
    let path = std::env::args().nth(1).expect("a file");
    let text = std::fs::read_to_string(&path).expect("a readable file");
    let file: syn2::File = syn2::parse_str(&text).expect("Rust");
    print!("{}", prettyplease::unparse(&file));
}
