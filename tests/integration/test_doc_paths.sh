#!/bin/bash
# Docs that say what is: every path of this repository that README.md,
# lib/README.md, a man page, a script or a comment names must exist. A path
# is a word that starts with one of the repository's folders (lib/, bpf/,
# tools/, tests/, ...) or with one of lib/'s (probe/, x86/, ...), as the
# comments name files ("cli/overhead_limit.h"), or a module without its
# .c or .h ("probe/inline_sites"); '*' stands for any name.
# Not paths of ours: #include <...> (the system's), and the few words
# below that name other trees.
source "$(dirname "$0")/lib.sh"

# FILE:WORD pairs that name another tree's files, with why.
ELSEWHERE=(
	# capstone's install tree under /var/cache/gotools/capstone
	"scripts/capstone.sh:lib/libcapstone.a"
	"scripts/capstone.sh:lib/full/libcapstone.a"
	"scripts/capstone.sh:lib/full"
)

# missing_paths DIR: "FILE:LINE: PATH" for each path named in the files git
# tracks under DIR that does not exist there.
missing_paths() {
	python3 - "$1" "${ELSEWHERE[@]}" <<'EOF'
import os, re, subprocess, sys
os.chdir(sys.argv[1])
elsewhere = set(sys.argv[2:])
files = subprocess.run(['git', 'ls-files'], capture_output=True, text=True,
                       check=True).stdout.split()
tops = {'lib', 'bpf', 'tools', 'tests', 'scripts', 'bench', 'man',
        'examples', '.ci'}
lib_dirs = {d for d in os.listdir('lib') if os.path.isdir('lib/' + d)}
word = re.compile(r'(?<![A-Za-z0-9_./<$-])((?:\.ci|[a-z_0-9]+)/[A-Za-z0-9_./*-]*[A-Za-z0-9_*])')
for f in files:
    # vmlinux.h: the kernel's names; this script: the paths it must not find
    if f.startswith('bpf/x86/') or f == 'tests/integration/test_doc_paths.sh':
        continue
    try:
        lines = open(f, encoding='utf-8').read().splitlines()
    except (UnicodeDecodeError, IsADirectoryError, FileNotFoundError):
        continue
    for n, line in enumerate(lines, 1):
        for m in word.finditer(line):
            p = m.group(1).rstrip('.')
            first = p.split('/')[0]
            if first in tops:
                where = [p]
            elif first in lib_dirs:
                where = ['lib/' + p, p]
            else:
                continue
            # a module may be named without its .c or .h
            where += [w + x for w in where for x in ('.c', '.h')]
            if f + ':' + p in elsewhere or any('*' in w or os.path.exists(w) for w in where):
                continue
            print(f'{f}:{n}: {p}')
EOF
}

# The check can fail: a copy of the tree whose comment names a file that
# is not there is caught, and only that one.
test_catches_a_missing_file() {
	local copy=$TMP/tree got
	mkdir -p "$copy"
	git init -q "$copy"
	(cd "$ROOT" && git ls-files -z | xargs -0 cp --parents -t "$copy")
	printf '/* see lib/probe/no_such_file.h */\n' >>"$copy/lib/probe/uprobes.c"
	git -C "$copy" add -A >/dev/null
	got=$(missing_paths "$copy")
	if [[ $got == "lib/probe/uprobes.c:"*": lib/probe/no_such_file.h" ]]; then
		pass "a comment naming a file that does not exist is found ($got)"
	else
		fail "a comment naming a file that does not exist is found" "got: ${got:-nothing}"
	fi
}

test_every_named_path_exists() {
	local got
	got=$(missing_paths "$ROOT")
	if [[ -z $got ]]; then
		pass "every path the docs and comments name exists"
	else
		fail "every path the docs and comments name exists" "$(paste -sd';' <<<"$got")"
	fi
}

test_catches_a_missing_file
test_every_named_path_exists
finish
