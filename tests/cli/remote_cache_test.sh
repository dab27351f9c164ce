#!/usr/bin/env bash
# SPDX-License-Identifier: MIT
# build --cache-url against a real server: nginx (Debian's nginx-light, its WebDAV PUT) on 127.0.0.1, started
# by this test on a free port and stopped by its PID. Each build gets a fresh local cache, so what it does not
# compile comes from the server:
#   cold     an empty server: every entry compiled and PUT there;
#   warm     every entry from the server: no miss, the same bundle byte for byte;
#   damaged  one object on the server corrupted: detected (counted damaged), compiled again, and replaced by the
#            good entry (the server's file equals the cold build's again);
#   stopped  the server stopped while a build runs (at its first PUT): the build finishes locally, exits as the
#            reference build does, writes the same bundle, and warns once;
#   503      a location that answers 503: one request, one warning, the build as without a remote;
#   refused  a URL nobody listens on: one warning, the build as without a remote.
# Usage: remote_cache_test.sh SHADERBAKE SOURCE_ROOT
bin=$1
root=$2
source "$(dirname "$0")/common.sh"
nginx_bin=$(command -v nginx || echo /usr/sbin/nginx)
if [[ ! -x $nginx_bin ]]; then
  echo "remote_cache_test: nginx is not installed (scripts/setup installs nginx-light)" >&2
  exit 1
fi
trace=$root/samples/traces/session_ref.jsonl
port=$(python3 -c "import socket; s = socket.socket(); s.bind(('127.0.0.1', 0)); print(s.getsockname()[1])")
url=http://127.0.0.1:$port
mkdir -p "$tmp/www" "$tmp/nginx"
cat >"$tmp/nginx.conf" <<CONF
user $(id -un) $(id -gn);
worker_processes 1;
pid $tmp/nginx/nginx.pid;
error_log $tmp/nginx/error.log;
events { worker_connections 64; }
http {
  access_log $tmp/nginx/access.log;
  client_body_temp_path $tmp/nginx/body;
  proxy_temp_path $tmp/nginx/proxy;
  fastcgi_temp_path $tmp/nginx/fastcgi;
  uwsgi_temp_path $tmp/nginx/uwsgi;
  scgi_temp_path $tmp/nginx/scgi;
  server {
    listen 127.0.0.1:$port;
    root $tmp/www;
    location /cas/ {
      dav_methods PUT;
      create_full_put_path on;
      client_max_body_size 256m;
    }
    location /broken/ { return 503; }
  }
}
CONF
start_nginx() {
  "$nginx_bin" -c "$tmp/nginx.conf" -p "$tmp/nginx" -e "$tmp/nginx/error.log" || return 1
  for _ in $(seq 100); do
    python3 -c "import socket; socket.create_connection(('127.0.0.1', $port), 0.1)" 2>/dev/null && return 0
    sleep 0.05
  done
  return 1
}
stop_nginx() {
  local pid
  pid=$(cat "$tmp/nginx/nginx.pid" 2>/dev/null) || return 0
  kill "$pid" 2>/dev/null
  for _ in $(seq 100); do kill -0 "$pid" 2>/dev/null || return 0; sleep 0.05; done
  kill -9 "$pid" 2>/dev/null
}
trap 'stop_nginx; rm -rf "$tmp"' EXIT
check "nginx starts on 127.0.0.1:$port ($(tail -c 300 "$tmp/nginx/error.log" 2>/dev/null))" start_nginx

# The reference: the same traces built with no cache at all.
"$bin" build "$trace" -o "$tmp/ref.sbk" --no-cache >/dev/null 2>&1
ref_rc=$?
check "the reference build exits 0 or 1 (got $ref_rc)" test $ref_rc -le 1

run() {  # run NAME [OPTIONS...]: a build with a fresh local cache and the remote; JSON in $tmp/NAME.json
  local name=$1
  shift
  "$bin" build "$trace" -o "$tmp/$name.sbk" --cache-dir "$tmp/local_$name" --no-build-memo --json "$@" \
    >"$tmp/$name.json" 2>"$tmp/$name.err"
  echo $? >"$tmp/$name.rc"
}
remote() {  # remote NAME EXPR: EXPR over r, the build's remote cache summary
  json_field "$tmp/$1.json" "(lambda r: $2)(d['cache']['remote'])"
}

run cold --cache-url "$url"
check "cold: exits as the reference ($(cat "$tmp/cold.rc"))" test "$(cat "$tmp/cold.rc")" = "$ref_rc"
check "cold: the same bundle as the reference" cmp -s "$tmp/cold.sbk" "$tmp/ref.sbk"
entries=$(json_field "$tmp/cold.json" "d['cache']['misses']")
check "cold: something was compiled ($entries entries)" test "$entries" -gt 0
check "cold: every entry missed on the server and was stored there" test "$(remote cold "(r['hits'], r['misses'], r['stores'], r['failure'])")" = "(0, $entries, $entries, None)"
check "cold: the server holds them" test "$(find "$tmp/www/cas" -type f | wc -l)" -eq "$entries"
cp -r "$tmp/www/cas" "$tmp/cas_cold"

run warm --cache-url "$url"
check "warm: exits as the reference" test "$(cat "$tmp/warm.rc")" = "$ref_rc"
check "warm: the same bundle" cmp -s "$tmp/warm.sbk" "$tmp/ref.sbk"
check "warm: every entry from the server, nothing compiled" test "$(json_field "$tmp/warm.json" "(d['cache']['hits'], d['cache']['misses'])")" = "($entries, 0)"
check "warm: the server answered all, stored nothing" test "$(remote warm "(r['hits'], r['misses'], r['corrupt'], r['stores'], r['failure'])")" = "($entries, 0, 0, 0, None)"
check "warm: the local cache kept what the server answered" test "$(find "$tmp/local_warm" -name '*.sbkc' | wc -l)" -eq "$entries"

victim=$(find "$tmp/www/cas" -type f | sort | head -n 1)
flip_bits "$victim" 100 0x20
run damaged --cache-url "$url"
check "damaged: exits as the reference" test "$(cat "$tmp/damaged.rc")" = "$ref_rc"
check "damaged: the same bundle" cmp -s "$tmp/damaged.sbk" "$tmp/ref.sbk"
check "damaged: one object detected damaged, the rest served" test "$(remote damaged "(r['hits'], r['corrupt'], r['stores'], r['failure'])")" = "($((entries - 1)), 1, 1, None)"
check "damaged: the server's object replaced by the good entry" cmp -s "$victim" "$tmp/cas_cold/$(basename "$victim")"

run unavailable --cache-url "$url/broken" -j 1
check "server error: exits as the reference" test "$(cat "$tmp/unavailable.rc")" = "$ref_rc"
check "server error: the same bundle" cmp -s "$tmp/unavailable.sbk" "$tmp/ref.sbk"
check "server error: one request on one thread, then out of use (nothing more asked)" test "$(grep -c ' /broken/' "$tmp/nginx/access.log")" -eq 1
check "server error: one warning naming the status" test "$(grep -c "remote cache $url/broken out of use from here on: GET .*HTTP status 503" "$tmp/unavailable.err")" -eq 1

# A server stopped mid-build: an empty server again, stopped when the build's first PUT reaches it.
stop_nginx
rm -rf "$tmp/www/cas" "$tmp/nginx/access.log"
check "nginx starts again" start_nginx
run stopped --cache-url "$url" -j 1 &
build_pid=$!
for _ in $(seq 2000); do
  grep -q '"PUT /cas/' "$tmp/nginx/access.log" 2>/dev/null && break
  sleep 0.01
done
stop_nginx
wait $build_pid
check "stopped: exits as the reference ($(cat "$tmp/stopped.rc"); $(head -c 300 "$tmp/stopped.err"))" test "$(cat "$tmp/stopped.rc")" = "$ref_rc"
check "stopped: the same bundle" cmp -s "$tmp/stopped.sbk" "$tmp/ref.sbk"
check "stopped: the server took some entries and then failed" test "$(remote stopped "r['stores'] > 0 and r['stores'] < $entries and r['failure'] is not None")" = "True"
check "stopped: one warning about the remote cache" test "$(grep -c 'remote cache .* out of use' "$tmp/stopped.err")" -eq 1

run refused --cache-url "http://127.0.0.1:$port/prefix"
check "refused: exits as the reference" test "$(cat "$tmp/refused.rc")" = "$ref_rc"
check "refused: the same bundle" cmp -s "$tmp/refused.sbk" "$tmp/ref.sbk"
check "refused: one warning naming the URL" test "$(grep -c "remote cache http://127.0.0.1:$port/prefix out of use" "$tmp/refused.err")" -eq 1

"$bin" build "$trace" -o "$tmp/bad.sbk" --cache-url "ftp://127.0.0.1/" >/dev/null 2>"$tmp/bad.err"
check "a URL that is not http(s) is a usage error (exit 2)" test $? -eq 2
check "and says why" grep -q "not an http:// or https:// URL" "$tmp/bad.err"
"$bin" build "$trace" -o "$tmp/bad.sbk" --no-cache --cache-url "$url" >/dev/null 2>&1
check "--cache-url with --no-cache is a usage error (exit 2)" test $? -eq 2

finish remote_cache
