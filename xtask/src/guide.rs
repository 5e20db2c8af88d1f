//! The user's guide (`docs/`, an mdBook): built with `mdbook` into
//! `target/guide`, then every link and anchor of the built pages checked,
//! offline. Its Rust examples are doc tests of `petstore-api`.

use std::collections::{HashMap, HashSet};
use std::path::{Path, PathBuf};

/// Builds the guide and checks its links; fails naming each broken one.
pub fn guide() -> Result<(), String> {
    let dest = crate::project_root().join("target").join("guide");
    let _ = std::fs::remove_dir_all(&dest);
    crate::run(
        "mdbook",
        &["build", "docs", "--dest-dir", &dest.to_string_lossy()],
    )?;
    let broken = broken_links(&dest)?;
    if broken.is_empty() {
        eprintln!("the guide builds, and every link in it leads somewhere");
        return Ok(());
    }
    Err(format!(
        "{} broken links in the guide:\n{}",
        broken.len(),
        broken.join("\n")
    ))
}

/// Every link of the pages under `dest` that leads nowhere: to a file that
/// is not there, or to an anchor its page does not hold. Links that leave
/// the book (`https:`, `mailto:`, the site's root) are not followed.
fn broken_links(dest: &Path) -> Result<Vec<String>, String> {
    let link = regex::Regex::new(r#"(?:href|src)="([^"]*)""#).map_err(|e| e.to_string())?;
    let id = regex::Regex::new(r#"\bid="([^"]*)""#).map_err(|e| e.to_string())?;
    let mut ids: HashMap<PathBuf, HashSet<String>> = HashMap::new();
    let mut broken = Vec::new();
    for page in pages(dest)? {
        let text =
            std::fs::read_to_string(&page).map_err(|e| format!("{}: {e}", page.display()))?;
        for target in link.captures_iter(&text).map(|c| c[1].to_string()) {
            // Links that leave the book, and those from the site's root
            // (the 404 page's), which depend on where it is served.
            let outside = ["http:", "https:", "mailto:", "javascript:", "data:", "/"];
            if outside.iter().any(|scheme| target.starts_with(scheme)) {
                continue;
            }
            let (path, anchor) = match target.split_once('#') {
                Some((path, anchor)) => (path, Some(anchor)),
                None => (target.as_str(), None),
            };
            let path = path.split('?').next().unwrap_or_default();
            let file = match path {
                "" => page.clone(),
                path if path.ends_with('/') => page.with_file_name(path).join("index.html"),
                path => page.parent().unwrap_or(dest).join(path),
            };
            let shown = || {
                format!(
                    "{}: {target}",
                    page.strip_prefix(dest).unwrap_or(&page).display()
                )
            };
            if !file.exists() {
                broken.push(shown());
                continue;
            }
            let Some(anchor) = anchor.filter(|a| !a.is_empty()) else {
                continue;
            };
            let known = ids
                .entry(file.clone())
                .or_insert_with(|| anchors(&file, &id));
            if !known.contains(anchor) {
                broken.push(shown());
            }
        }
    }
    Ok(broken)
}

/// The HTML pages under `dir`, at any depth.
fn pages(dir: &Path) -> Result<Vec<PathBuf>, String> {
    let mut found = Vec::new();
    let mut left = vec![dir.to_path_buf()];
    while let Some(dir) = left.pop() {
        let entries = std::fs::read_dir(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
        for entry in entries.flatten() {
            let path = entry.path();
            if path.is_dir() {
                left.push(path);
            } else if path.extension().is_some_and(|e| e == "html") {
                found.push(path);
            }
        }
    }
    found.sort();
    Ok(found)
}

/// The ids (matched by `id`) a page holds, which a link's anchor may name.
fn anchors(page: &Path, id: &regex::Regex) -> HashSet<String> {
    let text = std::fs::read_to_string(page).unwrap_or_default();
    id.captures_iter(&text).map(|c| c[1].to_string()).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_missing_page_or_anchor_is_broken_and_the_rest_is_not() {
        let dir = std::env::temp_dir().join(format!("guide-links-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(dir.join("sub")).unwrap();
        std::fs::write(
            dir.join("index.html"),
            r##"<h2 id="top">T</h2><a href="#top">a</a><a href="sub/b.html#there">b</a>
               <a href="sub/b.html#nowhere">c</a><a href="missing.html">d</a>
               <a href="https://example.com/x">e</a><img src="sub/b.html">"##,
        )
        .unwrap();
        std::fs::write(
            dir.join("sub/b.html"),
            r##"<p id="there"></p><a href="../index.html#top">up</a>"##,
        )
        .unwrap();
        let broken = broken_links(&dir).unwrap();
        assert_eq!(
            broken,
            ["index.html: sub/b.html#nowhere", "index.html: missing.html"]
        );
        let _ = std::fs::remove_dir_all(&dir);
    }
}
