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

# The same kind of config signed by Python's `cryptography` (PyPI), when it is installed.
if python3 -c 'import cryptography' 2>/dev/null; then
  python3 - "$out" <<'PY'
import base64, json, sys
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
out = sys.argv[1]
key = Ed25519PrivateKey.generate()
pub = base64.b64encode(key.public_key().public_bytes(
    serialization.Encoding.Raw, serialization.PublicFormat.Raw)).decode()
trust = '{"keys":[{"id":"python","ed25519":"%s"}],"threshold":1}' % pub
open(out + "/trust.python.json", "w").write(trust)
config = ('{"version":8,"expires_at":4102444800,"trust":%s,"biz_lines":{"spot":{"match":'
          '["api.example.com"],"http":[{"id":"a","url":"https://spot-a.example.com"}]}}}' % trust).encode()
env = {"signed": base64.b64encode(config).decode(),
       "signatures": [{"key_id": "python", "sig": base64.b64encode(key.sign(config)).decode()}]}
open(out + "/envelope.python.json", "w").write(json.dumps(env, separators=(",", ":")))
PY
else
  echo "make_signing_fixtures.sh: python3 'cryptography' not installed; kept envelope.python.json" >&2
fi
