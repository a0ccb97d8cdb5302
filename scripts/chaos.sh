#!/usr/bin/env bash
# shellcheck disable=SC2317
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
#   TLS     every line also serves HTTPS (nginx, certificates made here by openssl under a
#           CA of the run's own, which the JVM trusts through javax.net.ssl.trustStore), with
#           an expired and a wrong-host certificate for line1 on ports of their own.
#
# Every tool is installed here when missing (apt-get; go install into target/chaos/bin),
# so a fresh machine needs nothing else. Where network namespaces cannot be created (no
# root, no CAP_NET_ADMIN, a restricted container) the suite prints why and exits 0.
#
# Results: bench/results/chaos.json and bench/results/chaos.md (the BENCHMARKS.md table).
#
# Cleanup: every server runs in the foreground as a direct child of this script, so the pid
# recorded is the server's own. On any exit (success, failure, Ctrl-C, TERM) the script
# stops those pids, then every process left in its namespaces (`ip netns pids`: deleting a
# namespace kills nothing), deletes the namespaces, and fails the run if a namespace or a
# process in one of them is left (scripts/chaos-cleanup-test.sh checks this from outside).
#
# Usage: scripts/chaos.sh [--only SCENARIO,...] [--servers-only | --hold]
#   --only          run these scenarios only (also CHAOS_ARGS="--only ...");
#   --servers-only  set up the namespaces and servers, check they listen, and exit;
#   --hold          the same, then wait for a signal (for the cleanup test).
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
cd "$ROOT"
# shellcheck source=scripts/chaos-paths.sh
. "$ROOT/scripts/chaos-paths.sh"
V4_CLI=100.64.77.1
V4_SRV=100.64.77.2
V6_CLI=fd6c:6b::1
V6_SRV=fd6c:6b::2
TOXIPROXY_VERSION=${TOXIPROXY_VERSION:-v2.5.0}
# The inode of each namespace of the last run, kept after the run (for the cleanup check).
NETNS_INODES="$WORK/netns-inodes"

mode=scenarios
only=""
while [ $# -gt 0 ]; do
  case $1 in
    --only) only=$2; shift 2 ;;
    --servers-only) mode=servers; shift ;;
    --hold) mode=hold; shift ;;
    *) echo "chaos: unknown argument '$1' (usage: scripts/chaos.sh [--only A,B] [--servers-only | --hold])" >&2; exit 2 ;;
  esac
done

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
command -v openssl >/dev/null 2>&1 || need_apt+=(openssl)
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

# --- the client: liblinekit.so (with the RFC 8484 provider) and the harness ----------------
if [ "$mode" = scenarios ]; then
  command -v java >/dev/null 2>&1 || { echo "chaos: 'java' is required" >&2; exit 1; }
  command -v mvn >/dev/null 2>&1 || { echo "chaos: 'mvn' is required" >&2; exit 1; }
  command -v keytool >/dev/null 2>&1 || { echo "chaos: 'keytool' (JDK) is required" >&2; exit 1; }
  say "building liblinekit.so and the Kotlin bindings"
  "$ROOT/build.sh" bindings >/dev/null
  mvn -B -ntp -q -f android-bindings/android/pom.xml install -DskipTests -Dlinekit.native.dir="$ROOT/target/debug"
  cp_file=$(mktemp)
  mvn -B -ntp -q -f bench/chaos/pom.xml package dependency:build-classpath -Dmdep.outputFile="$cp_file"
  CLASSPATH_CHAOS="$ROOT/android-bindings/android/target/classes:$ROOT/bench/chaos/target/classes:$(cat "$cp_file")"
  rm -f "$cp_file"
fi

# --- cleanup -------------------------------------------------------------------------------
# (on_exit and what it calls run from the EXIT trap: shellcheck's SC2317 is off for them.)
# Stops every process in namespace $1: TERM, up to 5 s to exit, then KILL (bounded too).
stop_netns_processes() {
  local ns=$1 pids _
  for sig in TERM KILL; do
    pids=$(ip netns pids "$ns" 2>/dev/null) || return 0
    [ -n "$pids" ] || return 0
    # shellcheck disable=SC2086
    kill -s "$sig" $pids 2>/dev/null
    for _ in $(seq 1 50); do
      [ -z "$(ip netns pids "$ns" 2>/dev/null)" ] && return 0
      sleep 0.1
    done
  done
}

# Whether process $1 is in a namespace the last run made (by inode).
in_suite_netns() {
  local link
  link=$(readlink "/proc/$1/ns/net" 2>/dev/null) || return 1
  [ -f "$NETNS_INODES" ] && grep -qx "${link//[^0-9]/}" "$NETNS_INODES"
}

# Prints what a run left behind, one item a line: a namespace of the suite, or a process
# in a namespace the last run made (matched by inode, so also once its name is gone).
chaos_leftovers() {
  local ns ino p
  for ns in "$NS_CLI" "$NS_SRV"; do
    [ -e "/run/netns/$ns" ] && echo "namespace $ns"
  done
  [ -f "$NETNS_INODES" ] || return 0
  while read -r ino; do
    for p in /proc/[0-9]*; do
      if [ "$(readlink "$p/ns/net" 2>/dev/null)" = "net:[$ino]" ]; then
        echo "process ${p#/proc/} ($(tr '\0' ' ' 2>/dev/null <"$p/cmdline" | cut -c1-120)) in net:[$ino]"
      fi
    done
  done <"$NETNS_INODES"
}

cleanup() {
  set +e
  local f ns pid
  # The servers first (a pid is only signalled while it is still in the suite's namespaces).
  if [ -d "$RUN/pids" ]; then
    for f in "$RUN"/pids/*; do
      [ -f "$f" ] || continue
      pid=$(cat "$f")
      in_suite_netns "$pid" && kill "$pid" 2>/dev/null
    done
  fi
  for ns in "$NS_CLI" "$NS_SRV"; do
    [ -e "/run/netns/$ns" ] || continue
    stop_netns_processes "$ns"
    ip netns del "$ns" 2>/dev/null
  done
  rm -rf "/etc/netns/$NS_CLI"
  # Reap the servers (children of this script) so none lingers as a zombie.
  if [ -d "$RUN/pids" ]; then
    for f in "$RUN"/pids/*; do
      [ -f "$f" ] && wait "$(cat "$f")" 2>/dev/null
    done
  fi
}

on_exit() {
  local status=$? left
  trap - EXIT INT TERM
  cleanup
  left=$(chaos_leftovers)
  if [ -n "$left" ]; then
    echo "chaos: the run left these behind:" >&2
    printf '  %s\n' "$left" >&2
    exit 1
  fi
  exit "$status"
}
trap on_exit EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
cleanup
rm -rf "$RUN"
mkdir -p "$RUN/pids" "$RUN/logs" "$RUN/www" "$RUN/tls"

say "creating namespaces $NS_CLI and $NS_SRV (veth, $V4_CLI/$V6_CLI <-> $V4_SRV/$V6_SRV)"
ip netns add "$NS_CLI"
ip netns add "$NS_SRV"
stat -L -c %i "/run/netns/$NS_CLI" "/run/netns/$NS_SRV" >"$NETNS_INODES"
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
# Starts a server in the foreground, in the server namespace, as a child of this script:
# `ip netns exec` enters the namespace and execs the server in the same process, so $! is
# the server's own pid (not a wrapper's).
start() { # name, command...
  local name=$1
  shift
  ip netns exec "$NS_SRV" "$@" >"$RUN/logs/$name.out" 2>&1 &
  echo $! >"$RUN/pids/$name"
}

# --- TLS material: a CA of this run, and per line a certificate for its host; for line1
# also an expired one and one for another host. P-256 keys; valid for 2 days.
make_certs() {
  local t=$RUN/tls i
  openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -days 2 \
    -keyout "$t/ca.key" -out "$t/ca.pem" -subj "/CN=Linekit chaos CA" 2>/dev/null
  : >"$t/index.txt"
  echo 01 >"$t/serial"
  cat >"$t/ca.cnf" <<EOF
[ca]
default_ca = chaos
[chaos]
database = $t/index.txt
new_certs_dir = $t
serial = $t/serial
default_md = sha256
policy = any
unique_subject = no
[any]
commonName = supplied
EOF
  # leaf NAME HOST [openssl ca validity flags...]
  leaf() {
    local name=$1 host=$2
    shift 2
    openssl req -new -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes \
      -keyout "$t/$name.key" -out "$t/$name.csr" -subj "/CN=$host" 2>/dev/null
    echo "subjectAltName=DNS:$host" >"$t/$name.ext"
    openssl ca -batch -notext -config "$t/ca.cnf" -cert "$t/ca.pem" -keyfile "$t/ca.key" \
      -in "$t/$name.csr" -out "$t/$name.pem" -extfile "$t/$name.ext" "$@" 2>/dev/null
  }
  for i in 1 2 3; do leaf "line$i" "line$i.chaos.test" -days 2; done
  leaf line1-expired line1.chaos.test -startdate 20200101000000Z -enddate 20200102000000Z
  leaf line1-wrong-host wrong.chaos.test -days 2
  if [ "$mode" = scenarios ]; then
    keytool -importcert -noprompt -storetype PKCS12 -keystore "$t/trust.p12" -storepass chaos-trust \
      -alias linekit-chaos-ca -file "$t/ca.pem" >/dev/null 2>&1
  fi
}
make_certs

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
  # Every request as the server saw it: what a leaked X-Line-* header, a second delivery
  # of a POST or a request in cleartext would look like.
  log_format chaos '\$msec|\$request_method|\$uri|\$http_x_request_id|\$http_x_line_biz|\$http_x_line_fixed_host|\$http_x_line_keep_original_host|\$http_x_line_chaos|\$scheme|\$http_x_chaos_scenario';
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
# server LISTEN LINE [TLS directives]: one line's server block; every block of line N logs
# to lineN.log, whatever port or certificate it serves.
server_block() {
  local listen=$1 n=$2
  shift 2
  cat >>"$RUN/nginx.conf" <<EOF
  server {
    listen $listen;
    $*
    access_log $RUN/logs/line$n.log chaos;
    root $RUN/www;
    location = /line/ping { return 200 "pong"; }
    location = /api/v1/ticker { default_type application/json; return 200 '{"line":$n}'; }
    location = /orders { default_type application/json; return 200 '{"ok":true}'; }
    location = /blob/small { try_files /small =404; }
    location = /blob/large { try_files /large =404; }
    location = /blob/chunked { gzip on; gzip_min_length 1; gzip_types text/plain; gzip_proxied any; try_files /chunked.txt =404; }
  }
EOF
}
tls_with() { echo "ssl_certificate $RUN/tls/$1.pem; ssl_certificate_key $RUN/tls/$1.key;"; }
for i in 1 2 3; do
  server_block "127.0.0.1:900$i" "$i"
  server_block "127.0.0.1:910$i ssl" "$i" "$(tls_with "line$i")"
done
# line1's faulty certificates (the TLS scenarios point line1's proxy here).
server_block "127.0.0.1:9111 ssl" 1 "$(tls_with line1-expired)"
server_block "127.0.0.1:9112 ssl" 1 "$(tls_with line1-wrong-host)"
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

# Wait for everything to listen (bounded); a server that never does fails the run.
listening() { # host:port...
  local hp script=""
  for hp in "$@"; do script+="exec 3<>/dev/tcp/${hp%:*}/${hp##*:} && "; done
  in_srv bash -c "${script}true" 2>/dev/null
}
servers=("$V4_SRV:8474" 127.0.0.1:9001 127.0.0.1:9101 127.0.0.1:9111 127.0.0.1:9112 127.0.0.1:8053)
for _ in $(seq 1 100); do
  listening "${servers[@]}" && break
  sleep 0.1
done
if ! listening "${servers[@]}"; then
  say "a server did not start listening (${servers[*]}); logs in $RUN/logs" >&2
  tail -n 5 "$RUN"/logs/*.out >&2 || true
  exit 1
fi
if [ "$doh_json" = yes ]; then
  for _ in $(seq 1 100); do
    listening 127.0.0.1:8054 && break
    sleep 0.1
  done
  listening 127.0.0.1:8054 || { say "async-doh did not start"; doh_json=no; }
fi
# The pid recorded for each server is the server's own: a process in the namespace.
for f in "$RUN"/pids/*; do
  if ! ip netns pids "$NS_SRV" | grep -qx "$(cat "$f")"; then
    say "the pid recorded for $(basename "$f") is not a process in $NS_SRV" >&2
    exit 1
  fi
done
say "servers up: $(ip netns pids "$NS_SRV" | wc -l) processes in $NS_SRV"

case $mode in
  servers) exit 0 ;;
  hold)
    say "holding until a signal"
    # Short sleeps: a signal's trap runs once the current one ends.
    while :; do sleep 0.2; done
    ;;
esac

say "running the scenarios (JVM in $NS_CLI)"
mkdir -p bench/results
status=0
# The JVM runs in the background and the script waits for it, so a signal to the script
# runs the cleanup at once (which stops the JVM with everything else in the namespaces).
# Its default trust store is the run's CA only: probes and business calls check the lines'
# certificates against it.
[ -n "$only" ] && only_args=(--only "$only") || only_args=()
# shellcheck disable=SC2086
ip netns exec "$NS_CLI" java -Djna.library.path="$ROOT/target/debug" -Djava.library.path="$ROOT/target/debug" \
  -Djava.net.preferIPv6Addresses=true \
  -Djavax.net.ssl.trustStore="$RUN/tls/trust.p12" -Djavax.net.ssl.trustStoreType=PKCS12 \
  -Djavax.net.ssl.trustStorePassword=chaos-trust \
  -cp "$CLASSPATH_CHAOS" dev.linekit.chaos.ChaosSuite \
  --toxiproxy "http://$V4_SRV:8474" --server-v4 "$V4_SRV" --server-v6 "$V6_SRV" \
  --logs "$RUN/logs" --doh-json "$doh_json" --out "$ROOT/bench/results/chaos.json" --md "$ROOT/bench/results/chaos.md" \
  "${only_args[@]}" ${CHAOS_ARGS:-} &
echo $! >"$RUN/pids/jvm"
wait $! || status=$?
exit "$status"
