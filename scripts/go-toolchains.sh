#!/bin/bash
# SPDX-License-Identifier: MIT
# Install the Go toolchains the tests build their fixtures with into
# ${GT_CACHE:-/var/cache/gotools}/go/1.NN (each directory is a GOROOT).
#
#   scripts/go-toolchains.sh [1.NN ...]     (default: every version below)
#
# Debian's archive carries golang-1.NN-go for many releases and the
# packages run here when simply unpacked, so each toolchain is fetched with
# `apt-get download` through a private sources list and private apt state
# (the machine's own apt configuration is never touched), then unpacked with
# dpkg-deb -x. A toolchain whose marker file exists is not fetched again.
set -euo pipefail

VERSIONS=(1.15 1.19 1.21 1.23 1.25 1.27)
SUITES="bullseye bookworm bookworm-backports trixie trixie-backports sid"
KEYRING=/usr/share/keyrings/debian-archive-keyring.gpg
CACHE=${GT_CACHE:-/var/cache/gotools}
APTDIR=$CACHE/apt
MARKER=.gotools-installed

die() { echo "go-toolchains.sh: $*" >&2; exit 1; }

[ $# -gt 0 ] && VERSIONS=("$@")

find_missing() {
	missing=()
	for v in "${VERSIONS[@]}"; do
		[[ $v =~ ^1\.[0-9]+$ ]] || die "not a Go version: $v"
		[ -f "$CACHE/go/$v/$MARKER" ] || missing+=("$v")
	done
}
find_missing
[ ${#missing[@]} -eq 0 ] && exit 0
# One installer at a time; another may have finished while we waited.
mkdir -p "$CACHE/go"
exec 9>"$CACHE/go/.lock"
flock 9
find_missing
[ ${#missing[@]} -eq 0 ] && exit 0

# The Debian mirror this machine already uses: the first deb source that
# serves its own release (deb822 .sources or one-line .list format).
# GT_DEBIAN_MIRROR overrides it.
find_mirror() {
	local codename files=()
	codename=$(. /etc/os-release && echo "${VERSION_CODENAME:-}")
	[ -f /etc/apt/sources.list ] && files+=(/etc/apt/sources.list)
	for f in /etc/apt/sources.list.d/*.list /etc/apt/sources.list.d/*.sources; do
		[ -f "$f" ] && files+=("$f")
	done
	[ ${#files[@]} -gt 0 ] || return 0
	awk -v want="$codename" '
		function has(list, w,   n, a, i) {
			n = split(list, a, /[ \t]+/)
			for (i = 1; i <= n; i++) if (a[i] == w) return 1
			return 0
		}
		function flush() {
			if (!found && has(types, "deb") && has(suites, want) && uris != "") {
				split(uris, u, /[ \t]+/); print u[1]; found = 1; exit
			}
			types = suites = uris = ""
		}
		FILENAME ~ /\.sources$/ {
			if ($0 ~ /^[ \t]*$/) { flush(); next }
			if (tolower($1) == "types:") { $1 = ""; types = $0 }
			if (tolower($1) == "uris:") { $1 = ""; uris = $0; sub(/^[ \t]+/, "", uris) }
			if (tolower($1) == "suites:") { $1 = ""; suites = $0 }
			next
		}
		FNR == 1 { flush() }
		$1 == "deb" {
			i = 2
			if ($i ~ /^\[/) while ($i !~ /\]$/ && i < NF) i++
			if ($i ~ /^\[/ || $i ~ /\]$/) i++
			if ($(i + 1) == want) { print $i; found = 1; exit }
		}
		END { flush() }
	' "${files[@]}"
}

mirror=${GT_DEBIAN_MIRROR:-$(find_mirror)}
[ -n "$mirror" ] || die "cannot find the Debian mirror in /etc/apt/sources.list(.d); set GT_DEBIAN_MIRROR"
[ -f "$KEYRING" ] || die "missing $KEYRING (package debian-archive-keyring)"

mkdir -p "$APTDIR/lists/partial" "$APTDIR/cache/archives/partial" \
	"$APTDIR/sources.list.d" "$APTDIR/preferences.d" "$APTDIR/debs" "$CACHE/go"
arch=$(dpkg --print-architecture)
for s in $SUITES; do
	echo "deb [arch=$arch signed-by=$KEYRING] $mirror $s main"
done > "$APTDIR/sources.list"

APT_OPTS=(
	-o "Dir::Etc::sourcelist=$APTDIR/sources.list"
	-o "Dir::Etc::sourceparts=$APTDIR/sources.list.d"
	-o "Dir::Etc::preferences=$APTDIR/preferences"
	-o "Dir::Etc::preferencesparts=$APTDIR/preferences.d"
	-o "Dir::State::Lists=$APTDIR/lists"
	-o "Dir::Cache=$APTDIR/cache"
	-o "Acquire::Languages=none"
	-o "APT::Sandbox::User=root"
	-q=2
)

apt-get "${APT_OPTS[@]}" update >"$APTDIR/update.log" 2>&1 ||
	die "apt-get update of the private sources list failed (see $APTDIR/update.log)"

# install_one 1.NN: download, unpack and check one toolchain.
install_one() {
	local v=$1 dest=$CACHE/go/$1 stage debs pkg link target got
	stage=$(mktemp -d "$CACHE/go/.stage-$v.XXXXXX")
	debs=$APTDIR/debs
	for pkg in "golang-$v-go" "golang-$v-src"; do
		if ! ls "$debs/${pkg}_"*.deb >/dev/null 2>&1; then
			(cd "$debs" && apt-get "${APT_OPTS[@]}" download "$pkg") \
				>>"$APTDIR/download.log" 2>&1 || { rm -rf "$stage"; return 1; }
		fi
		dpkg-deb -x "$(ls "$debs/${pkg}_"*.deb | tail -n1)" "$stage" ||
			{ rm -rf "$stage"; return 1; }
	done
	# /usr/lib/go-1.NN links src, api, pkg/include... into /usr/share/go-1.NN
	# with relative links: replace each such link by the directory it names,
	# so the GOROOT is one self-contained tree.
	local lib=$stage/usr/lib/go-$v
	[ -x "$lib/bin/go" ] || { rm -rf "$stage"; return 1; }
	while IFS= read -r link; do
		target=$(realpath -m "$(dirname "$link")/$(readlink "$link")")
		case $target in
		"$stage"/*)
			[ -e "$target" ] || continue
			rm "$link"
			mv "$target" "$link"
			;;
		esac
	done < <(find "$lib" -type l)
	rm -rf "$dest"
	mv "$lib" "$dest"
	rm -rf "$stage"
	got=$(GOROOT=$dest GOTOOLCHAIN=local GOFLAGS= "$dest/bin/go" version) || return 1
	case $got in
	"go version go$v"*) ;;
	*) return 1 ;;
	esac
	echo "$got" > "$dest/$MARKER"
	rm -f "$debs/golang-$v-"*.deb
	echo "go-toolchains.sh: installed $got into $dest"
}

failed=()
for v in "${missing[@]}"; do
	install_one "$v" || failed+=("$v")
done
for v in "${failed[@]}"; do
	echo "go-toolchains.sh: cannot install Go $v (golang-$v-go from $mirror; see $APTDIR/download.log)" >&2
done
[ ${#failed[@]} -eq 0 ]
