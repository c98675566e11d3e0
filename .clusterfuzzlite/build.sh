#!/bin/bash -eu
# ClusterFuzzLite / OSS-Fuzz build of tracefuzz's fuzz targets (docs/CI.md).
#
# Honours what the builder image sets: $CC $CXX $CFLAGS $CXXFLAGS (sanitizer and
# -fsanitize=fuzzer-no-link, so every library is instrumented), $LIB_FUZZING_ENGINE
# (linked into the fuzz executables instead of -fsanitize=fuzzer), $OUT (what the
# runner gets), $SRC (the checkout is $SRC/tracefuzz, or the current directory) and
# $WORK (the build tree). Writes into $OUT:
#   tf_fuzz, tf_fuzz_decoder                 the fuzz targets (tfjit built in)
#   tf_fuzz_seed_corpus.zip, tf_fuzz.dict, tf_fuzz.options   (and the decoder's)
#   lib/libpython3.11.so.1.0 (+ its non-libc libraries)   found through RUNPATH $ORIGIN/lib
#   python-home/lib/python3.11/              the standard library, found by hz_embed.c
#                                            (python-home/ next to the executable)
# The runner container has no Python: everything the fuzzer loads at run time is
# under $OUT, nothing points back into $SRC or $WORK.
#
# Optional, for a JIT project fuzzing its own jit(fn) (docs/CI.md):
#   TF_TARGET=pkg.mod:jit   bake the target into a wrapper $OUT/tf_fuzz_<name>
#   TF_PIP="pkg ..."        pip-install these into $OUT/python-home's site-packages
#   TF_PYTHON=/usr/bin/python3.11   the CPython 3.11 to build against and ship
: "${CC:=clang}" "${CXX:=clang++}" "${CFLAGS:=}" "${CXXFLAGS:=}"
: "${LIB_FUZZING_ENGINE:=-fsanitize=fuzzer}"
: "${OUT:?}" "${WORK:?}" "${SRC:=$(pwd)/..}"
TF_PYTHON=${TF_PYTHON:-/usr/bin/python3.11}

if [ -f "$(pwd)/fuzz/CMakeLists.txt" ]; then tf_src=$(pwd); else tf_src=$SRC/tracefuzz; fi
[ -f "$tf_src/fuzz/CMakeLists.txt" ] || { echo "build.sh: no tracefuzz checkout in $(pwd) or $SRC/tracefuzz" >&2; exit 1; }
build=$WORK/tracefuzz-build
generator=()
command -v ninja >/dev/null && generator=(-G Ninja)

# No TF_FUZZ_INSTRUMENT copies: CFLAGS instrument everything already. RUNPATH
# $ORIGIN/lib finds the libpython shipped below (the runner has none).
cmake -S "$tf_src" -B "$build" "${generator[@]}" \
  -DCMAKE_C_COMPILER="$CC" -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCMAKE_C_FLAGS="$CFLAGS" -DCMAKE_C_FLAGS_RELWITHDEBINFO="-O1 -g" \
  -DTF_PYTHON="$TF_PYTHON" -DTF_LIB_FUZZING_ENGINE="$LIB_FUZZING_ENGINE" \
  -DCMAKE_BUILD_RPATH='$ORIGIN/lib' -DCMAKE_SKIP_INSTALL_RPATH=ON
cmake --build "$build" --target tf_fuzz tf_fuzz_decoder -j"$(nproc)"

for f in tf_fuzz tf_fuzz_decoder; do
  cp "$build/$f" "$OUT/$f"
  cp "$tf_src/corpus/tracefuzz.dict" "$OUT/$f.dict"
  rm -f "$OUT/${f}_seed_corpus.zip"
  (cd "$tf_src/corpus/seed" && zip -q -r "$OUT/${f}_seed_corpus.zip" .)
done
# Python objects go through malloc under ASan (hz_embed.c); CPython's own caches
# are not leaks; one input may take seconds on a slow runner.
cat > "$OUT/tf_fuzz.options" <<'OPTIONS'
[libfuzzer]
timeout = 30
rss_limit_mb = 4096
detect_leaks = 0
dict = tf_fuzz.dict

[asan]
detect_leaks = 0
quarantine_size_mb = 32
OPTIONS
sed 's/tf_fuzz.dict/tf_fuzz_decoder.dict/' "$OUT/tf_fuzz.options" > "$OUT/tf_fuzz_decoder.options"

# libpython and the libraries it needs beyond libc (the runner is another image).
mkdir -p "$OUT/lib"
libpython=$(ldd "$OUT/tf_fuzz" | awk '/libpython3/ {print $3}')
[ -n "$libpython" ] || { echo "build.sh: tf_fuzz does not link a shared libpython3.11" >&2; exit 1; }
cp -L "$libpython" "$OUT/lib/"
ldd "$libpython" | awk '$3 ~ /^\// {print $3}' | while read -r dep; do
  case "$(basename "$dep")" in
    libc.so*|libm.so*|libpthread.so*|libdl.so*|librt.so*|libutil.so*|ld-linux*) ;;
    *) cp -L "$dep" "$OUT/lib/";;
  esac
done

# The standard library as this CPython finds it (Debian and deadsnakes split it from
# the prefix; sysconfig knows where), without its tests and site-packages.
stdlib=$("$TF_PYTHON" -c 'import sysconfig; print(sysconfig.get_path("stdlib"))')
dynload=$("$TF_PYTHON" -c 'import sysconfig; print(sysconfig.get_path("platstdlib") + "/lib-dynload")')
home=$OUT/python-home/lib/python3.11
rm -rf "$OUT/python-home"
mkdir -p "$home"
(cd "$stdlib" && tar --exclude=./test --exclude=./site-packages --exclude=./dist-packages \
   --exclude='__pycache__' --exclude=./idlelib --exclude=./tkinter --exclude=./turtledemo \
   --exclude=./ensurepip --exclude=./lib-dynload -cf - .) | (cd "$home" && tar -xf -)
mkdir -p "$home/lib-dynload" "$home/site-packages"
[ -d "$dynload" ] && cp -L "$dynload"/*.so "$home/lib-dynload/" 2>/dev/null || true

# A JIT project's own target: its packages into python-home, and a wrapper that
# the runner finds as a fuzzer (OSS-Fuzz detects fuzzers by this symbol name:
# LLVMFuzzerTestOneInput) and that passes the target to tf_fuzz.
if [ -n "${TF_PIP:-}" ]; then
  # shellcheck disable=SC2086
  "$TF_PYTHON" -m pip install --no-cache-dir --target "$home/site-packages" $TF_PIP
fi
if [ -n "${TF_TARGET:-}" ]; then
  name=tf_fuzz_${TF_NAME:-$(echo "${TF_TARGET%%:*}" | tr -c 'A-Za-z0-9_\n' _)}
  cat > "$OUT/$name" <<WRAPPER
#!/bin/sh
# LLVMFuzzerTestOneInput: tracefuzz's tf_fuzz on the target ${TF_TARGET}
here=\$(dirname "\$0")
TRACEFUZZ_TARGET='${TF_TARGET}' TRACEFUZZ_PYTHON_PATH="\$here/python-home/lib/python3.11/site-packages\${TRACEFUZZ_EXTRA_PATH:+:\$TRACEFUZZ_EXTRA_PATH}" \\
  exec "\$here/tf_fuzz" "\$@"
WRAPPER
  chmod +x "$OUT/$name"
  cp "$OUT/tf_fuzz.options" "$OUT/$name.options"
  cp "$OUT/tf_fuzz_seed_corpus.zip" "$OUT/${name}_seed_corpus.zip"
  cp "$OUT/tf_fuzz.dict" "$OUT/$name.dict"
  sed -i "s/tf_fuzz.dict/$name.dict/" "$OUT/$name.options"
fi
echo "build.sh: $(ls "$OUT" | tr '\n' ' ')"
