#!/usr/bin/env bash
# `./build.sh chaos`: the chaos suite. Linekit and a plain OkHttp client (the baseline) run
# on the host JVM against real third-party servers, under real faults:
#
#   lines   nginx (Debian), one server block per line, behind Toxiproxy (go install), which
#           injects reset_peer, timeout, limit_data, latency and down per line;
#   DNS     dnsmasq (Debian) as the system resolver of the client, and two open-source DoH
#           servers in front of it for HTTPDNS: dnss (Debian) in RFC 8484 mode, async-doh
#           (PyPI, in a venv under target/chaos) for the JSON API;
#   kernel  two network namespaces joined by a veth pair, with dual-stack addresses that
#           exist only inside them (100.64.77.0/24 and fd6c:6b::/64), and iptables /
#           ip6tables DROP and REJECT rules per address family inside the client namespace.
#
# Nothing leaves the two namespaces: they have no route but their shared link. The JVM
# runs inside the client namespace, so every address it can reach is one the run created.
#
# Every tool is installed here when missing (apt-get; go install into target/chaos/bin),
# so a fresh machine needs nothing else. Where network namespaces cannot be created (no
# root, no CAP_NET_ADMIN, a restricted container) the suite prints why and exits 0.
# Results: bench/results/chaos.json and bench/results/chaos.md (the BENCHMARKS.md table).
# Always removes its namespaces and processes, also on failure or Ctrl-C.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
cd "$ROOT"
WORK="$ROOT/target/chaos"
BIN="$WORK/bin"
RUN="$WORK/run"
NS_CLI=lkc-cli
NS_SRV=lkc-srv
V4_CLI=100.64.77.1
V4_SRV=100.64.77.2
V6_CLI=fd6c:6b::1
V6_SRV=fd6c:6b::2
TOXIPROXY_VERSION=${TOXIPROXY_VERSION:-v2.5.0}

say() { echo "chaos: $*"; }

skip() {
  say "SKIPPED: $*"
  say "0 scenarios run (the suite needs Linux network namespaces, i.e. root with CAP_NET_ADMIN)"
  exit 0
}

# --- can we make namespaces here? -------------------------------------------------------
[ "$(uname -s)" = Linux ] || skip "not Linux"
[ "$(id -u)" = 0 ] || skip "not root"
command -v ip >/dev/null 2>&1 || skip "iproute2 (ip) is missing"
probe_ns="lkc-probe-$$"
if ! ip netns add "$probe_ns" 2>/dev/null; then
  skip "'ip netns add' is not permitted here"
fi
ip netns del "$probe_ns"

# --- tools --------------------------------------------------------------------------------
need_apt=()
command -v nginx >/dev/null 2>&1 || need_apt+=(nginx-light)
command -v dnsmasq >/dev/null 2>&1 || need_apt+=(dnsmasq-base)
command -v dnss >/dev/null 2>&1 || need_apt+=(dnss)
command -v iptables >/dev/null 2>&1 || need_apt+=(iptables)
if [ ${#need_apt[@]} -gt 0 ]; then
  say "installing ${need_apt[*]} (apt-get)"
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${need_apt[@]}" >/dev/null
fi
# Debian starts packaged daemons on install where it can; this suite runs its own.
for svc in nginx dnsmasq dnss; do
  if command -v systemctl >/dev/null 2>&1; then systemctl stop "$svc" >/dev/null 2>&1 || true; fi
done
mkdir -p "$BIN"
if [ ! -x "$BIN/toxiproxy-server" ]; then
  command -v go >/dev/null 2>&1 || { echo "chaos: 'go' is required to install Toxiproxy" >&2; exit 1; }
  say "installing Toxiproxy $TOXIPROXY_VERSION (go install)"
  GOBIN="$BIN" go install "github.com/Shopify/toxiproxy/v2/cmd/server@$TOXIPROXY_VERSION"
  mv "$BIN/server" "$BIN/toxiproxy-server"
fi
# The JSON-mode DoH server: async-doh 0.2.1 (its 0.3.0 cannot serialise async-dns 2's
# records), pinned with its dependencies. Without it the JSON scenario is skipped, not failed.
DOH_JSON_VENV="$WORK/doh-json-venv"
doh_json=no
if [ -x "$DOH_JSON_VENV/bin/python" ] && "$DOH_JSON_VENV/bin/python" -c 'import async_doh.server' 2>/dev/null; then
  doh_json=yes
elif command -v python3 >/dev/null 2>&1; then
  say "installing async-doh (JSON-mode DoH server) into $DOH_JSON_VENV (pip)"
  if python3 -m venv "$DOH_JSON_VENV" >/dev/null 2>&1 &&
    "$DOH_JSON_VENV/bin/pip" install -q async-doh==0.2.1 async-dns==1.1.10 aiohttp==3.14.5 >/dev/null 2>&1; then
    doh_json=yes
  else
    say "async-doh did not install: the JSON-mode DoH scenario will be skipped"
  fi
fi
command -v java >/dev/null 2>&1 || { echo "chaos: 'java' is required" >&2; exit 1; }
command -v mvn >/dev/null 2>&1 || { echo "chaos: 'mvn' is required" >&2; exit 1; }

# --- the client: liblinekit.so (with the RFC 8484 provider) and the harness ----------------
say "building liblinekit.so and the Kotlin bindings"
"$ROOT/build.sh" bindings >/dev/null
mvn -B -ntp -q -f android-bindings/android/pom.xml install -DskipTests -Dlinekit.native.dir="$ROOT/target/debug"
cp_file=$(mktemp)
mvn -B -ntp -q -f bench/chaos/pom.xml package dependency:build-classpath -Dmdep.outputFile="$cp_file"
CLASSPATH_CHAOS="$ROOT/android-bindings/android/target/classes:$ROOT/bench/chaos/target/classes:$(cat "$cp_file")"
rm -f "$cp_file"

# --- topology ------------------------------------------------------------------------------
cleanup() {
  set +e
  if [ -d "$RUN/pids" ]; then
    for f in "$RUN"/pids/*; do
      [ -f "$f" ] || continue
      pid=$(cat "$f")
      kill "$pid" 2>/dev/null
    done
    sleep 0.3
    for f in "$RUN"/pids/*; do
      [ -f "$f" ] || continue
      pid=$(cat "$f")
      kill -9 "$pid" 2>/dev/null
    done
  fi
  ip netns del "$NS_CLI" 2>/dev/null
  ip netns del "$NS_SRV" 2>/dev/null
  rm -rf "/etc/netns/$NS_CLI"
}
trap cleanup EXIT INT TERM
cleanup
rm -rf "$RUN"
mkdir -p "$RUN/pids" "$RUN/logs" "$RUN/www"

say "creating namespaces $NS_CLI and $NS_SRV (veth, $V4_CLI/$V6_CLI <-> $V4_SRV/$V6_SRV)"
ip netns add "$NS_CLI"
ip netns add "$NS_SRV"
ip link add lkc-c netns "$NS_CLI" type veth peer name lkc-s netns "$NS_SRV"
for ns in "$NS_CLI" "$NS_SRV"; do ip -n "$ns" link set lo up; done
ip -n "$NS_CLI" addr add "$V4_CLI/24" dev lkc-c
ip -n "$NS_CLI" -6 addr add "$V6_CLI/64" dev lkc-c nodad
ip -n "$NS_SRV" addr add "$V4_SRV/24" dev lkc-s
ip -n "$NS_SRV" -6 addr add "$V6_SRV/64" dev lkc-s nodad
ip -n "$NS_CLI" link set lkc-c up
ip -n "$NS_SRV" link set lkc-s up
# The client's system resolver is dnsmasq in the server namespace (`ip netns exec` binds
# /etc/netns/NAME/* over /etc/*).
mkdir -p "/etc/netns/$NS_CLI"
echo "nameserver $V4_SRV" >"/etc/netns/$NS_CLI/resolv.conf"
printf '127.0.0.1 localhost\n::1 localhost\n' >"/etc/netns/$NS_CLI/hosts"

in_srv() { ip netns exec "$NS_SRV" "$@"; }
start() { # name, command...
  local name=$1
  shift
  in_srv "$@" >"$RUN/logs/$name.out" 2>&1 &
  echo $! >"$RUN/pids/$name"
}

# Content: a ping, an API answer, bodies to cut (small and large with a length, and one
# sent chunked: gzip makes nginx stream it without a Content-Length).
head -c 4096 /dev/urandom | base64 -w 0 | head -c 4096 >"$RUN/www/small"
head -c 786432 /dev/urandom | base64 -w 0 >"$RUN/www/large"
yes 'chunked body line for the chaos suite' | head -c 262144 >"$RUN/www/chunked.txt"

cat >"$RUN/nginx.conf" <<EOF
daemon off;
worker_processes 1;
pid $RUN/nginx.pid;
error_log $RUN/logs/nginx-error.log warn;
events { worker_connections 1024; }
http {
  access_log off;
  # Every request as the server saw it: what a leaked X-Line-* header or a second
  # delivery of a POST would look like.
  log_format chaos '\$msec|\$request_method|\$uri|\$http_x_request_id|\$http_x_line_biz|\$http_x_line_fixed_host|\$http_x_line_keep_original_host|\$http_x_line_chaos';
  keepalive_timeout 60s;
  keepalive_requests 100000;
  client_body_temp_path $RUN/tmp-body;
  proxy_temp_path $RUN/tmp-proxy;
  fastcgi_temp_path $RUN/tmp-fcgi;
  uwsgi_temp_path $RUN/tmp-uwsgi;
  scgi_temp_path $RUN/tmp-scgi;
  types { text/plain txt; application/octet-stream bin; }
  default_type application/octet-stream;
EOF
for i in 1 2 3; do
  cat >>"$RUN/nginx.conf" <<EOF
  server {
    listen 127.0.0.1:900$i;
    access_log $RUN/logs/line$i.log chaos;
    root $RUN/www;
    location = /line/ping { return 200 "pong"; }
    location = /api/v1/ticker { default_type application/json; return 200 '{"line":$i}'; }
    location = /orders { default_type application/json; return 200 '{"ok":true}'; }
    location = /blob/small { try_files /small =404; }
    location = /blob/large { try_files /large =404; }
    location = /blob/chunked { gzip on; gzip_min_length 1; gzip_types text/plain; gzip_proxied any; try_files /chunked.txt =404; }
  }
EOF
done
echo "}" >>"$RUN/nginx.conf"

say "starting nginx (3 lines), dnsmasq, dnss and async-doh (DoH), Toxiproxy in $NS_SRV"
start nginx nginx -c "$RUN/nginx.conf" -e "$RUN/logs/nginx-error.log"
start dnsmasq dnsmasq --keep-in-foreground --no-resolv --no-hosts --bind-interfaces \
  --listen-address="$V4_SRV,127.0.0.1" --port=53 --local-ttl=2 --log-facility="$RUN/logs/dnsmasq.log" \
  --host-record="line1.chaos.test,$V4_SRV,$V6_SRV" \
  --host-record="line2.chaos.test,$V4_SRV,$V6_SRV" \
  --host-record="line3.chaos.test,$V4_SRV,$V6_SRV" \
  --host-record="api.chaos.test,$V4_SRV,$V6_SRV"
start dnss dnss -enable_https_to_dns -insecure_http_server -https_server_addr="127.0.0.1:8053" \
  -dns_upstream="127.0.0.1:53" -enable_cache=false -logfile="$RUN/logs/dnss.log"
if [ "$doh_json" = yes ]; then
  cat >"$RUN/doh_json.py" <<'EOF'
import sys
from aiohttp import web
from async_dns.resolver import ProxyResolver
from async_doh import server
server.set_resolver(ProxyResolver(proxies=[sys.argv[3]]))
web.run_app(server.application, host=sys.argv[1], port=int(sys.argv[2]), print=None)
EOF
  start doh-json "$DOH_JSON_VENV/bin/python" "$RUN/doh_json.py" 127.0.0.1 8054 127.0.0.1:53
fi
start toxiproxy "$BIN/toxiproxy-server" -host "$V4_SRV" -port 8474

# Wait for everything to listen (bounded).
for _ in $(seq 1 100); do
  if in_srv bash -c "exec 3<>/dev/tcp/$V4_SRV/8474 && exec 3<>/dev/tcp/127.0.0.1/9001 && exec 3<>/dev/tcp/127.0.0.1/8053" 2>/dev/null; then
    break
  fi
  sleep 0.1
done
if [ "$doh_json" = yes ]; then
  for _ in $(seq 1 100); do
    in_srv bash -c "exec 3<>/dev/tcp/127.0.0.1/8054" 2>/dev/null && break
    sleep 0.1
  done
  in_srv bash -c "exec 3<>/dev/tcp/127.0.0.1/8054" 2>/dev/null || { say "async-doh did not start"; doh_json=no; }
fi

say "running the scenarios (JVM in $NS_CLI)"
mkdir -p bench/results
status=0
# shellcheck disable=SC2086
ip netns exec "$NS_CLI" java -Djna.library.path="$ROOT/target/debug" -Djava.library.path="$ROOT/target/debug" \
  -Djava.net.preferIPv6Addresses=true \
  -cp "$CLASSPATH_CHAOS" dev.linekit.chaos.ChaosSuite \
  --toxiproxy "http://$V4_SRV:8474" --server-v4 "$V4_SRV" --server-v6 "$V6_SRV" \
  --logs "$RUN/logs" --doh-json "$doh_json" --out "$ROOT/bench/results/chaos.json" --md "$ROOT/bench/results/chaos.md" \
  ${CHAOS_ARGS:-} || status=$?
exit "$status"
