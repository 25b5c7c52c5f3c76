#!/usr/bin/env bash
# install-agent-clis.sh — install the coding-agent CLIs that `make test-agents`
# drives, at pinned versions, into a cache outside the repository:
#
#   ${UWF_AGENT_CLI_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/git-uwf/agent-clis}/<name>@<version>/
#
# A directory that already holds the CLI is reused. Each successful install
# ends with a `.ok` marker, so an interrupted install is redone.
#
# Usage: scripts/install-agent-clis.sh [name…]     (default: all)
#        scripts/install-agent-clis.sh --print     (name<TAB>bin path, one a line)
#
# Prints one line per CLI: "<name> ok <bin>" or "<name> FAIL <reason>".
# Exits 0 when every requested CLI is installed, 2 when npm cannot reach the
# registry (the tests then skip), 1 on other failures.
set -uo pipefail

# name  npm package  version  bin (relative to the install directory)
PINS='
claude    @anthropic-ai/claude-code  2.1.330  node_modules/.bin/claude
codex     @openai/codex              0.169.0  node_modules/.bin/codex
gemini    @google/gemini-cli         0.61.0   node_modules/.bin/gemini
qwen      @qwen-code/qwen-code       0.24.4   node_modules/.bin/qwen
opencode  opencode-ai                1.18.33  node_modules/.bin/opencode
'

cache="${UWF_AGENT_CLI_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/git-uwf/agent-clis}"

print=false
want=()
for a in "$@"; do
	case "$a" in
	--print) print=true ;;
	-h|--help) sed -n '2,16p' "$0"; exit 0 ;;
	*) want+=("$a") ;;
	esac
done

selected() {
	[ ${#want[@]} -eq 0 ] && return 0
	local w
	for w in "${want[@]}"; do [ "$w" = "$1" ] && return 0; done
	return 1
}

if $print; then
	echo "$PINS" | while read -r name pkg version bin; do
		[ -n "$name" ] || continue
		selected "$name" || continue
		printf '%s\t%s\t%s\n' "$name" "$version" "$cache/$name@$version/$bin"
	done
	exit 0
fi

if ! command -v npm >/dev/null 2>&1; then
	echo "npm not found: install Node.js 20+ and npm to run the agent tests" >&2
	exit 2
fi

mkdir -p "$cache" || exit 1
status=0
checked_registry=false
while read -r name pkg version bin; do
	[ -n "$name" ] || continue
	selected "$name" || continue
	dir="$cache/$name@$version"
	if [ -f "$dir/.ok" ] && [ -x "$dir/$bin" ]; then
		echo "$name ok $dir/$bin (cached)"
		continue
	fi
	if ! $checked_registry; then
		if ! timeout 60 npm view "$pkg@$version" version >/dev/null 2>&1; then
			echo "npm registry unreachable (npm view $pkg@$version failed)" >&2
			exit 2
		fi
		checked_registry=true
	fi
	rm -rf "$dir" && mkdir -p "$dir" || { echo "$name FAIL cannot create $dir"; status=1; continue; }
	# A private package.json keeps npm from walking up into other projects.
	printf '{"name":"uwf-agent-cli-%s","private":true}\n' "$name" >"$dir/package.json"
	log="$dir/npm-install.log"
	# The pinned version matters: on Node 20 an unpinned install picks older
	# claude-code and qwen-code releases (their latest declare node>=22 but run).
	if ! (cd "$dir" && timeout 900 npm install --no-audit --no-fund --loglevel=error "$pkg@$version") >"$log" 2>&1; then
		echo "$name FAIL npm install $pkg@$version (see $log): $(tail -n 3 "$log" | tr '\n' ' ')"
		status=1
		continue
	fi
	if [ ! -x "$dir/$bin" ]; then
		echo "$name FAIL $pkg@$version installed but $bin is missing"
		status=1
		continue
	fi
	touch "$dir/.ok"
	echo "$name ok $dir/$bin"
done <<<"$PINS"
exit $status
