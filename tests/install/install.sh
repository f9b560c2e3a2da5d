#!/usr/bin/env bash
# Install.IntoAPrefixThenRunFromElsewhere: `cmake --install` into a temporary prefix (and with
# DESTDIR), then the installed qcesim is run from an unrelated folder: it names its revision,
# finds a scenario by name, its man page passes man's and groff's checks and lexgrog reads its
# NAME line, the bash completion offers every subcommand and the shipped scenarios; then the
# .deb (cpack) carries the same files and its Depends, and runs unpacked.
# Usage: install.sh BUILD_DIR SOURCE_DIR
set -euo pipefail
build=$1
src=$2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

cmake --install "$build" --prefix "$tmp/p" >/dev/null
DESTDIR="$tmp/d" cmake --install "$build" --prefix /opt/qcesim >/dev/null
[ -x "$tmp/d/opt/qcesim/bin/qcesim" ] || fail "DESTDIR install has no bin/qcesim"
mkdir "$tmp/elsewhere"
cd "$tmp/elsewhere"
q="$tmp/p/bin/qcesim"
for f in bin/qcesim share/qcesim/scenarios/sm8650-seed.json share/qcesim/scenarios/sm8650.json \
         share/qcesim/board/qcesim-measure share/man/man1/qcesim.1 share/bash-completion/completions/qcesim \
         share/doc/qcesim/README.md share/doc/qcesim/run.md share/doc/qcesim/teaching.md; do
  [ -e "$tmp/p/$f" ] || fail "the install has no $f"
done

# --version: "qcesim X.Y.Z (REVISION)", the revision a git hash (a checkout) or "unknown".
version=$("$q" --version)
[[ $version =~ ^qcesim\ [0-9]+\.[0-9]+\.[0-9]+\ \(([0-9a-f]{7,}(-dirty)?|unknown)\)$ ]] || fail "--version: $version"
# In a checkout, the revision is one of its commits (HEAD when built after the last commit).
rev=${version##*(}
rev=${rev%)}
rev=${rev%-dirty}
if [ "$rev" != unknown ] && git -C "$src" rev-parse --show-toplevel >/dev/null 2>&1; then
  git -C "$src" cat-file -e "$rev^{commit}" 2>/dev/null || fail "--version names no commit of this tree: $version"
fi

# A scenario by name, from a folder that has none; the table comes out.
"$q" run sm8650-seed --set workload.messages=100 --timing-only >run.txt 2>run.err || fail "run by name: $(cat run.err)"
grep -q '^sha256-qce-lock ' run.txt || fail "run by name printed no table"
"$q" profile sm8650 >profile.md || fail "profile by name"
grep -q "qce.clock" profile.md || fail "profile by name: no qce.clock"
if "$q" run no-such-scenario >/dev/null 2>err.txt; then fail "an unknown name ran"; fi
grep -q 'no-such-scenario' err.txt || fail "an unknown name's error does not name it: $(cat err.txt)"
[ -z "$(ls -A . | grep -v -e run.txt -e run.err -e err.txt -e profile.md)" ] || fail "qcesim wrote into the current folder"

# The man page: man's and groff's own warnings (lintian's check), lexgrog's NAME, man -w by name.
page="$tmp/p/share/man/man1/qcesim.1"
warnings=$(LC_ALL=C.UTF-8 MANROFFSEQ='' MANWIDTH=80 man --warnings -E UTF-8 -l -Tutf8 -Z "$page" 2>&1 >/dev/null)
[ -z "$warnings" ] || fail "man --warnings: $warnings"
warnings=$(groff -man -ww -z "$page" 2>&1)
[ -z "$warnings" ] || fail "groff -ww: $warnings"
lexgrog "$page" | grep -q 'qcesim - ' || fail "lexgrog reads no NAME line"
[ "$(MANPATH="$tmp/p/share/man" man -w qcesim)" = "$page" ] || fail "man -w qcesim does not find the page"
text=$(MANWIDTH=100 man -l "$page")
for section in NAME SYNOPSIS DESCRIPTION OPTIONS COMMANDS FILES EXAMPLES "SEE ALSO"; do
  grep -q "^$section" <<<"$text" || fail "the man page has no $section section"
done
# A flag takes no value: its line names it alone; an option with a value shows its kind.
grep -qx -- '\\fB\\-\\-timing\\-only\\fR' "$page" || fail "the man page gives the flag --timing-only a value"
grep -q -- '--jobs UINT' <<<"$text" || fail "the man page gives --jobs no value"
subs=$("$q" --help | sed -n '/^Subcommands:/,$p' | awk 'NR > 1 && /^  [a-z]/ {print $1}')
[ -n "$subs" ] || fail "no subcommands in --help"
for s in $subs; do
  grep -q "^   $s\$" <<<"$text" || fail "the man page's COMMANDS has no $s"
  "$q" "$s" --help | grep -o -- '--[a-z][a-z-]*' | sort -u | while read -r o; do
    grep -q -- "$o" <<<"$text" || fail "the man page does not name $s $o"
  done
done

# The completion, with bash's builtins only, with the installed qcesim first on PATH.
complete_words() {
  PATH="$tmp/p/bin:$PATH" bash --norc --noprofile -c '
    source "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); _qcesim; printf "%s\n" "${COMPREPLY[@]}"' \
    sh "$tmp/p/share/bash-completion/completions/qcesim" "$@"
}
offered=$(complete_words qcesim '')
for s in $subs; do grep -qx "$s" <<<"$offered" || fail "completion does not offer $s"; done
complete_words qcesim run sm8650-s | grep -qx sm8650-seed || fail "completion does not offer sm8650-seed"
complete_words qcesim sweep study-message | grep -qx study-message-size || fail "completion offers no sweep"
[ "$(complete_words qcesim hash --engine '' | sort | tr '\n' ' ')" = "ce qce " ] || fail "completion of --engine"
complete_words qcesim run --tr | grep -qx -- --trace-requests || fail "completion of run's options"
# A flag takes no value: after it come the scenario names again, not file names for its value.
complete_words qcesim run --timing-only sm8650-s | grep -qx sm8650-seed || fail "completion after a flag"
# A file name in the scenarios folder is never expanded by the completion (compgen -W would).
touch "$tmp/p/share/qcesim/scenarios/\$(touch completion-ran-this).json"
complete_words qcesim run '' >/dev/null
[ ! -e completion-ran-this ] || fail "the completion ran a command from a scenario file's name"
rm "$tmp/p/share/qcesim/scenarios/\$(touch completion-ran-this).json"

# The .deb: its fields, its files, and the unpacked binary running by name from elsewhere.
cpack --config "$build/CPackConfig.cmake" -B "$tmp/pkg" >"$tmp/cpack.log" 2>&1 || fail "cpack: $(tail "$tmp/cpack.log")"
deb=$(ls "$tmp"/pkg/qcesim_*.deb)
info=$(dpkg-deb -I "$deb")
grep -q '^ Package: qcesim$' <<<"$info" || fail ".deb Package"
grep -q '^ Depends:.*libsystemc' <<<"$info" || fail ".deb Depends lacks libsystemc: $info"
files=$(dpkg-deb -c "$deb")
for f in ./usr/bin/qcesim ./usr/share/man/man1/qcesim.1 ./usr/share/bash-completion/completions/qcesim \
         ./usr/share/qcesim/scenarios/sm8650-seed.json ./usr/share/doc/qcesim/README.md; do
  grep -q " $f\$" <<<"$files" || fail ".deb lacks $f"
done
dpkg-deb -x "$deb" "$tmp/x"
"$tmp/x/usr/bin/qcesim" run sm8650-seed --set workload.messages=100 --timing-only >deb.txt 2>&1 || fail "the .deb's binary"
grep -q '^sha256-qce-nolock ' deb.txt || fail "the .deb's binary printed no table"
echo "install: prefix, DESTDIR and .deb checked"
