#!/bin/sh
# Announces itself on stderr, then waits until the file named by $1 exists.
echo "ready" >&2
i=0
while [ ! -e "$1" ]; do
  i=$((i + 1))
  if [ "$i" -gt 100 ]; then
    echo "gave up waiting" >&2
    exit 9
  fi
  sleep 0.05
done
echo "saw $1"
