#!/bin/sh
# libnmt.so exports the API alone: every defined dynamic symbol is in namespace nmt (or its type
# information), and the soname carries the ABI version. Usage: exports_check.sh LIBNMT
set -eu
lib=$1
symbols=$(nm -D --defined-only -C "$lib" | sed 's/^[0-9a-f]* [A-Za-z] //; s/@@NMT_0$//' | grep -v '^NMT_0$')
others=$(printf '%s\n' "$symbols" | grep -vE '^(nmt::|typeinfo for nmt::|typeinfo name for nmt::|vtable for nmt::)' || true)
if [ -n "$others" ]; then
  echo "libnmt.so exports more than the API:"; printf '%s\n' "$others" | head -20; exit 1
fi
printf '%s\n' "$symbols" | grep -q '^nmt::Translator::translate(' || { echo "nmt::Translator::translate is not exported"; exit 1; }
objdump -p "$lib" | grep -q 'SONAME *libnmt\.so\.0$' || { echo "soname is not libnmt.so.0"; exit 1; }
echo "libnmt.so exports $(printf '%s\n' "$symbols" | sort -u | wc -l) symbols, all of the API"
