#!/usr/bin/env bash
# Models and request types as the generator at REV wrote them out, against
# what today's derives expand to: the pet store's and every snapshot's
# `models.rs` and `operations.rs`. Prints one line per file and exits 1
# when one differs beyond layout (see expansions/normalize.py).
#
#   tests/measure/compare_expansions.sh dd97629
set -euo pipefail
rev=${1:?usage: compare_expansions.sh REV}
root=$(git rev-parse --show-toplevel)
here="$root/tests/measure/expansions"
cargo build -q --release --manifest-path "$here/Cargo.toml" --bins
bin="$here/target/release"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
status=0
count=0
cd "$root"
for file in crates/petstore-api/src/generated/{,webhooks/}{models,operations}.rs \
    crates/apigen/tests/snapshots/*/{,webhooks/}{models,operations}.rs; do
    [ -f "$file" ] || continue
    git show "$rev:$file" > "$work/old.rs" 2>/dev/null || continue
    "$bin/printed" "$work/old.rs" > "$work/old.printed"
    "$bin/expansions" "$file" > "$work/new.printed"
    count=$((count + 1))
    if ! verdict=$(python3 "$here/normalize.py" "$work/old.printed" "$work/new.printed"); then
        status=1
    fi
    echo "$file: $verdict"
done
echo "$count files compared"
exit $status
