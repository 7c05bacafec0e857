# Sourced by fuzz seed scripts that seed with sections of the fixtures.
#
# section_seeds SECTION EXT FIXTURE...: into $out/FIXTURE.EXT, the section
# SECTION of each fixture (in $GT_FIXTURES) that is built.
section_seeds() {
	local section=$1 ext=$2 fix=${GT_FIXTURES:-build/fixtures} f
	shift 2
	for f in "$@"; do
		[[ -e $fix/$f ]] || continue
		objcopy -O binary --only-section="$section" "$fix/$f" \
			"$out/$f.$ext"
	done
}
