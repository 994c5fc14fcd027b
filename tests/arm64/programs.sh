# hugeld check-arm64: the real programs of the whole-machine checks
# (tests/arm64/root-run.sh, sys-install.sh, sys-boot.sh), sourced.
# p_PROG PREFIX...: PROG after a prefix ($@: nothing, or env VAR=...
# and the loader), with the same input every time; hello.c in the
# current directory for clang.
p_python3 () {
  timeout 600 "$@" /usr/bin/python3 -c 'import json, sqlite3, hashlib, zlib
print(json.dumps(sorted({i: i * i for i in range(50)}.items())[:5]), hashlib.sha256(b"x" * 100000).hexdigest(), zlib.crc32(b"hugeld" * 1000), sqlite3.sqlite_version)'
}
p_perl () {
  timeout 600 "$@" /usr/bin/perl -e 'my %h; $h{$_} = $_ ** 2 for 1 .. 1000; print join(",", map { $h{$_} } 1 .. 10), "\n"'
}
p_sqlite3 () {
  timeout 600 "$@" /usr/bin/sqlite3 :memory: 'create table t(a); insert into t values (1), (2), (3); select sum(a), group_concat(a) from t;'
}
p_clang () {
  timeout 600 "$@" /usr/lib/llvm-14/bin/clang -O2 -S -o - hello.c
}
progs="python3 perl sqlite3 clang"
# run OUT PROG PREFIX...: OUT.out (stdout and the exit status), OUT.err,
# run in OUT's directory.
run () {
  local n=$1 p=$2
  shift 2
  ( cd "$(dirname "$n")" && p_$p "$@" > $n.out 2> $n.err < /dev/null; echo "exit $?" >> $n.out )
}
