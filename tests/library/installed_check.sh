#!/bin/sh
# The library as a third party gets it: `cmake --install` into a temporary PREFIX, then docs/library.md's
# C++ example built in a separate project with find_package(nmt) and again with pkg-config, each
# translating as `nmt translate` does, and its Python example run with the installed module.
# Usage: installed_check.sh BUILD_DIR SOURCE_ROOT NMT_BINARY MODEL_DIR
set -eu
build=$1 root=$2 nmt=$3 model=$4
dir=$(mktemp -d "${TMPDIR:-/tmp}/nmt_library.XXXXXX")
trap 'rm -rf "$dir"' EXIT
prefix=$dir/prefix
cmake --install "$build" --prefix "$prefix" > /dev/null
lib=$(ls -d "$prefix"/lib*/libnmt.so.0 "$prefix"/lib/*/libnmt.so.0 2>/dev/null | head -1)
test -n "$lib" || { echo "no libnmt.so.0 under $prefix"; exit 1; }
libdir=$(dirname "$lib")
for f in include/nmt/nmt.h include/nmt/translator.h; do test -f "$prefix/$f" || { echo "missing $f"; exit 1; }; done
test -f "$libdir/cmake/nmt/nmtConfig.cmake" && test -f "$libdir/pkgconfig/nmt.pc" && test -L "$libdir/libnmt.so"

# docs/library.md's blocks, as they stand.
mkdir "$dir/project"
awk '/^```cpp$/{f=1; next} /^```$/{f=0} f' "$root/docs/library.md" > "$dir/project/main.cc"
awk '/^```cmake$/{f=1; next} /^```$/{f=0} f' "$root/docs/library.md" > "$dir/project/CMakeLists.txt"
awk '/^```python$/{f=1; next} /^```$/{f=0} f' "$root/docs/library.md" > "$dir/example.py"
printf 'A dog runs in the park.\n\nTwo men are talking.  A girl laughs.\n' > "$dir/input.txt"
"$nmt" translate -q -m "$model" < "$dir/input.txt" > "$dir/expected.txt"

cmake -S "$dir/project" -B "$dir/project/build" -DCMAKE_PREFIX_PATH="$prefix" -DCMAKE_BUILD_TYPE=Release > /dev/null
cmake --build "$dir/project/build" > /dev/null
"$dir/project/build/translate_lines" "$model" < "$dir/input.txt" | cmp - "$dir/expected.txt"
echo "find_package(nmt): the example translates as nmt translate does"

export PKG_CONFIG_PATH="$libdir/pkgconfig"
# shellcheck disable=SC2046
c++ -std=c++17 -o "$dir/translate_lines" "$dir/project/main.cc" $(pkg-config --cflags --libs nmt) -Wl,-rpath,"$libdir"
"$dir/translate_lines" "$model" < "$dir/input.txt" | cmp - "$dir/expected.txt"
echo "pkg-config nmt: the example translates as nmt translate does"

site=$(ls -d "$prefix"/lib/python3*/dist-packages 2>/dev/null | head -1)
if [ -z "$site" ] || ! ls "$site"/nmt.*.so > /dev/null 2>&1; then
  echo "the Python module was not built (python3-pybind11 missing): python_module reports it skipped"
  exit 0
fi
test -f "$site/nmt.pyi"
PYTHONPATH=$site /usr/bin/python3 -c "import nmt; assert nmt.__file__.startswith('$site'), nmt.__file__"
PYTHONPATH=$site /usr/bin/python3 "$dir/example.py" "$model" > "$dir/example.out"
grep -q '^invalid-argument beam_size' "$dir/example.out"
# An installed model by its name, found beside the installed library.
PYTHONPATH=$site /usr/bin/python3 -c "import nmt, os; d = nmt.Translator('multi30k-en-de', 1).info()['model_dir']; \
assert os.path.samefile(d, '$prefix/share/nmt/multi30k-en-de'), d"
echo "python3: import nmt and docs/library.md's example work from $site"
