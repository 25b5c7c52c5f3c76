#!/bin/sh
# Starts a grandchild that would outlive us, prints its pid, then waits.
sleep 1000 &
echo "$!"
wait
