#!/usr/bin/env bash
# The evolution gate's workflow (examples/gate/workflow.yml, shown in the
# guide's gate chapter) run by hand, as far as a machine without GitHub can:
# a temporary git repository whose `main` holds a document, tagged as a
# release, and a branch that changes it; then the workflow's commands
# between the two. The pull request's `origin/<target branch>` is `main`
# here.
#
#   examples/gate/gate.sh [APIGEN]      (default: `apigen` on the PATH)
set -euo pipefail
apigen=$(command -v "${1:-apigen}")
repo=$(mktemp -d)
trap 'rm -rf "$repo"' EXIT
cd "$repo"
git init -q -b main
git config user.email gate@example.com
git config user.name gate

cat >openapi.yaml <<'YAML'
openapi: 3.1.0
info: {title: Notes, version: 1.0.0}
paths:
  /notes:
    get:
      operationId: listNotes
      responses:
        '200':
          description: The notes.
          content:
            application/json:
              schema:
                type: array
                items:
                  type: object
                  required: [id, text]
                  properties:
                    id: {type: integer}
                    text: {type: string}
YAML
git add openapi.yaml
git commit -qm "Notes 1.0.0"
git tag v1.0.0

# A pull request that removes a property callers read: breaking.
git checkout -q -b remove-text
sed -i 's/required: \[id, text\]/required: [id]/; /text: {type: string}/d' openapi.yaml
git commit -qam "Notes without text"

# The workflow's steps.
git show "main:openapi.yaml" >base.yaml
status=0
"$apigen" diff base.yaml openapi.yaml --format github >findings.txt || status=$?
if [ "$status" -ne 1 ]; then
    echo "gate.sh: the gate should fail a breaking change (exit 1), it exited $status" >&2
    cat findings.txt >&2
    exit 1
fi
if ! grep -q '^::error file=openapi.yaml,line=[0-9]' findings.txt; then
    echo "gate.sh: no error annotation at a line of openapi.yaml:" >&2
    cat findings.txt >&2
    exit 1
fi
"$apigen" diff base.yaml openapi.yaml --format markdown >notes.md || true
if ! grep -qi '^#.*breaking' notes.md; then
    echo "gate.sh: the release notes have no breaking section:" >&2
    cat notes.md >&2
    exit 1
fi

# The base from the last release's tag is the same document here.
git show "$(git describe --tags --abbrev=0):openapi.yaml" >base-from-tag.yaml
cmp -s base.yaml base-from-tag.yaml

# A pull request that only adds passes.
git checkout -q main
git checkout -q -b add-limit
sed -i 's/      operationId: listNotes/      operationId: listNotes\n      parameters:\n        - {name: limit, in: query, schema: {type: integer}}/' openapi.yaml
git commit -qam "An optional limit"
git show "main:openapi.yaml" >base.yaml
"$apigen" diff base.yaml openapi.yaml --format github >findings.txt
echo "gate.sh: a breaking change fails with an annotation and release notes; an addition passes"
