# Shared by the fake agent CLIs: records the call (arguments and stdin) in
# $FAKE_DIR/call<N>.args and .stdin, and defines the answers.
i=1
while [ -e "$FAKE_DIR/call$i.args" ]; do i=$((i+1)); done
printf '%s\n' "$@" > "$FAKE_DIR/call$i.args"
cat > "$FAKE_DIR/call$i.stdin"
call=$i
# A valid planner answer, as plain text and JSON-escaped.
ANSWER='---
$status: planned
plan: write it
---
The plan.'
ANSWER_JSON='---\n$status: planned\nplan: write it\n---\nThe plan.'
has_arg() {
	want=$1; shift
	for a in "$@"; do [ "$a" = "$want" ] && return 0; done
	return 1
}
