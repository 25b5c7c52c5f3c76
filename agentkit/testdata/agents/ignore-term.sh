#!/bin/sh
# Ignores SIGTERM (the grandchild inherits that), so only SIGKILL ends us.
trap '' TERM
sleep 1000 &
echo "$!"
wait
