//! `cargo xtask docs-screenshot [PAGE]`: PNGs of the reference page at a
//! desktop and a phone width, by headless Chromium, for a person to look at
//! (the browser tests check the page; this shows it).

use crate::project_root;
use std::path::Path;
use std::process::Command;

/// The widths shot, with the file each goes to under `target/`.
const SHOTS: [(&str, &str); 2] = [
    ("docs-desktop.png", "1280,2000"),
    ("docs-phone.png", "390,1600"),
];

pub fn docs_screenshot(page: Option<&str>) -> Result<(), String> {
    let root = project_root();
    let page = match page {
        Some(page) => std::path::absolute(page).map_err(|e| format!("{page}: {e}"))?,
        None => root.join("crates/petstore-api/src/generated/docs.html"),
    };
    if !page.is_file() {
        return Err(format!("{}: no such page", page.display()));
    }
    let chromium = ["chromium", "chromium-browser", "google-chrome"]
        .into_iter()
        .find(|name| {
            Command::new(name)
                .arg("--version")
                .output()
                .is_ok_and(|o| o.status.success())
        })
        .ok_or("no Chromium on this machine: apt-get install chromium")?;
    let target = root.join("target");
    std::fs::create_dir_all(&target).map_err(|e| format!("{}: {e}", target.display()))?;
    for (file, size) in SHOTS {
        let out = target.join(file);
        shoot(
            chromium,
            &page,
            &out,
            size,
            &target.join("chromium-profile"),
        )?;
        println!("{} ({size})", out.display());
    }
    Ok(())
}

fn shoot(
    chromium: &str,
    page: &Path,
    out: &Path,
    size: &str,
    profile: &Path,
) -> Result<(), String> {
    let output = Command::new(chromium)
        .args([
            "--headless=new",
            "--no-sandbox",
            "--disable-gpu",
            "--hide-scrollbars",
            "--no-first-run",
        ])
        .arg(format!("--user-data-dir={}", profile.display()))
        .arg(format!("--window-size={size}"))
        .arg(format!("--screenshot={}", out.display()))
        .arg(format!("file://{}", page.display()))
        .output()
        .map_err(|e| format!("could not run {chromium}: {e}"))?;
    if !output.status.success() || !out.is_file() {
        return Err(format!(
            "{chromium} did not write {}: {}",
            out.display(),
            String::from_utf8_lossy(&output.stderr)
        ));
    }
    Ok(())
}
