#!/usr/bin/env bash
# ./kw's Kokkos options: each bad one is refused with a message naming it, before anything is
# installed or built.
#   kw_options_test.sh REPOSITORY_ROOT
set -uo pipefail
kw=${1:?REPOSITORY_ROOT}/kw
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
export KERNWERK_CACHE=$work/cache  # a case that went further would build there, not in yours
failures=0

# expect STATUS TEXT COMMAND...: the command exits with STATUS and says TEXT on standard error.
expect() {
  local status=$1 text=$2
  shift 2
  local said got
  said=$("$@" 2>&1 >/dev/null)
  got=$?
  if [[ $got != "$status" || $said != *"$text"* ]]; then
    echo "FAIL: $* -> exit $got, said: $said (expected exit $status and: $text)"
    failures=$((failures + 1))
  fi
}

mkdir -p "$work/empty" "$work/kokkos-6" "$work/kokkos-3.3" "$work/kokkos-4.6.08"
kokkos_tree() { printf 'project(Kokkos)\nset(Kokkos_VERSION_MAJOR %s)\nset(Kokkos_VERSION_MINOR %s)\nset(Kokkos_VERSION_PATCH %s)\n' "$2" "$3" "$4" > "$1/CMakeLists.txt"; }
kokkos_tree "$work/kokkos-6" 6 0 00
kokkos_tree "$work/kokkos-3.3" 3 3 01
kokkos_tree "$work/kokkos-4.6.08" 4 6 08

expect 1 "--kokkos-source: no directory $work/missing" "$kw" build --kokkos-source "$work/missing"
expect 1 "is not a Kokkos source tree" "$kw" build --kokkos-source "$work/empty"
expect 1 "Kokkos 6.0 is outside the 3.4 to 5.x" "$kw" deps --kokkos-source "$work/kokkos-6"
expect 1 "Kokkos 3.3 is outside the 3.4 to 5.x" "$kw" test --kokkos-source "$work/kokkos-3.3"
expect 1 "--kokkos-root and --kokkos-source: give one" \
  "$kw" build --kokkos-root "$work/empty" --kokkos-source "$work/kokkos-4.6.08"
expect 1 "--kokkos-source needs a value" "$kw" build --kokkos-source
((failures == 0)) && echo "kw options: all refused as expected"
exit $((failures > 0))
