#!/usr/bin/env bash
# Regenerates rust-core/tests/fixtures/signing: a config signed by OpenSSL's Ed25519
# (an implementation independent of the one Linekit uses), for the interoperability test.
# The private key is thrown away; only the public key, the config and the envelope stay.
set -euo pipefail
command -v openssl >/dev/null || { echo "make_signing_fixtures.sh: openssl is required" >&2; exit 1; }
out="$(cd "$(dirname "$0")/.." && pwd)/rust-core/tests/fixtures/signing"
mkdir -p "$out"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
openssl genpkey -algorithm ed25519 -out "$tmp/key.pem"
pub=$(openssl pkey -in "$tmp/key.pem" -pubout -outform DER | tail -c 32 | base64 -w0)
printf '{"keys":[{"id":"openssl","ed25519":"%s"}],"threshold":1}' "$pub" > "$out/trust.json"
printf '{"version":7,"expires_at":4102444800,"trust":{"keys":[{"id":"openssl","ed25519":"%s"}],"threshold":1},"biz_lines":{"spot":{"match":["api.example.com"],"http":[{"id":"a","url":"https://spot-a.example.com"}]}}}' "$pub" > "$out/config.json"
openssl pkeyutl -sign -inkey "$tmp/key.pem" -rawin -in "$out/config.json" -out "$tmp/sig.bin"
printf '{"signed":"%s","signatures":[{"key_id":"openssl","sig":"%s"}]}' \
  "$(base64 -w0 < "$out/config.json")" "$(base64 -w0 < "$tmp/sig.bin")" > "$out/envelope.openssl.json"
echo "wrote $out"
