#!/bin/bash
# Make a shared library with MIB MiB of code (one function, then
# int3 filler): the "100 MiB library" of the load-cost benchmark.
#   mklib.sh OUT.so MIB
set -euo pipefail
out=$1 mib=$2
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
cat > "$tmp/big.s" <<EOS
	.text
	.globl	cost_entry
	.type	cost_entry, @function
cost_entry:
	movl	\$42, %eax
	ret
	.fill	$((mib * 1048576 - 6)), 1, 0xcc
	.size	cost_entry, .-cost_entry
	.section .note.GNU-stack,"",@progbits
EOS
as "$tmp/big.s" -o "$tmp/big.o"
gcc -shared -Wl,-soname,$(basename "$out") -Wl,-z,relro "$tmp/big.o" -o "$out"
