#!/usr/bin/env bash
# cmake/debian-mirror.sh on apt configurations a site may have: one-line entries with options,
# deb822 paragraphs with the security suite first, disabled and source-only entries, none.
#   debian_mirror_test.sh REPOSITORY_ROOT
set -uo pipefail
script=${1:?REPOSITORY_ROOT}/cmake/debian-mirror.sh
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failures=0

# expect NAME ADDRESS: the script, on $work/NAME, prints ADDRESS (empty: fails, saying why)
expect() {
  local got status
  got=$("$script" "$work/$1" 2>"$work/said")
  status=$?
  if [[ -n $2 && ($status != 0 || $got != "$2") ]] || [[ -z $2 && ($status == 0 || ! -s $work/said) ]]; then
    echo "FAIL: $1 -> '$got' (exit $status; $(cat "$work/said")), expected '${2:-a failure}'"
    failures=$((failures + 1))
  fi
}
# write NAME FILE TEXT: apt configuration NAME gets FILE (under sources.list.d unless sources.list)
write() {
  mkdir -p "$work/$1/sources.list.d"
  if [[ $2 == sources.list ]]; then printf '%b' "$3" > "$work/$1/$2"; else printf '%b' "$3" > "$work/$1/sources.list.d/$2"; fi
}

write one-line sources.list '# a comment\ndeb-src http://src.example/debian bookworm main\ndeb [arch=amd64 signed-by=/k.gpg] http://security.example/debian-security bookworm-security main\ndeb [ trusted=yes ] http://mirror.example/debian/ bookworm main contrib\n'
expect one-line http://mirror.example/debian
write deb822 site.sources 'Types: deb\nURIs: http://security.example/debian-security\nSuites: bookworm-security\n\n# off\nTypes: deb\nEnabled: no\nURIs: http://old.example/debian\nSuites: bookworm\n\ntypes: deb deb-src\nURIs: http://mirror.example/debian http://second.example/debian\nSuites: bookworm-updates bookworm\nComponents: main\n'
expect deb822 http://mirror.example/debian
write sid sources.list 'deb http://mirror.example/debian sid main\n'
expect sid http://mirror.example/debian
write none sources.list 'deb-src http://src.example/debian bookworm main\ndeb http://security.example/debian-security bookworm-security main\n'
write none other.sources 'Types: deb-src\nURIs: http://src.example/debian\nSuites: bookworm\n'
expect none ""
mkdir -p "$work/empty"
expect empty ""
((failures == 0)) && echo "debian_mirror_test: every case passed"
((failures == 0))
