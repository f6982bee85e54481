#!/usr/bin/env bash
# bench/build-original.sh: builds the original TAOBench
# (github.com/audreyccheng/taobench, C++) with its PostgreSQL adapter (crdb)
# from checkouts given by path, for bench/original.sh; prints the binary's
# absolute path as its only line on stdout (progress goes to stderr).
#
# Usage: ORIGINAL_SRC=/path/to/taobench LIBPQXX_SRC=/path/to/libpqxx bench/build-original.sh
#   ORIGINAL_SRC: a checkout of github.com/audreyccheng/taobench (measured
#     at a122cfd): git clone https://github.com/audreyccheng/taobench
#   LIBPQXX_SRC: a checkout of github.com/jtv/libpqxx at 7.7.4 (any 7.x
#     should do): git clone -b 7.7.4 https://github.com/jtv/libpqxx
# Environment: BUILD_DIR (default $XDG_CACHE_HOME/taobench-original/KEY, or
# ~/.cache/...; KEY comes from both sources' git HEAD, or from a hash of
# their files when a checkout is not git or has changes, and from the
# compiler, so a second call with the same sources prints the finished
# build's path at once); CXX (the C++ compiler, default g++); JOBS (make's
# jobs, 2).
#
# Neither checkout is changed: both are copied into BUILD_DIR, and in the
# copy of the original only:
#   - its sleeps of 60 s after reading its keys and of 150 s before and
#     after each experiment (src/benchmark.cc) become 1 s, so that a run
#     takes seconds rather than six minutes; nothing else in a run changes;
#   - the compiler CMakeLists.txt names, g++-11, becomes $CXX (g++-11 is
#     rarely installed; any C++17 compiler builds it).
# libpqxx is built static, Release, -O3, into BUILD_DIR/prefix (its tests
# skipped); the original with -DWITH_CRDB=ON, Release, -O3, against that
# prefix and the system's libpq. About 5 minutes on 2 cores.
# Exit status: 0 built (or found built); 2 bad input or missing tools; 1 the
# build failed (the log named on stderr says why).
set -euo pipefail

me=build-original.sh
# Bumped when the recipe below changes, so that older builds are not reused.
RECIPE=1
say() { echo "$me: $*" >&2; }
bad() {
	say "$*"
	exit 2
}
fail() {
	say "$*"
	exit 1
}

ORIGINAL_SRC=${ORIGINAL_SRC:-}
LIBPQXX_SRC=${LIBPQXX_SRC:-}
CXX=${CXX:-g++}
JOBS=${JOBS:-2}
usage="usage: ORIGINAL_SRC=/path/to/taobench LIBPQXX_SRC=/path/to/libpqxx bench/build-original.sh"

# The inputs.
[[ -n "$ORIGINAL_SRC" ]] || bad "ORIGINAL_SRC is not set: give the path of a checkout of the original TAOBench (git clone https://github.com/audreyccheng/taobench; measured at a122cfd)
$usage"
[[ -n "$LIBPQXX_SRC" ]] || bad "LIBPQXX_SRC is not set: give the path of a checkout of libpqxx 7.7.4 (git clone -b 7.7.4 https://github.com/jtv/libpqxx)
$usage"
[[ -d "$ORIGINAL_SRC" ]] || bad "ORIGINAL_SRC=$ORIGINAL_SRC is not a directory: give the path of a checkout of github.com/audreyccheng/taobench"
[[ -d "$LIBPQXX_SRC" ]] || bad "LIBPQXX_SRC=$LIBPQXX_SRC is not a directory: give the path of a checkout of github.com/jtv/libpqxx at 7.7.4"
ORIGINAL_SRC=$(cd "$ORIGINAL_SRC" && pwd)
LIBPQXX_SRC=$(cd "$LIBPQXX_SRC" && pwd)
for f in CMakeLists.txt src/benchmark.cc crdb/crdb_db.cc; do
	[[ -f "$ORIGINAL_SRC/$f" ]] || bad "ORIGINAL_SRC=$ORIGINAL_SRC has no $f: it is not a checkout of github.com/audreyccheng/taobench (with its crdb adapter); give the path of one"
done
grep -q 'project(taobench)' "$ORIGINAL_SRC/CMakeLists.txt" ||
	bad "ORIGINAL_SRC=$ORIGINAL_SRC: its CMakeLists.txt has no 'project(taobench)': it is not a checkout of github.com/audreyccheng/taobench; give the path of one"
for f in CMakeLists.txt VERSION include/pqxx/pqxx; do
	[[ -f "$LIBPQXX_SRC/$f" ]] || bad "LIBPQXX_SRC=$LIBPQXX_SRC has no $f: it is not a checkout of github.com/jtv/libpqxx; give the path of one at 7.7.4"
done
pqxx_version=$(head -1 "$LIBPQXX_SRC/VERSION")
[[ $pqxx_version == 7.* ]] ||
	bad "LIBPQXX_SRC=$LIBPQXX_SRC is libpqxx $pqxx_version: the original's adapter is written for libpqxx 7 (measured with 7.7.4); check out 7.7.4 (git -C $LIBPQXX_SRC checkout 7.7.4)"
[[ "$JOBS" =~ ^[0-9]+$ && "$JOBS" -gt 0 ]] || bad "JOBS=$JOBS: give a whole number above 0"

# The tools.
missing=() pkgs=()
# lack what package: notes a missing tool and the Debian package that has it.
lack() {
	missing+=("$1 (Debian package $2)")
	pkgs+=("$2")
}
command -v cmake >/dev/null 2>&1 || lack cmake cmake
command -v make >/dev/null 2>&1 || lack make make
command -v "$CXX" >/dev/null 2>&1 || lack "the C++ compiler $CXX (or set CXX)" g++
command -v tar >/dev/null 2>&1 || lack tar tar
command -v sha256sum >/dev/null 2>&1 || lack sha256sum coreutils
# libpq's header: where pg_config says, else where Debian's libpq-dev puts it.
pq_include=
if command -v pg_config >/dev/null 2>&1; then pq_include=$(pg_config --includedir 2>/dev/null || true); fi
[[ -n "$pq_include" && -f "$pq_include/libpq-fe.h" ]] || pq_include=/usr/include/postgresql
[[ -f "$pq_include/libpq-fe.h" ]] || lack "libpq's headers (libpq-fe.h) and pg_config" libpq-dev
if [[ ${#missing[@]} -gt 0 ]]; then
	say "missing:"
	printf '  %s\n' "${missing[@]}" >&2
	bad "install them (on Debian or Ubuntu: apt-get install -y ${pkgs[*]}) and run this again"
fi
CXX=$(command -v "$CXX")
"$CXX" -std=c++17 -x c++ -fsyntax-only - </dev/null 2>/dev/null ||
	bad "CXX=$CXX does not compile C++17; give a C++17 compiler (Debian package g++)"
compiler=$("$CXX" --version | head -1)

# The copy's edits: file, text, replacement, what it is. Each text must be
# in the checkout (the one measured, a122cfd, has all of them).
edits=(
	src/benchmark.cc 'std::this_thread::sleep_for(std::chrono::seconds(60))' 'std::this_thread::sleep_for(std::chrono::seconds(1))' "the 60 s sleep after reading the keys"
	src/benchmark.cc 'std::this_thread::sleep_for(std::chrono::seconds(150))' 'std::this_thread::sleep_for(std::chrono::seconds(1))' "the 150 s sleeps before and after each experiment"
	CMakeLists.txt 'set(CMAKE_CXX_COMPILER "g++-11")' "set(CMAKE_CXX_COMPILER \"$CXX\")" "the compiler it names"
)
for ((i = 0; i < ${#edits[@]}; i += 4)); do
	grep -qF -- "${edits[i + 1]}" "$ORIGINAL_SRC/${edits[i]}" ||
		bad "ORIGINAL_SRC=$ORIGINAL_SRC: ${edits[i]} has no '${edits[i + 1]}' (${edits[i + 3]}): not the checkout this script knows; check out a122cfd (git -C $ORIGINAL_SRC checkout a122cfd) or change the patterns in bench/build-original.sh"
done

# srckey dir: the checkout's git HEAD if it is a git checkout without
# changes, else a hash of its files (the ones that are copied).
files_hash() {
	(cd "$1" && find . \( -name .git -o -name CMakeFiles -o -name CMakeCache.txt \) -prune -o -type f -print0 |
		LC_ALL=C sort -z | xargs -0 sha256sum | sha256sum | cut -c1-40)
}
srckey() {
	local head
	if [[ -e "$1/.git" ]] && command -v git >/dev/null 2>&1 && head=$(git -C "$1" rev-parse HEAD 2>/dev/null) &&
		[[ -z "$(git -C "$1" status --porcelain 2>/dev/null || echo changed)" ]]; then
		echo "git $head"
	else
		echo "files $(files_hash "$1")"
	fi
}
okey=$(srckey "$ORIGINAL_SRC")
pkey=$(srckey "$LIBPQXX_SRC")
key=$(printf 'recipe %s\noriginal %s\nlibpqxx %s\ncompiler %s %s\n' "$RECIPE" "$okey" "$pkey" "$CXX" "$compiler" | sha256sum | cut -c1-16)
BUILD_DIR=${BUILD_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/taobench-original/$key}
[[ $BUILD_DIR == /* ]] || BUILD_DIR=$PWD/$BUILD_DIR
BIN=$BUILD_DIR/original-build/taobench
DONE=$BUILD_DIR/done

# A finished build of the same sources: its path at once.
if [[ -f "$DONE" && -x "$BIN" ]] && [[ "$(cat "$DONE")" == "$key" ]]; then
	say "reusing the build in $BUILD_DIR (original $okey, libpqxx $pkey)"
	echo "$BIN"
	exit 0
fi
# A build directory is ours to clear if it is empty or holds our marker.
if [[ -e "$BUILD_DIR" ]]; then
	[[ -d "$BUILD_DIR" ]] || bad "BUILD_DIR=$BUILD_DIR is not a directory; give a directory to build in"
	if [[ -n "$(ls -A "$BUILD_DIR")" && ! -f "$BUILD_DIR/taobench-original-build" ]]; then
		bad "BUILD_DIR=$BUILD_DIR holds files this script did not write; give an empty or new directory"
	fi
	if [[ -f "$DONE" && "$(cat "$DONE")" != "$key" ]]; then
		bad "BUILD_DIR=$BUILD_DIR holds a build of other sources ($(cat "$DONE"), not $key); give another directory or remove it"
	fi
	say "clearing an unfinished build in $BUILD_DIR"
	rm -rf "${BUILD_DIR:?}"/* "$BUILD_DIR"/.[!.]* 2>/dev/null || true
fi
mkdir -p "$BUILD_DIR" || bad "cannot create BUILD_DIR=$BUILD_DIR; give a writable directory"
BUILD_DIR=$(cd "$BUILD_DIR" && pwd)
BIN=$BUILD_DIR/original-build/taobench
DONE=$BUILD_DIR/done
echo "build of the original TAOBench by taobench's bench/build-original.sh" >"$BUILD_DIR/taobench-original-build"
printf 'original %s (%s)\nlibpqxx %s %s (%s)\ncompiler %s (%s)\n' "$ORIGINAL_SRC" "$okey" "$pqxx_version" "$LIBPQXX_SRC" "$pkey" "$CXX" "$compiler" >"$BUILD_DIR/sources"
say "building in $BUILD_DIR: original $okey, libpqxx $pqxx_version ($pkey), $compiler"

# copy src dst: the checkout's files without .git and an in-tree CMake build's cache.
copy() {
	mkdir -p "$2"
	tar -C "$1" --exclude=.git --exclude=CMakeCache.txt --exclude=CMakeFiles -cf - . | tar -C "$2" -xf - ||
		fail "cannot copy $1 into $2"
}
copy "$ORIGINAL_SRC" "$BUILD_DIR/original"
copy "$LIBPQXX_SRC" "$BUILD_DIR/libpqxx"
for ((i = 0; i < ${#edits[@]}; i += 4)); do
	file=$BUILD_DIR/original/${edits[i]}
	n=$(grep -cF -- "${edits[i + 1]}" "$file" || true)
	FROM=${edits[i + 1]} TO=${edits[i + 2]} awk '{while ((i = index($0, ENVIRON["FROM"])) > 0) $0 = substr($0, 1, i - 1) ENVIRON["TO"] substr($0, i + length(ENVIRON["FROM"])); print}' \
		"$file" >"$file.new" || fail "cannot edit $file"
	mv "$file.new" "$file" || fail "cannot edit $file"
	say "copy's ${edits[i]}: $n x '${edits[i + 1]}' -> '${edits[i + 2]}' (${edits[i + 3]})"
done
left=$(grep -nE 'sleep_for\(std::chrono::seconds\(' "$BUILD_DIR/original/src/benchmark.cc" | grep -vF 'seconds(1))' || true)
[[ -z "$left" ]] || fail "the copy's src/benchmark.cc still sleeps for seconds: $left"

# run log what cmd...: runs the command with its output in log, failing
# with the log's end.
run() {
	local log=$BUILD_DIR/$1.log what=$2
	shift 2
	say "$what (log: $log)"
	"$@" >>"$log" 2>&1 || fail "$what failed; the end of $log:
$(tail -20 "$log")"
}
PREFIX=$BUILD_DIR/prefix
t0=$SECONDS
run libpqxx "configuring libpqxx $pqxx_version" cmake -S "$BUILD_DIR/libpqxx" -B "$BUILD_DIR/libpqxx-build" \
	-DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_COMPILER="$CXX" -DCMAKE_CXX_FLAGS=-O3 \
	-DBUILD_SHARED_LIBS=OFF -DSKIP_BUILD_TEST=ON -DBUILD_DOC=OFF \
	-DCMAKE_INSTALL_PREFIX="$PREFIX" -DCMAKE_INSTALL_LIBDIR=lib
run libpqxx "building libpqxx (make -j$JOBS)" make -C "$BUILD_DIR/libpqxx-build" -j"$JOBS"
run libpqxx "installing libpqxx into $PREFIX" make -C "$BUILD_DIR/libpqxx-build" install
[[ -f "$PREFIX/lib/libpqxx.a" ]] || fail "libpqxx built no $PREFIX/lib/libpqxx.a; see $BUILD_DIR/libpqxx.log"
run original "configuring the original" cmake -S "$BUILD_DIR/original" -B "$BUILD_DIR/original-build" \
	-DWITH_CRDB=ON -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_COMPILER="$CXX" \
	-DCMAKE_CXX_FLAGS="-O3 -I$PREFIX/include -I$pq_include" -DCMAKE_EXE_LINKER_FLAGS="-L$PREFIX/lib"
run original "building the original (make -j$JOBS)" make -C "$BUILD_DIR/original-build" -j"$JOBS"
[[ -x "$BIN" ]] || fail "the original's build made no $BIN; see $BUILD_DIR/original.log"
echo "$key" >"$DONE"
say "built in $((SECONDS - t0)) s: $BIN"
echo "$BIN"
