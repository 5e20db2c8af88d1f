"""Two printed files -> whether they hold the same items.

Items are compared as sets (the derives' impls follow their types, the
written-out ones sat beside them), whitespace ignored, and three things a
derive writes differently without changing the code are taken as equal:
`#[automatically_derived]`, the doc comment a string enum's variant had
(its wire value, now in its `rename` or its name), and a closure whose body
is one expression, braced or not.
"""
import re
import sys


def items(path):
    text = open(path).read().replace("#[automatically_derived]\n", "")
    out, current = [], []
    for line in text.split("\n"):
        current.append(line)
        top_level_end = line in ("}", "};") or (
            re.match(r"^(pub )?(type|use|fn|static|const|struct) ", line) and line.endswith(";")
        )
        if top_level_end or re.match(r"^pub struct \w+ \{\}$", line):
            out.append("\n".join(current))
            current = []
    if "".join(current).strip():
        out.append("\n".join(current))
    normalised = []
    for item in out:
        item = re.sub(r"\n\s*/// `[^`\n]*`(?=\n)", "", item)
        item = re.sub(r"\s+", "", item)
        previous = None
        while previous != item:
            previous = item
            item = re.sub(r"(\|[a-z()]*\|)\{([^{};]*)\}", r"\1\2", item)
        item = item.replace(",)", ")").replace(",]", "]")
        if item:
            normalised.append(item)
    return sorted(normalised)


old, new = items(sys.argv[1]), items(sys.argv[2])
if old == new:
    print("same")
else:
    only_old = [i for i in old if i not in new]
    only_new = [i for i in new if i not in old]
    print(f"differs: {len(only_old)} items only before, {len(only_new)} only now")
    for item in (only_old + only_new)[:2]:
        print("  ", item[:400])
    sys.exit(1)
