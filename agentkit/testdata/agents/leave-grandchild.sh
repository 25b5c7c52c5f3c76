#!/bin/sh
# Exits at once but leaves a grandchild holding stdout and stderr open.
sleep 1000 &
echo "$!"
exit 0
