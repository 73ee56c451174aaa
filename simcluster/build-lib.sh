# Sourced by the build scripts (build.sh, build-karpenter.sh, build-kaito.sh), which define `step`.
# build_start LOCK WHAT COMPLETE OUT: one build per cache folder at a time (a second run waits on LOCK,
# then finds the work done: COMPLETE passes, OUT is printed, exit 0); otherwise makes $tmp and a
# heartbeat on stderr, so a long first build never looks hung. Both go when the script exits.
build_start() {
  exec 9>"$1"
  if ! flock -n 9; then step "another build of $2 is running; waiting for it"; flock 9; fi
  if "$3"; then
    echo "$4"
    exit 0
  fi
  tmp=$(mktemp -d)
  (
    start=$(date +%s)
    while sleep 30; do step "still building ($(($(date +%s) - start))s elapsed)"; done
  ) &
  beat=$!
  trap 'kill $beat 2>/dev/null; rm -rf "$tmp"' EXIT
}
