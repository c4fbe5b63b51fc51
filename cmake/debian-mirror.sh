#!/usr/bin/env bash
# Prints the address of the Debian archive this machine's apt installs from: the first enabled
# 'deb' entry of a plain suite (bookworm, sid; not bookworm-updates or bookworm-security) in
# /etc/apt/sources.list and /etc/apt/sources.list.d/*.list (one-line form) and *.sources
# (deb822). The Kokkos bootstrap's deb-src entry and CI's debootstrap use it, so that a site
# with a mirror of its own keeps to it; no host is named here.
#   debian-mirror.sh [ETC]    ETC: apt's configuration folder (/etc/apt); exit 1, saying why,
#                             where it names no such archive
set -euo pipefail
shopt -s nullglob
etc=${1:-/etc/apt}
files=("$etc"/sources.list "$etc"/sources.list.d/*.list "$etc"/sources.list.d/*.sources)
mirror=""
for file in "${files[@]}"; do
  [[ -r $file ]] || continue
  if [[ $file == *.sources ]]; then
    # deb822: paragraphs of "Key: value" fields, blank lines between them
    mirror=$(awk '
      function check() {
        if (types ~ /(^| )deb( |$)/ && enabled != "no" && uris != "")
          for (s = split(suites, list, " "); s > 0; --s)
            if (list[s] !~ /-/) { split(uris, address, " "); print address[1]; found = 1; exit }
        types = uris = suites = enabled = ""
      }
      /^[ \t]*#/ { next }
      /^[ \t]*$/ { check(); next }
      { key = tolower($1); sub(/^[^:]*:[ \t]*/, ""); value = $0 }
      key == "types:" { types = value } key == "uris:" { uris = value }
      key == "suites:" { suites = value } key == "enabled:" { enabled = tolower(value) }
      END { if (!found) check() }' "$file")
  else
    # one line an entry: deb [options] address suite components
    mirror=$(awk '
      $1 == "deb" {
        f = 2
        if ($f ~ /^\[/) while (f <= NF && $f !~ /\]$/) ++f
        if ($f ~ /^\[/ || $f ~ /\]$/) ++f
        if ($(f + 1) !~ /-/) { print $f; exit }
      }' "$file")
  fi
  [[ -n $mirror ]] && break
done
[[ -n $mirror ]] || { echo "debian-mirror.sh: apt names no Debian archive of a plain suite in ${files[*]}" >&2; exit 1; }
echo "${mirror%/}"
