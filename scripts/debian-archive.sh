# shellcheck shell=bash
# SPDX-License-Identifier: MIT
# Fetch packages from Debian's archive without installing them: sourced by
# go-toolchains.sh, capstone.sh and microhttpd.sh.
#
# `apt-get download` (and `apt-get source`) runs through a private sources
# list and private apt state under ${GT_CACHE:-/var/cache/gotools}/apt (the
# machine's own apt configuration is never touched), then dpkg-deb -x (or
# dpkg-source -x) unpacks each package. The sourcing script defines die()
# (its messages carry its own name) and keeps what it unpacked behind its
# own marker file, so that a second run downloads nothing.
#
#   debian_archive_init             find the mirror, write the private
#                                   sources list, apt-get update (once per
#                                   run; holds the private state's lock
#                                   until the script exits)
#   debian_archive_unpack PKG DIR   download PKG (NAME or NAME/SUITE) unless
#                                   its .deb is already there, unpack it into
#                                   DIR and set DEB_VERSION to its version;
#                                   with DEBIAN_ARCH set (arm64), the package
#                                   of that architecture (whose index
#                                   DEBIAN_FOREIGN must name)
#   debian_archive_source PKG DIR   the same for the source package PKG
#                                   (NAME/SUITE), its Debian patches applied
#                                   (DIR must not exist); SUITE must be in
#                                   DEBIAN_SOURCE_SUITES when init runs
#   debian_archive_forget NAME...   delete the downloaded .debs and sources
#                                   of NAME...
#   debian_archive_build_begin NAME SUITE [LINE]
#                                   for a script that builds NAME from
#                                   SUITE's source into $CACHE/NAME behind
#                                   the marker .gotools-built: exit 0 when
#                                   the marker is there (and holds the line
#                                   LINE, if given: one without it is of an
#                                   older build, which is replaced, and
#                                   LINE is the caller's to write in the
#                                   new one); else take NAME's
#                                   lock (until the script exits; another
#                                   installer may have finished while we
#                                   waited: look again), init with SUITE's
#                                   sources, and set DEST, MARKER (to write
#                                   once all is in DEST) and STAGE, a new
#                                   directory removed on exit
#
# Set before debian_archive_init: DEBIAN_SOURCE_SUITES, the suites whose
# source packages are wanted (their indexes are large: none by default);
# DEBIAN_FOREIGN, the indexes of other architectures wanted, as ARCH:SUITE
# words (arm64:trixie; as large: none by default).
# After it: DEBIAN_MIRROR, APTDIR (download.log is there) and APT_OPTS.

DEBIAN_SUITES="bullseye bookworm bookworm-backports trixie trixie-backports sid"
DEBIAN_KEYRING=/usr/share/keyrings/debian-archive-keyring.gpg
CACHE=${GT_CACHE:-/var/cache/gotools}
APTDIR=$CACHE/apt
APT_OPTS=()

# The Debian mirror this machine already uses: the first deb source that
# serves its own release (deb822 .sources or one-line .list format).
# GT_DEBIAN_MIRROR overrides it.
debian_find_mirror() {
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

# Is the marker there, and (with a line) does it hold the line?
debian_archive_built() {
	[ -f "$MARKER" ] && { [ -z "${1:-}" ] || grep -qxF "$1" "$MARKER"; }
}

debian_archive_build_begin() {
	DEST=$CACHE/$1
	MARKER=$DEST/.gotools-built
	debian_archive_built "${3:-}" && exit 0
	mkdir -p "$CACHE"
	exec 9>"$CACHE/.$1.lock"
	flock 9
	debian_archive_built "${3:-}" && exit 0
	DEBIAN_SOURCE_SUITES=$2
	debian_archive_init
	STAGE=$(mktemp -d "$CACHE/.$1-stage.XXXXXX")
	# shellcheck disable=SC2064 # STAGE is set now, for good
	trap "rm -rf '$STAGE'" EXIT
}

debian_archive_init() {
	local arch s

	[ ${#APT_OPTS[@]} -eq 0 ] || return 0
	DEBIAN_MIRROR=${GT_DEBIAN_MIRROR:-$(debian_find_mirror)}
	[ -n "$DEBIAN_MIRROR" ] || die "cannot find the Debian mirror in /etc/apt/sources.list(.d); set GT_DEBIAN_MIRROR"
	[ -f "$DEBIAN_KEYRING" ] || die "missing $DEBIAN_KEYRING (package debian-archive-keyring)"

	mkdir -p "$APTDIR/lists/partial" "$APTDIR/cache/archives/partial" \
		"$APTDIR/sources.list.d" "$APTDIR/preferences.d" "$APTDIR/debs" \
		"$APTDIR/sources"
	# One user of the private state at a time (fd 8, until exit): the
	# caller's own lock guards only what it installs.
	exec 8>"$APTDIR/.lock"
	flock 8
	arch=$(dpkg --print-architecture)
	{
		for s in $DEBIAN_SUITES; do
			echo "deb [arch=$arch signed-by=$DEBIAN_KEYRING] $DEBIAN_MIRROR $s main"
		done
		for s in ${DEBIAN_SOURCE_SUITES:-}; do
			echo "deb-src [signed-by=$DEBIAN_KEYRING] $DEBIAN_MIRROR $s main"
		done
		for s in ${DEBIAN_FOREIGN:-}; do
			echo "deb [arch=${s%%:*} signed-by=$DEBIAN_KEYRING] $DEBIAN_MIRROR ${s#*:} main"
		done
	} > "$APTDIR/sources.list"

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
	# apt reads the indexes of the architectures it is told of only.
	if [ -n "${DEBIAN_FOREIGN:-}" ]; then
		APT_OPTS+=(-o "APT::Architectures::=$arch")
		for s in $DEBIAN_FOREIGN; do
			APT_OPTS+=(-o "APT::Architectures::=${s%%:*}")
		done
	fi

	apt-get "${APT_OPTS[@]}" update >"$APTDIR/update.log" 2>&1 ||
		die "apt-get update of the private sources list failed (see $APTDIR/update.log)"
}

debian_archive_unpack() {
	local pkg=$1 dir=$2 name=${1%%/*} debs=$APTDIR/debs deb glob

	glob="${name}_*.deb"
	if [ -n "${DEBIAN_ARCH:-}" ]; then
		# NAME:ARCH or NAME:ARCH/SUITE
		pkg=$name:$DEBIAN_ARCH${1#"$name"}
		glob="${name}_*_$DEBIAN_ARCH.deb"
	fi
	# shellcheck disable=SC2086 # a glob
	if ! ls "$debs/"$glob >/dev/null 2>&1; then
		(cd "$debs" && apt-get "${APT_OPTS[@]}" download "$pkg") \
			>>"$APTDIR/download.log" 2>&1 || return 1
	fi
	# shellcheck disable=SC2086 # a glob
	deb=$(ls "$debs/"$glob | tail -n1)
	# shellcheck disable=SC2034 # for the caller
	DEB_VERSION=$(dpkg-deb -f "$deb" Version) || return 1
	dpkg-deb -x "$deb" "$dir"
}

debian_archive_source() {
	local pkg=$1 dir=$2 name=${1%%/*} srcs=$APTDIR/sources dsc

	if ! ls "$srcs/${name}_"*.dsc >/dev/null 2>&1; then
		(cd "$srcs" && apt-get "${APT_OPTS[@]}" source --download-only "$pkg") \
			>>"$APTDIR/download.log" 2>&1 || return 1
	fi
	dsc=$(ls "$srcs/${name}_"*.dsc | tail -n1)
	# shellcheck disable=SC2034 # for the caller
	DEB_VERSION=$(sed -n 's/^Version: //p' "$dsc")
	[ -n "$DEB_VERSION" ] || return 1
	dpkg-source -x "$dsc" "$dir" >>"$APTDIR/download.log" 2>&1
}

debian_archive_forget() {
	local name

	for name in "$@"; do
		rm -f "$APTDIR/debs/${name}_"*.deb "$APTDIR/sources/${name}_"*
	done
}
