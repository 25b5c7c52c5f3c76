#!/bin/sh
# Build a scenario repository set for exploring or testing git-uwf by hand:
#
#   <dir>/remote.git   a bare remote
#   <dir>/a, <dir>/b   two clones that shared a thread, forked it, and both
#                      stepped it (one line kept the name, the other is a fork)
#
# Usage: testdata/repos/scenario.sh <dir>   (git-uwf must be on PATH)
# Dates and identities are fixed, so workflow and start commits are
# reproducible. Uses only the built-in mock agent: offline.
set -eu
dir=${1:?usage: scenario.sh <dir>}
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$dir"
cd "$dir"

export GIT_AUTHOR_NAME="uwf scenario" GIT_AUTHOR_EMAIL="scenario@uwf.invalid"
export GIT_COMMITTER_NAME="uwf scenario" GIT_COMMITTER_EMAIL="scenario@uwf.invalid"
export GIT_AUTHOR_DATE="2026-01-01T00:00:00Z" GIT_COMMITTER_DATE="2026-01-01T00:00:00Z"

git init -q --bare remote.git
git clone -q remote.git a 2>/dev/null
git clone -q remote.git b 2>/dev/null
mock="git-uwf agent mock --script $here/scenario.mock.yaml"

cd a
git uwf workflow put "$here/scenario.yaml" >/dev/null
id=$(git uwf thread start scenario -p "Add a --verbose flag" --format json | sed -n 's/.*"thread": "\(.*\)".*/\1/p')
git uwf thread step "$id" -c 2 --agent "$mock" >/dev/null 2>&1
git uwf remote setup origin >/dev/null
git uwf push origin >/dev/null

cd ../b
git uwf remote setup origin >/dev/null
git uwf fetch origin >/dev/null
step1=$(git uwf thread steps "$id" --format json | sed -n 's/.*"hash": "\(.*\)".*/\1/p' | sed -n 2p)
git uwf thread fork "$step1" >/dev/null
# Both clones step the shared thread; B syncs second and keeps its line as a fork.
git uwf thread step "$id" --agent "$mock" >/dev/null 2>&1
cd ../a
git uwf thread step "$id" --agent "$mock" >/dev/null 2>&1
git uwf sync origin >/dev/null
cd ../b
git uwf sync origin >/dev/null
cd ../a
git uwf sync origin >/dev/null
echo "$id"
