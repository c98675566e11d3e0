#!/usr/bin/env bash
# cflite_test.sh SOURCE_DIR: .clusterfuzzlite/build.sh run here as ClusterFuzzLite's
# builder runs it for libFuzzer with ASan (the variables base-builder sets; OUT, SRC
# and WORK fresh temporary directories), then the built fuzzer run from $OUT for 20 s
# as the runner would: clean environment, the flags of tf_fuzz.options, and (when
# this machine allows a private mount namespace) with the system's CPython standard
# library and libpython, the source tree and the build tree hidden, so that only what
# $OUT ships can be loaded. It must execute inputs (execs > 0).
set -u
src=$(cd "$1" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAILED: $*"; exit 1; }
export OUT=$tmp/out SRC=$tmp/src WORK=$tmp/work
mkdir -p "$OUT" "$SRC" "$WORK"
export CC=clang CXX=clang++
export CFLAGS="-O1 -fno-omit-frame-pointer -gline-tables-only -DFUZZING_BUILD_MODE_UNSAFE_FOR_PRODUCTION -fsanitize=address -fsanitize-address-use-after-scope -fsanitize=fuzzer-no-link"
export CXXFLAGS="$CFLAGS -stdlib=libc++"
export LIB_FUZZING_ENGINE=-fsanitize=fuzzer
export SANITIZER=address FUZZING_ENGINE=libfuzzer ARCHITECTURE=x86_64
# TF_TARGET: a JIT project's target behind a wrapper (docs/CI.md); the module itself
# is copied into python-home's site-packages below (TF_PIP would pip-install it).
(cd "$src" && TF_TARGET=honest_target:jit TF_NAME=honest bash -eu .clusterfuzzlite/build.sh) >"$tmp/build.log" 2>&1 \
    || { tail -40 "$tmp/build.log"; fail "build.sh failed"; }
for f in tf_fuzz tf_fuzz_decoder tf_fuzz_seed_corpus.zip tf_fuzz.dict tf_fuzz.options \
         tf_fuzz_honest tf_fuzz_honest.options tf_fuzz_honest_seed_corpus.zip \
         python-home/lib/python3.11/os.py python-home/lib/python3.11/functools.py; do
    [ -e "$OUT/$f" ] || fail "\$OUT/$f missing"
done
ls "$OUT"/lib/libpython3.11.so* >/dev/null 2>&1 || fail "no libpython in \$OUT/lib"
readelf -d "$OUT/tf_fuzz" | grep -q 'R.*PATH.*\$ORIGIN/lib' || fail "tf_fuzz has no RUNPATH \$ORIGIN/lib"
readelf -d "$OUT/tf_fuzz" | grep -E 'R.*PATH' | grep -qE "$src|$WORK" && fail "tf_fuzz's RUNPATH points into the build"
nseeds=$(unzip -Z1 "$OUT/tf_fuzz_seed_corpus.zip" | grep -vc '/$')
[ "$nseeds" -gt 0 ] || fail "empty seed corpus zip"

# The runner: seeds unzipped into a corpus, flags from tf_fuzz.options.
mkdir -p "$tmp/run/corpus"
(cd "$tmp/run/corpus" && unzip -q "$OUT/tf_fuzz_seed_corpus.zip")
flags=() asan=""
section=""
while IFS= read -r line; do
    line=${line%%#*}; [ -z "${line// }" ] && continue
    case "$line" in \[*\]) section=${line//[\[\] ]/}; continue;; esac
    k=$(echo "${line%%=*}" | tr -d ' '); v=$(echo "${line#*=}" | tr -d ' ')
    case "$section" in
    libfuzzer) [ "$k" = dict ] && v=$OUT/$v; flags+=("-$k=$v");;
    asan) asan="${asan:+$asan:}$k=$v";;
    esac
done <"$OUT/tf_fuzz.options"
run=(env -i PATH=/usr/bin:/bin "ASAN_OPTIONS=$asan" "$OUT/tf_fuzz" "${flags[@]}"
     -max_total_time=20 -print_final_stats=1 "$tmp/run/corpus")
sys_stdlib=$(/usr/bin/python3.11 -c 'import sysconfig; print(sysconfig.get_path("stdlib"))')
sys_libpython=$(ls /usr/lib/*/libpython3.11.so.1.0 2>/dev/null | head -1)
cd "$tmp/run"
if unshare -m --propagation private true 2>/dev/null; then
    hide="mount -t tmpfs none '$sys_stdlib' && mount -t tmpfs none '$WORK' && mount -t tmpfs none '$src'"
    [ -n "$sys_libpython" ] && hide="$hide && mount --bind /dev/null '$sys_libpython'"
    echo "running with $sys_stdlib, $sys_libpython, $src and $WORK hidden"
    unshare -m --propagation private sh -c "$hide && exec \"\$@\"" sh "${run[@]}" >"$tmp/run.log" 2>&1
    rc=$?
    # The control: without python-home the same run cannot start (nothing else to find).
    mv "$OUT/python-home" "$OUT/python-home.off"
    unshare -m --propagation private sh -c "$hide && exec \"\$@\"" sh "${run[@]}" -runs=1 \
        >"$tmp/control.log" 2>&1 && { cat "$tmp/control.log"; fail "ran without \$OUT/python-home: the system's Python is not hidden"; }
    mv "$OUT/python-home.off" "$OUT/python-home"
    (exit $rc)
else
    echo "note: no private mount namespace here: the system's Python is not hidden"
    "${run[@]}" >"$tmp/run.log" 2>&1
fi
rc=$?
execs=$(sed -nE 's/^stat::number_of_executed_units: *([0-9]+).*/\1/p' "$tmp/run.log" | tail -1)
grep -E "INITED|DONE|stat::|tracefuzz fuzz target|ERROR|Fatal|No module" "$tmp/run.log" | head -20
[ "$rc" = 0 ] || { tail -30 "$tmp/run.log"; fail "the fuzzer exited $rc"; }
[ -n "$execs" ] && [ "$execs" -gt 0 ] || { tail -30 "$tmp/run.log"; fail "no inputs executed"; }
grep -q "tracefuzz fuzz target: target builtin" "$tmp/run.log" || fail "the built-in tracer (tfjit) was not the target"
grep -q LLVMFuzzerTestOneInput "$OUT/tf_fuzz_honest" || fail "the wrapper is not recognisable as a fuzzer"

# The wrapper runs the Python target installed under $OUT (100 inputs).
cp "$src/tests/fuzz/honest_target.py" "$OUT/python-home/lib/python3.11/site-packages/"
wrun=(env -i PATH=/usr/bin:/bin "ASAN_OPTIONS=$asan" "$OUT/tf_fuzz_honest" -runs=100
      -print_final_stats=1 "$tmp/run/corpus")
if [ -n "${hide:-}" ]; then
    unshare -m --propagation private sh -c "$hide && exec \"\$@\"" sh "${wrun[@]}" >"$tmp/wrap.log" 2>&1
else
    "${wrun[@]}" >"$tmp/wrap.log" 2>&1
fi
wrc=$?
grep -E "tracefuzz fuzz target: target|stat::number_of_executed_units" "$tmp/wrap.log"
[ "$wrc" = 0 ] || { tail -30 "$tmp/wrap.log"; fail "the wrapper exited $wrc"; }
grep -q "tracefuzz fuzz target: target honest_target:jit (Python line coverage)" "$tmp/wrap.log" \
    || { tail -30 "$tmp/wrap.log"; fail "the wrapper did not fuzz honest_target:jit"; }
echo "ok: $execs execs in 20 s from \$OUT; the wrapper fuzzed honest_target:jit"
