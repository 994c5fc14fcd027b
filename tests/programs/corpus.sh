# The real programs of tests/t-programs.sh: one shell function each,
# p_NAME, sourced into the shell that runs it (as root or as the
# program's own user, under the stock loader or with hugeld as the
# loader of every process).  A function runs in an empty directory W
# (its cwd and HOME, owned by the user), prints what must be the same
# under every loader on stdout (stderr is kept, not compared), and
# exits with the status to compare.  $M, put before the program whose
# code is measured, runs it under atexit-smaps (its smaps at its exit
# into W/smaps); a server's function copies its smaps there itself with
# snap PID.  Output must not depend on time, process IDs or W's name
# (the harness replaces W's path by "W").
#
# PROGRAMS: NAME USERS PACKAGE... (USERS: the users it runs as, a comma
# list: root, and the program's own user where it has one (a server
# that refuses root runs only as its own); then the packages that hold
# it, from Debian's archive).
# Copyright (C) 2026 The hugeld authors.
# SPDX-License-Identifier: LGPL-2.1-or-later

PROGRAMS="
node root nodejs
chromium root,nobody chromium
java root openjdk-17-jdk-headless
python3 root,nobody python3
perl root,nobody perl
ruby root ruby
php root php-cli
lua root lua5.4
tcl root tcl
gawk root gawk
postgres postgres postgresql
mariadb mysql mariadb-server mariadb-client
redis root,redis redis-server redis-tools
nginx root,www-data nginx-light curl
git root,nobody git
gcc root,nobody gcc
clang root clang-14
gdb root gdb
emacs root emacs-nox
libreoffice root libreoffice-writer-nogui
ffmpeg root ffmpeg
imagemagick root imagemagick
sqlite3 root,nobody sqlite3
openssl root,nobody openssl
curl root curl
xz root xz-utils
zstd root zstd
coreutils root,nobody coreutils
grep root grep
bash root bash
make root make
file root file
jq root jq
bc root bc
ssh-keygen root openssh-client
elfutils root elfutils
asan root,nobody gcc libasan8
valgrind root valgrind python3
strace root,nobody strace
"

# snap PID: PID's smaps into W/smaps (a server's code, while it runs).
snap () { cat "/proc/$1/smaps" > "$W/smaps" 2> /dev/null; }

# wait_for FILE: up to 30 s for FILE to exist (a server's socket).
wait_for () {
  local i
  for i in $(seq 300); do [ -e "$1" ] && return 0; sleep 0.1; done
  return 1
}

p_node () {
  $M node -e '
const c = require("crypto"), z = require("zlib");
let s = 0; for (let i = 0; i < 3e6; i++) s += i % 7;
const big = Buffer.alloc(1 << 20, "abc");
console.log(s, c.createHash("sha256").update(big).digest("hex"),
  z.gzipSync(big, {level: 9}).length, JSON.stringify({a: [1, 2, {b: null}]}),
  [3, 1, 2].sort().join(","), new Intl.NumberFormat("en-US").format(1234567.891));
new Promise(r => setTimeout(r, 10)).then(() => console.log("timer"));'
}

p_chromium () {
  cat > page.html <<'EOF'
<html><body><p id="x">none</p><script>
let s = 0; for (let i = 0; i < 1e6; i++) s += i % 13;
document.getElementById("x").textContent = [1, 2, 3].map(x => x * x).join(",") + " " + s;
</script></body></html>
EOF
  # As root chromium refuses its sandbox; as another user it uses it
  # (user namespaces), as a desktop runs it.
  local sandbox=
  [ "$(id -u)" != 0 ] || sandbox=--no-sandbox
  $M chromium --headless $sandbox --disable-gpu --no-first-run \
    --disable-background-networking --disable-component-update --disable-sync \
    --user-data-dir="$W/profile" --dump-dom "file://$W/page.html"
}

p_java () {
  cat > Hello.java <<'EOF'
import java.util.*; import java.util.stream.*; import java.security.*;
public class Hello {
  public static void main(String[] a) throws Exception {
    long s = 0; for (int i = 0; i < 50_000_000; i++) s += i % 7;
    MessageDigest d = MessageDigest.getInstance("SHA-256");
    byte[] h = d.digest("hugeld".getBytes("UTF-8"));
    System.out.println(s + " " + HexFormat.of().formatHex(h) + " "
      + IntStream.range(0, 1000).boxed().collect(Collectors.toList()).stream().mapToInt(x -> x).sum()
      + " " + new TreeMap<>(Map.of("b", 2, "a", 1)));
  }
}
EOF
  javac -d . Hello.java || return 99
  $M java -Xshare:auto -cp . Hello
  java -version 2>&1 | head -1
}

p_python3 () {
  $M python3 -c '
import json, hashlib, sqlite3, decimal, re, zlib, ssl, ctypes
db = sqlite3.connect(":memory:"); db.execute("create table t(a)")
db.executemany("insert into t values (?)", [(i,) for i in range(10000)])
print(db.execute("select sum(a) from t").fetchone()[0],
      hashlib.sha256(b"x" * 100000).hexdigest(), decimal.Decimal(1) / 7,
      len(zlib.compress(b"abc" * 100000, 9)), re.sub(r"(\w+)", r"<\1>", "a b"),
      json.dumps({"b": [1, 2], "a": None}, sort_keys=True), ssl.OPENSSL_VERSION[:7],
      ctypes.CDLL(None).abs(-3))'
}

p_perl () {
  $M perl -MDigest::SHA=sha256_hex -MList::Util=sum -MStorable=dclone -MPOSIX=floor -e '
my @a = map { ($_ * 7919) % 1000 } 1 .. 200000;
my %h = map { $_ => $_ ** 2 } 1 .. 1000;
print sum(@a), " ", sha256_hex("x" x 100000), " ", scalar(keys %{dclone(\%h)}), " ",
  floor(-1.5), " ", join(",", sort { $a <=> $b } (3, 1, 2)), "\n";'
}

p_ruby () {
  $M ruby -rdigest -rjson -e '
s = (1..1_000_000).sum { |i| i % 7 }
puts s, Digest::SHA256.hexdigest("x" * 100000), JSON.generate({"a" => [1, 2]}), [3, 1, 2].sort.inspect'
}

p_php () {
  $M php -r '
$s = 0; for ($i = 0; $i < 2000000; $i++) $s += $i % 7;
echo $s, " ", hash("sha256", str_repeat("x", 100000)), " ", json_encode(["a" => [1, 2]]), " ",
  strlen(gzcompress(str_repeat("abc", 100000), 9)), "\n";'
}

p_lua () {
  $M lua5.4 -e 'local s = 0 for i = 1, 3000000 do s = s + i % 7 end
local t = {} for i = 1, 1000 do t[i] = tostring(i) end
print(s, #table.concat(t, ","), string.format("%.3f", math.pi))'
}

p_tcl () {
  echo 'set s 0; for {set i 0} {$i < 300000} {incr i} {incr s [expr {$i % 7}]}
puts "$s [expr {2**100}] [lsort {c a b}] [string repeat ab 3]"' > t.tcl
  $M tclsh t.tcl
}

p_gawk () {
  seq 200000 > n.txt
  $M gawk '{ s += $1 % 7; w[$1 % 10]++ } END { print s; n = asorti(w, k); for (i = 1; i <= n; i++) printf "%s:%d ", k[i], w[k[i]]; print "" }' n.txt
}

p_postgres () {
  local bin=/usr/lib/postgresql/15/bin
  ls -d /usr/lib/postgresql/*/bin > /dev/null 2>&1 && bin=$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -1)
  "$bin/initdb" -D "$W/db" -A trust -E UTF8 --locale=C.UTF-8 -U pg > initdb.log 2>&1 || { cat initdb.log >&2; return 1; }
  "$bin/pg_ctl" -D "$W/db" -o "-k $W -c listen_addresses=''" -l "$W/pg.log" -w start > /dev/null || { cat pg.log >&2; return 2; }
  snap "$(head -1 "$W/db/postmaster.pid")"
  psql -h "$W" -U pg -d postgres -At -c "create table t(a int, b text)" \
    -c "insert into t select i, md5(i::text) from generate_series(1, 100000) i" \
    -c "create index on t(b)" \
    -c "select count(*), sum(a), max(b) from t" \
    -c "select b from t where a = 4242" \
    -c "select string_agg(x::text, ',') from (select x from unnest(array[3,1,2]) x order by 1) s"
  local rc=$?
  "$bin/pg_ctl" -D "$W/db" -m fast -w stop > /dev/null
  return $rc
}

p_mariadb () {
  mariadb-install-db --no-defaults --datadir="$W/db" --auth-root-authentication-method=normal \
    --skip-test-db > install.log 2>&1 || { cat install.log >&2; return 1; }
  mariadbd --no-defaults --datadir="$W/db" --socket="$W/sock" --skip-networking \
    --pid-file="$W/pid" --log-error="$W/err.log" --innodb-buffer-pool-size=64M > /dev/null 2>&1 &
  local pid=$!
  wait_for "$W/sock" || { cat "$W/err.log" >&2; kill $pid; return 2; }
  snap $pid
  mariadb --no-defaults -S "$W/sock" -u root -N -e "create database d; use d;
    create table t(a int primary key, b varchar(64)) engine=innodb;
    insert into t select seq, md5(seq) from seq_1_to_100000;
    select count(*), sum(a), max(b) from t; select b from t where a = 4242;
    select group_concat(x order by x) from (select 3 x union select 1 union select 2) s;"
  local rc=$?
  mariadb-admin --no-defaults -S "$W/sock" -u root shutdown
  wait $pid
  return $rc
}

p_redis () {
  redis-server --port 0 --unixsocket "$W/sock" --save '' --appendonly no \
    --dir "$W" --daemonize no > redis.log 2>&1 &
  local pid=$!
  wait_for "$W/sock" || { cat redis.log >&2; kill $pid; return 2; }
  snap $pid
  local c="redis-cli -s $W/sock"
  for i in $(seq 200); do echo "SET k$i v$i"; done | $c > /dev/null
  $c INCRBY n 42; $c GET k77; $c DBSIZE; $c LPUSH l a b c > /dev/null; $c LRANGE l 0 -1
  $c EVAL "return redis.call('get', KEYS[1])" 1 k5
  $c SHUTDOWN NOSAVE > /dev/null 2>&1
  wait $pid
}

p_nginx () {
  mkdir -p html logs tmp
  seq 100000 > html/n.txt
  echo '<h1>hugeld</h1>' > html/index.html
  local user=
  [ "$(id -u)" != 0 ] || user="user www-data;"
  cat > nginx.conf <<EOF
$user
worker_processes 2; daemon off; pid $W/nginx.pid; error_log $W/logs/error.log;
events { worker_connections 64; }
http { access_log off; client_body_temp_path $W/tmp; proxy_temp_path $W/tmp;
  fastcgi_temp_path $W/tmp; uwsgi_temp_path $W/tmp; scgi_temp_path $W/tmp; gzip on; gzip_types text/plain;
  server { listen unix:$W/sock; root $W/html; location /x { return 200 "ok\n"; } } }
EOF
  chmod 755 "$W" html; chmod 644 html/*
  nginx -p "$W" -c "$W/nginx.conf" &
  local pid=$!
  wait_for "$W/sock" || { cat logs/error.log >&2; kill $pid; return 2; }
  snap $pid
  local u="curl -s --unix-socket $W/sock"
  $u http://x/; $u http://x/x; $u http://x/n.txt | sha256sum; $u -H 'Accept-Encoding: gzip' http://x/n.txt | gunzip | tail -1
  kill -QUIT $pid; wait $pid
}

p_git () {
  export GIT_AUTHOR_NAME=h GIT_AUTHOR_EMAIL=h@x GIT_COMMITTER_NAME=h GIT_COMMITTER_EMAIL=h@x
  export GIT_AUTHOR_DATE='2026-01-01T00:00:00Z' GIT_COMMITTER_DATE='2026-01-01T00:00:00Z'
  git init -q -b main r && cd r || return 1
  for i in $(seq 20); do seq $((i * 1000)) > f$i; git add f$i; git commit -qm "c$i"; done
  git log --format='%H %s' | head -3
  git gc -q && git fsck --no-progress 2>&1 | head -1
  $M git rev-list --count HEAD
  git diff HEAD~5 --stat | tail -1
}

p_gcc () {
  cat > x.c <<'EOF'
#include <stdio.h>
#include <math.h>
static int fib (int n) { return n < 2 ? n : fib (n - 1) + fib (n - 2); }
int main (void) { printf ("%d %.6f\n", fib (27), sqrt (2.0)); return 0; }
EOF
  # -S: the driver runs only cc1, through $M (gcc's -wrapper).
  gcc -S -O2 ${M:+-wrapper "${M// /,}"} x.c -o x.s || return 1
  gcc -c x.s -o x.o && gcc -o x x.o -lm && ./x && sha256sum x.s x.o | cut -c1-64
}

p_clang () {
  cat > x.cc <<'EOF'
#include <cstdio>
#include <map>
#include <string>
#include <vector>
int main () { std::map<std::string, int> m; for (int i = 0; i < 1000; ++i) m[std::to_string (i % 37)] += i;
  std::vector<int> v; for (auto &kv : m) v.push_back (kv.second); std::printf ("%zu %d\n", m.size (), v[3]); }
EOF
  $M clang++-14 -O2 -c x.cc -o x.o 2> /dev/null || $M clang-14 -x c++ -O2 -c x.cc -o x.o || return 1
  clang-14 -fsyntax-only -x c++ x.cc && g++ -o x x.o && ./x && sha256sum x.o | cut -c1-64
}

p_gdb () {
  cat > t.c <<'EOF'
#include <stdio.h>
int add (int a, int b) { return a + b; }
int main (void) { int s = 0; for (int i = 0; i < 10; ++i) s = add (s, i); printf ("%d\n", s); return 0; }
EOF
  gcc -g -O0 -o t t.c || return 1
  # Software breakpoints in a program hugeld loads (its text on private
  # huge pages; gdb writes them by ptrace, as on any mapping).
  $M gdb -nx -batch -ex 'break add' -ex 'run' -ex 'bt 1' -ex 'print a + b' \
    -ex 'delete' -ex 'continue' ./t 2>&1 | grep -E '^(#0|\$1|45|Breakpoint 1,)' | sed 's/ at .*//; s/0x[0-9a-f]*/ADDR/g'
}

p_emacs () {
  $M emacs --batch -Q --eval '(progn
    (princ (format "%d %s %s\n" (apply (function +) (number-sequence 1 100000))
      (md5 (make-string 100000 ?x)) (sort (list 3 1 2) (function <))))
    (with-temp-buffer (insert "b\na\nc\n") (sort-lines nil (point-min) (point-max)) (princ (buffer-string))))'
}

p_libreoffice () {
  printf '<html><body><h1>hugeld</h1><p>%s</p><table><tr><td>1</td><td>2</td></tr></table></body></html>\n' \
    "$(seq 50 | tr '\n' ' ')" > doc.html
  # soffice.bin itself (the soffice script's oosplash starts it as a
  # child, which $M would not see): a first run makes the profile and
  # asks for a restart (81), as oosplash would do it.
  local lo=/usr/lib/libreoffice/program/soffice.bin
  "$lo" --headless --norestore -env:UserInstallation="file://$W/lo" --terminate_after_init > init.log 2>&1
  $M "$lo" --headless --norestore -env:UserInstallation="file://$W/lo" \
    --convert-to txt:Text --outdir "$W/out" "$W/doc.html" > convert.log 2>&1 || { cat convert.log >&2; return 1; }
  cat out/doc.txt
}

p_ffmpeg () {
  $M ffmpeg -nostdin -hide_banner -loglevel error -f lavfi -i testsrc=size=320x240:rate=25 \
    -frames:v 50 -c:v mpeg4 -threads 1 -flags +bitexact -f md5 -
  ffmpeg -nostdin -hide_banner -loglevel error -f lavfi -i "sine=frequency=440:duration=1" \
    -c:a flac -threads 1 -flags +bitexact -f md5 -
}

p_imagemagick () {
  $M convert-im6.q16 -size 300x200 gradient:red-blue -blur 0x4 -resize 50% -rotate 30 \
    -define png:exclude-chunks=date,time +set date:create +set date:modify o.png || return 1
  identify-im6.q16 -format '%w %h %#\n' o.png
}

p_sqlite3 () {
  $M sqlite3 t.db 'create table t(a integer, b text);
    with recursive c(x) as (select 1 union all select x + 1 from c where x < 100000)
    insert into t select x, hex(x * 7919) from c;
    create index i on t(b); select count(*), sum(a), max(b) from t;
    select b from t where a = 4242; pragma integrity_check;'
}

p_openssl () {
  seq 100000 > f
  $M openssl dgst -sha256 -r f | cut -c1-64
  openssl enc -aes-256-cbc -K "$(printf '%064d' 7)" -iv "$(printf '%032d' 3)" -in f | sha256sum | cut -c1-64
  openssl genpkey -algorithm ed25519 -out k 2> /dev/null && openssl pkey -in k -pubout > /dev/null && echo keys
  openssl s_server -help 2>&1 | head -1
}

p_curl () {
  seq 100000 > f
  $M curl -s "file://$W/f" | sha256sum | cut -c1-64
  curl --version | head -1 | cut -d' ' -f1-2
}

p_xz () { seq 300000 > f; $M xz -9 -T1 -c f | sha256sum | cut -c1-64; xz -dc < <(xz -c f) | tail -1; }
p_zstd () { seq 300000 > f; $M zstd -19 -q -c f | sha256sum | cut -c1-64; zstd -dqc < <(zstd -qc f) | tail -1; }
p_coreutils () {
  seq 200000 | $M sort -R --random-source=/dev/zero | sha256sum | cut -c1-64
  seq 100 | shuf --random-source=<(yes) | head -3 | tr '\n' ' '; echo
  seq 100000 > f; sha512sum f | cut -c1-32; wc f; du -b f; tac f | head -1
}
p_grep () { seq 500000 > f; $M grep -cE '^(1|2)[0-9]*7$' f; grep -P '^99{3}\d$' f; }
p_bash () { $M bash -c 's=0; for i in $(seq 50000); do s=$((s + i % 7)); done; echo $s; declare -A m=([b]=2 [a]=1); echo "${!m[@]}" | tr " " "\n" | sort | tr "\n" " "; echo'; }
p_make () {
  printf 'all: %s\n%%.o: ; @echo $@ > $@\n' "$(seq -f 'f%g.o' 200 | tr '\n' ' ')" > Makefile
  $M make -s -j2 all && ls *.o | wc -l && make -s -q all; echo "up to date: $?"
}
p_file () { $M file -b /bin/true /usr/lib/x86_64-linux-gnu/libc.so.6 | sed 's/BuildID\[sha1\]=[0-9a-f]*/BuildID/'; }
p_jq () { seq 10000 | $M jq -s 'map(. % 7) | add'; echo '{"b":[1,{"c":2}],"a":1}' | jq -S -c .; }
p_bc () { echo 'scale=200; 4*a(1)' | $M bc -l | tr -d '\\\n' | cut -c1-60; echo; }
p_ssh_keygen () {
  printf '%s\n' 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIBdh3f3RM6vmQ/1qkSiNf8U8L8w9jT5fV6qfYf5mO7xX hugeld' > k.pub
  $M ssh-keygen -l -E sha256 -f k.pub
}
p_elfutils () {
  $M eu-readelf -h /bin/true | grep -E 'Class|Machine'
  eu-nm -D /bin/true 2> /dev/null | wc -l
}

# Programs that look at themselves or at another process.
p_asan () {
  cat > a.c <<'EOF2'
#include <stdlib.h>
#include <string.h>
static int __attribute__ ((noinline)) overflow (char *p, int n) { return p[n]; }
int main (int argc, char **argv) { char *p = malloc (8); memset (p, 1, 8); return overflow (p, 8 + argc - 1); }
EOF2
  gcc -g -O0 -fsanitize=address -o a a.c || return 99
  # ASan reads /proc/self/maps for its own modules and symbolizes the
  # report: the same frames, whatever the addresses.
  $M ./a 2> asan.txt
  local rc=$?
  grep -Eo 'ERROR: AddressSanitizer: [a-z-]+|#[0-9] 0x[0-9a-f]+ in [a-z_]+ [^ ]*a\.c:[0-9]+' asan.txt | sed 's/0x[0-9a-f]*/ADDR/'
  # ASan's exit status for a report (1) is the expected one.
  echo "exit $rc"
  [ $rc = 1 ]
}
p_valgrind () {
  # valgrind runs the program's loader (hugeld's, here) on its own CPU.
  $M valgrind -q --error-exitcode=3 python3 -c 'print(sum(range(1000)))'
}
p_strace () {
  $M strace -f -qq -e trace=execve,exit_group -o trace.txt sh -c 'echo hi; true'
  grep -Eo 'execve\("[^"]*"|exit_group\([0-9]+\)' trace.txt | sort | uniq -c
}
